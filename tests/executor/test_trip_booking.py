"""The lead example, end to end inline: "a four-day trip to Chicago under $1,200 that works with my
calendar". Code plans it from the calendar, the airline and the hotels; one card for the whole trip;
two bookings, each paid once at its own merchant; the trip on the calendar. A room that goes before
the tap leaves nothing booked: the flights are cancelled and refunded, and the user is told so."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from typing import Iterator

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.core.infrastructure.clock import ManualClock
from deputy.sandbox.flights import AIRLINE
from deputy.sandbox.hotels import HOTELS
from deputy.sentinel.stores.audit import AuditLog

from tests.executor.trip_rig import GOAL, OPTION, USER, TripRig

START = datetime(2027, 2, 1, 8, 0).timestamp()


@pytest.fixture(scope="module")
def shared(tmp_path_factory, redis_server) -> Iterator[TripRig]:
    redis = Redis.from_url(redis_server.url)
    redis.flushdb()  # this module's chat alone
    rig = TripRig(redis, ManualClock(START), tmp_path_factory.mktemp("trip"))
    try:
        rig.busy_on(date(2027, 2, 3))  # tomorrow and the day after are free; the 3rd is not
        yield rig
    finally:
        rig.stop()


def test_the_trip_is_planned_by_code_booked_on_one_card_paid_per_booking_and_put_on_the_calendar(shared) -> None:
    rig = shared
    goal = rig.start(USER, GOAL).id
    [card] = rig.cards()
    plan = next(r.outcome for r in rig.stored_actions(USER) if r.action.operation == "plan_trip")
    options = OPTION.findall(plan)
    assert 1 <= len(options) <= 3 and all(Decimal(total) <= 1200 for _, total, _ in options)
    # Nothing crosses the busy day; no flight leaves before 9.
    assert "03 Feb" not in plan and not any(f" 0{h}:" in plan for h in range(9))
    assert rig.get("flights", "/api/bookings")["bookings"] == [], "nothing is booked before the tap"
    first_id, first_total, _ = options[0]
    for shown in ("spends your money", "gives your personal details", "passport", "✈️", "🏨", "refunded in full",
                  "Non-refundable", f"{first_total} USD", "if the hotel fails"):
        assert shown in card.text, shown

    rig.approve_last_card()
    [booking] = rig.get("flights", "/api/bookings")["bookings"]
    [stay] = rig.get("hotels", "/api/reservations")["reservations"]
    assert Decimal(booking["total"]) + Decimal(stay["total"]) == Decimal(first_total)
    assert booking["passengers"] == ["Dana Demo"], "the traveller's name comes from the vault, not the model"
    [sent] = [b for b in rig.apps["flights"][AIRLINE].bookings.values() if b.id == booking["booking_id"]]
    assert (sent.passengers[0].passport_number, str(sent.passengers[0].date_of_birth)) == ("X1234567", "1990-04-02")
    seen = json.dumps([c for c in rig.model.calls], default=str) + json.dumps([m.text for m in rig.messages()])
    seen += json.dumps([e.model_dump() for e in AuditLog(rig.redis).entries(USER)], default=str)
    assert "X1234567" not in seen and "1990-04-02" not in seen, "the passport goes to the airline and nowhere else"
    paid = sorted((t.merchant, t.amount, t.status) for t in rig.issuer.transactions.values())
    assert paid == sorted([(rig.urls["flights"], Decimal(booking["total"]), "captured"),
                           (rig.urls["hotels"], Decimal(stay["total"]), "captured")]), "one payment per booking"
    receipts = [m for m in rig.messages() if m.text.startswith("🧾")]
    assert len(receipts) == 2
    listed = rig.list_events(booking["flights"][0]["departs_at"][:10], booking["flights"][1]["arrives_at"][:10])
    for leg in booking["flights"]:
        assert f"Flight {leg['number']}" in listed, "each flight is on the calendar"
    assert stay["hotel"] in listed, "so is the stay"
    assert rig.sent()[-1].startswith("Trip: Trip booked")
    assert rig.goal(goal).status.value == "done"


def test_a_room_gone_before_the_tap_cancels_the_flights_and_nothing_is_reported_done(shared) -> None:
    rig = shared
    rig.clock.advance(24 * 3600)
    before = len(rig.get("flights", "/api/bookings")["bookings"])
    rig.start(USER, GOAL)
    card = rig.cards()[-1]
    # Someone else takes every room of the chosen hotel before the user taps Approve.
    for hotel in rig.apps["hotels"][HOTELS].hotels.values():
        for room in hotel.rooms:
            room.count = 0
    rig.approve_last_card()
    bookings = rig.get("flights", "/api/bookings")["bookings"]
    assert len(bookings) == before + 1 and bookings[-1]["status"] == "cancelled"
    assert bookings[-1]["refunded"] == bookings[-1]["total"], "refunded in full under the fare rule"
    refunded = [t for t in rig.issuer.transactions.values() if t.merchant == rig.urls["flights"]][-1]
    assert refunded.status == "refunded"
    told = "\n".join(rig.sent()[-3:])
    assert "Nothing of this trip is booked" in told and bookings[-1]["booking_id"] in told
    assert not rig.sent()[-1].startswith("Trip: Trip booked")
    assert card.text.count("✈️") == 2


def test_a_trip_for_two_sends_each_travellers_own_details(shared) -> None:
    rig = shared
    rig.clock.advance(24 * 3600)
    for hotel in rig.apps["hotels"][HOTELS].hotels.values():  # the rooms are back on sale
        for room in hotel.rooms:
            room.count = 3
    rig.start(USER, "a four-day trip to Chicago for two under $2,000 that works with my calendar")
    plan = next(r.outcome for r in rig.stored_actions(USER) if r.action.operation == "plan_trip"
                and r.action.arguments.get("travellers") == 2)
    assert "Before booking: This booking is for 2 travellers and I have the details of 1" in plan
    rig.vault.put(USER, "cred:traveller/sam", SecretStr(json.dumps(
        {"name": "Sam Demo", "date_of_birth": "1991-05-06", "passport_number": "S7654321"})), "password",
        "Traveller details: Sam")
    card = rig.cards()[-1]
    assert "The details of all 2 travellers" in card.text and " for 2:" in card.text
    rig.approve_last_card()
    booking = rig.get("flights", "/api/bookings")["bookings"][-1]
    assert booking["status"] == "confirmed" and booking["passengers"] == ["Dana Demo", "Sam Demo"]
    [sent] = [b for b in rig.apps["flights"][AIRLINE].bookings.values() if b.id == booking["booking_id"]]
    assert [p.passport_number for p in sent.passengers] == ["X1234567", "S7654321"], "each their own passport"
    assert rig.sent()[-1].startswith("Trip: Trip booked")
