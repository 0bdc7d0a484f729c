"""An answer that says the calendar holds nothing reaches the user only when the read agrees.

Real runner and executor on real Redis (InlineDeputy); the calendar answers as Deputy's calendar connector
renders a day with one dinner on it; the model is a function answering as a small model did.
"""

from __future__ import annotations

from typing import Any

from redis import Redis

from deputy.agent.model.testing import FunctionModel, message_text, text, tool_call
from deputy.connectors.default import default_catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.actions import Action
from deputy.core.records.effects import OperationResult
from deputy.testing.inline import InlineDeputy

USER = 11
DAY = ("From Thu 24 Dec 00:00 CET to Fri 25 Dec 00:00 CET (times in Europe/Berlin):\nBusy: 1\n"
       "- Thu 24 Dec 19:00–22:00 CET: Dinner at Anna's\nFree slots of at least 30 minutes: 1\n"
       "- Thu 24 Dec 09:00–17:00 CET (8 h)")
EMPTY = ("From Thu 24 Dec 00:00 CET to Fri 25 Dec 00:00 CET (times in Europe/Berlin):\nBusy: 0\n"
         "Free slots of at least 30 minutes: 1\n- Thu 24 Dec 09:00–17:00 CET (8 h)")


def rig(redis: Redis, day: str, answers: list[Any]) -> tuple[InlineDeputy, list[list[dict[str, Any]]]]:
    seen: list[list[dict[str, Any]]] = []

    def calendar(action: Action, key: str) -> OperationResult:
        return OperationResult(summary=day, untrusted_origin="your calendar")

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        seen.append(messages)
        if not any(m.get("role") == "tool" for m in messages):
            return tool_call("free_busy", start="2026-12-24T00:00", end="2026-12-24T23:59")
        return answers.pop(0)

    return InlineDeputy(redis, FunctionModel(model), default_catalog(), {"calendar.free_busy": calendar},
                        clock=ManualClock(1_765_000_000.0)), seen


def test_nothing_said_over_a_day_with_a_dinner_goes_back_and_the_dinner_reaches_the_user(redis: Redis) -> None:
    deputy, seen = rig(redis, DAY, [text("I don't have anything on the 24th."),
                                    text("On the 24th you have dinner at Anna's from 19:00.")])
    deputy.start(USER, "do I have anything on the 24th?")
    assert deputy.sent()[-1] == "On the 24th you have dinner at Anna's from 19:00."
    assert not any("don't have anything" in sent for sent in deputy.sent())
    assert "lists events or busy times" in message_text(seen[-1][-1])


def test_a_model_that_insists_on_nothing_is_replaced_by_what_the_calendar_showed(redis: Redis) -> None:
    deputy, _ = rig(redis, DAY, [text("Nothing is on the 24th."), text("You are free all day.")])
    deputy.start(USER + 1, "am I free on the 24th?")
    assert "Dinner at Anna's" in deputy.sent()[-1] and deputy.sent()[-1].startswith("Here is what your calendar shows")


def test_nothing_over_an_empty_day_or_about_something_else_is_delivered(redis: Redis) -> None:
    deputy, _ = rig(redis, EMPTY, [text("Nothing is on the 24th: you are free all day.")])
    deputy.start(USER + 2, "do I have anything on the 24th?")
    assert deputy.sent()[-1] == "Nothing is on the 24th: you are free all day."
    named, _ = rig(redis, DAY, [text("Only the dinner at Anna's; nothing else.")])
    named.start(USER + 3, "do I have anything on the 24th?")
    assert named.sent()[-1] == "Only the dinner at Anna's; nothing else."
