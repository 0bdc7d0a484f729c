"""Free text in a negotiation is held unless it plainly commits to nothing.

A move's optional note, a question, and a message the agent wrote itself are read for what a
person would take as binding: any amount (digits, words, look-alike characters, slang, a sum),
any word of agreement ("yes", "ok", "confirmed", "works", "deal", 👍), any payment arrangement
(a link, a transfer, a deposit, paying off the platform), any contact detail, and anything the
user marked private (by meaning, through `similar`). Whether a reply accepts the deal on the table
is read by `acceptance.accepts_their_deal`, from the exchange's structure. Pure: no IO.
"""

from __future__ import annotations

import re
from typing import Callable

from deputy.sentinel.negotiation.amounts import normalise

Similar = Callable[[str, list[str]], list[str]]
"""(text, items) -> the items the text says, by meaning; see `meaning_match`."""

_AMOUNT = re.compile(
    r"\d|[$€£¥₹]|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
    r"grand|million|k|gs?|bucks|dollars?|euros?|pounds?|quid|half|double|twice|usd|eur|gbp|cad|aud)\b",
    re.IGNORECASE)
_AGREE = re.compile(
    r"^\s*(?:y(?:es|eah|ep|up|a)|ok(?:ay)?|k|sure|fine|alright|right|correct|confirmed?|agreed?|absolutely|"
    r"definitely|certainly|of course|perfect|great|good|done|deal|sold|works|go ahead|you bet|affirmative)\b|"
    r"\b(?:deal|agreed?|agreement|accept(?:ed|s)?|confirm(?:ed|s)?|works for|it'?s yours|sold|you(?:'ve)? got it|"
    r"take it|go ahead|let'?s do (?:it|that)|sounds good|settled|shake on|we have a|count me in|i'?m in|"
    r"that'?s fine|fine by|no problem|happy (?:with|to)|on board|commit|promise|guarantee|hold it|reserve|"
    r"it'?s a go|done|final|binding|sign|good with (?:that|it)|fine with (?:that|it)|works)\b|[👍✅🤝✔☑👌]|"
    # Agreement in other languages the counterpart may write in.
    r"\b(?:s[ií]|vale|de acuerdo|trato hecho|oui|d'accord|entendu|ja|einverstanden|abgemacht|geht klar|"
    r"passt)\b|はい|了解|お願いします|いいです|好的|可以",
    re.IGNORECASE)
_PAYMENT = re.compile(
    r"\b(?:pay(?:ment|ing|s|ed)?|paid|link|transfer|wire|zelle|venmo|paypal|cash ?app|crypto|bitcoin|gift ?cards?|"
    r"deposit|invoice|checkout|escrow|off(?:-| )(?:the )?(?:platform|app|site)|outside (?:the )?(?:app|platform|site)|"
    r"cashier'?s?|check|cheque|money order|western union|bank|account|iban|routing|card|cvv|send (?:you )?money|"
    r"refund)\b",
    re.IGNORECASE)
_CONTACT = re.compile(r"[\w.+-]+@[\w-]+\.\w|https?://|www\.|\b\w+\.(?:com|net|org|io|me|ly)\b|\+?\d[\d\s().-]{7,}",
                      re.IGNORECASE)


AGREEMENT = "it has words of agreement"


def text_problems(text: str, private: list[str], similar: Similar | None = None) -> list[str]:
    """What in `text` could bind the user or say something private; empty when it plainly does neither."""
    plain = normalise(text)
    found = []
    if _AMOUNT.search(plain):
        found.append("it carries an amount or a number")
    if _AGREE.search(plain):
        found.append(AGREEMENT)
    if _PAYMENT.search(plain):
        found.append("it speaks of payment")
    if _CONTACT.search(plain):
        found.append("it carries a contact detail or a link")
    said = (similar or exact_items)(plain, private)
    if said:
        found.append("it says something you marked private")
    return found


def exact_items(text: str, items: list[str]) -> list[str]:
    squashed = re.sub(r"[\W_]+", "", text.lower())
    return [item for item in items if len(key := re.sub(r"[\W_]+", "", item.lower())) >= 3 and key in squashed]


def agrees(text: str) -> bool:
    return bool(_AGREE.search(normalise(text)))
