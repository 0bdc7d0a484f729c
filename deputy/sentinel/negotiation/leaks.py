"""Does a message say the reservation price, or anything the user marked private, in any form?

Checked in code on every outgoing message of a negotiation; the model's promise to keep a
secret is not a control. Forms caught: the amount read by `amounts.read_amounts` in any of
its spellings (digits, "14k", "14 grand", words, another currency notation), the digits
written with anything between them ("1 4 0 0 0", "1-4-0-0-0", "14.000"), look-alike
characters, and for private text its words with the spacing and punctuation changed.
"""

from __future__ import annotations

import re
from decimal import Decimal

from deputy.sentinel.negotiation.amounts import normalise, read_amounts


def _digits(amount: Decimal) -> list[str]:
    """The digit strings that spell `amount`: 14000 -> ["14000"]; 59.90 -> ["5990", "599"]."""
    normal = amount.normalize()
    whole = f"{normal:f}"
    forms = {whole.replace(".", "")}
    if "." in whole:
        forms.add(f"{amount:.2f}".replace(".", ""))
    return sorted(forms, key=len, reverse=True)


def reservation_leaks(text: str, reservation: Decimal) -> list[str]:
    """The places where `text` says `reservation`, as written (empty: it does not)."""
    found: list[str] = []
    reading = read_amounts(text, scale=reservation)
    found += [a.text for a in reading.amounts if a.value == reservation]
    plain = normalise(text)
    for digits in _digits(reservation):
        separated = r"[\W_]{0,3}".join(map(re.escape, digits))
        for match in re.finditer(rf"(?<![\d]){separated}(?![\d])", plain):
            # "14.000,50" is not 14,000 but "14.000" and "14,000.00" are: only zero cents may follow.
            rest = plain[match.end():]
            if re.match(r"[.,]\d", rest) and not re.match(r"[.,]0{1,2}(?!\d)", rest):
                continue
            found.append(match.group(0))
    whole_thousands = reservation % 1000 == 0 and reservation >= 1000
    if whole_thousands:
        short = str(int(reservation // 1000))
        for match in re.finditer(rf"(?<![\d.,]){short}\s*(?:k|grand|thousand|thou|g'?s|g)\b", plain, re.IGNORECASE):
            found.append(match.group(0))
    found += _sums_to(plain, reservation)
    return list(dict.fromkeys(found))


_SUM = re.compile(r"(?P<a>\d[\d,]*(?:\.\d+)?)\s*(?P<k>k|grand)?\s*(?P<op>[/*x×÷+\-]|divided by|times|plus|minus)\s*"
                  r"[$€£]?\s*(?P<b>\d[\d,]*(?:\.\d+)?)\s*(?P<k2>k|grand)?|"
                  r"\b(?P<half>half|a third|a quarter|twice|double)\s+(?:of\s+)?[$€£]?\s*(?P<c>\d[\d,]*(?:\.\d+)?)\s*(?P<k3>k|grand)?",
                  re.IGNORECASE)


def _sums_to(text: str, reservation: Decimal) -> list[str]:
    """Arithmetic that lands on the reservation price ("$28,000 / 2", "half of 28k")."""
    found = []
    for match in _SUM.finditer(text):
        try:
            if match.group("half"):
                value = Decimal(match.group("c").replace(",", "")) * (1000 if match.group("k3") else 1)
                factor = {"half": Decimal("0.5"), "a third": Decimal(1) / 3, "a quarter": Decimal("0.25"),
                          "twice": Decimal(2), "double": Decimal(2)}[match.group("half").lower()]
                result = value * factor
            else:
                a = Decimal(match.group("a").replace(",", "")) * (1000 if match.group("k") else 1)
                b = Decimal(match.group("b").replace(",", "")) * (1000 if match.group("k2") else 1)
                op = match.group("op").lower()
                result = {"/": a / b if b else None, "÷": a / b if b else None, "divided by": a / b if b else None,
                          "*": a * b, "x": a * b, "×": a * b, "times": a * b, "+": a + b, "plus": a + b,
                          "-": a - b, "minus": a - b}[op]
        except (ArithmeticError, KeyError, ValueError):
            continue
        if result is not None and abs(result - reservation) < Decimal("0.005"):
            found.append(match.group(0))
    return found


def _squashed(text: str) -> str:
    return re.sub(r"[\W_]+", "", normalise(text).lower())


def private_leaks(text: str, private: list[str]) -> list[str]:
    """Each private item `text` says, with spacing, punctuation and case changed or not."""
    squashed = _squashed(text)
    found = []
    for item in private:
        key = _squashed(item)
        if len(key) >= 3 and key in squashed:
            found.append(item)
    return found


LIMIT_SHOWN = "[your limit]"
PRIVATE_SHOWN = "[private]"


def redact(text: str, reservation: Decimal, private: list[str]) -> str:
    """`text` with the reservation price and each private item, in any form they are found in, replaced by
    "[your limit]" and "[private]": for the audit trail, logs and anything shown to someone else.

    Folded like the checks fold it (look-alike characters, invisible ones), so what the checks would call a
    leak is what is taken out; after the replacement the text is checked again until nothing is left."""
    plain = normalise(text)
    for _ in range(5):
        leaks = sorted(reservation_leaks(plain, reservation), key=len, reverse=True)
        found = private_leaks(plain, private)
        if not leaks and not found:
            return plain
        before = plain
        for leak in leaks:
            plain = plain.replace(leak, LIMIT_SHOWN)
        for item in found:
            plain = _remove_private(plain, item)
        if plain == before:
            break
    # A form the checks see that no span of the text spells out on its own: keep none of the text.
    return "[a message that said your limit or something private]"


def _remove_private(text: str, item: str) -> str:
    """Replace `item` as written with any spacing, punctuation and case in between its letters."""
    letters = [ch for ch in normalise(item).lower() if ch.isalnum()]
    if not letters:
        return text
    pattern = r"[\W_]*".join(map(re.escape, letters))
    return re.sub(pattern, PRIVATE_SHOWN, text, flags=re.IGNORECASE)
