"""Watching for something that does not happen: "remind me on Friday if Sam hasn't replied",
"check every morning whether Sam replied and remind me if not".

Real parts: pymap IMAP fed by the sandbox SMTP server, the real executor and guard, Redis,
and the scripted model server over HTTP (through the OpenAI client), which counts every
request: a reminder is composed by code, so checks with nothing new make none.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import openai
import pytest
from redis import Redis
from test_watch_probes import ME, SAM, USER, mail_runners, send_mail

from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.model.chat_model import ModelReply, OpenAIChatModel
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, message_text, tool_call
from deputy.bot.activity import goal_card
from deputy.connectors.default import default_catalog
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import MailStore
from deputy.testing.inline import InlineDeputy

START = 1_800_000_000.0  # Fri 15 Jan 2027 08:00 UTC
DEADLINE = "2027-01-18T17:00:00"  # Mon 18 Jan 17:00 UTC
DEADLINE_AT = datetime(2027, 1, 18, 17, 0, tzinfo=timezone.utc).timestamp()
REMINDER = "Sam hasn't replied to your email yet."


@pytest.fixture
def mail(tmp_path: Path) -> Iterator[tuple[MailStore, LocalMailServer]]:
    with MailStore(tmp_path / "imap") as store:
        store.add_user(ME)
        server = LocalMailServer(store=store)
        server.start()
        yield store, server
        server.stop()


class Rig(InlineDeputy):
    """The agent worker and the executor run inline; the model is the scripted HTTP server."""

    def __init__(self, redis: Redis, server: ScriptedModelServer, store: Any,
                 reachable: dict[str, bool] | None = None, settings: UserSettingsStore | None = None) -> None:
        self.server = server
        model = OpenAIChatModel(openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0),
                                server.model_name)
        super().__init__(redis, model, default_catalog(), mail_runners(store, reachable), settings=settings)

    def start(self, text: str, goal_id: str = "g_remind") -> Goal:
        self.goal_id = goal_id
        return super().start(USER, text, goal_id=goal_id)

    def goal(self) -> Goal:
        return super().goal(self.goal_id)

    def next_check(self) -> None:
        """Move the clock to the monitor's next check and run it."""
        monitor = self.goal().monitor
        assert monitor is not None
        self.clock.now = max(self.clock.now, monitor.next_at)
        self.dispatch.release_delayed()
        self.dispatch.drain()


def woken_with_news(request: ChatRequest) -> str | None:
    """The new mail, when this request is the watch waking the model with it."""
    messages = request.messages
    if len(messages) >= 3 and "found something new" in message_text(messages[-3]):
        return message_text(messages[-1])
    return None


def remind_by_monday(if_found: str = "tell"):
    def respond(request: ChatRequest) -> ModelReply:
        news = woken_with_news(request)
        if news is not None:
            return tool_call("reply", text="Sam replied: " + news.split(" | ")[3] + ".")
        return tool_call("schedule_check", what=f"email from {SAM}", every_minutes=240,
                         probe={"tool": "search_email", "arguments": {"from": SAM}, "remind_if_none_by": DEADLINE,
                                "reminder": REMINDER, "if_found": if_found})
    return respond


def test_nothing_arrives_so_the_reminder_comes_at_the_deadline_and_the_model_is_not_called_between(
    redis: Redis, model_server: ScriptedModelServer, mail
) -> None:
    store, server = mail
    send_mail(server, SAM, "An old thread")  # already there when the watch starts: not a reply
    model_server.responder = remind_by_monday()
    rig = Rig(redis, model_server, store)
    goal = rig.start("remind me on Monday at 17:00 if Sam hasn't replied")
    assert goal.status is GoalStatus.scheduled and len(model_server.requests) == 1
    answer = next(m for m in goal.messages if m.get("role") == "tool")["content"]
    assert (f"if nothing new comes by Mon 18 Jan 17:00 UTC (2027-01-18T17:00+00:00), I send the user your "
            f"reminder “{REMINDER}”") in answer
    card = goal_card(goal)
    assert f"reminding you if no email from {SAM} by Mon 18 Jan 17:00 UTC" in card

    send_mail(server, "bob@example.org", "Re: your email")  # someone else: not what the user waits for
    checked_at: list[float] = []
    while rig.goal().status is GoalStatus.scheduled and len(checked_at) < 40:
        rig.next_check()
        checked_at.append(rig.clock.now)
        if rig.clock.now < DEADLINE_AT:
            assert rig.sent() == [], "no message before the deadline"
    assert len(model_server.requests) == 1, "no model call at any check"
    assert checked_at[-1] == DEADLINE_AT, "the last check is at the deadline"
    assert rig.goal().monitor.checks_done == 20, "the default 20 checks, the last one moved to the deadline"
    [reminder] = rig.messages()
    assert reminder.text == (f"⏰ {REMINDER} (Nothing new by Mon 18 Jan 17:00 UTC, so I've stopped watching.)")
    assert reminder.proactive, "held in quiet hours like any unprompted message"
    assert rig.goal().status is GoalStatus.done and rig.dispatch.delayed == []


def test_sams_reply_before_the_deadline_is_told_and_no_reminder_follows(
    redis: Redis, model_server: ScriptedModelServer, mail
) -> None:
    store, server = mail
    model_server.responder = remind_by_monday()
    rig = Rig(redis, model_server, store)
    rig.start("remind me on Monday if Sam hasn't replied")
    rig.next_check()
    rig.next_check()
    send_mail(server, SAM, "Re: Lunch")
    rig.next_check()
    assert rig.sent() == ["Sam replied: Re: Lunch."]
    assert len(model_server.requests) == 2
    assert rig.goal().status is GoalStatus.done and rig.dispatch.delayed == [], "no check left to remind"


def test_a_reminder_only_watch_ends_quietly_when_sam_replies(
    redis: Redis, model_server: ScriptedModelServer, mail
) -> None:
    store, server = mail
    model_server.responder = remind_by_monday(if_found="end_quietly")
    rig = Rig(redis, model_server, store)
    goal = rig.start("remind me on Monday if Sam hasn't replied; nothing else")
    assert "ending quietly if it comes" in goal_card(goal)
    rig.next_check()
    send_mail(server, SAM, "Re: Lunch")
    rig.next_check()
    assert rig.sent() == [] and len(model_server.requests) == 1
    assert rig.goal().status is GoalStatus.done and rig.dispatch.delayed == []


def test_every_morning_a_reminder_while_sam_has_not_replied_then_the_reply_is_told(
    redis: Redis, model_server: ScriptedModelServer, mail
) -> None:
    store, server = mail

    def respond(request: ChatRequest) -> ModelReply:
        news = woken_with_news(request)
        if news is not None:
            assert "I had reminded the user 3 time(s)" in message_text(request.messages[-3])
            return tool_call("reply", text="Sam replied at last: " + news.split(" | ")[3] + ".")
        return tool_call("schedule_check", what=f"a reply from {SAM}", every_minutes=24 * 60, max_checks=30,
                         probe={"tool": "search_email", "arguments": {"from": SAM}, "remind_each_check": True,
                                "reminder": "Sam hasn't replied yet."})

    model_server.responder = respond
    rig = Rig(redis, model_server, store)
    goal = rig.start("check every morning whether Sam replied and remind me if not")
    assert f"reminding you at each check while no reply from {SAM}" in goal_card(goal)
    for _ in range(3):
        rig.next_check()
    assert rig.sent() == ["⏰ Sam hasn't replied yet. (checked 08:00 UTC)"] * 3
    assert all(m.proactive for m in rig.messages())
    assert len(model_server.requests) == 1, "reminders are composed by code"

    send_mail(server, SAM, "Re: Lunch")
    rig.next_check()
    assert rig.sent()[3:] == ["Sam replied at last: Re: Lunch."]
    assert len(model_server.requests) == 2
    assert rig.goal().status is GoalStatus.done and rig.dispatch.delayed == []


def test_a_deadline_in_the_past_or_a_reminder_with_a_link_is_refused_with_the_reason(
    redis: Redis, model_server: ScriptedModelServer, mail
) -> None:
    store, _server = mail
    asked: list[dict[str, Any]] = [
        {"remind_if_none_by": "2027-01-14T17:00", "reminder": REMINDER},
        {"remind_each_check": True, "reminder": "Sam hasn't replied: nudge him at https://evil.example/x"},
    ]

    def respond(request: ChatRequest) -> ModelReply:
        last = request.messages[-1]
        if last.get("role") == "tool":
            # Relays the refusal (also when Deputy sent its first relay back to try a fix).
            refusal = next(message_text(m) for m in reversed(request.messages)
                           if m.get("role") == "tool" and message_text(m).startswith("Error"))
            return tool_call("reply", text=refusal)
        return tool_call("schedule_check", what=f"email from {SAM}", every_minutes=60,
                         probe={"tool": "search_email", "arguments": {"from": SAM}, **asked.pop(0)})

    model_server.responder = respond
    rig = Rig(redis, model_server, store)
    rig.start("remind me yesterday")
    rig.start("remind me with a link", goal_id="g_link")
    first, second = rig.sent()
    assert "remind_if_none_by is Thu 14 Jan 17:00 UTC (2027-01-14T17:00+00:00), which is not in the future" in first
    assert "reminder must not contain a link" in second
    assert rig.dispatch.delayed == []


def test_when_the_deadlines_check_cannot_read_the_mailbox_the_user_is_told_so_not_that_nothing_came(
    redis: Redis, model_server: ScriptedModelServer, mail
) -> None:
    store, _server = mail
    reachable = {"up": True}
    model_server.responder = remind_by_monday()
    rig = Rig(redis, model_server, store, reachable)
    rig.start("remind me on Monday if Sam hasn't replied")
    reachable["up"] = False  # the mail server is down from now on
    while rig.goal().status is GoalStatus.scheduled:
        rig.next_check()
    said = rig.sent()
    assert not any(REMINDER in text for text in said), "no claim that Sam hasn't replied: nobody could look"
    assert said[-1] == (f"I couldn't make the last check on “email from {SAM}” at Mon 18 Jan 17:00 UTC, so I "
                        "can't tell you whether it came. Text me if you want me to look again.")
    assert len(model_server.requests) == 1 and rig.goal().status is GoalStatus.done
