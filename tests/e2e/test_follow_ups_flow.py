"""Follow-ups through the Telegram emulator and the whole stack, judged by what happened in the sandbox.

Real parts: python-telegram-bot against the local Bot API emulator, workers, executor and guard,
Radicale and the sandbox mail server; a scripted model that does what the prompt lets it do.
"Move it to 4 instead" after an event went on the calendar moves THAT event (one event, at
16:00 on its day); "send it to Bob instead" after an email sends the same email to Bob; a
Telegram reply to Deputy's answer of an older goal, after another goal came in between,
continues the older one, and the chat says which.
"""

from __future__ import annotations

import imaplib
import re
from datetime import date, timedelta
from email import message_from_bytes, policy
from typing import Iterator

import pytest

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, goal_text, message_text, system_text, tool_call
from deputy.apps.local import api_environment, sandbox_environment
from deputy.sandbox.services import SandboxEndpoints, SandboxServices
from deputy.testing.stack import DeputyStack, RedisServer, wait_for

pytestmark = pytest.mark.timeout(400)

WORKSHOP = "Hi Alice, the pottery workshop is confirmed for Friday at 10. Bring an apron!"
_EVENT_ID = re.compile(r"\(id ([\w./@:-]+)\)")


def next_weekday(weekday: int) -> date:
    today = date.today()
    return today + timedelta(days=(weekday - today.weekday()) % 7 or 7)


def _earlier(request: ChatRequest) -> str:
    """What the prompt carries of the request this one follows up ("" when it follows none)."""
    context = system_text(request.messages)
    return context.split("follows up their previous request", 1)[1] if "follows up their previous" in context else ""


def script(request: ChatRequest) -> ModelReply:
    goal = goal_text(request.messages).lower()
    tools = [m for m in request.messages if m.get("role") == "tool"]
    if tools:
        return tool_call("reply", text=f"Done: {message_text(tools[-1])[:160]}")
    if "on my calendar" in goal:
        day = next_weekday(3 if "thursday" in goal else 2)
        title, hour = ("Yoga class", 15) if "yoga" in goal else ("Piano lesson", 17)
        return tool_call("create_event", title=title, start=f"{day}T{hour}:00", end=f"{day}T{hour + 1}:00")
    if goal.startswith("email alice"):
        return tool_call("send_email", to=["alice@example.com"], subject="Pottery workshop", body=WORKSHOP)
    earlier = _earlier(request)
    if "instead" in goal and "on my calendar" in earlier.lower():
        # The model names the event the earlier request made, and the user's new time on its day.
        event = _EVENT_ID.search(earlier)
        day = re.search(r"\d{4}-\d{2}-\d{2}", earlier)
        if event is None or day is None:
            return tool_call("reply", text="Which event do you mean?")
        hour = 16 if " 4" in goal else 18
        return tool_call("move_event", event_id=event.group(1), start=f"{day.group(0)}T{hour}:00")
    if "to bob" in goal and "instead" in goal:
        subject = re.search(r"subject “([^”]+)”", earlier)
        body = re.search(r"Subject “[^”]+”:\n(.+?)\n", earlier)
        if subject is None or body is None:
            return tool_call("reply", text="Which email do you mean?")
        return tool_call("send_email", to=["bob@example.com"], subject=subject.group(1), body=body.group(1))
    return tool_call("reply", text="Paris.")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxEndpoints]:
    services = SandboxServices(tmp_path_factory.mktemp("world"))
    yield services.start()
    services.stop()


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(script) as server:
        yield server


@pytest.fixture(scope="module")
def stack(redis_server: RedisServer, model: ScriptedModelServer, world: SandboxEndpoints,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[DeputyStack]:
    redis_server.client().flushall()  # a vault or an outbox an earlier module left in this Redis is not this stack's
    stack = DeputyStack(redis_server.url, model.base_url, tmp_path_factory.mktemp("stack"),
                        smtp=sandbox_environment(world), extra_env=api_environment(world)).start()
    yield stack
    stack.stop()


def _events(world: SandboxEndpoints, title: str) -> list[str]:
    import caldav

    client = caldav.DAVClient(url=world.caldav_url, username=world.demo_address, password=world.demo_password)
    return [event.data for calendar in client.principal().calendars() for event in calendar.events()
            if f"SUMMARY:{title}" in event.data]


def _starts(events: list[str]) -> list[str]:
    return [re.search(r"DTSTART[^:]*:(\d{8}T\d{4})", e).group(1) for e in events]


def _inbox(world: SandboxEndpoints, address: str) -> list[str]:
    """The plain-text bodies in `address`'s sandbox inbox."""
    mailbox = imaplib.IMAP4(world.imap_host, world.imap_port)
    try:
        mailbox.login(address, world.demo_password)
        mailbox.select("INBOX")
        _, found = mailbox.search(None, "ALL")
        bodies = []
        for number in found[0].split():
            _, data = mailbox.fetch(number, "(RFC822)")
            parsed = message_from_bytes(data[0][1], policy=policy.default)
            bodies.append(parsed.get_body(("plain",)).get_content())
        return bodies
    finally:
        mailbox.logout()


def test_move_it_to_4_instead_moves_that_event(stack: DeputyStack, world: SandboxEndpoints) -> None:
    user = stack.user(7601)
    sent = user.send("Put the yoga class on my calendar for Thursday at 3 pm.")
    user.wait_for_bot(lambda m: m["text"].startswith("Done"), after=sent, timeout=120)
    thursday = next_weekday(3).strftime("%Y%m%d")
    assert _starts(_events(world, "Yoga class")) == [f"{thursday}T1500"]
    again = user.send("move it to 4 instead")
    ack = user.wait_for_bot(lambda m: "background" in m["text"], after=again, timeout=60)["text"]
    assert "Continuing from: “Put the yoga class on my calendar" in ack, ack
    user.wait_for_bot(lambda m: m["text"].startswith("Done"), after=again, timeout=90)
    assert _starts(_events(world, "Yoga class")) == [f"{thursday}T1600"], "that event moved; no second one"


def test_send_it_to_bob_instead_sends_the_earlier_email_to_bob(stack: DeputyStack, world: SandboxEndpoints) -> None:
    user = stack.user(7602)
    sent = user.send("Email alice@example.com that the pottery workshop is confirmed for Friday at 10.")
    user.wait_for_bot(lambda m: m["text"].startswith("Done"), after=sent, timeout=90)
    wait_for(lambda: any("pottery workshop" in b for b in _inbox(world, "alice@example.com")), timeout=30,
             what="Alice's email")
    again = user.send("send it to bob@example.com instead")
    user.wait_for_bot(lambda m: m["text"].startswith("Done"), after=again, timeout=90)
    bodies = wait_for(lambda: _inbox(world, "bob@example.com"), timeout=30, what="Bob's email")
    assert [WORKSHOP in b for b in bodies] == [True], bodies


def test_a_telegram_reply_continues_the_older_goal_after_another_came_in_between(
        stack: DeputyStack, world: SandboxEndpoints) -> None:
    user = stack.user(7603)
    first = user.send("Put the piano lesson on my calendar for Wednesday at 5 pm.")
    answer = user.wait_for_bot(lambda m: m["text"].startswith("Done"), after=first, timeout=90)
    between = user.send("What is the capital of France?")
    user.wait_for_bot(lambda m: m["text"].startswith("Paris"), after=between, timeout=90)
    reply = user.send("make it 6 instead", reply_to=answer["message_id"])
    ack = user.wait_for_bot(lambda m: "background" in m["text"], after=reply, timeout=60)["text"]
    assert "Continuing from: “Put the piano lesson on my calendar" in ack, ack
    assert "capital of France" not in ack
    user.wait_for_bot(lambda m: m["text"].startswith("Done"), after=reply, timeout=90)
    wednesday = next_weekday(2).strftime("%Y%m%d")
    assert _starts(_events(world, "Piano lesson")) == [f"{wednesday}T1800"], "the older goal's event moved"
