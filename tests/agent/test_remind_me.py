"""Reminders in the user's words: "remind me tomorrow at 9 to call the bank", "every monday at 9am ...",
"on the 1st of every month at 10am ...". Code resolves the time and the repeat; at each time the user gets
the text word for word, with no model call.

Real records on Redis, the runner and executor inline, the model a `FunctionModel` that counts its calls.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from redis import Redis

from deputy.agent.goals import GoalStatus
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.agent.watch.reminders import chosen_repeat, first_time_words, next_monthly, parse_remind, repeat_said
from deputy.connectors.default import default_catalog
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.testing.inline import InlineDeputy

USER = 41
BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 9, 17, 40, tzinfo=BERLIN).timestamp()  # a Wednesday evening in Berlin


def berlin(*parts: int) -> float:
    return datetime(*parts, tzinfo=BERLIN).timestamp()  # type: ignore[misc]


def rig(redis: Redis, *replies) -> tuple[InlineDeputy, FunctionModel]:
    settings = UserSettingsStore(redis)
    settings.save(USER, UserSettings(timezone="Europe/Berlin"))
    queue = list(replies)
    model = FunctionModel(lambda messages, tools: queue.pop(0) if queue else tool_call("reply", text="Done."))
    deputy = InlineDeputy(redis, model, default_catalog(), {}, settings=settings)
    deputy.clock.now = NOW
    return deputy, model


def reminders_sent(deputy: InlineDeputy) -> list[str]:
    return [text for text in deputy.sent() if text.startswith("⏰ Reminder:")]


def test_a_one_off_reminder_comes_at_the_time_said_word_for_word_without_the_model(redis: Redis) -> None:
    deputy, model = rig(redis, tool_call("remind_me", text="Call the bank.", when="tomorrow at 9"))
    goal = deputy.start(USER, "remind me tomorrow at 9 to call the bank")
    assert goal.monitor is not None and goal.monitor.next_at == berlin(2026, 12, 10, 9, 0)
    assert deputy.sent() == ["⏰ I'll remind you Thu 10 Dec 09:00 CET: “Call the bank.”"]
    calls = len(model.calls)
    deputy.tick(goal.monitor.next_at - deputy.clock.now)
    assert reminders_sent(deputy) == ["⏰ Reminder: Call the bank."]
    assert len(model.calls) == calls, "the reminder is sent by code"
    finished = deputy.goal(goal.id)
    assert finished.status is GoalStatus.done
    assert not any("stopped watching" in text for text in deputy.sent()), "no 'nothing changed' after a reminder"


def test_every_monday_is_weekly_from_the_first_monday_even_when_the_model_leaves_out_the_repeat(redis: Redis) -> None:
    deputy, _ = rig(redis, tool_call("remind_me", text="Submit your timesheet.", when="every monday at 9am"))
    goal = deputy.start(USER, "every monday at 9am remind me to submit my timesheet")
    monitor = goal.monitor
    assert monitor is not None and monitor.next_at == berlin(2026, 12, 14, 9, 0)
    assert monitor.every_seconds == 7 * 86400 and monitor.max_checks > 50
    deputy.tick(monitor.next_at - deputy.clock.now)
    deputy.tick(7 * 86400)
    assert reminders_sent(deputy) == ["⏰ Reminder: Submit your timesheet."] * 2
    assert deputy.goal(goal.id).status is GoalStatus.scheduled


def test_every_morning_stays_at_eight_local_time(redis: Redis) -> None:
    deputy, _ = rig(redis, tool_call("remind_me", text="Vitamins.", when="every morning at 8", repeat="daily"))
    goal = deputy.start(USER, "ping me every morning at 8 about my vitamins")
    assert goal.monitor is not None and goal.monitor.daily_at == "08:00"
    assert goal.monitor.next_at == berlin(2026, 12, 10, 8, 0)


def test_the_first_of_every_month_repeats_on_the_first(redis: Redis) -> None:
    deputy, _ = rig(redis, tool_call("remind_me", text="Pay the rent.", when="on the 1st of every month at 10am",
                                     repeat="monthly"))
    goal = deputy.start(USER, "on the 1st of every month at 10am remind me to pay rent")
    monitor = goal.monitor
    assert monitor is not None and monitor.next_at == berlin(2027, 1, 1, 10, 0)
    deputy.tick(monitor.next_at - deputy.clock.now)
    assert deputy.goal(goal.id).monitor.next_at == berlin(2027, 2, 1, 10, 0)  # type: ignore[union-attr]
    assert reminders_sent(deputy) == ["⏰ Reminder: Pay the rent."]


def test_a_time_in_the_past_goes_back_to_the_model_as_an_error(redis: Redis) -> None:
    deputy, model = rig(redis, tool_call("remind_me", text="x", when="2026-12-01T09:00"),
                        tool_call("reply", text="That time has passed; when should I remind you?"))
    deputy.start(USER, "remind me on the 1st at 9")
    assert "not in the future" in str(model.calls[1][0][-1]["content"])


@pytest.mark.parametrize("words, repeat", [
    ("every monday at 9am remind me", "weekly"), ("ping me every morning at 8", "daily"),
    ("on the 1st of every month at 10am", "monthly"), ("jeden Montag um 9 erinnern", "weekly"),
    ("recuérdame cada mañana a las 8", "daily"), ("rappelle-moi tous les mois le 5", "monthly"),
    ("remind me tomorrow at 9", "none"), ("remind me on mondays at 9", "weekly"),
])
def test_the_repeat_the_user_said(words: str, repeat: str) -> None:
    assert repeat_said(words) == repeat
    assert chosen_repeat(parse_remind({"text": "x", "when": "y"}), words) == repeat


def test_the_models_repeat_counts_only_where_the_user_said_none() -> None:
    assert chosen_repeat(parse_remind({"text": "x", "when": "y", "repeat": "daily"}), "remind me tomorrow") == "daily"
    assert chosen_repeat(parse_remind({"text": "x", "when": "y", "repeat": "daily"}), "every monday at 9") == "weekly"
    assert parse_remind({"text": "x", "when": "y", "repeat": "fortnightly"}).repeat is None


def test_first_time_words_drop_the_repeat() -> None:
    assert first_time_words("every monday at 9am") == "monday at 9am"
    assert first_time_words("on the 1st of every month at 10am") == "on the 1st at 10am"
    assert first_time_words("tomorrow at 9") == "tomorrow at 9"


def test_monthly_on_the_31st_falls_on_shorter_months_last_day() -> None:
    first = berlin(2027, 1, 31, 10, 0)
    assert next_monthly(first, first, "Europe/Berlin") == berlin(2027, 2, 28, 10, 0)
    assert next_monthly(berlin(2027, 2, 28, 10, 0), first, "Europe/Berlin") == berlin(2027, 3, 31, 10, 0)
