"""Which of the user's cards pays: the card they prefer for this merchant, else their
default, else their only (or first) card; never an expired one.

Expiry is what the user typed when connecting the card ("MM/YY"); it is parsed and
checked before any token is minted, and a card that runs out this month or next earns
the user a heads-up. Preferences live in Redis as credential handles, never numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from deputy.core.records.card_expiry import months_left, parse_expiry
from deputy.core.accounts.card_preferences import DEFAULT
from deputy.core.records.effects import ConnectorError
from deputy.vault import CredentialInfo



def nickname(card: CredentialInfo) -> str:
    last4 = card.public.get("last4")
    return f"{card.label} (…{last4})" if last4 else card.label


@dataclass(frozen=True)
class CardChoice:
    card: CredentialInfo
    heads_up: str | None = None


def choose_card(cards: list[CredentialInfo], merchant: str, prefs: dict[str, str], now: float) -> CardChoice:
    """The card to pay `merchant` with, or a `ConnectorError` telling the user what to do."""
    if not cards:
        raise ConnectorError("You have no payment card connected. Add one with /connect card, then ask again.")
    by_handle = {c.handle: c for c in cards}
    wanted = prefs.get("merchant:" + merchant.lower()) or prefs.get(DEFAULT)
    card = by_handle.get(wanted or "") or cards[0]
    expiry = parse_expiry(card.public.get("expiry", ""))
    if expiry is None:
        raise ConnectorError(f"I can't read the expiry date of your card {nickname(card)}, so I won't pay with it. "
                             "Connect it again with /connect card and give the expiry as MM/YY.")
    left = months_left(expiry, now)
    if left < 0:
        raise ConnectorError(f"Your card {nickname(card)} expired at the end of {expiry[1]:02d}/{expiry[0]}, so "
                             "nothing was paid. Connect a current card with /connect card, then ask again.")
    heads_up = None
    if left <= 1:
        heads_up = (f"💳 Heads-up: your card {nickname(card)} expires at the end of {expiry[1]:02d}/{expiry[0]}. "
                    "Connect the new one with /connect card before then.")
    return CardChoice(card, heads_up)
