"""Sub-goals run in parallel and are joined; monitored goals check quietly and speak once."""

from __future__ import annotations

import json
from typing import Any

from redis import Redis

from deputy.agent.goals import GoalStatus, GoalStore
from deputy.agent.model.chat_model import ModelBadResponse, ModelReply
from deputy.agent.runner import RunnerLimits
from deputy.agent.model.testing import FunctionModel, goal_text, message_text, text, tool_call
from deputy.connectors.catalog import Catalog
from deputy.testing.inline import InlineDeputy

USER = 61


def rig(redis: Redis, decide, limits: RunnerLimits = RunnerLimits()) -> InlineDeputy:
    return InlineDeputy(redis, FunctionModel(decide), Catalog(), {}, limits=limits)


def first_user_text(messages: list[dict[str, Any]]) -> str:
    return goal_text(messages)


def test_three_parts_run_as_children_and_a_failed_part_is_reported(redis: Redis) -> None:
    def decide(messages, tools) -> ModelReply:
        goal_text = first_user_text(messages)
        last = messages[-1]
        if "part “Hotel”" in goal_text:
            raise ModelBadResponse("broken", "The language model sent an answer I couldn't read.")
        if "part “" in goal_text:
            title = goal_text.split("part “")[1].split("”")[0]
            return tool_call("reply", text=f"{title}: found the best option for 300 USD")
        if last["role"] == "tool" and "Results of the parts" in message_text(last):
            return tool_call("reply", text="Trip plan:\n" + message_text(last))
        return tool_call("split_into_subgoals", parts=[
            {"title": "Flights", "instructions": "Find flights to Chicago"},
            {"title": "Hotel", "instructions": "Find a hotel"},
            {"title": "Calendar", "instructions": "Check my free days"},
        ])

    deputy = rig(redis, decide)
    deputy.start(USER, "plan a 4-day Chicago trip", goal_id="g_main")
    # Children run; the failing one uses up its retries (delayed steps released by the test).
    for _ in range(5):
        deputy.tick(60)

    parent = deputy.goals.get("g_main")
    assert parent.status is GoalStatus.done
    children = [deputy.goals.get(c) for c in parent.children]
    assert [c.status for c in children] == [GoalStatus.done, GoalStatus.failed, GoalStatus.done]
    assert all(c.parent_id == "g_main" and c.depth == 1 for c in children)
    [message] = deputy.messages()  # children never message the user; the parent speaks once
    assert "Flights: found" in message.text and "Calendar: found" in message.text
    assert "Hotel: FAILED" in message.text


def test_parts_cannot_split_again_beyond_the_depth_limit(redis: Redis) -> None:
    def decide(messages, tools) -> ModelReply:
        last = messages[-1]
        if last["role"] == "tool":
            return tool_call("reply", text=message_text(last))
        return tool_call("split_into_subgoals", parts=[{"title": "A", "instructions": "a"},
                                                       {"title": "B", "instructions": "b"}])

    deputy = rig(redis, decide)
    deputy.start(USER, "split forever", goal_id="g_main")
    all_goals = [k for k in redis.scan_iter("deputy:goal:g_*") if k.count(b":") == 2]
    assert len(all_goals) == 1 + 2 + 4, "the main goal, its parts, and their parts; no deeper"
    depths = sorted(GoalStore(redis).get(k.decode().split(":")[2]).depth for k in all_goals)
    assert depths == [0, 1, 1, 2, 2, 2, 2]


def test_a_monitor_stays_quiet_speaks_once_when_the_price_drops_and_makes_no_calls_between_checks(
    redis: Redis,
) -> None:
    price = {"usd": 450}

    def decide(messages, tools) -> ModelReply:
        last = message_text(messages[-1])
        if "Scheduled check" in last:
            if price["usd"] < 400:
                return tool_call("reply", text=f"Flights to Lisbon are now {price['usd']} USD!")
            return tool_call("no_news")
        return tool_call("schedule_check", what="flights to Lisbon under 400 USD", every_minutes=60, max_checks=10)

    deputy = rig(redis, decide)
    deputy.start(USER, "tell me when flights to Lisbon drop below $400", goal_id="g_main")
    assert deputy.goals.get("g_main").status is GoalStatus.scheduled
    assert len(deputy.model.calls) == 1 and deputy.messages() == []

    # Nothing runs before the check is due, even if a duplicate job shows up early.
    deputy.dispatch.step("g_main", deputy.goals.get("g_main").step)
    deputy.dispatch.drain()
    assert len(deputy.model.calls) == 1 and len(deputy.dispatch.delayed) == 1

    for _ in range(3):
        deputy.tick(3600)
    assert len(deputy.model.calls) == 4 and deputy.messages() == [], "three quiet checks, one model call each"

    price["usd"] = 379
    deputy.tick(3600)
    [news] = deputy.messages()
    assert "379" in news.text and news.proactive
    assert deputy.goals.get("g_main").status is GoalStatus.done
    assert deputy.dispatch.delayed == []


def test_a_monitor_ends_after_its_last_check_with_one_message(redis: Redis) -> None:
    def decide(messages, tools) -> ModelReply:
        if "Scheduled check" in message_text(messages[-1]):
            return tool_call("no_news")
        return tool_call("schedule_check", what="the ticket price", every_minutes=1, max_checks=2)

    deputy = rig(redis, decide)
    deputy.start(USER, "watch the ticket price twice", goal_id="g_main")
    for _ in range(4):
        deputy.tick(60)
    [ended] = deputy.messages()
    assert "stopped watching" in ended.text and "2 checks" in ended.text
    assert deputy.goals.get("g_main").status is GoalStatus.done
    assert len(deputy.model.calls) == 3


def test_a_model_that_loops_is_stopped_by_the_circuit_breaker(redis: Redis) -> None:
    deputy = rig(redis, lambda m, t: tool_call("read_result", handle="r1"))
    deputy.start(USER, "loop please", goal_id="g_main")
    goal = deputy.goals.get("g_main")
    assert goal.status is GoalStatus.paused
    [message] = deputy.messages()
    assert "going round in circles" in message.text
    assert [b.text for b in message.buttons[0]] == ["Continue", "Stop"]
    assert len(deputy.model.calls) == 3


def test_prompt_size_stays_flat_over_an_eighty_step_goal(redis: Redis) -> None:
    calls = {"n": 0}

    def decide(messages, tools) -> ModelReply:
        calls["n"] += 1
        if calls["n"] > 80:
            return text("All done.")
        return tool_call("update_plan", steps=[{"title": f"Step {calls['n']}: " + "x" * 180}])

    deputy = rig(redis, decide, RunnerLimits(max_steps=200))
    deputy.start(USER, "a very long goal", goal_id="g_main")
    sizes = [len(json.dumps(messages)) for messages, _tools in deputy.model.calls]
    assert len(sizes) == 81
    # Once the first folds have happened, the prompt stops growing: steps 60-80 cost what 40-60 did.
    assert max(sizes[60:]) <= 1.02 * max(sizes[40:60]), sizes
    assert max(sizes) < 25_000
    assert deputy.goals.get("g_main").status is GoalStatus.done
