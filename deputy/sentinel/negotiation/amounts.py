"""Reading the amounts in a message, with certainty or not at all.

`read_amounts(text)` finds every amount of money a person would read in the text: digits
with or without currency ("$14,000", "14 000 EUR", "14.000,00 €"), thousands written
short ("14k", "14.5K", "14 grand"), words ("fourteen thousand five hundred"), ranges
("13-14k", "between 13 and 14 thousand"), per-month prices ("$55/month") and relative
moves ("knock 200 off", "10% off", "200 less"). What it cannot read for sure (a bare number
in the range the negotiation is about, digits spaced out one by one, "fourteen-ish") comes
back as `unreadable`, so the guard asks the user instead of guessing.

Numbers that are clearly not money are left alone: a year before a model name ("2017
Civic"), a quantity with its unit ("62,000 miles", "3 owners", "24 months"), a time.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation


@dataclass(frozen=True)
class Amount:
    value: Decimal
    text: str
    relative: bool = False
    """A move from the previous offer ("200 off"): `value` is how much, `percent` says of what."""
    percent: bool = False
    direction: int = 0
    """-1 for "off"/"less"/"down", +1 for "more"/"up"; 0 for an absolute amount."""


@dataclass
class Reading:
    amounts: list[Amount] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)

    @property
    def certain(self) -> bool:
        return not self.unreadable


_UNITS_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "a": 1,
}
_SCALES = {"hundred": 100, "thousand": 1000, "grand": 1000, "k": 1000, "million": 1_000_000}
_NUMBER_WORD = r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|" \
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety)"
_WORDS = re.compile(
    rf"\b(?:a\s+)?{_NUMBER_WORD}(?:[\s-]+(?:and\s+)?(?:{_NUMBER_WORD}|hundred|thousand|grand|million))*"
    r"(?:[\s-]+(?:hundred|thousand|grand|million))?\b|\ba\s+(?:hundred|thousand|grand)\b",
    re.IGNORECASE)
_CURRENCY_BEFORE = r"(?:[$€£]|usd|eur|gbp|us\$)\s*"
_CURRENCY_AFTER = r"\s*(?:[$€£]|usd|eur|gbp|dollars?|bucks|euros?|pounds?)\b"
# A number as people write money: 14000, 14,000, 14 000, 14.000,00, 14,000.50, 14.5
_NUMERAL = r"\d{1,3}(?:(?:,\d{3})+|(?:\.\d{3})+|(?:[ \u00a0\u202f]\d{3})+)(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d{1,2})?(?!\d)"
_SHORT = r"\s*(?:k\b|K\b|grand\b|thousand\b|thou\b)"
_NUMBER = re.compile(
    rf"(?P<cur>{_CURRENCY_BEFORE})?(?<![\w.,])(?P<num>{_NUMERAL})(?P<short>{_SHORT})?(?P<after>{_CURRENCY_AFTER})?",
    re.IGNORECASE)
_PER = re.compile(r"^\s*(?:/\s*(?:mo|month|m)\b|(?:a|per|each|every)\s+month\b|monthly\b)", re.IGNORECASE)
_RANGE_TAIL = re.compile(r"^\s*(?:-|–|—|to|or)\s*(?=[$€£\d])", re.IGNORECASE)
# Quantities that are not money when written right after a number.
_UNIT_AFTER = re.compile(
    r"^\s*(?:%|percent|miles?|mi\b|km|kilomet|k\s*(?:miles|km|mi)\b|owners?|doors?|seats?|years?|yrs?|months?(?!ly)|"
    r"weeks?|days?|hours?|hrs?|h\b|minutes?|mins?|mpg|hp|cc|l\b|litre|liter|gb|mbps|gbit|lines?|times|people|"
    r"buyers?|offers?|rounds?|am\b|pm\b|o'?clock|st\b|nd\b|rd\b|th\b|x\b|speed|cyl|tyres?|tires?|keys?|photos?|"
    r"pictures?|calls?|messages?|devices?|phones?|tb\b|mb\b)", re.IGNORECASE)
_YEAR_BEFORE_NAME = re.compile(r"^\s+[A-Z][a-z]+")
_TIME = re.compile(r"\b\d{1,2}[:h]\d{2}\b")
_RELATIVE_AFTER = re.compile(r"^\s*(?:off|less|lower|down|cheaper|discount)\b|^\s*(?:more|up|higher|extra)\b",
                             re.IGNORECASE)
_RELATIVE_BEFORE = re.compile(
    r"(?:knock(?:ed|ing)?|drop|dropping|lower(?:ing)?|reduc(?:e|ing)|cut(?:ting)?|come down|go down|"
    r"discount(?: of)?|shave|shaving|raise|add|go up|come up|bump)\s+(?:it\s+|the price\s+|that\s+)?(?:by\s+)?(?:another\s+)?$",
    re.IGNORECASE)
_OFFER_BEFORE = re.compile(
    r"\b(?:do|at|for|offer(?:ing)?|price(?: is)?|take|accept|asking|counter(?: at| with)?|pay|of|is|be)\s*$", re.IGNORECASE)
_UP_WORDS = re.compile(r"\b(?:more|up|higher|extra|raise|add|bump)\b", re.IGNORECASE)
_SPACED_DIGITS = re.compile(r"(?<![\w])\d(?:[ .\-_/*|]+\d){2,}(?![\w])")
_SPACED_PAIR = re.compile(r"(?<![\w.,-])\d[ -]\d(?!\w|[.,]\d|-)")
_VAGUE = re.compile(
    r"\b(?:\d[\d,.]*k?|" + _NUMBER_WORD + r"(?:\s+thousand)?)[\s-]*(?:ish|something|odd)\b|"
    r"\b(?:low|mid|high|upper|lower)[\s-]+(?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties|"
    r"\d0s)\b|\bsomewhere (?:around|near)\b|\bgive or take\b",
    re.IGNORECASE)


def normalise(text: str) -> str:
    """Fold look-alike characters so "１４０００" and "14ООО" (Cyrillic O) read as 14000."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"[\u200b\u200c\u200d\u2060\ufeff\u00ad]", "", text)
    # Letters that look like digits, when they sit among digits: l4OOO, 1O,OOO.
    text = text.translate(str.maketrans({"О": "O", "о": "o", "І": "I", "Ο": "O", "ο": "o", "Ι": "I", "l": "l"}))

    def digits_only(match: re.Match[str]) -> str:
        return match.group(0).translate(str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1", "З": "3", "з": "3"}))

    return re.sub(r"(?<![A-Za-z])\d[\dOoIlЗз,.]*[OoIlЗз](?![A-Za-z])|"
                  r"(?<![A-Za-z])[\dOoIlЗз][\dOoIlЗз,. ]*\d[\dOoIlЗз]*(?![A-Za-z])", digits_only, text)


def words_value(phrase: str) -> Decimal | None:
    """“fourteen thousand five hundred” -> 14500; None if it is not a number."""
    total, current, seen = 0, 0, False
    for word in re.split(r"[\s-]+", phrase.lower()):
        if word in ("and", ""):
            continue
        if word in _UNITS_SMALL:
            current += _UNITS_SMALL[word]
            seen = True
        elif word in ("hundred",):
            current = (current or 1) * 100
            seen = True
        elif word in _SCALES:
            total += (current or 1) * _SCALES[word]
            current, seen = 0, True
        else:
            return None
    return Decimal(total + current) if seen else None


def numeral_value(text: str) -> Decimal | None:
    """A written number's value in either convention ("14.000,00", "14,5", "14,000"); None if it is none."""
    raw = text.replace("\u00a0", " ").replace("\u202f", " ")
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?", raw):  # 14.000,00
        raw = raw.replace(".", "").replace(",", ".")
    elif re.fullmatch(r"\d+,\d{1,2}", raw):  # 14,5
        raw = raw.replace(",", ".")
    else:
        raw = raw.replace(",", "").replace(" ", "")
    try:
        return Decimal(raw)
    except InvalidOperation:
        return None


def read_amounts(text: str, scale: Decimal | None = None) -> Reading:
    """Every amount in `text`. `scale` is the size of the amounts negotiated (the reservation):
    a bare number near it, with nothing saying what it is, cannot be read for sure."""
    text = normalise(text)
    reading = Reading()
    taken: list[tuple[int, int]] = []
    for match in _SPACED_DIGITS.finditer(text):
        reading.unreadable.append(match.group(0))
        taken.append(match.span())
    for match in _SPACED_PAIR.finditer(text):
        # "9 9": two digits apart may be one number spelled out; "1-2 days" or "2 3-year-olds" are not.
        if not _UNIT_AFTER.match(text[match.end():]) and not any(a <= match.start() < b for a, b in taken):
            reading.unreadable.append(match.group(0))
            taken.append(match.span())
    for match in _VAGUE.finditer(text):
        reading.unreadable.append(match.group(0))
    for match in _NUMBER.finditer(text):
        start, end = match.span()
        if any(a <= start < b for a, b in taken) or _TIME.match(text, max(0, start - 3)) and ":" in text[start:end + 3]:
            continue
        value = numeral_value(match.group("num"))
        if value is None:
            reading.unreadable.append(match.group(0))
            continue
        after_text = text[end:]
        short = match.group("short")
        if short:
            value *= 1000
        money = bool(match.group("cur") or match.group("after") or short)
        percent = bool(re.match(r"^\s*(?:%|percent)", after_text))
        if not money and not percent and _UNIT_AFTER.match(after_text):
            continue
        if not money and re.fullmatch(r"(?:19|20)\d{2}", match.group("num")) and (
                _YEAR_BEFORE_NAME.match(after_text) or re.search(r"\b(?:in|since|from|of|year|model)\s*$",
                                                                  text[:start], re.IGNORECASE)):
            continue
        before = text[:start]
        if not money and (_PER.match(after_text) or _OFFER_BEFORE.search(before) and (
                scale is None or value >= scale / 20)):
            money = True
        relative = _RELATIVE_AFTER.match(re.sub(r"^\s*(?:%|percent)", "", after_text)) or _RELATIVE_BEFORE.search(before)
        if percent and relative:
            direction = 1 if _UP_WORDS.search(after_text[:20] + " " + before[-25:]) else -1
            reading.amounts.append(Amount(value, match.group(0), relative=True, percent=True, direction=direction))
            taken.append((start, end))
            continue
        if percent:
            continue
        if relative:
            direction = 1 if _UP_WORDS.search(after_text[:12] + " " + before[-25:]) else -1
            reading.amounts.append(Amount(value, match.group(0), relative=True, direction=direction))
            taken.append((start, end))
            continue
        # "13-14k": the first number borrows the second's thousands.
        tail = _RANGE_TAIL.match(after_text)
        if tail and not short:
            nxt = _NUMBER.match(text, end + tail.end())
            if nxt and nxt.group("short"):
                value *= 1000
                money = True
            elif nxt and (nxt.group("cur") or nxt.group("after")):
                money = True
        if not money and re.search(r"\bbetween\s*$", before, re.IGNORECASE):
            nxt = re.match(r"\s*and\s*(?P<n>" + _NUMERAL + r")(?P<s>" + _SHORT + r")?", after_text, re.IGNORECASE)
            if nxt and nxt.group("s"):
                value *= 1000
                money = True
        if not money and re.search(r"[-–—]\s*$|\bto\s*$|\band\s*$", before) and taken:
            money = True  # the second half of a range whose first half was money
        if not money:
            if scale is not None and scale / 20 <= value <= scale * 20:
                reading.unreadable.append(match.group(0).strip())
            continue
        reading.amounts.append(Amount(value, match.group(0).strip()))
        taken.append((start, end))
    for match in _WORDS.finditer(text):
        phrase = match.group(0)
        value = words_value(phrase)
        if value is None or value == 0:
            continue
        after_text = text[match.end():]
        k_after = re.match(r"^\s*k\b", after_text, re.IGNORECASE)
        if k_after:
            value *= 1000
        money = bool(re.search(r"hundred|thousand|grand|million", phrase, re.IGNORECASE) or k_after
                     or re.match(_CURRENCY_AFTER, after_text, re.IGNORECASE) or _PER.match(after_text))
        if _UNIT_AFTER.match(after_text) and not money:
            continue
        relative = _RELATIVE_AFTER.match(after_text) or _RELATIVE_BEFORE.search(text[:match.start()])
        if relative and money:
            direction = 1 if _UP_WORDS.search(after_text[:12] + " " + text[:match.start()][-25:]) else -1
            reading.amounts.append(Amount(value, phrase, relative=True, direction=direction))
        elif money:
            reading.amounts.append(Amount(value, phrase))
        elif scale is not None and scale / 20 <= value <= scale * 20:
            reading.unreadable.append(phrase)
    return reading
