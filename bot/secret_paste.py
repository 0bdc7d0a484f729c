"""Secrets pasted into the chat: what the bot says when it takes one out.

A password, card number or API key typed into a chat stays in the chat's history (and,
with real Telegram, on Telegram's servers), and a goal made of it would reach the model
provider and Redis. Deputy never needs one there: `/connect` takes credentials on a
private page straight into the vault. Finding them is `core.secret_scan`'s job.
"""

from __future__ import annotations

from core.secret_scan import find_secrets


def pasted_secret(text: str) -> str | None:
    """What kind of secret `text` seems to contain ("a card number", "a password", ...), or None."""
    return find_secrets(text).label


def deleted_notice(kind: str) -> str:
    return (
        f"I deleted your message because it looked like it contained {kind}, so it isn't kept in this chat or "
        "shown to the AI model. Please don't send passwords, card details or keys here. To give me access to an "
        "account safely, use /connect: you type the details on a private page and they go straight into the "
        "encrypted vault, where I never see them."
    )
