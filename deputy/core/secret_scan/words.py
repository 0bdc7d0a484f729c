"""Recovery phrases and one-time codes.

A wallet's recovery phrase is 12-24 words of the BIP-39 English list (`data/bip39_english.txt`,
MIT, see `data/README.md`); ordinary English rarely strings twelve of them together, since
"the", "a", "I", "is" are not in it. With "seed phrase" or "recovery words" before them,
eight are enough (part of a phrase is still worth hiding).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from deputy.core.secret_scan.hits import Hit

_WORDS = re.compile(r"[a-z]+")
_SEED_CONTEXT = re.compile(r"(?i)\b(?:seed|recovery|backup|secret|mnemonic|wallet|metamask|ledger|trezor)\b"
                           r"|\b(?:phrase|words)\b|semilla|palabras|wiederherstellung|phrase de récupération")


@cache
def bip39() -> frozenset[str]:
    return frozenset((Path(__file__).parent / "data" / "bip39_english.txt").read_text().split())


_NAMED_SEED = re.compile(r"(?i)\b(?:seed|recovery|backup|secret|mnemonic)\s+(?:phrase|words)\b\s*(?:is|:|=|-)?\s*"
                         r"(?P<value>(?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8})\b")


def seed_hits(text: str, lowered: str) -> list[Hit]:
    words = bip39()
    need = 8 if _SEED_CONTEXT.search(text) else 12
    run: list[re.Match[str]] = []
    found = []
    for match in _WORDS.finditer(lowered):
        gap = lowered[run[-1].end(): match.start()] if run else ""
        if match.group(0) in words and (not run or re.fullmatch(r"[\s,;.\-]*(?:\d{1,2}[.):]?\s*)?", gap)):
            run.append(match)
            continue
        if len(run) >= need:
            found.append(Hit("seed_phrase", run[0].start(), run[-1].end()))
        run = [match] if match.group(0) in words else []
    if len(run) >= need:
        found.append(Hit("seed_phrase", run[0].start(), run[-1].end()))
    found.extend(Hit("seed_phrase", *m.span("value")) for m in _NAMED_SEED.finditer(text))
    return found


_OTP = re.compile(
    r"(?i)(?<![\w-])(?P<word>[\w-]*?(?:code|codes|kode|c[óo]digo|codice|otp|tan|passcode|combo|combination|kod|"
    r"token|pin)|2fa|mfa)\b(?P<gap>[^\d\n.?!]{0,20}?)(?<![\w-])"
    r"(?P<value>\d{3}[ -]?\d{1,5}|\d{4,8}|(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{5,8})(?![\w-])"
)
_BEFORE_CODE = re.compile(
    r"(?i)(?<![\w-])(?:[A-Z]-)?(?P<value>\d{4,8})\s+(?:is|est|ist|es|è|é|is je|er)\s+(?:your|my|the|votre|ihr|dein|tu|su|"
    r"je|il tuo)\s+(?:[\w-]+\s+){0,3}?(?:code|codes|otp|pin|passcode|token|c[óo]digo|codice|kode|code de vérification)\b"
)
_SENT_ME = re.compile(r"(?i)\b(?:texted|sent|sms(?:ed)?|messaged|emailed|gave)\s+(?:me|us)\s+(?:the\s+)?(?:code\s+)?"
                      r"(?P<value>\d{4,8})\b")
_CODE_WORD_LOOK_ALIKE = re.compile(
    r"(?i)^(?:zip|postal|post|area|promo|promotional|discount|coupon|voucher|referral|country|dial(?:ing)?|error|status|"
    r"exit|return|http|response|qr|dress|source|tracking|booking|confirmation|reservation|order|product|item|style|"
    r"colou?r|course|class|airport|iata|hs|tax|billing|sort|swift|bic|routing|bank|branch|region|gift|fare|rate|"
    r"reference|invoice|event|ticket|promotion|bar|postleitzahl|gutschein|rabatt|aktions|"
    r"promocional|descuento|postal|barcode|zipcode|postcode|promocode|discountcode|errorcode|qrcode|sourcecode|"
    r"area-?code|fehlercode|artikel|article|articolo|sconto|codice fiscale|cap|departure|flight|seat|room|"
    r"train|platform|bus|track|unit|apartment|suite|table|lot|parking|bay|dock|pin)$"
)
_CODE_BEFORE_LOOK_ALIKE = re.compile(
    r"(?i)\b(?:zip|postal|post|area|promo|discount|coupon|voucher|referral|country|error|status|qr|dress|source|"
    r"tracking|booking|confirmation|reservation|order|product|item|gift|reference|invoice|ticket|promotion|"
    r"flight|departure|seat|article|articolo|artikel|sconto|rabatt|descuento|postal|fiscale|tax|sort|swift|"
    r"routing|airport|class|course)\s*$"
)


def code_hits(text: str) -> list[Hit]:
    found = []
    for match in _OTP.finditer(text):
        word = match.group("word").lower()
        if word == "pin" or _CODE_WORD_LOOK_ALIKE.match(word):
            continue  # "promo code 1234", "zip code 94110"; a PIN is the card codes' business
        stem = re.sub(r"(?:codes?|kode|c[óo]digo|codice|kod)$", "", word).strip("-")
        if stem and _CODE_WORD_LOOK_ALIKE.match(stem):
            continue  # "zipcode", "postcode", "Fehlercode"
        if _CODE_BEFORE_LOOK_ALIKE.search(text[max(0, match.start() - 24): match.start()]):
            continue
        gap = match.group("gap")
        if len(gap.strip()) > 2 and not re.search(r"(?i)\b(?:is|was|ist|est|es|lautet|è|é|for|to|are|sont|sind)\b|[:=]", gap):
            continue  # "code of conduct section 4" etc.
        found.append(Hit("one_time_code", *match.span("value")))
    found.extend(Hit("one_time_code", *m.span("value")) for m in _BEFORE_CODE.finditer(text))
    found.extend(Hit("one_time_code", *m.span("value")) for m in _SENT_ME.finditer(text))
    return found
