"""Each sandbox site describes its API in OpenAPI; Deputy imports it like any unseen API and
books a table, buys tickets and checks out a cart through the generic runner."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import ConnectorRejected, EffectClass, RiskTag
from deputy.connectors.openapi.api import ImportedApi
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.connectors.overrides import OperationOverride
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.sandbox import restaurants, shop, tickets
from deputy.sandbox.webapp_common import SiteServer
from deputy.core.records.actions import Action
from deputy.vault import KdfCost, Vault

USER = 42
MONDAY_NOON = datetime(2026, 11, 30, 12, 0)
TOKEN = "ptok_" + "0123456789abcdef" * 2


@pytest.fixture
def vault(redis: Redis, tmp_path: Path) -> Vault:
    return Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024,
                                                                             parallelism=1))


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5, trust_env=False) as client:
        yield client


Connect = Callable[..., tuple[ImportedApi, Callable[[str, dict[str, Any], str], str], web.Application]]


@pytest.fixture
def connect(vault: Vault, http: httpx.Client) -> Iterator[Connect]:
    """Start a site with an API key, store the key in the vault, import the site's document."""
    servers: list[SiteServer] = []

    def start(module: Any, service: str, overrides: dict[str, Any] | None = None):
        key = f"{service}-key-0a1b2c3d4e"
        app = module.create_app(clock=lambda: MONDAY_NOON, api_key=key)
        server = SiteServer(app)
        servers.append(server)
        url = server.start()
        api = import_openapi(fetch_openapi(http, f"{url}/openapi.json"), service=service, overrides=overrides)
        vault.put(USER, f"cred:api/{service}", SecretStr(key), "api_key", f"{service} API key")
        runners = OpenApiRunner(api, http, vault).runners()

        def run(tool: str, arguments: dict[str, Any], idempotency_key: str = "k") -> str:
            operation = next(op for op in api.operations if op.name == tool)
            args = operation.validate(arguments)  # what the agent does with the model's call
            action = Action(id="a", goal_id="g", user_id=USER, chat_id=USER, connector="openapi", operation=tool,
                            effect=operation.spec.effect, arguments=args.model_dump(mode="json"), tool_call_id="c",
                            created_at=0)
            result = runners[f"openapi.{tool}"](action, idempotency_key)
            assert key not in result.summary
            return result.summary

        return api, run, app

    yield start
    for server in servers:
        server.stop()


def body(summary: str) -> Any:
    return json.loads(summary.split("\n", 1)[1])


def test_restaurants_search_and_book_through_the_generic_runner(connect: Connect) -> None:
    api, run, _ = connect(restaurants, "restaurants")
    effects = {op.name: op.spec.effect for op in api.operations}
    assert effects == {
        "restaurants_search": EffectClass.read, "restaurants_get_restaurant": EffectClass.read,
        # Booking gives the user's name to a restaurant: with no override, a POST is asked about as a message.
        "restaurants_availability": EffectClass.read, "restaurants_book": EffectClass.communicate,
        "restaurants_list_bookings": EffectClass.read, "restaurants_get_booking": EffectClass.read,
        "restaurants_cancel_booking": EffectClass.write,
    }
    assert RiskTag.delete in next(op for op in api.operations if op.name == "restaurants_cancel_booking").spec.tags
    # The idempotency header is Deputy's to fill, not the model's.
    assert "Idempotency-Key" not in json.dumps(api.operations[3].tool_schema())

    found = body(run("restaurants_search", {"cuisine": "Italian", "date": "2026-12-04", "time": "20:00",
                                            "party_size": 4}))["restaurants"]
    assert [(r["name"], r["available"]) for r in found] == [("Trattoria Roma", False), ("La Piazza", True)]
    assert "18:30" not in found[0]["alternatives"] and found[0]["alternatives"]

    request = {"body": {"restaurant_id": "la-piazza", "date": "2026-12-04", "time": "20:00", "party_size": 4,
                        "name": "Sam Rivera", "notes": "One vegetarian"}}
    first = run("restaurants_book", request, "approval-1")
    assert first.startswith("201 Created")
    booking = body(first)
    assert booking["code"].startswith("TB-") and booking["status"] == "confirmed"
    # The executor retrying the same approved action books nothing new.
    again = run("restaurants_book", request, "approval-1")
    assert body(again)["code"] == booking["code"]
    assert len(body(run("restaurants_list_bookings", {}))["bookings"]) == 1

    cancelled = body(run("restaurants_cancel_booking", {"code": booking["code"]}, "approval-2"))
    assert cancelled["status"] == "cancelled"
    with pytest.raises(ConnectorRejected, match=r"409 Conflict.*already cancelled"):
        run("restaurants_cancel_booking", {"code": booking["code"]}, "approval-3")


def test_tickets_hold_and_buy_as_a_spend_with_its_amount(connect: Connect) -> None:
    override = OperationOverride(effect=EffectClass.spend, amount="body.amount", currency_field="body.currency")
    api, run, app = connect(tickets, "tickets", {"buy_hold": override})
    buy = next(op for op in api.operations if op.name == "tickets_buy_hold")
    assert buy.spec.effect is EffectClass.spend

    events = body(run("tickets_search_events", {"q": "jazz"}))["events"]
    assert [e["id"] for e in events] == ["jazz-blue-notes"]
    hold = body(run("tickets_hold_seats", {"body": {"event_id": "jazz-blue-notes", "section": "Tables",
                                                    "quantity": 2}}, "hold-1"))
    assert hold["seats"] == ["B1", "B2"] and hold["total"] == "90.00" and hold["expires_at"] == "2026-11-30T12:10"

    arguments = {"body": {"hold_id": hold["hold_id"], "payment_token": TOKEN, "amount": hold["total"],
                          "currency": "USD", "name": "Sam Rivera"}}
    assert buy.amount(buy.validate(arguments)) == (Decimal("90.00"), "USD")
    order = body(run("tickets_buy_hold", arguments, "buy-1"))
    assert order["seats"] == ["B1", "B2"] and order["status"] == "paid"
    # The site recorded the token; the summary, like everything token-like, shows it redacted.
    assert app[tickets.OFFICE].orders[order["order_id"]].payment_token == TOKEN
    assert order["payment_token"] == "[redacted]"
    assert body(run("tickets_buy_hold", arguments, "buy-1"))["order_id"] == order["order_id"]
    assert len(body(run("tickets_list_orders", {}))["orders"]) == 1
    assert app[tickets.OFFICE].events["jazz-blue-notes"].sold >= {"B1", "B2"}


def test_shop_cart_and_checkout_with_a_payment_token(connect: Connect) -> None:
    override = OperationOverride(effect=EffectClass.spend, amount="body.amount", currency="USD")
    api, run, app = connect(shop, "shop", {"checkout": override})
    checkout = next(op for op in api.operations if op.name == "shop_checkout")
    assert checkout.spec.effect is EffectClass.spend

    products = body(run("shop_search_products", {"q": "usb-c cable", "in_stock": True}))["products"]
    assert [p["id"] for p in products] == ["usb-c-cable-2m", "usb-c-cable-1m"]
    cart = body(run("shop_create_cart", {}, "cart-1"))
    run("shop_add_to_cart", {"cart_id": cart["cart_id"], "body": {"product_id": "usb-c-cable-2m", "quantity": 2}})
    view = body(run("shop_add_to_cart", {"cart_id": cart["cart_id"], "body": {"product_id": "notebook-a5-dotted"}}))
    assert view["total"] == "35.48"

    arguments = {"cart_id": cart["cart_id"], "body": {"payment_token": TOKEN, "amount": view["total"],
                                                      "currency": "USD", "name": "Sam Rivera",
                                                      "shipping_address": "1 Main Street, Springfield"}}
    assert checkout.amount(checkout.validate(arguments)) == (Decimal("35.48"), "USD")
    order = body(run("shop_checkout", arguments, "pay-1"))
    assert order["order_id"].startswith("O-") and order["total"] == "35.48"
    recorded = app[shop.SHOP].orders[order["order_id"]]
    assert (recorded.payment_token, recorded.total) == (TOKEN, Decimal("35.48"))
    assert app[shop.SHOP].products["usb-c-cable-2m"].stock == 38
    # A card number in place of the token is refused by the shop with a plain message.
    cart2 = body(run("shop_create_cart", {}, "cart-2"))
    run("shop_add_to_cart", {"cart_id": cart2["cart_id"], "body": {"product_id": "gel-pens-10"}})
    card = {"cart_id": cart2["cart_id"], "body": {**arguments["body"], "payment_token": "4111 1111 1111 1111",
                                                  "amount": "6.75"}}
    with pytest.raises(ConnectorRejected, match="never card numbers"):
        run("shop_checkout", card, "pay-2")


def test_without_the_key_the_sites_refuse(connect: Connect, http: httpx.Client) -> None:
    api, _, _ = connect(shop, "shop")
    response = http.get(f"{api.base_url}/products")
    assert response.status_code == 401 and "X-Api-Key" in response.json()["message"]
