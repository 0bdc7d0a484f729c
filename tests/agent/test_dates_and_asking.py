"""Code, not the model, does dates; Deputy asks instead of guessing.

Every case runs the real runner and executor (real Redis, the guard, the outbox) with a
scripted model; the calendar is a real Radicale. What the user would notice:

- "tomorrow at 14:00" in the user's zone is stored at 14:00 in that zone and read back as
  14:00, whatever zone the model named; the answer says the day and time used, with the zone;
- "on Sunday" texted on a Tuesday lands on the coming Sunday, whatever date the model worked out;
- a recipient the model invented ("my plumber") becomes a question, never an approval card;
  the user's answer lets the goal go on to a card for the address they gave;
- a time nobody gave, or one open to doubt, becomes a question;
- "Remembered" says what was remembered.
"""

from __future__ import annotations

import itertools
import json
import secrets
from datetime import datetime, timezone
from typing import Any, Callable, Iterator
from zoneinfo import ZoneInfo

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.memory_tools import MemoryTools
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.origins import user_message
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.connectors.calendar.client import CalDavAccount
from deputy.connectors.calendar.runners import CalendarRunners
from deputy.connectors.default import default_catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.memory import MemoryStore
from deputy.sandbox.calendar import SandboxCalendar
from deputy.sentinel.stores.audit import AuditLog
from deputy.testing.inline import InlineDeputy
from deputy.executor.review_context import ReviewContextBuilder

TUESDAY = datetime(2026, 12, 1, 10, 0, tzinfo=ZoneInfo("Europe/Berlin")).timestamp()  # Tue 1 Dec, 10:00 CET
_users = itertools.count(820_000)

Decide = Callable[[list[dict[str, Any]], list[dict[str, Any]]], ModelReply]


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxCalendar]:
    server = SandboxCalendar(tmp_path_factory.mktemp("radicale"), password="pw-" + secrets.token_hex(6)).start()
    server.seed_demo_calendar(datetime.fromtimestamp(TUESDAY, tz=timezone.utc), "Europe/Berlin")
    yield server
    server.stop()


class Rig(InlineDeputy):
    """One user's Deputy in one process: real records, guard and calendar; a scripted model."""

    def __init__(self, redis: Redis, decide: Decide, zone: str | None, calendar: SandboxCalendar | None = None,
                 calendar_zone: str = "Europe/Berlin") -> None:
        self.user = next(_users)
        settings = UserSettingsStore(redis)
        if zone is not None:
            settings.save(self.user, UserSettings(timezone=zone))
        catalog = default_catalog()
        clock = ManualClock(TUESDAY)
        runners: dict[str, Any] = {}
        if calendar is not None:
            # The calendar account says Berlin; the user's own setting decides how times are read and shown.
            account = CalDavAccount(url=calendar.url, username=calendar.username,
                                    password=SecretStr(calendar.password), email="demo@sandbox.deputy",
                                    timezone=calendar_zone, timeout=5)
            self.calendar = CalendarRunners(None, default=account, zone_for=lambda user: settings.get(user).timezone,
                                            clock=lambda: datetime.fromtimestamp(clock(), tz=timezone.utc))
            runners = self.calendar.runners()
        super().__init__(
            redis, FunctionModel(decide), catalog, runners, clock=clock, approval_ttl=3600,
            contexts=ReviewContextBuilder(redis, GoalStore(redis), catalog, clock=clock), settings=settings,
            memory=MemoryTools(MemoryStore(redis), Outbox(redis), AuditLog(redis), clock),
        )

    def text(self, words: str) -> Goal:
        return self.start(self.user, words, goal_id=f"g_{self.user}", messages=[user_message(words)])

    def answer(self, words: str) -> Goal:
        """The user's reply to a question, as the bot hands it on."""
        goal = self.goals.get(f"g_{self.user}")
        assert goal.status is GoalStatus.waiting_user
        goal.messages.append(user_message(words))
        goal.status = GoalStatus.running
        goal.step += 1
        goal = self.goals.save(goal)
        self.dispatch.step(goal.id, goal.step)
        self.dispatch.drain()
        return self.goals.get(goal.id)

    def said(self) -> list[OutboxMessage]:
        """What Deputy sent this user, in order (answers, questions and cards)."""
        return [m for m in self.messages() if m.chat_id == self.user]

    def cards(self) -> list[OutboxMessage]:
        return [m for m in self.said() if m.buttons]

    def action_arguments(self, operation: str) -> list[dict[str, Any]]:
        return [r.action.arguments for r in self.stored_actions(self.user) if r.action.operation == operation]


def results(messages: list[dict[str, Any]]) -> list[str]:
    return [message_text(m) for m in messages if m["role"] == "tool"]


def script(*calls: ModelReply, final: Callable[[list[str]], str] = lambda done: "Done.") -> Decide:
    """The model makes `calls` one per turn, then replies with `final(tool results)`."""

    def decide(messages, tools) -> ModelReply:
        done = results(messages)
        if len(done) < len(calls):
            return calls[len(done)]
        return tool_call("reply", text=final(done))

    return decide


# -- times: the user's words, their zone, the calendar's zone ------------------------------


def test_tomorrow_at_14_is_created_and_read_back_at_14_in_the_users_zone(redis: Redis, radicale) -> None:
    """The user lives in New York; the calendar account says Berlin; the model names Berlin too."""
    rig = Rig(redis, script(
        tool_call("create_event", title="Dentist", start="tomorrow at 14:00", calendar="personal",
                  timezone="Europe/Berlin"),
        tool_call("list_events", start="tomorrow", calendar="personal"),
        final=lambda done: "Your dentist appointment is in the calendar.",
    ), zone="America/New_York", calendar=radicale)
    goal = rig.text("put the dentist in my calendar tomorrow at 14:00")

    [arguments] = rig.action_arguments("create_event")
    assert arguments["start"] == "2026-12-02T14:00-05:00" and arguments["timezone"] == "America/New_York"
    created, listed = results(goal.messages)[:2]
    assert "Created “Dentist”: Wed 2 Dec 14:00–15:00 EST" in created
    assert "Wed 2026-12-02 14:00–15:00 Dentist [Personal]" in listed, listed
    assert "(times in America/New_York)" in listed
    # The model's answer left the time out: the user reads it anyway, with the zone.
    answer = rig.said()[-1].text
    assert answer.startswith("Your dentist appointment is in the calendar.")
    assert "🗓 Wed 2 Dec 14:00 EST — “Dentist”" in answer
    assert not rig.cards(), "an entry in the user's own calendar needs no card"


def test_on_sunday_sent_on_a_tuesday_lands_on_the_coming_sunday(redis: Redis, radicale) -> None:
    rig = Rig(redis, script(
        tool_call("create_event", title="Call grandma", start="on Sunday", calendar="personal"),
        final=lambda done: "Added: Call grandma on Sun 6 Dec (all day).",
    ), zone="Europe/Berlin", calendar=radicale)
    goal = rig.text("remind me on Sunday to call grandma, put it in my calendar")

    [arguments] = rig.action_arguments("create_event")
    assert arguments["start"] == "2026-12-06"
    assert "Created “Call grandma”: Sun 6 Dec (all day)" in results(goal.messages)[0]
    answer = rig.said()[-1].text
    assert answer == "Added: Call grandma on Sun 6 Dec (all day).", "a time the model stated right is not repeated"


def test_an_unset_zone_is_utc_and_the_answer_says_so(redis: Redis, radicale) -> None:
    rig = Rig(redis, script(tool_call("create_event", title="Standup", start="Thursday after lunch",
                                      calendar="personal")), zone=None, calendar=radicale)
    rig.text("add a standup Thursday after lunch")
    [arguments] = rig.action_arguments("create_event")
    assert arguments["start"] == "2026-12-03T13:30+00:00"
    answer = rig.said()[-1].text
    assert "🗓 Thu 3 Dec 13:30 UTC — “Standup”" in answer and "your time zone isn't set" in answer


def test_a_time_nobody_gave_is_asked_for_not_invented(redis: Redis) -> None:
    rig = Rig(redis, script(tool_call("create_event", title="Call the bank", start="2026-12-03T10:00")),
              zone="Europe/Berlin")
    goal = rig.text("put calling the bank in my calendar")
    assert goal.status is GoalStatus.waiting_user
    assert rig.said()[-1].text.startswith("When should it be?")
    assert rig.action_arguments("create_event") == []


def test_a_weekday_said_on_that_weekday_is_asked_about(redis: Redis) -> None:
    rig = Rig(redis, script(tool_call("create_event", title="Gym", start="Tuesday at 18:00")), zone="Europe/Berlin")
    goal = rig.text("gym on Tuesday at 18:00, put it in my calendar")
    assert goal.status is GoalStatus.waiting_user
    assert "do you mean today (Tue 1 Dec) or next Tuesday (Tue 8 Dec)?" in rig.said()[-1].text
    assert rig.action_arguments("create_event") == []


# -- recipients: ask instead of inventing ---------------------------------------------------


def test_an_invented_recipient_becomes_a_question_not_a_card(redis: Redis) -> None:
    invented, real = "plumber@pipes-made-up.example", "joe@quickfix.example"

    def decide(messages, tools) -> ModelReply:
        typed = [message_text(m) for m in messages if m["role"] == "user"]
        done = results(messages)
        if any(real in t for t in typed) and not any("Email" in d or "card" in d.lower() for d in done[1:]):
            return tool_call("send_email", to=[real], subject="Leaking boiler", body="The boiler is leaking again.")
        if not done:
            return tool_call("send_email", to=[invented], subject="Leaking boiler", body="The boiler is leaking again.")
        return tool_call("reply", text="Waiting.", expects_answer=True)

    rig = Rig(redis, decide, zone="Europe/Berlin")
    goal = rig.text("email my plumber that the boiler is leaking again")

    assert goal.status is GoalStatus.waiting_user
    assert not rig.cards(), "no approval card for an address the model made up"
    [question] = rig.said()
    assert question.text.startswith("Who should this go to?") and invented in question.text
    assert rig.action_arguments("send_email") == []
    assert "came from nowhere" in results(goal.messages)[0]

    rig.answer(f"his address is {real}")
    [card] = rig.cards()
    assert f"To: {real}" in card.text
    assert [a["to"] for a in rig.action_arguments("send_email")] == [[real]]


def test_an_address_from_the_users_own_words_goes_to_the_guard_without_a_question(redis: Redis) -> None:
    rig = Rig(redis, script(tool_call("send_email", to=["alice@example.org"], subject="Late",
                                      body="I'll be 10 minutes late.")), zone="Europe/Berlin")
    goal = rig.text("email alice@example.org that I'll be 10 minutes late")
    # No question about the address: the action was submitted, and the guard let it through
    # (the user asked for it and named Alice); this rig has no mail server, so it fails there.
    assert rig.cards() == []
    assert any("email connector is not set up" in result for result in results(goal.messages))


# -- memory ---------------------------------------------------------------------------------


def test_remembered_says_what_was_remembered(redis: Redis) -> None:
    rig = Rig(redis, script(tool_call("remember", text="Vegetarian, allergic to peanuts", kind="fact"),
                            final=lambda done: "Remembered."), zone="Europe/Berlin")
    goal = rig.text("remember that I'm vegetarian and allergic to peanuts")
    assert results(goal.messages)[0] == "Remembered: “Vegetarian, allergic to peanuts”."
    assert rig.said()[-1].text == "Remembered.\n\n📝 Remembered: “Vegetarian, allergic to peanuts”"


def test_a_reminder_in_words_comes_at_that_time_in_the_users_zone(redis: Redis) -> None:
    rig = Rig(redis, script(tool_call("schedule_check", what="call mum", at="tomorrow at 9")), zone="America/New_York")
    goal = rig.text("remind me tomorrow at 9 to call mum")
    assert goal.monitor is not None
    assert goal.monitor.next_at == datetime(2026, 12, 2, 9, 0, tzinfo=ZoneInfo("America/New_York")).timestamp()


def test_an_invitation_card_says_the_day_and_time_with_the_zone(redis: Redis) -> None:
    rig = Rig(redis, script(tool_call("schedule_meeting", title="Sync", start="Thursday after lunch",
                                      attendees=["bob@example.com"])), zone="Europe/Berlin")
    rig.text("set up a meeting with bob@example.com on Thursday after lunch")
    [card] = rig.cards()
    assert "When: Thu 3 Dec 13:30 CET" in card.text
    assert "start: 2026-12-03T13:30+01:00" in card.text
