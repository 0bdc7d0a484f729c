"""The sandbox airline and hotels: fares that move with the clock (and only with it), bookings
paid for exactly their total, cancellation under each refund rule, pages and OpenAPI documents."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Iterator

import httpx
import pytest

from deputy.sandbox import flights, hotels
from deputy.sandbox.webapp_common import SiteServer


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2027, 2, 1, 9, 0)

    def __call__(self) -> datetime:
        return self.now


class Payments:
    """The payment network as the sites see it: charges and refunds, recorded."""

    def __init__(self) -> None:
        self.charged: list[tuple[str, Decimal]] = []
        self.refunded: list[tuple[str, Decimal]] = []

    def __call__(self, token: str, amount: Decimal, currency: str) -> str:
        self.charged.append((token, amount))
        return f"txn-{len(self.charged)}"

    def refund(self, transaction: str, amount: Decimal) -> None:
        self.refunded.append((transaction, amount))


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[Clock, Payments, httpx.Client, httpx.Client]]:
    clock, payments = Clock(), Payments()
    servers = [SiteServer(flights.create_app(clock=clock, check_payment=payments)),
               SiteServer(hotels.create_app(clock=clock, check_payment=payments))]
    air, stay = (httpx.Client(base_url=s.start(), timeout=10) for s in servers)
    yield clock, payments, air, stay
    for server in servers:
        server.stop()


def test_fares_are_the_same_on_the_same_clock_and_move_when_it_moves(sites) -> None:
    clock, _, air, _ = sites
    query = {"origin": "SFO", "destination": "Chicago", "date": "2027-03-10"}
    first = air.get("/api/flights", params=query).json()["flights"]
    assert len(first) == 4 and first == air.get("/api/flights", params=query).json()["flights"]
    clock.now += timedelta(days=1)
    try:
        moved = air.get("/api/flights", params=query).json()["flights"]
    finally:
        clock.now -= timedelta(days=1)
    assert [f["flight_id"] for f in moved] == [f["flight_id"] for f in first]
    assert [f["fare"] for f in moved] != [f["fare"] for f in first]
    late = air.get("/api/flights", params={**query, "earliest": "09:00"}).json()["flights"]
    assert late and all(f["departs_at"] >= "2027-03-10T09:00" for f in late)
    days = air.get("/api/fares", params={"origin": "SFO", "destination": "LIS", "month": "2027-03"}).json()["days"]
    assert len(days) == 31 and {d["currency"] for d in days} == {"EUR"}


def test_a_booking_pays_exactly_its_total_and_a_cancellation_refunds_by_the_rule(sites) -> None:
    _, payments, air, _ = sites
    found = air.get("/api/flights", params={"origin": "SFO", "destination": "ORD", "date": "2027-03-10"}).json()
    flight = next(f for f in found["flights"] if f["fare_class"] == "Basic")
    body = {"flight_ids": [flight["flight_id"]], "passengers": [{"name": "Dana Demo"}, {"name": "Sam Demo"}],
            "payment_token": "ptok_abcdefgh1", "amount": flight["fare"], "currency": "USD"}
    wrong = air.post("/api/bookings", json=body)
    assert wrong.status_code == 409 and "cost" in wrong.json()["message"], "two passengers pay two fares"
    total = str(Decimal(flight["fare"]) * 2)
    booked = air.post("/api/bookings", json={**body, "amount": total})
    assert booked.status_code == 201, booked.text
    assert payments.charged[-1] == ("ptok_abcdefgh1", Decimal(total))
    booking = booked.json()["booking_id"]
    assert air.post("/api/bookings", json={**body, "amount": total, "payment_token": "4111111111111111"}
                    ).status_code == 422, "a card number is refused outright"
    cancelled = air.post(f"/api/bookings/{booking}/cancel").json()
    assert (cancelled["status"], cancelled["refunded"]) == ("cancelled", f"{Decimal(total):.2f}")
    assert payments.refunded[-1][1] == Decimal(total), "a Basic fare cancelled within 24 hours is refunded in full"


def test_a_hotel_stay_totals_its_nights_and_the_last_room_goes_once(sites) -> None:
    _, payments, _, stay = sites
    query = {"city": "Chicago", "check_in": "2027-03-10", "check_out": "2027-03-14"}
    offers = stay.get("/api/hotels", params=query).json()["offers"]
    assert {o["hotel_id"] for o in offers} == {"loop-central", "river-north-inn", "ohare-airport-lodge"}
    assert all(Decimal(o["total"]) == sum(Decimal(n) for n in o["nightly"]) and o["nights"] == 4 for o in offers)
    near = stay.get("/api/hotels", params={**query, "max_distance_km": 2}).json()["offers"]
    assert "ohare-airport-lodge" not in {o["hotel_id"] for o in near}
    deluxe = next(o for o in offers if o["room"] == "deluxe")
    body = {"hotel_id": "loop-central", "room": "deluxe", "check_in": "2027-03-10", "check_out": "2027-03-14",
            "guest_name": "Dana Demo", "payment_token": "ptok_abcdefgh2", "amount": deluxe["total"],
            "currency": "USD"}
    first = stay.post("/api/reservations", json=body)
    assert first.status_code == 201, first.text
    assert stay.post("/api/reservations", json={**body, "payment_token": "ptok_abcdefgh3"}).status_code == 201
    full = stay.post("/api/reservations", json={**body, "payment_token": "ptok_abcdefgh4"})
    assert full.status_code == 409 and "no deluxe room left" in full.json()["message"]
    assert [t for t, _ in payments.charged].count("ptok_abcdefgh4") == 0, "a refused stay charges nothing"
    cancelled = stay.post(f"/api/reservations/{first.json()['reservation_id']}/cancel").json()
    assert cancelled["refunded"] == deluxe["total"], "free cancellation weeks before check-in"


def test_pages_and_openapi_documents(sites) -> None:
    _, _, air, stay = sites
    page = air.get("/", params={"origin": "SFO", "destination": "ORD", "date": "2027-03-10"}).text
    assert "SFO → ORD" in page and "seats left" in page
    assert "Loop Central Hotel" in stay.get("/", params={"city": "Chicago", "check_in": "2027-03-10",
                                                         "check_out": "2027-03-12"}).text
    for client, operations in ((air, {"search_flights", "lowest_fares", "book_flights", "cancel_booking"}),
                               (stay, {"search_hotels", "reserve_room", "cancel_reservation"})):
        document = client.get("/openapi.json").json()
        found = {op["operationId"] for path in document["paths"].values() for op in path.values()}
        assert operations <= found
