"""Spotting secrets pasted into the chat, so the bot can delete them at once.

A password, card number or API key typed into a chat stays in the chat's history (and,
with real Telegram, on Telegram's servers). Deputy never needs one there: `/connect`
takes credentials on a private page straight into the vault.
"""

from __future__ import annotations

import re

from vault import luhn_valid

_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
_SAYS_PASSWORD = re.compile(
    r"(?i)\b(?:password|passwort|mot de passe|contraseña|passcode|pin|pwd)\b\s*(?:is|:|=|ist|est|es)\s*\S{4,}"
)
_API_KEY = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|sk_live_[A-Za-z0-9]{16,}|ghp_[A-Za-z0-9]{30,}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|\d{8,10}:[A-Za-z0-9_-]{35})\b"
)
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")


def pasted_secret(text: str) -> str | None:
    """What kind of secret `text` seems to contain ("card number", "password", ...), or None."""
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            return "a card number"
    if _SAYS_PASSWORD.search(text):
        return "a password"
    if _API_KEY.search(text) or _PEM.search(text):
        return "an access key"
    return None


def deleted_notice(kind: str) -> str:
    return (
        f"I deleted your message because it looked like it contained {kind}. Please never send passwords, "
        "card numbers or keys in this chat. Use /connect to link an account safely: you enter the details on a "
        "private page and I never see them."
    )
