"""The user's payment cards in /connections: nickname, last four digits, expiry, which one
pays by default, which one pays at each shop they bought from, and the presses that change
the default and the card for a shop."""

from __future__ import annotations

import secrets
import time
from urllib.parse import urlsplit

from deputy.core.records.card_expiry import months_left, parse_expiry
from deputy.core.accounts.card_preferences import CardPreferences
from deputy.core.confidential import Locked
from deputy.core.records.receipts import ReceiptStore
from deputy.core.accounts.credential_index import CredentialInfo, list_credentials

MAX_SHOPS = 3


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


def shop_choices(redis, user_id: int, cards: list[CredentialInfo]) -> tuple[list[str], list[tuple[str, str]]]:
    """For the shops the user bought from (or chose a card for), most recent first: a line
    saying which card pays there, and with several cards, (button text, `cm:` offer) pairs to
    pay there with another card from now on."""
    prefs = CardPreferences(redis)
    chosen = {k.removeprefix("merchant:"): v for k, v in prefs.get(user_id).items() if k.startswith("merchant:")}
    try:
        bought = [r.merchant.lower() for r in reversed(ReceiptStore(redis).list(user_id))]
    except Locked:
        bought = []  # a locked confidential user's receipts stay sealed; the shops they chose a card for remain
    shops = list(dict.fromkeys([*bought, *chosen]))[:MAX_SHOPS]
    default = prefs.default(user_id)
    fallback = next((c for c in cards if c.handle == default), cards[0] if cards else None)
    lines: list[str] = []
    buttons: list[tuple[str, str]] = []
    for shop in shops:
        paying = next((c for c in cards if c.handle == chosen.get(shop)), None)
        label = paying.label if paying else (f"{fallback.label} (your default)" if fallback else "no card")
        lines.append(f"• 🛒 At {_site(shop)}: {label} pays")
        for card in cards if len(cards) > 1 else []:
            expiry = parse_expiry(card.public.get("expiry", ""))
            if card.handle == (paying or fallback).handle or expiry is None or months_left(expiry, time.time()) < 0:
                continue
            offer_id = secrets.token_urlsafe(9)
            prefs.offer(user_id, shop, card.handle, offer_id)
            buttons.append((f"At {_site(shop)}: pay with {card.label}", f"cm:{offer_id}"))
    return lines, buttons


def _site(merchant: str) -> str:
    return urlsplit(merchant).netloc or merchant


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
