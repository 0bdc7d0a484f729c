"""In the local chat, against the sandbox world: book a table, put it in the calendar, tell a friend.

Real parts throughout: the restaurant site (over its OpenAPI description, through the
egress guard), Radicale, the sandbox mail server with IMAP, real workers and executor.
Sentinel allows the search and the calendar entry, and asks before the booking and the email.
"""

from __future__ import annotations

import imaplib
import re
from datetime import date, timedelta
from typing import Iterator

import httpx
import pytest

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.apps.local import api_environment, sandbox_environment
from deputy.testing.stack import DeputyStack, RedisServer
from deputy.sandbox.services import SandboxEndpoints, SandboxServices

GOAL = "book a table for 2 at an Italian place on Friday at 7pm, add it to my calendar and email sam@example.com"


def next_friday() -> str:
    today = date.today()
    return (today + timedelta(days=(4 - today.weekday()) % 7 or 7)).isoformat()


def script(request: ChatRequest) -> ModelReply:
    tools = [m for m in request.messages if m.get("role") == "tool"]
    friday = next_friday()
    if not tools:
        return tool_call("restaurants_search", cuisine="Italian", date=friday, time="19:00", party_size=2)
    last = message_text(tools[-1])
    if len(tools) == 1:
        # The first Italian place with a free table then (the model reads the search result).
        place = re.search(r'"id":\s*"([a-z0-9-]+)"[^}]*"available":\s*true', last).group(1)
        return tool_call("restaurants_book", body={"restaurant_id": place, "date": friday, "time": "19:00",
                                                   "party_size": 2, "name": "Demo"})
    if len(tools) == 2:
        code = re.search(r"TB-[A-Z0-9]+", last).group(0)
        return tool_call("create_event", title=f"Dinner, table {code}", start=f"{friday}T19:00",
                         end=f"{friday}T21:00")
    if len(tools) == 3:
        return tool_call("send_email", to=["sam@example.com"], subject="Dinner on Friday",
                         body=f"I booked a table for us on {friday} at 19:00. See you there!")
    return tool_call("reply", text="All set: booked, in your calendar, and Sam knows.")


@pytest.fixture
def world(tmp_path) -> Iterator[SandboxEndpoints]:
    services = SandboxServices(tmp_path / "world")
    yield services.start()
    services.stop()


def test_book_a_table_put_it_in_the_calendar_and_email_a_friend(
    redis_server: RedisServer, redis, model_server, world: SandboxEndpoints, tmp_path
) -> None:
    model_server.responder = script
    redis_server.client().flushall()  # start on an empty Redis: nothing an earlier stack left waits here
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=sandbox_environment(world),
                        extra_env=api_environment(world)).start()
    try:
        user = stack.user(1, "Demo", asks_before_sending=True)
        sent = user.send(GOAL)
        booking_card = user.wait_for_card(after=sent, timeout=40)
        assert "restaurants_book" in booking_card["text"] or "restaurants" in booking_card["text"]
        user.press(booking_card["message_id"], button="Approve")

        email_card = user.wait_for_card(after=booking_card["message_id"], timeout=40)
        assert "To: sam@example.com" in email_card["text"]
        user.press(email_card["message_id"], button="Approve")
        user.wait_for_bot(lambda m: m["text"].startswith("All set"), after=email_card["message_id"], timeout=40)

        bookings = httpx.get(f"{world.restaurants_url}/api/bookings").json()["bookings"]
        assert len(bookings) == 1 and bookings[0]["time"] == "19:00" and bookings[0]["party_size"] == 2
        code = bookings[0]["code"]

        calendar = httpx.request("PROPFIND", world.caldav_url + f"{world.demo_address}/",
                                 auth=(world.demo_address, world.demo_password), headers={"Depth": "infinity"})
        assert code in calendar.text or _event_with(world, code)

        mailbox = imaplib.IMAP4(world.imap_host, world.imap_port)
        mailbox.login("sam@example.com", world.demo_password)
        mailbox.select("INBOX")
        _, found = mailbox.search(None, "ALL")
        assert len(found[0].split()) == 1
        mailbox.logout()

        cards = [m for m in user.bot_messages(after=sent) if "Why I'm asking" in m["text"]]
        assert len(cards) == 2, "the search and the calendar entry did not need the user"
    finally:
        stack.stop()


def _event_with(world: SandboxEndpoints, code: str) -> bool:
    import caldav

    client = caldav.DAVClient(url=world.caldav_url, username=world.demo_address, password=world.demo_password)
    for calendar in client.principal().calendars():
        for event in calendar.events():
            if code in event.data:
                return True
    return False
