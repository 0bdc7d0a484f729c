"""A fare watch ("tell me if flights to Lisbon in March drop under €300"): a monitor whose probe
reads the airline's fares by code each day, calls no model while nothing crosses, fires once, and
offers the flight on a card; the traveller's details come from the vault, and one payment follows."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from typing import Any, Iterator

import httpx
import pytest
from redis import Redis

from deputy.agent.model.testing import message_text, tool_call
from deputy.core.infrastructure.clock import ManualClock

from tests.executor.trip_rig import USER, TripRig

START = datetime(2027, 2, 1, 8, 0).timestamp()
DAY = 24 * 3600
LISBON_MARCH = {"origin": "SFO", "destination": "LIS", "month": "2027-03"}
ROW = re.compile(r'"date":"([0-9-]+)","lowest_fare":"([0-9.]+)","currency":"EUR","flight_id":"([A-Z0-9-]+)"')


class Watcher:
    below: float = 0

    def __call__(self, messages: list[dict[str, Any]], tools: Any):
        last = messages[-1]
        text = message_text(last)
        if last.get("role") == "tool" and text.startswith(("Flight booked", "Failed")):
            return tool_call("reply", text=text[:300])
        if last.get("role") == "tool" and "<untrusted" in text and "Scheduled check" in message_text(messages[-3]):
            rows = ROW.findall(re.sub(r"\s", "", text))
            _, fare, flight = min(rows, key=lambda r: Decimal(r[1]))
            return tool_call("book_flight", flight_id=flight, fare=fare, currency="EUR")
        return tool_call("schedule_check", what="flights to Lisbon in March under the fare", every_minutes=24 * 60,
                         max_checks=30, probe={"tool": "flights_lowest_fares", "arguments": LISBON_MARCH,
                                               "compare": "threshold", "field": "days.*.lowest_fare",
                                               "below": self.below})


@pytest.fixture(scope="module")
def watching(tmp_path_factory, redis_server) -> Iterator[tuple[TripRig, Watcher]]:
    watcher = Watcher()
    Redis.from_url(redis_server.url).flushdb()  # this module's chat alone
    rig = TripRig(Redis.from_url(redis_server.url), ManualClock(START), tmp_path_factory.mktemp("watch"), watcher)
    yield rig, watcher
    rig.stop()


def lowest(rig: TripRig) -> Decimal:
    days = httpx.get(f"{rig.urls['flights']}/api/fares", params=LISBON_MARCH).json()["days"]
    return min(Decimal(d["lowest_fare"]) for d in days)


def asking(rig) -> list:
    """The cards that ask to approve something (a fare near the limit also gets an offer to change the watch)."""
    return [card for card in rig.cards() if any(b.text == "Approve" for row in card.buttons for b in row)]


def test_a_fare_watch_is_quiet_until_the_fare_crosses_then_offers_the_flight_once(watching) -> None:
    rig, watcher = watching
    watcher.below = float(lowest(rig))  # strictly below today's lowest: not crossed yet
    goal = rig.start(USER, "tell me if flights to Lisbon in March drop under that").id
    assert len(rig.model.calls) == 1 and asking(rig) == []
    quiet_days = 0
    while not asking(rig):
        assert quiet_days < 20, "the moving fares never crossed"
        rig.tick(DAY)
        quiet_days += 1
        if not asking(rig):
            assert len(rig.model.calls) == 1, "no model call while the fare stays above"
    assert quiet_days >= 2 and len(rig.model.calls) == 2, "woken once, on the crossing"
    [card] = asking(rig)
    assert "EUR" in card.text and "passport" in card.text, "the card says the traveller's details go to the airline"
    assert rig.get("flights", "/api/bookings")["bookings"] == []

    rig.approve_last_card()
    [booking] = rig.get("flights", "/api/bookings")["bookings"]
    assert booking["passengers"] == ["Dana Demo"] and Decimal(booking["total"]) < Decimal(str(watcher.below))
    [paid] = [t for t in rig.issuer.transactions.values() if t.merchant == rig.urls["flights"]]
    assert (paid.amount, paid.currency) == (Decimal(booking["total"]), "EUR")
    assert rig.sent()[-1].startswith("Flight booked") and rig.goal(goal).status.value == "done"
    rig.tick(DAY)
    assert len(rig.model.calls) == 3, "the watch fired once and is over"
