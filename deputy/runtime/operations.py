"""Which operations this Deputy offers, and (in the executor) how each one runs.

Both the agent worker and the executor build the same catalog from the same settings:
the built-in email operations, the calendar when configured, and every API described by
an OpenAPI document in DEPUTY_OPENAPI_SERVICES (the sandbox sites under `deputy run`).
Only the executor builds runners, with credentials and an egress-guarded HTTP client
(`deputy.apps.executor`); nothing here loads one, so the agent worker can build its catalog.
"""

from __future__ import annotations

import logging

import httpx

from deputy.core.records.effects import EffectClass
from deputy.connectors.catalog import Catalog
from deputy.connectors.default import default_catalog
from deputy.connectors.travel import TRAVEL_OPERATIONS
from deputy.connectors.travel.operations import TRAVEL_SERVICES
from deputy.connectors.openapi.api import ImportedApi
from deputy.connectors.overrides import OperationOverride
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.settings import Settings

log = logging.getLogger(__name__)

# How the sandbox sites' consequential operations are classified (purchases: spending, with
# the amount they commit to), where the HTTP method alone would say "write".
KNOWN_OVERRIDES: dict[str, dict[str, OperationOverride]] = {
    # A booking gives the user's name to a third party and commits them to turn up.
    "restaurants": {"book": OperationOverride(effect=EffectClass.communicate)},
    "tickets": {"buy_hold": OperationOverride(effect=EffectClass.spend, amount="body.amount",
                                              currency_field="body.currency"),
                # Holding seats only reserves them for a while; it tells nobody anything.
                "hold_seats": OperationOverride(effect=EffectClass.write)},
    "shop": {"checkout": OperationOverride(effect=EffectClass.spend, amount="body.amount", currency="USD"),
             # The user's own cart: plain changes, where an unclassified POST would be a message.
             "create_cart": OperationOverride(effect=EffectClass.write),
             "add_to_cart": OperationOverride(effect=EffectClass.write),
             # Cancelling or returning an order changes the user's account with the shop: always a card.
             "cancel_order": OperationOverride(effect=EffectClass.account),
             "return_order": OperationOverride(effect=EffectClass.account)},
}
# Travel: a booking spends (the amount it commits to), gives the passengers' or guest's details to the
# airline or hotel; cancelling one changes the user's account with it.
KNOWN_OVERRIDES["flights"] = {
    "book_flights": OperationOverride(effect=EffectClass.spend, amount="body.amount", currency_field="body.currency"),
    "cancel_booking": OperationOverride(effect=EffectClass.account)}
KNOWN_OVERRIDES["hotels"] = {
    "reserve_room": OperationOverride(effect=EffectClass.spend, amount="body.amount", currency_field="body.currency"),
    "cancel_reservation": OperationOverride(effect=EffectClass.account)}
# The second sandbox shop has the same API.
KNOWN_OVERRIDES["market"] = KNOWN_OVERRIDES["shop"]


def imported_apis(settings: Settings) -> list[ImportedApi]:
    """The APIs in DEPUTY_OPENAPI_SERVICES, each turned into operations (skipped, logged, if unreadable)."""
    apis = []
    with httpx.Client(timeout=20, trust_env=False) as client:
        for name, url in settings.openapi_services().items():
            try:
                document = fetch_openapi(client, url)
                apis.append(import_openapi(document, service=name, overrides=KNOWN_OVERRIDES.get(name)))
            except Exception as exc:  # one bad description must not take every other operation down
                log.error("could not load the %s API from %s: %s", name, url, exc)
    return apis


def build_catalog(apis: list[ImportedApi]) -> Catalog:
    catalog = default_catalog()
    if set(TRAVEL_SERVICES) <= {api.service for api in apis}:
        # With an airline and hotels connected, a trip is planned and booked as one.
        catalog = catalog.merged(Catalog(TRAVEL_OPERATIONS))
    for api in apis:
        catalog = catalog.merged(api.catalog())
    return catalog
