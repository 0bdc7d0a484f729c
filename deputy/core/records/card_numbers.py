"""What makes a string of digits a payment card number: the Luhn checksum and the length.

Shared by the vault (which stores only valid card numbers and redacts card numbers it
never stored) and the chat front end (which deletes a card number pasted into the chat).
"""

from __future__ import annotations


def luhn_valid(digits: str) -> bool:
    """True when the digit string passes the Luhn checksum used by payment cards."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def looks_like_card(text: str) -> bool:
    """True for a 13-19 digit string (spaces/dashes allowed) that passes Luhn."""
    digits = text.replace(" ", "").replace("-", "")
    return 13 <= len(digits) <= 19 and digits.isascii() and digits.isdigit() and luhn_valid(digits)
