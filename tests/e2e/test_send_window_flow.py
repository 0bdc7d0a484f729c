"""Nothing goes out unseen, through the whole of Deputy: real bot, workers, executor, mail
server and Radicale, driven from the chat.

A message the guard lets through without a card waits in its send window, shown in full
with Undo / Send now / Edit: Undo delivers nothing, Send now delivers at once, Edit delivers
the user's corrected text. A calendar event created without a card is shown with Undo, and
Undo deletes it from the CalDAV server.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Iterator

import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.testing.stack import DeputyStack, Message, wait_for
from deputy.sandbox.calendar import SandboxCalendar
from deputy.sandbox.mail import LocalMailServer

TO, SUBJECT, BODY = "alice@example.org", "Running late", "Hi Alice, I'll be 10 minutes late. Sorry!"
WINDOW = 300  # long enough that only a press can make anything happen within a test's waits
GOAL = f"email {TO} that I'll be 10 minutes late"
DAY = (date.today() + timedelta(days=3)).isoformat()


def script(request: ChatRequest) -> ModelReply:
    tools = [message_text(m) for m in request.messages if m.get("role") == "tool"]
    said = " ".join(message_text(m) for m in request.messages if m.get("role") == "user")
    if tools:
        return tool_call("reply", text=f"Result: {tools[-1]}")
    if "calendar" in said:
        return tool_call("create_event", title="Piano lesson", start=f"{DAY}T10:00", end=f"{DAY}T10:30")
    return tool_call("send_email", to=[TO], subject=SUBJECT, body=BODY)


def has_button(message: Message, text: str) -> bool:
    return any(b.get("text") == text for row in message["buttons"] for b in row)


def with_window(redis: Redis, user_id: int, seconds: int = WINDOW) -> None:
    """The user's choice in /settings: messages wait this long for Undo."""
    UserSettingsStore(redis).save(user_id, UserSettings(send_window=seconds))


def waiting_message(user, sent: int) -> Message:
    return user.wait_for_bot(lambda m: has_button(m, "Undo") and has_button(m, "Send now"), after=sent, timeout=40)


@pytest.mark.timeout(240)
def test_undo_send_now_and_edit_in_the_send_window(stack: DeputyStack, model_server, redis: Redis,
                                                   mail_server: LocalMailServer) -> None:
    model_server.responder = script
    undoer, sender, editor = (stack.user(uid) for uid in (611, 612, 613))
    answer = undoer.send(f"/settings send {WINDOW}")  # the user's own choice, from the chat
    undoer.wait_for_bot(lambda m: f"Messages wait for Undo: {WINDOW} s" in m["text"], after=answer)
    for user in (sender, editor):
        with_window(redis, user.user_id)

    sent = undoer.send(GOAL)
    shown = waiting_message(undoer, sent)
    assert f"To: {TO}" in shown["text"] and f"Subject: {SUBJECT}" in shown["text"] and BODY in shown["text"]
    assert mail_server.messages() == [], "nothing leaves while it waits"
    undoer.press(shown["message_id"], button="Undo")
    told = undoer.wait_for_bot(lambda m: m["text"].startswith("Result:"), after=shown["message_id"], timeout=40)
    assert "cancelled" in told["text"] and "Undo" in told["text"], "the goal learns the user cancelled it"
    assert "Nothing was sent" in undoer.wait_for_answer(1)["text"]

    sent = sender.send(GOAL)
    shown = waiting_message(sender, sent)
    sender.press(shown["message_id"], button="Send now")
    [received] = mail_server.wait_for(1, address=TO, timeout=30)
    assert received.subject == SUBJECT and BODY in received.body
    sender.wait_for_bot(lambda m: m["text"].startswith("Result: Email sent"), after=shown["message_id"], timeout=40)

    sent = editor.send(GOAL)
    shown = waiting_message(editor, sent)
    editor.press(shown["message_id"], button="Edit")
    editor.wait_for_answer(1)
    corrected = "Hi Alice, make that 20 minutes, the train is slow. Sorry!"
    editor.send(corrected)
    wait_for(lambda: len(mail_server.messages(TO)) == 2, timeout=30, what="the corrected email")
    assert corrected in mail_server.messages(TO)[1].body and BODY not in mail_server.messages(TO)[1].body
    editor.wait_for_bot(lambda m: m["text"].startswith("Result: Email sent"), after=shown["message_id"], timeout=40)
    assert len(mail_server.messages()) == 2, "the undone one never went, the others once each"


@pytest.fixture
def radicale(tmp_path) -> Iterator[SandboxCalendar]:
    server = SandboxCalendar(tmp_path / "radicale", password="pw-e2e").start()
    server.seed_demo_calendar(datetime.now(timezone.utc))  # the user's Personal and Work calendars
    yield server
    server.stop()


@pytest.fixture
def stack_env(radicale: SandboxCalendar) -> dict[str, str]:
    return {"DEPUTY_CALDAV_URL": radicale.url, "DEPUTY_CALDAV_USERNAME": radicale.username,
            "DEPUTY_CALDAV_PASSWORD": radicale.password,
            "DEPUTY_EGRESS_ALLOW": radicale.url.removeprefix("http://").rstrip("/")}


def events_on_server(radicale: SandboxCalendar) -> list[str]:
    import caldav

    with caldav.DAVClient(url=radicale.url, username=radicale.username, password=radicale.password,
                          enable_rfc6764=False, timeout=10) as client:
        return [str(e.data) for c in client.principal().calendars() for e in c.get_events()]


@pytest.mark.timeout(180)
def test_undo_of_a_created_event_deletes_it_from_the_calendar_server(
        stack: DeputyStack, model_server, radicale: SandboxCalendar) -> None:
    model_server.responder = script
    user = stack.user(621)
    sent = user.send(f"put a piano lesson in my calendar on {DAY} from 10:00 to 10:30")
    shown = user.wait_for_bot(lambda m: has_button(m, "Undo"), after=sent, timeout=40)
    assert shown["text"].startswith("📅 Added to your calendar") and "“Piano lesson”" in shown["text"]
    weekday = date.fromisoformat(DAY).strftime("%a")
    assert f"When: {weekday} {date.fromisoformat(DAY).day}" in shown["text"] and "10:00" in shown["text"]
    assert any("Piano lesson" in event for event in events_on_server(radicale))

    undo = next(b["data"] for row in shown["buttons"] for b in row if b["text"] == "Undo")
    user.press(shown["message_id"], button="Undo")
    done = user.wait_for_bot(lambda m: m["text"].startswith("↩️ Undone:"), after=shown["message_id"], timeout=40)
    assert "Removed “Piano lesson”" in done["text"]
    assert not any("Piano lesson" in event for event in events_on_server(radicale))
    user.press(shown["message_id"], data=undo)  # the same press replayed
    assert "already undone" in user.wait_for_answer(2)["text"], "a second press changes nothing"
