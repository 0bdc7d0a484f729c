"""Whatever Deputy says about a request the user spoke is marked to be spoken back, not only a `reply` call:
the model's plain-text answer (what small models mostly write) and a question Deputy asks instead of guessing.
Runner and executor inline on real Redis; the outbox message is what the chat surfaces read."""

from __future__ import annotations

from typing import Any

from redis import Redis

from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.model.testing import FunctionModel, text, tool_call
from deputy.connectors.default import default_catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.testing.inline import InlineDeputy

USER = 41


def spoken_goal(redis: Redis, answers: list[Any], words: str) -> tuple[InlineDeputy, Goal]:
    rig = InlineDeputy(redis, FunctionModel(lambda messages, tools: answers.pop(0)), default_catalog(), {},
                       clock=ManualClock(1_765_000_000.0))
    goal = rig.new_goal(USER, words)
    rig.goals.save(goal.model_copy(update={"spoken": True}))
    rig.dispatch.step(goal.id, 0)
    rig.dispatch.drain()
    return rig, rig.goal(goal.id)


def test_a_plain_text_answer_to_a_spoken_request_is_spoken_back(redis: Redis) -> None:
    rig, goal = spoken_goal(redis, [text("Lisbon is the capital of Portugal.")], "what's the capital of Portugal")
    assert goal.status is GoalStatus.done
    [answer] = rig.messages()
    assert answer.text == "Lisbon is the capital of Portugal." and answer.spoken


def test_a_question_deputy_asks_about_a_spoken_request_is_spoken_back(redis: Redis) -> None:
    rig, goal = spoken_goal(redis, [tool_call("create_event", title="Call the bank", start="2026-12-03T10:00")],
                            "put calling the bank in my calendar")
    assert goal.status is GoalStatus.waiting_user
    [question] = rig.messages()
    assert question.text.startswith("When should it be?") and question.spoken


def test_a_typed_request_is_not_spoken_back(redis: Redis) -> None:
    rig = InlineDeputy(redis, FunctionModel(lambda messages, tools: text("Lisbon.")), default_catalog(), {},
                       clock=ManualClock(1_765_000_000.0))
    rig.start(USER, "what's the capital of Portugal")
    assert [m.spoken for m in rig.messages()] == [False]
