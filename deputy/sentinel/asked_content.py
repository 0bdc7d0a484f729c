"""What the user asked a message to say, against what the message says, where code can tell.

"Tell my boss I'll be ten minutes late" says what the body must carry; "ask Sam whether
Friday works" says it must ask something. A body that asks nothing when the user wanted a
question asked, that carries almost none of the words of what the user wanted said, or that
states numbers found nowhere in the user's words or in what the goal read, goes on a card
with the user's request beside it. Deliberately general (no phrasings of particular
messages), and lenient about rewording: a card costs a tap, an unchecked message may cost
a job. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from deputy.sentinel.textflow import string_fields

# "tell my boss (that) …", "let Sam know …", "email ann@x.org that …", "ask Sam whether …"
_REQUEST = re.compile(
    r"(?:^|[.!?,;:]\s*|\b(?:and|then|please|pls|also|to|can you|could you)\s+)"
    r"(?:tell|inform|notify|remind|let|email|e-mail|mail|message|text|write to|reply to|answer|ask)\s+"
    r"(?:(?:my|our|the|his|her)\s+)?(?P<who>(?!me\b|us\b)[\w.@+'-]+)(?:\s+know)?\s*(?:that\b|saying\b|:|,)?\s*"
    r"(?P<what>(?:[^.!?\n]|\.(?=\w)){3,200})", re.IGNORECASE)
_QUESTION_REQUEST = re.compile(
    r"\b(?:ask|asking|frag(?:e|en)?|demande(?:r|z)?|pregunta(?:le)?|chiedi)\s+(?:(?:my|our|the|his|her)\s+)?"
    r"[\w.@+'-]+(?:\s+[\w.@+'-]+)?\s+(?:whether|if|when|what|where|who|how|why|which|ob|wann|wie|si|quand|"
    r"se|quando|cuándo|cuando)\b", re.IGNORECASE)
_QUESTION_MARK = re.compile(r"[?？¿]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
# A number standing on its own: not part of a word, a date ("11.12.", "2026-12-11") or a decimal.
_NUMBER = re.compile(r"(?<![\w.:,/-])\d{1,4}(?::\d{2})?(?![\w]|[./-]\d)")
_PM = re.compile(r"\b(\d{1,2})(?::\d{2})?\s*pm\b")
_NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fifteen": "15", "twenty": "20", "thirty": "30",
    "forty": "40", "fifty": "50", "sixty": "60", "hundred": "100", "half": "30", "noon": "12",
}
_STOP = frozenset("""
a an the and or but if then than that this these those there here to of in on at for with from by about as into
onto over under up down out off so too very just also not no yes be am is are was were been being have has had
do does did will would shall should can could may might must i i'm i'll i've i'd me my mine we we're we'll us our
you you're you'll your yours he him his she her they them their it it's its what which who whom whose when where
why how whether all any some each every please kindly hi hello dear thanks thank regards let know tell ask email
mail message text say write reply answer inform notify remind saying going gonna get got make sure really
""".split())
_MONTHS = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b", re.IGNORECASE)
_BODY_KEYS = ("body", "text", "message", "content")


def body_of(arguments: dict[str, Any]) -> str:
    """The text a message sends: its body (or text, message, content) field."""
    fields = list(string_fields(arguments))
    for key in _BODY_KEYS:
        found = [value for path, value in fields if path.rsplit(".", 1)[-1].lower() == key]
        if found:
            return "\n".join(found)
    return ""


def content_mismatches(body: str, user_words: Sequence[str], read_texts: Sequence[str]) -> list[str]:
    """Sentences for the card where `body` contradicts what the user's words asked it to say."""
    if not body.strip() or not user_words:
        return []
    reasons: list[str] = []
    asked_question = next((m.group(0) for w in user_words for m in [_QUESTION_REQUEST.search(w)] if m), None)
    if asked_question and not _QUESTION_MARK.search(body):
        reasons.append(f"You asked me to ask something (“{_short(asked_question, 80)}…”), "
                       f"but this message asks no question: “{_short(body, 120)}”.")
    request = _request(user_words)
    if request is not None:
        terms = _terms(request)
        present = _terms(body)
        missing = [t for t in terms if not any(_same(t, p) for p in present)]
        if len(terms) >= 2 and len(missing) * 2 > len(terms):
            reasons.append(f"This message says little of what you asked. You asked: “{_short(request, 100)}”; "
                           f"it says: “{_short(body, 120)}”.")
    known = set().union(*(_numbers(text) for text in [*user_words, *read_texts]))
    new = [n for n in _numbers_in_body(body) if n not in known]
    if new:
        reasons.append(f"This message states {', '.join(new[:3])}, which {'appears' if len(new) == 1 else 'appear'} "
                       "nowhere in your words or in what I read.")
    return reasons


def _request(user_words: Sequence[str]) -> str | None:
    for words in user_words:
        match = _REQUEST.search(words)
        if match is not None:
            # "… that Friday works and add Dinner with Sam": the next errand is not the message.
            return re.split(r"\s+(?:and|then|&)\s+|,\s+", match["what"], maxsplit=1)[0].strip()
    return None


def _terms(text: str) -> list[str]:
    words = [_NUMBER_WORDS.get(w, w) for w in (m.group(0).lower() for m in _WORD.finditer(text))]
    return list(dict.fromkeys(w for w in words if w not in _STOP and (len(w) > 2 or w.isdigit())))


def _same(asked: str, said: str) -> bool:
    """One word, however inflected ("fix"/"fixed", "minute"/"minutes")."""
    if asked.isdigit() or said.isdigit():
        return asked == said
    stem = min(len(asked), len(said), 5)
    return stem >= 3 and asked[:stem] == said[:stem]


@lru_cache(maxsize=2048)
def _numbers(text: str) -> frozenset[str]:
    """Memoised: the same outside content is read at every decision of a goal."""
    lowered = text.lower()
    found = {n.lstrip("0") or "0" for n in re.findall(r"\d+", lowered)}
    found |= {v for w, v in _NUMBER_WORDS.items() if re.search(rf"\b{w}\b", lowered)}
    found |= {str(int(hour) + 12) for hour in _PM.findall(lowered) if int(hour) < 12}  # "3pm" is also 15:00
    return frozenset(found)


def _numbers_in_body(body: str) -> list[str]:
    """Numbers the message states on its own, not counting a day of a month or a year it names."""
    found = []
    for match in _NUMBER.finditer(body):
        around = body[max(0, match.start() - 12):match.end() + 12]
        if _MONTHS.search(around) or len(match.group(0)) == 4:
            continue
        for part in match.group(0).split(":"):
            value = part.lstrip("0") or "0"
            if value != "0" and value not in found:
                found.append(value)
    return found


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


__all__ = ["body_of", "content_mismatches"]
