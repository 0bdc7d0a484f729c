"""A running goal stops at its next step when the user's plan has no model use left, and goes on after the reset."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from redis import Redis

from deputy.agent.goals import GoalStatus
from deputy.agent.model.chat_model import ModelReply, TokenUsage
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.connectors.catalog import Catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.accounts.plans import parse_plans
from deputy.core.accounts.quotas import Quotas
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.testing.inline import InlineDeputy

USER = 88
ZONE = "Asia/Kolkata"  # UTC+05:30: the user's midnight is 18:30 UTC
BOOK = parse_plans("""
default = "free"
upgrade = "Ask Sam for Plus."
[plans.free]
title = "Free"
day = { tokens = { "*" = 1000 } }
""")


def costly(messages, tools) -> ModelReply:
    reply = tool_call("update_plan", steps=[{"title": f"Look around ({len(messages)})", "status": "doing"}])
    reply.usage = TokenUsage(prompt_tokens=400, completion_tokens=50)
    return reply


def test_a_goal_over_the_plans_tokens_pauses_between_steps_with_continue_and_stop(redis: Redis) -> None:
    clock = ManualClock(datetime(2026, 6, 1, 17, 0, tzinfo=ZoneInfo("UTC")).timestamp())  # 22:30 in Kolkata
    UserSettingsStore(redis).save(USER, UserSettings(timezone=ZONE))
    quotas = Quotas(redis, BOOK)
    model = FunctionModel(costly)
    deputy = InlineDeputy(redis, model, Catalog(), {}, clock=clock, quotas=quotas, model_name="main",
                          settings=UserSettingsStore(redis))
    goal = deputy.start(USER, "research new phone plans")

    assert len(model.calls) == 3  # 450, 900, then 1,350 tokens: the fourth turn is not asked for
    paused = deputy.goal(goal.id)
    assert paused.status is GoalStatus.paused and not paused.pending_calls  # stopped between steps
    [heads_up, card] = deputy.messages()
    assert heads_up.text.startswith("Heads up: you have used 90% of today's model use") and not heads_up.buttons
    assert [b.text for b in card.buttons[0]] == ["Continue", "Stop"]
    assert "I paused “research new phone plans”" in card.text
    assert "today's model use on your Free plan (limit 1,000)" in card.text
    assert f"at midnight ({ZONE} time)" in card.text and "Ask Sam for Plus." in card.text
    assert quotas.usage(USER, clock()).used["day"]["tokens"] == 1350

    # Continue before the reset: still no room, so it says so again rather than going quiet.
    _continue(deputy, goal.id)
    assert deputy.goal(goal.id).status is GoalStatus.paused and len(model.calls) == 3
    assert sum("I paused" in m.text for m in deputy.messages()) == 2
    assert sum("Heads up" in m.text for m in deputy.messages()) == 1  # said once

    # 18:31 UTC is past midnight in Kolkata (still the same day in UTC): a fresh day.
    clock.now = datetime(2026, 6, 1, 18, 31, tzinfo=ZoneInfo("UTC")).timestamp()
    _continue(deputy, goal.id)
    assert len(model.calls) > 3
    assert quotas.usage(USER, clock()).used["day"]["tokens"] >= 450
    assert quotas.usage(USER, clock()).used["month"]["tokens"] >= 1800  # the month goes on counting


def _continue(deputy: InlineDeputy, goal_id: str) -> None:
    """What the Continue button does (deputy.bot.goal_controls): the goal runs again from where it paused."""
    def resume(goal):
        goal.status = GoalStatus.running
        return goal

    goal = deputy.goals.update(goal_id, resume)
    deputy.dispatch.step(goal.id, goal.step)
    deputy.dispatch.drain()


def test_an_action_the_plan_leaves_out_is_not_submitted_and_the_user_is_told_why(redis: Redis) -> None:
    from deputy.connectors.catalog import Catalog as FullCatalog
    from deputy.connectors.web.operations import SEARCH_WEB
    from deputy.agent.model.testing import message_text

    def decide(messages, tools) -> ModelReply:
        last = messages[-1]
        if last["role"] == "tool":
            return tool_call("reply", text=message_text(last).split("Tell the user: ", 1)[-1])
        return tool_call("search_web", query="cheap phone plans")

    quotas = Quotas(redis, parse_plans('default = "free"\nupgrade = "Ask Sam."\n[plans.free]\ntitle = "Free"\n'
                                       'capabilities = ["email"]\n[plans.plus]\ntitle = "Plus"\n'))
    deputy = InlineDeputy(redis, FunctionModel(decide), FullCatalog([SEARCH_WEB]), {}, quotas=quotas)
    goal = deputy.start(USER, "find cheap phone plans online")
    [answer] = deputy.sent()
    assert answer == "Your Free plan doesn't include browsing the web, so I can't do that. Ask Sam."
    assert deputy.goal(goal.id).status is GoalStatus.done

    quotas.accounts.set_plan(USER, "plus")  # everything included: the search goes to the executor
    deputy.start(USER, "find cheap phone plans online")
    answer = deputy.sent()[-1]
    assert "plan" not in answer and "not set up" in answer  # the executor ran it (this rig has no browser)


def test_memories_stop_at_the_plans_limit_and_the_user_is_told_how_to_make_room(redis: Redis) -> None:
    from deputy.agent.memory_tools import MemoryTools
    from deputy.agent.model.testing import message_text
    from deputy.core.records.outbox import Outbox
    from deputy.memory import MemoryStore
    from deputy.sentinel.stores.audit import AuditLog

    def decide(messages, tools) -> ModelReply:
        last = messages[-1]
        if last["role"] == "tool":
            return tool_call("reply", text=message_text(last))
        return tool_call("remember", text=f"I like tea number {len(messages)} {messages[0]['content'][:5]}",
                         kind="preference")

    quotas = Quotas(redis, parse_plans('default = "free"\n[plans.free]\ntitle = "Free"\nmemories = 1\n'))
    memory = MemoryTools(MemoryStore(redis), Outbox(redis), AuditLog(redis))
    deputy = InlineDeputy(redis, FunctionModel(decide), Catalog(), {}, quotas=quotas, memory=memory)
    deputy.start(USER, "remember that I like tea")
    assert deputy.sent()[-1].startswith("Remembered")
    deputy.start(USER, "remember that I like green tea too")
    assert "limit of 1 memories" in deputy.sent()[-1] and "Forget one in /memory" in deputy.sent()[-1]
    assert memory.count(USER) == 1
