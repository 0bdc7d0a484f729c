"""A calendar goal for "Friday 9 to 11", texted on a Sunday, that the model puts on that Sunday.

Real runner, executor, guard and records on real Redis; the calendar is a stub that records.
What the user notices: a card showing what they said beside what the action does, and no
event until they decide; the same goal with the right day goes into the calendar at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.connectors.default import default_catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.testing.inline import InlineDeputy

USER = 6601
SUNDAY = datetime(2026, 12, 6, 8, 0, tzinfo=ZoneInfo("Europe/Berlin")).timestamp()


def _model(start: str, end: str):
    def decide(messages: list[dict[str, Any]], tools: list) -> ModelReply:
        if messages[-1]["role"] == "tool":
            return tool_call("reply", text="Done: " + message_text(messages[-1]))
        return tool_call("create_event", title="Team meeting", start=start, **({"end": end} if end else {}))
    return decide


@pytest.mark.parametrize(("start", "end", "asked"), [
    ("in 1 day at 9", "in 1 day at 11", True),  # another day, in words the model chose that name no date
    ("2026-12-11T09:00", "2026-12-11T11:00", False),  # the Friday the user meant
    ("monday at 9", "monday at 11", False),  # a weekday the model wrote itself gives way to the user's Friday
])
def test_an_event_on_another_day_than_said_waits_for_a_card_that_shows_both(
        redis: Redis, start: str, end: str, asked: bool) -> None:
    deputy, created = _deputy(redis, start, end)
    deputy.start(USER, "put a team meeting in my calendar for Friday 9 to 11")
    cards = deputy.cards()
    assert len(cards) == int(asked) and len(created) == int(not asked)
    if asked:
        assert "You said: friday 9 to 11 → Fri 11 Dec 09:00–11:00" in cards[0].text
        assert "this action: Mon 7 Dec 09:00" in cards[0].text


def test_a_date_the_model_worked_out_wrong_gives_way_to_the_users_range(redis: Redis) -> None:
    """The model wrote that Sunday as an ISO date: code reads "Friday 9 to 11" itself, start and end."""
    deputy, created = _deputy(redis, "2026-12-06T09:00", "")
    deputy.start(USER, "Block Friday 9 to 11 for focus time")
    assert deputy.cards() == []
    [(start, end)] = created
    assert start.startswith("2026-12-11T09:00") and end.startswith("2026-12-11T11:00")


def _deputy(redis: Redis, start: str, end: str) -> tuple[InlineDeputy, list[tuple[str, str]]]:
    settings = UserSettingsStore(redis)
    settings.save(USER, UserSettings(timezone="Europe/Berlin"))
    created: list[tuple[str, str]] = []

    def create(action, key) -> str:
        created.append((action.arguments["start"], action.arguments.get("end") or ""))
        return "created"

    deputy = InlineDeputy(redis, FunctionModel(_model(start, end)), default_catalog(),
                          {"calendar.create_event": create}, clock=ManualClock(SUNDAY), settings=settings)
    return deputy, created
