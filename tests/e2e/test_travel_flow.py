"""Travel in the local chat, against the sandbox world, on one clock the test moves.

Real bot, workers, executor, guard, Radicale, the sandbox airline, hotels and card issuer; every
process and the sandbox read the same shared test clock (`DEPUTY_TEST_CLOCK_FILE`), so the fares
and the calendar's free days are those of the date the test chose. The model is scripted: it only
calls plan_trip / book_trip / schedule_check / book_flight with what code gave it.

- "find a four-day trip to Chicago under $1,200 that works with my calendar": one card, two
  bookings, one payment per booking, the trip on the calendar;
- the same trip with the hotel sold out between the card and the tap: the flights are cancelled and
  refunded, the chat says exactly that, and nothing is on the calendar;
- "tell me if flights to Lisbon in March drop under €300": quiet (no model call) while the fare is
  above, one card when the clock reaches a day it is under, and nothing more after.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Iterator

import httpx
import pytest
from redis import Redis

from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, message_text, text, tool_call
from deputy.apps.local import api_environment, sandbox_environment
from deputy.core.infrastructure.clock import TEST_CLOCK_FILE, SharedTestClock
from deputy.sandbox.hotels import HOTELS
from deputy.sandbox.issuer import ISSUER_KEY_HEADER
from deputy.sandbox.services import SandboxEndpoints, SandboxServices
from deputy.testing.stack import ChatUser, DeputyStack, RedisServer, wait_for

CARDS = {1: "4111 1111 1111 1111", 2: "4242 4242 4242 4242", 3: "4000 0566 5566 5556"}
"""A card of its own for each user, so each statement at the issuer is that user's."""
TRIP = "find a four-day trip to Chicago under $1,200 that works with my calendar, not before 9am"
WATCH = "tell me if flights to Lisbon in March drop under €300"
OPTION = re.compile(r"option=(TRIP-[A-Z0-9]+) total=([0-9.]+) currency=([A-Z]{3})")
ROW = re.compile(r'"date":"([0-9-]+)","lowest_fare":"([0-9.]+)","currency":"EUR","flight_id":"([A-Z0-9-]+)"')
TRIP_DAY = datetime(2027, 2, 1, 8, 0).timestamp()
# The airline shows March 2028 from 6 April 2027 on: that day its lowest fare is 345 EUR, the next
# day 296 EUR (fares are fixed per clock date; asserted below, so a change of the airline shows).
WATCH_DAY = datetime(2027, 4, 6, 8, 0).timestamp()
DAY = 24 * 3600
CHECK_SECONDS = 1.8
WATCHER = 3
LISBON_MARCH = {"origin": "SFO", "destination": "LIS", "month": "2028-03"}


def _goal(request: ChatRequest) -> str:
    return next(message_text(m) for m in request.messages if m.get("role") == "user")


def _trip(request: ChatRequest) -> ModelReply:
    tools = [message_text(m) for m in request.messages if m.get("role") == "tool"]
    if not tools:
        return tool_call("plan_trip", destination="Chicago", days=4, budget="1200", earliest_departure="09:00")
    found = OPTION.search(tools[0])
    if len(tools) == 1 and found:
        return tool_call("book_trip", option=found.group(1), total=found.group(2), currency=found.group(3))
    return tool_call("reply", text="Trip: " + tools[-1])


def _watch(request: ChatRequest) -> ModelReply:
    last = request.messages[-1]
    said = message_text(last)
    if last.get("role") == "tool" and said.startswith(("Flight booked", "Failed")):
        return tool_call("reply", text=said[:300])
    if last.get("role") == "tool" and "<untrusted" in said:
        _, fare, flight = min(ROW.findall(re.sub(r"\s", "", said)), key=lambda r: Decimal(r[1]))
        return tool_call("book_flight", flight_id=flight, fare=fare, currency="EUR")
    # Checked every few seconds: RQ schedules on real time, and the test moves the date between checks.
    probe = {"tool": "flights_lowest_fares", "arguments": LISBON_MARCH, "compare": "threshold",
             "field": "days.*.lowest_fare", "below": 300}
    return tool_call("schedule_check", what="flights to Lisbon in March under 300 EUR",
                     every_minutes=CHECK_SECONDS / 60, max_checks=200, probe=probe)


def script(request: ChatRequest) -> ModelReply:
    goal = _goal(request)
    if goal == TRIP:
        return _trip(request)
    if goal == WATCH:
        return _watch(request)
    return text("No script for this goal.")


@dataclass
class Travel:
    stack: DeputyStack
    services: SandboxServices
    world: SandboxEndpoints
    clock: SharedTestClock
    model: ScriptedModelServer
    redis: Redis

    def get(self, site: str, path: str, **params: Any) -> Any:
        url = self.world.flights_url if site == "flights" else self.world.hotels_url
        return httpx.get(f"{url}{path}", params=params).json()

    def statement(self, user_id: int) -> list[dict[str, Any]]:
        """What the card issuer lists for the user's card: payments, and refunds on them."""
        card_ref = self.redis.get(next(self.redis.scan_iter(f"deputy:issuercard:{user_id}:*"))).decode()
        issuer = httpx.Client(base_url=self.world.issuer_url, headers={ISSUER_KEY_HEADER: self.world.issuer_key})
        return issuer.get(f"/api/v1/statements/{card_ref}").json()["transactions"]

    def calendar_titles(self) -> list[str]:
        import caldav

        client = caldav.DAVClient(url=self.world.caldav_url, username=self.world.demo_address,
                                  password=self.world.demo_password)
        client.session.trust_env = False
        return [str(event.icalendar_component.get("summary")) for calendar in client.principal().calendars()
                for event in calendar.events()]


@pytest.fixture(scope="module")
def travel(tmp_path_factory, redis_server: RedisServer) -> Iterator[Travel]:
    redis = redis_server.client()
    redis.flushall()  # this module's stack alone
    root = tmp_path_factory.mktemp("travel")
    clock = SharedTestClock(root / "clock")
    clock.set(TRIP_DAY)
    services = SandboxServices(root / "world", clock=clock)
    world = services.start()
    model = ScriptedModelServer(script).start()
    stack = None
    try:
        stack = DeputyStack(redis_server.url, model.base_url, root / "stack", smtp=sandbox_environment(world),
                            extra_env={**api_environment(world), TEST_CLOCK_FILE: str(clock.path),
                                       # No suggestion rounds: embedding the sandbox's listings in the agent
                                       # worker at start-up can hold its goal steps back for minutes on a
                                       # loaded machine, and nothing here is about suggestions.
                                       "DEPUTY_SUGGESTION_SOURCES": ""}).start()
        yield Travel(stack, services, world, clock, model, redis)
    finally:
        if stack is not None:
            stack.stop()
        model.stop()
        services.stop()
        redis.flushall()


def connected(travel: Travel, user_id: int) -> ChatUser:
    user = travel.stack.user(user_id)
    sent = user.send("/connect card")
    link = re.search(r"http://\S+/connect/\S+", user.wait_for_bot(lambda m: "/connect/" in m["text"],
                                                                   after=sent)["text"])
    assert httpx.post(link.group(0), data={"number": CARDS[user_id], "holder": "Dana Demo", "expiry": "12/29"}
                      ).status_code == 200
    user.wait_for_bot(lambda m: "connected" in m["text"], after=sent)
    return user


def test_the_chicago_trip_in_the_chat_one_card_two_payments_on_the_calendar(travel: Travel) -> None:
    user = connected(travel, 1)
    sent = user.send(TRIP)
    card = user.wait_for_card(after=sent, timeout=60)
    total = re.search(r"total: ([0-9.]+)", card["text"]).group(1)
    assert Decimal(total) <= 1200 and card["text"].count("✈️") == 2 and "🏨" in card["text"]
    assert "spends your money" in card["text"] and "passport" in card["text"]
    assert "Feb 2027" in card["text"], "planned on the test's date, not the machine's"
    assert travel.get("flights", "/api/bookings")["bookings"] == [], "nothing before the tap"
    user.press(card["message_id"], button="Approve")
    done = user.wait_for_bot(lambda m: m["text"].startswith("Trip:"), after=card["message_id"], timeout=60)
    assert "Trip booked" in done["text"] and "on your calendar" in done["text"]

    [booking] = travel.get("flights", "/api/bookings")["bookings"]
    [stay] = travel.get("hotels", "/api/reservations")["reservations"]
    assert Decimal(booking["total"]) + Decimal(stay["total"]) == Decimal(total)
    assert booking["passengers"] == ["Dana Demo"]
    assert sorted((t["merchant"], t["amount"], t["status"]) for t in travel.statement(1)) == sorted(
        [(travel.world.flights_url, booking["total"], "captured"),
         (travel.world.hotels_url, stay["total"], "captured")]), "one payment per booking"
    titles = travel.calendar_titles()
    for leg in booking["flights"]:
        assert titles.count(f"Flight {leg['number']} {leg['origin']}→{leg['destination']}") == 1
    assert any(title.startswith(stay["hotel"]) for title in titles), "the stay is on the calendar"
    user.wait_for_bot(lambda m: m["text"].startswith("🧾") and stay["total"] in m["text"],
                      after=card["message_id"], timeout=20)


def test_a_room_sold_out_before_the_tap_undoes_the_flights_and_the_chat_says_exactly_that(travel: Travel) -> None:
    user = connected(travel, 2)
    events_before = sorted(travel.calendar_titles())
    sent = user.send(TRIP)
    card = user.wait_for_card(after=sent, timeout=60)
    assert "if the hotel fails, the flights are cancelled" in card["text"]
    # Someone else takes every room of every hotel between the card and the tap.
    for hotel in travel.services.apps["hotels"][HOTELS].hotels.values():
        for room in hotel.rooms:
            room.count = 0
    user.press(card["message_id"], button="Approve")
    # Written by code, whatever the model makes of the failure.
    told = user.wait_for_bot(lambda m: m["text"].startswith("💳 This purchase did not go through"),
                             after=card["message_id"], timeout=60)["text"]

    [flights] = [b for b in travel.get("flights", "/api/bookings")["bookings"] if b["status"] == "cancelled"]
    assert flights["refunded"] == flights["total"], "refunded in full under the fare rule"
    for said in (flights["booking_id"], f"{flights['total']} USD", "were cancelled",
                 f"{flights['refunded']} USD refunded to your card", "Nothing of this trip is booked"):
        assert said in told, said
    assert "Trip booked" not in told and "on your calendar" not in told
    user.wait_for_bot(lambda m: m["text"].startswith("Trip:"), after=card["message_id"], timeout=30)  # goal's end
    assert not [m for m in user.bot_messages(after=card["message_id"]) if "Trip booked" in m["text"]], "never done"
    [paid] = travel.statement(2)
    assert (paid["merchant"], paid["amount"], paid["refunded"], paid["status"]) == (
        travel.world.flights_url, flights["total"], flights["total"], "refunded"), "the issuer shows the refund"
    assert travel.get("hotels", "/api/reservations")["reservations"][1:] == [], "no second room"
    assert sorted(travel.calendar_titles()) == events_before, "nothing of the trip on the calendar"


def test_a_fare_watch_is_quiet_while_above_fires_once_under_and_offers_the_flight(travel: Travel) -> None:
    travel.clock.set(WATCH_DAY)
    lowest = lambda: min(Decimal(d["lowest_fare"]) for d in travel.get("flights", "/api/fares",  # noqa: E731
                                                                      **LISBON_MARCH)["days"])
    assert lowest() >= 300
    user = connected(travel, WATCHER)
    sent = user.send(WATCH)
    asked = lambda: len(travel.model.requests)  # noqa: E731
    wait_for(lambda: _probe_runs(travel.redis) >= 1, timeout=30, what="the watch's first reading")
    calls = asked()
    seen = _probe_runs(travel.redis)
    wait_for(lambda: _probe_runs(travel.redis) >= seen + 3, timeout=30, what="three checks with the fare above")
    assert asked() == calls, "no model call while the fare stays above"
    assert not _cards(user, sent)

    travel.clock.advance(DAY)
    assert lowest() < 300
    card = user.wait_for_card(after=sent, timeout=30)
    assert "EUR" in card["text"] and "passport" in card["text"], "the traveller's details go to the airline"
    assert asked() == calls + 1, "woken once, on the crossing"
    fare = re.search(r"([0-9]+\.[0-9]{2}) EUR", card["text"]).group(1)
    assert Decimal(fare) < 300
    user.press(card["message_id"], button="Approve")
    user.wait_for_bot(lambda m: "Flight booked" in m["text"], after=card["message_id"], timeout=60)
    [booking] = [b for b in travel.get("flights", "/api/bookings")["bookings"] if b["flights"][0]["destination"]
                 == "LIS"]
    assert booking["total"] == fare and booking["passengers"] == ["Dana Demo"]
    assert [(t["merchant"], t["amount"], t["currency"]) for t in travel.statement(WATCHER)] == [
        (travel.world.flights_url, fare, "EUR")], "one payment"

    wait_for(lambda: _watch_over(travel.redis), timeout=15, what="the watch to end once it spoke")
    assert _watch_goal(travel.redis).status is GoalStatus.done
    travel.clock.advance(DAY)  # the fare is under the limit the next day too: nothing more is said
    time.sleep(CHECK_SECONDS * 2)
    asks = [m for m in user.bot_messages(sent) if "spends your money" in m["text"]]  # cards, pressed or not
    assert len(asks) == 1 and asked() == calls + 2, "fired once: the crossing, and the booking's answer"


def _cards(user: ChatUser, after: int) -> list[dict[str, Any]]:
    return [m for m in user.bot_messages(after) if any(b.get("text") == "Approve" for r in m["buttons"] for b in r)]


def _watch_goal(redis: Redis) -> Goal | None:
    return next((g for g in GoalStore(redis).recent(WATCHER) if g.text == WATCH), None)


def _probe_runs(redis: Redis) -> int:
    goal = _watch_goal(redis)
    return goal.monitor.probe_runs if goal is not None and goal.monitor is not None else 0


def _watch_over(redis: Redis) -> bool:
    goal = _watch_goal(redis)
    return goal is None or goal.status.finished or goal.monitor is None
