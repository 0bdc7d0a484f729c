"""The user's payment cards in /connections: nickname, last four digits, expiry, which one
pays by default, and the press that changes the default."""

from __future__ import annotations

import time
from core.card_expiry import months_left, parse_expiry
from core.card_preferences import CardPreferences
from vault import CredentialInfo, list_credentials


def card_lines(cards: list[CredentialInfo], default: str | None, now: float | None = None) -> list[str]:
    now = time.time() if now is None else now
    lines = []
    for i, card in enumerate(cards):
        last4 = card.public.get("last4", "")
        expiry = parse_expiry(card.public.get("expiry", ""))
        if expiry is None:
            state = "expiry unreadable: connect it again"
        else:
            left = months_left(expiry, now)
            state = (f"expired {expiry[1]:02d}/{expiry[0] % 100:02d}" if left < 0 else
                     f"expires {expiry[1]:02d}/{expiry[0] % 100:02d}" + (" – soon!" if left <= 1 else ""))
        pays = default == card.handle or (default not in {c.handle for c in cards} and i == 0)
        lines.append(f"• 💳 {card.label}" + (f" ····{last4}" if last4 else "") + f", {state}"
                     + (" (pays by default)" if pays else ""))
    return lines


def press_card_default(redis, ident: str, user_id: int) -> tuple[str, str]:
    """(toast, message) after the user chose the card `cred:card/<ident>` as their default."""
    handle = f"cred:card/{ident}"
    found = next((c for c in list_credentials(redis, user_id) if c.handle == handle), None)
    if found is None:
        return "That card isn't connected any more.", "That card isn't connected any more. /connections"
    CardPreferences(redis).set_default(user_id, handle)
    return "Default card changed.", f"💳 {found.label} now pays by default."


def press_card_for_merchant(redis, offer_id: str, user_id: int) -> tuple[str, str]:
    """(toast, message) after the user chose a card for one shop from a receipt."""
    chosen = CardPreferences(redis).accept(user_id, offer_id)
    if chosen is None:
        return "That choice expired.", "That choice expired; your cards pay as before. /connections"
    merchant, handle = chosen
    label = next((c.label for c in list_credentials(redis, user_id) if c.handle == handle), handle)
    return "Saved.", f"💳 From now on {label} pays at {merchant}."
