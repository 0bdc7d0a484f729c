"""The sandbox sites behave like the real thing: rules a booking or purchase must follow,
and HTML pages with forms a person (or the browser connector) can fill in."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from deputy.core.infrastructure.clock import ManualClock
from deputy.sandbox import restaurants, shop, tickets
from deputy.sandbox.webapp_common import SiteError, SiteServer

MONDAY_NOON = datetime(2026, 11, 30, 12, 0)
FRIDAY = "2026-12-04"
TOKEN = "ptok_" + "ab" * 16


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(MONDAY_NOON.timestamp())


@pytest.fixture
def site(clock: ManualClock) -> Iterator[Any]:
    servers: list[SiteServer] = []

    def start(module: Any, **options: Any) -> tuple[httpx.Client, Any]:
        app = module.create_app(clock=lambda: datetime.fromtimestamp(clock()), **options)  # the sites' local time
        server = SiteServer(app)
        servers.append(server)
        client = httpx.Client(base_url=server.start(), follow_redirects=True, timeout=5)
        return client, app

    yield start
    for server in servers:
        server.stop()


def test_restaurant_slots_follow_opening_hours_and_tables(site: Any) -> None:
    http, _ = site(restaurants)
    slots = http.get("/api/restaurants/trattoria-roma/availability", params={"date": FRIDAY, "party_size": 2}).json()
    free = {s["time"]: s["available"] for s in slots["slots"]}
    assert free["12:00"] and free["13:00"] and "13:30" not in free  # lunch: last seating 90 min before 14:30
    # Every table is booked at 20:00 for two hours, so 18:30 to 21:30 (the last seating) are full.
    assert [t for t, ok in free.items() if not ok] == ["18:30", "19:00", "19:30", "20:00", "20:30", "21:00", "21:30"]
    monday = http.get("/api/restaurants/trattoria-roma/availability", params={"date": "2026-11-30"}).json()
    assert monday["slots"] == []  # closed on Mondays

    def book(**changes: Any) -> httpx.Response:
        request = {"restaurant_id": "sakura", "date": FRIDAY, "time": "19:00", "party_size": 4, "name": "Ann"}
        return http.post("/api/bookings", json={**request, **changes})

    assert book().status_code == 201
    assert book().json()["message"] == "Sakura has no free table for 4 at 19:00."  # its only 4-top is taken
    assert book(time="19:15").status_code == 422
    assert book(date="2026-11-30", time="11:00").json()["message"].startswith("Sakura has no seating")
    assert book(party_size=20).status_code == 422
    assert book(extra="x").status_code == 422
    assert http.post("/api/bookings", content=b"not json").json() == {"message": "The body must be JSON.",
                                                                        "status": 400}


def test_an_idempotency_key_reused_for_another_booking_conflicts(site: Any) -> None:
    http, app = site(restaurants)
    request = {"restaurant_id": "kiku-ramen", "date": FRIDAY, "time": "18:00", "party_size": 2, "name": "Ann"}
    first = http.post("/api/bookings", json=request, headers={"Idempotency-Key": "k1"})
    second = http.post("/api/bookings", json=request, headers={"Idempotency-Key": "k1"})
    assert (first.status_code, second.status_code) == (201, 200) and first.json() == second.json()
    other = http.post("/api/bookings", json={**request, "party_size": 3}, headers={"Idempotency-Key": "k1"})
    assert other.status_code == 409
    assert len([b for b in app[restaurants.BOOK].bookings if not b.startswith("TB-SEED")]) == 1


def test_a_hold_expires_and_its_seats_come_back(site: Any, clock: ManualClock) -> None:
    http, _ = site(tickets, hold_minutes=10)
    hold = http.post("/api/holds", json={"event_id": "comedy-night", "seats": ["a1", "A2"]}).json()
    assert hold["seats"] == ["A1", "A2"] and hold["total"] == "30.00"
    assert http.post("/api/holds", json={"event_id": "comedy-night", "seats": ["A2"]}).status_code == 409
    assert http.post("/api/holds", json={"event_id": "comedy-night", "seats": ["Z9"]}).status_code == 404
    assert http.post("/api/holds", json={"event_id": "comedy-night"}).status_code == 422

    buy = {"hold_id": hold["hold_id"], "payment_token": TOKEN, "amount": "30.00", "currency": "USD", "name": "Ann"}
    wrong = http.post("/api/orders", json={**buy, "amount": "25"})
    assert wrong.status_code == 409 and wrong.json()["message"] == "The hold costs 30.00 USD, not 25.00 USD."

    clock.advance(10 * 60)
    assert http.get(f"/api/holds/{hold['hold_id']}").json()["status"] == "expired"
    late = http.post("/api/orders", json=buy)
    assert late.status_code == 409 and "expired" in late.json()["message"]
    seats = http.get("/api/events/comedy-night/seats").json()["seats"]
    assert {"seat": "A1", "section": "General", "price": "15.00"} in seats


def test_payments_can_be_refused_by_the_injected_check(site: Any) -> None:
    def refuse(token: str, amount: Any, currency: str) -> None:
        raise SiteError(402, "The payment token was already used.")

    http, app = site(shop, check_payment=refuse)
    cart = http.post("/api/carts").json()["cart_id"]
    http.post(f"/api/carts/{cart}/items", json={"product_id": "desk-lamp-led"})
    pay = {"payment_token": TOKEN, "amount": "39.90", "currency": "USD", "name": "Ann",
           "shipping_address": "1 Main Street"}
    refused = http.post(f"/api/carts/{cart}/checkout", json=pay)
    assert refused.status_code == 402 and app[shop.SHOP].products["desk-lamp-led"].stock == 7


def test_stock_limits_and_checked_out_carts(site: Any) -> None:
    http, app = site(shop)
    cart = http.post("/api/carts").json()["cart_id"]
    assert http.post(f"/api/carts/{cart}/items", json={"product_id": "notebook-a4-lined-3"}).status_code == 409
    assert http.post(f"/api/carts/{cart}/items", json={"product_id": "usb-c-cable-1m", "quantity": 4}).json()[
        "message"] == "Only 3 of USB-C to USB-C cable, 1 m can be ordered."
    http.post(f"/api/carts/{cart}/items", json={"product_id": "usb-c-cable-1m", "quantity": 3})
    pay = {"payment_token": TOKEN, "amount": "26.97", "currency": "USD", "name": "Ann",
           "shipping_address": "1 Main Street"}
    assert http.post(f"/api/carts/{cart}/checkout", json={**pay, "amount": "1"}).status_code == 409
    assert http.post(f"/api/carts/{cart}/checkout", json=pay).status_code == 201
    assert app[shop.SHOP].products["usb-c-cable-1m"].stock == 0
    again = http.post(f"/api/carts/{cart}/checkout", json=pay)
    assert again.status_code == 409 and "already checked out" in again.json()["message"]
    assert http.get("/api/products", params={"q": "cable", "in_stock": "true"}).json()["products"][0]["id"] == (
        "usb-c-cable-2m")


def test_booking_a_table_with_the_html_forms(site: Any) -> None:
    http, _ = site(restaurants)
    results = http.get("/search", params={"cuisine": "Thai", "date": FRIDAY, "time": "19:00", "party_size": "2"})
    assert "Ban Thai" in results.text and "Golden Lotus" in results.text and "Sakura" not in results.text
    details = http.get("/restaurants/ban-thai", params={"date": FRIDAY, "party_size": "2"})
    assert "<form method='post' action='/restaurants/ban-thai/book'>" in details.text
    confirmed = http.post("/restaurants/ban-thai/book", data={
        "date": FRIDAY, "time": "19:00", "party_size": "2", "name": "Ann <b>Lee</b>", "notes": ""})
    assert confirmed.status_code == 200 and "Booking TB-" in confirmed.text
    assert "Ann &lt;b&gt;Lee&lt;/b&gt;" in confirmed.text  # user text is escaped
    code = re.search(r"Booking (TB-[0-9A-F]{6})", confirmed.text).group(1)  # type: ignore[union-attr]
    cancelled = http.post(f"/bookings/{code}/cancel")
    assert "cancelled" in cancelled.text and "Cancel this booking" not in cancelled.text
    missing = http.get("/bookings/TB-NOPE00")
    assert missing.status_code == 404 and "There is no booking" in missing.text


def test_buying_tickets_with_the_html_forms(site: Any) -> None:
    http, _ = site(tickets)
    assert "Hamlet" in http.get("/").text
    event = http.get("/events/hamlet")
    assert "value='D5'" in event.text and "value='A1'" not in event.text  # row A is sold
    hold = http.post("/events/hamlet/hold", data={"seats": ["D5", "D6"]})
    assert "total 130.00 USD" in hold.text and "name='payment_token'" in hold.text
    order = http.post(str(hold.url) + "/buy", data={"name": "Ann", "payment_token": TOKEN,
                                                    "amount": "130.00", "currency": "USD"})
    assert "Enjoy the show!" in order.text and "D5" in order.text


def test_checking_out_with_the_html_forms(site: Any) -> None:
    http, _ = site(shop)
    assert "USB-C to USB-C cable, 2 m" in http.get("/", params={"q": "cable"}).text
    assert "Sold out." in http.get("/products/notebook-a4-lined-3").text
    cart = http.post("/cart/add", data={"product_id": "gel-pens-10", "quantity": "2"})
    assert "Total: 13.50 USD" in cart.text
    order = http.post("/cart/checkout", data={"name": "Ann", "shipping_address": "1 Main Street",
                                              "payment_token": TOKEN, "amount": "13.50", "currency": "USD"})
    assert "Paid 13.50 USD" in order.text and TOKEN in order.text
    assert "Your cart is empty" in http.get("/cart").text
    refused = http.post("/cart/add", data={"product_id": "gel-pens-10", "quantity": "500"})
    assert refused.status_code == 422 and "quantity" in refused.text


def test_every_site_serves_its_openapi_document(site: Any) -> None:
    for module in (restaurants, tickets, shop):
        http, _ = site(module)
        document = http.get("/openapi.json").json()
        assert document["openapi"] == "3.1.0" and document["servers"][0]["url"] == f"{http.base_url}/api"
        assert "security" not in document  # no API key configured, none required
