"""The trip runners as the executor builds them: the imported airline and hotel operations, the
user's calendar, payments per booking, and the traveller's details from the vault.

Passenger details (name, date of birth, passport number) are vault data (`/connect traveller`,
a JSON secret under `cred:traveller/main`, and one under `cred:traveller/<short name>` for each person
travelling with the user); the executor fills them into the airline's booking itself, so the model
never sees them. Without the user's own entry the name on their first card is used.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any, Callable, Mapping

from deputy.connectors.calendar.runners import CalendarRunners
from deputy.connectors.travel.runners import Runner, TravelRunners
from deputy.connectors.travel.trip_store import TripStore
from deputy.core.accounts.connect_links import TRAVELLER_HANDLE
from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorError
from deputy.core.records.outbox import Outbox
from deputy.executor.mandates import merchant_origin
from deputy.executor.payments import PaymentIssuer
from deputy.sentinel.stores.approvals import ApprovalStore
from deputy.vault import CredentialKind, Vault, VaultError, list_credentials

_FIELDS = ("name", "date_of_birth", "passport_number")


_COMPANIONS = "cred:traveller/"


def traveller_details(redis, vault: Vault | None) -> Callable[[int, int], list[dict[str, Any]]]:
    """(user, how many travel) -> that many people's details: the user first, then the companions
    they added, in the order of their short names. ConnectorError, before anything is booked, when
    fewer are known than travel: one person's details are never used for two."""
    def stored(user_id: int, handle: str) -> dict[str, Any] | None:
        if vault is None:
            return None
        try:
            found = json.loads(vault.get(user_id, handle).get_secret_value())
        except (VaultError, ValueError, KeyError):
            return None
        return {k: found[k] for k in _FIELDS if found.get(k)} if isinstance(found, dict) and found.get("name") \
            else None

    def details(user_id: int, count: int) -> list[dict[str, Any]]:
        entries = list_credentials(redis, user_id)
        own = stored(user_id, TRAVELLER_HANDLE)
        if own is None:
            holder = next((c.public.get("holder") for c in entries
                           if c.kind is CredentialKind.card and c.public.get("holder")), None)
            own = {"name": holder} if holder else None
        companions = [stored(user_id, c.handle) for c in entries
                      if c.handle.startswith(_COMPANIONS) and c.handle != TRAVELLER_HANDLE]
        people = [p for p in (own, *companions) if p is not None]
        if len(people) >= count:
            return people[:count]
        if count == 1:
            raise ConnectorError("I need the traveller's name for the airline: add your details with /connect "
                                 "traveller. Nothing was booked or paid.")
        raise ConnectorError(f"This booking is for {count} travellers and I have the details of {len(people)}: add "
                             "each person travelling with you with /connect traveller (one form each, with a short "
                             "name for them). Nothing was booked or paid.")

    return details


def travel_runners(redis, api: Mapping[str, Runner], services: Mapping[str, str], payments: PaymentIssuer | None,
                   calendar: CalendarRunners | None, vault: Vault | None,
                   today: Callable[[], date] = date.today) -> dict[str, Runner]:
    """`travel.plan_trip` and `travel.book_trip`, when the airline and the hotels are both connected."""
    if not {"flights", "hotels"} <= set(services) or payments is None:
        return {}
    merchants = {name: merchant_origin(url) for name, url in services.items()}
    outbox, approvals = Outbox(redis), ApprovalStore(redis)

    def pay(booking: Action, key: str) -> Action:
        approval = key.split(":", 1)[0]
        stored = approvals.get(approval)
        card_text = stored[0].card_text if stored else ""
        return payments.prepare(booking, key, card_text=card_text, approval_id=approval if stored else None,
                                chat_id=booking.chat_id)

    def receipt(booking: Action, summary: str) -> None:
        message = payments.after_success(booking, summary)
        if message is not None:
            outbox.put(message)

    def busy(user_id: int, first: date, last: date) -> list[tuple[date, date]]:
        return calendar.busy_days(user_id, first, last) if calendar is not None else []

    add_event = calendar.runners()["calendar.create_event"] if calendar is not None else None
    return TravelRunners(api, merchants, TripStore(redis), busy, add_event, pay, receipt,
                         traveller_details(redis, vault), today).runners()
