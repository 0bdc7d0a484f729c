"""A locked confidential user's goals and monitors wait, say so once, and carry on after the unlock."""

from __future__ import annotations

from typing import Iterator

import pytest
from redis import Redis

from deputy.agent.answers import add_answer
from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import FunctionModel, goal_text, message_text, text, tool_call
from deputy.connectors.catalog import Catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.confidential import ConfidentialKeys, Locked, WaitingWork, install_unlock_key
from tests_support import everything_in_redis
from deputy.testing.inline import InlineDeputy

USER = 7707
PASSPHRASE = "the passphrase only I know"


@pytest.fixture
def keys(redis: Redis) -> Iterator[ConfidentialKeys]:
    install_unlock_key(b"u" * 32)
    keys = ConfidentialKeys(redis)
    keys.turn_on(USER, PASSPHRASE)
    keys.unlock(USER, PASSPHRASE, 3600)
    yield keys
    install_unlock_key(None)


def decide(messages, tools) -> ModelReply:
    last = message_text(messages[-1])
    if "Scheduled check" in last:
        return tool_call("no_news")
    if goal_text(messages).startswith("remember"):
        return tool_call("reply", text="Noted: the ferry code is pelican-3.")
    return tool_call("schedule_check", what="seats on the ferry to Hydra", every_minutes=60, max_checks=5)


def test_a_monitor_pauses_while_locked_and_catches_up_after_the_unlock(redis: Redis, keys: ConfidentialKeys) -> None:
    clock = ManualClock()
    model = FunctionModel(decide)
    deputy = InlineDeputy(redis, model, Catalog(), {}, clock=clock)
    goal = deputy.start(USER, "watch for seats on the ferry to Hydra")
    assert goal.status is GoalStatus.scheduled
    calls = len(model.calls)

    keys.lock(USER)
    assert "Hydra" not in everything_in_redis(redis)
    for _ in range(3):  # three checks come due while locked: none runs, the user is told once
        deputy.tick(3600)
    assert len(model.calls) == calls
    waiting = [text for text in deputy.sent() if "waiting" in text]
    assert len(waiting) == 1 and "/unlock" in waiting[0]
    with pytest.raises(Locked):
        deputy.goals.get(goal.id)

    keys.unlock(USER, PASSPHRASE, 3600)
    assert WaitingWork(redis).resume(USER, deputy.dispatch, clock()) == 1
    deputy.dispatch.drain()
    assert len(model.calls) == calls + 1, "the check that waited runs once the user unlocks"
    resumed = deputy.goals.get(goal.id)
    assert resumed.status is GoalStatus.scheduled and resumed.monitor.next_at > clock(), "it keeps its schedule"
    deputy.tick(3600)
    assert len(model.calls) == calls + 2


def test_a_goal_stored_while_locked_is_kept_and_runs_after_the_unlock(redis: Redis, keys: ConfidentialKeys) -> None:
    clock = ManualClock()
    deputy = InlineDeputy(redis, FunctionModel(decide), Catalog(), {}, clock=clock)
    keys.lock(USER)
    words = "remember the ferry code pelican-3"
    goal = deputy.goals.save(Goal(id="g_locked", user_id=USER, chat_id=USER, text=words,
                                  messages=[{"role": "user", "content": words}], created_at=clock(),
                                  updated_at=clock()))
    deputy.dispatch.step(goal.id, 0)
    deputy.dispatch.drain()
    assert "pelican" not in everything_in_redis(redis)
    assert sum("waiting" in t for t in deputy.sent()) == 1

    keys.unlock(USER, PASSPHRASE, 3600)
    WaitingWork(redis).resume(USER, deputy.dispatch, clock())
    deputy.dispatch.drain()
    assert deputy.goal(goal.id).status is GoalStatus.done
    assert "Noted: the ferry code is pelican-3." in deputy.sent()


def test_an_answer_typed_while_locked_is_kept_sealed_and_reaches_the_goal_after_the_unlock(
    redis: Redis, keys: ConfidentialKeys
) -> None:
    def ask_then_note(messages, tools) -> ModelReply:
        if messages[-1]["role"] == "user" and "osprey-9" in message_text(messages[-1]):
            return tool_call("reply", text="Booked under the name osprey-9.")
        return text("Under which name should I book?")

    clock = ManualClock()
    deputy = InlineDeputy(redis, FunctionModel(ask_then_note), Catalog(), {}, clock=clock)
    goal = deputy.start(USER, "book the ferry")
    assert goal.status is GoalStatus.waiting_user
    keys.lock(USER)
    with pytest.raises(Locked):
        add_answer(deputy.goals, goal.id, "book it under osprey-9", clock(), deputy.dispatch.step)
    WaitingWork(redis).park_answer(USER, goal.id, keys.seal_text(USER, "book it under osprey-9"))
    assert "osprey" not in everything_in_redis(redis)

    keys.unlock(USER, PASSPHRASE, 3600)
    WaitingWork(redis).resume(USER, deputy.dispatch, clock(), lambda goal_id, sealed: add_answer(
        deputy.goals, goal_id, keys.open_text(USER, sealed), clock(), deputy.dispatch.step))
    deputy.dispatch.drain()
    assert deputy.goal(goal.id).status is GoalStatus.done
    assert "Booked under the name osprey-9." in deputy.sent()
