"""Secrets in the text read from a picture, where the reading itself may be a little wrong.

Optical character recognition confuses a few shapes, most of all in digits printed light on
dark (a card): 4 and A, 0 and O, 1 and I or l, 5 and S, 8 and B. A word that is mostly digits
is read again with those letters as the digits they resemble. And a card number's shape (four
groups of four digits, or Amex's 4-6-5) next to a card's words ("valid thru", "card", an
expiry) counts as a card even when one misread digit breaks its Luhn check: the picture is
not kept either way, so a wrong digit must not let it through.
"""

from __future__ import annotations

import re

from deputy.core.secret_scan import Scan, find_secrets
from deputy.core.secret_scan.cards import LOOK_ALIKE_BEFORE
from deputy.core.secret_scan.hits import Hit

_LOOK_LIKE_DIGITS = str.maketrans({"A": "4", "O": "0", "o": "0", "D": "0", "Q": "0", "I": "1", "l": "1", "|": "1",
                                   "i": "1", "S": "5", "s": "5", "B": "8", "Z": "2", "z": "2", "G": "6", "T": "7"})
_WORD = re.compile(r"\S+")
_CARD_SHAPE = re.compile(r"(?<!\d)(?:\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}|3\d{3}[ -]?\d{6}[ -]?\d{5})(?!\d)")
_CARD_WORDS = re.compile(r"(?i)\b(?:valid|thru|expires?|exp|card|visa|mastercard|debit|credit|cvc|cvv|member since|"
                         r"karte|carte|tarjeta|cart[aã]o|kaart)\b")


def _digits_fixed(text: str) -> str:
    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        digits = sum(c.isdigit() for c in word)
        return word.translate(_LOOK_LIKE_DIGITS) if digits >= 2 and digits * 2 >= len(word) else word
    return _WORD.sub(fix, text)


def picture_secrets(text: str) -> Scan:
    """What the text read from a picture shows: the scanner's findings, on the text as read or with digits fixed."""
    scan = find_secrets(text)
    if scan.found:
        return scan
    fixed = _digits_fixed(scan.text)
    again = find_secrets(fixed)
    if again.found:
        return again
    if _CARD_WORDS.search(fixed):
        cards = tuple(Hit("card", *m.span()) for m in _CARD_SHAPE.finditer(fixed)
                      if not LOOK_ALIKE_BEFORE.search(fixed[max(0, m.start() - 40): m.start()]))
        if cards:
            return Scan(fixed, cards)
    return scan
