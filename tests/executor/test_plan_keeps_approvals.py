"""An account put on hold (or out of model use) keeps what the user already approved: it runs, then the goal pauses."""

from __future__ import annotations

from redis import Redis

from deputy.agent.goals import GoalStatus, GoalStore
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.core.accounts.plans import default_plans
from deputy.core.accounts.quotas import Quotas
from deputy.testing.stack import ask_before_sending
from deputy.executor.review_context import ReviewContextBuilder, stored_rules
from deputy.sandbox.world import World
from deputy.sandbox.world_operations import world_catalog
from deputy.sentinel.stores.approvals import Choice
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.testing.inline import InlineDeputy

USER = 78


def model(messages, tools):
    results = [message_text(m) for m in messages if m.get("role") == "tool"]
    if not results:
        return tool_call("send_email", to=["bob@example.com"], subject="Lunch", body="Lunch is at noon.")
    return tool_call("reply", text=f"Outcome: {results[-1]}")


def test_an_approved_email_is_sent_after_the_account_is_put_on_hold_and_the_goal_then_pauses(redis: Redis) -> None:
    world = World()
    catalog = world_catalog()
    quotas = Quotas(redis, default_plans())
    quotas.accounts.set_plan(USER, "pro")
    deputy = InlineDeputy(redis, FunctionModel(model), catalog, world.runners(), approval_ttl=3600,
                          contexts=ReviewContextBuilder(redis, GoalStore(redis), catalog,
                                                        rules=stored_rules(RuleStore(redis))),
                          quotas=quotas)
    ask_before_sending(redis, USER)
    goal = deputy.start(USER, "email bob@example.com that lunch is at noon", goal_id="g_hold")
    action = deputy.actions.get(deputy.goal(goal.id).pending_action_id)
    quotas.accounts.set_suspended(USER, True)  # the operator: `deputy users suspend`

    deputy.press(action.approval_id, USER, Choice.approve)

    assert [a.id for a in world.executed] == [action.action.id]  # approved before the hold: it runs, once
    paused = deputy.goal(goal.id)
    assert paused.status is GoalStatus.paused  # and the goal stops before its next model call
    card = deputy.messages()[-1]
    assert "on hold" in card.text and [b.text for b in card.buttons[0]] == ["Continue", "Stop"]
