"""The approval lifecycle inside the executor: exactly the approved action, once, in time."""

from __future__ import annotations

import json

from redis import Redis

from deputy.agent.goals import GoalStatus, GoalStore
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.core.records.actions import ActionState
from deputy.testing.stack import ask_before_sending
from deputy.executor.review_context import ReviewContextBuilder, stored_rules
from deputy.sandbox.world import World
from deputy.sandbox.world_operations import world_catalog
from deputy.sentinel.stores.approvals import ApprovalStatus, Choice
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.testing.inline import InlineDeputy

USER = 77
TEXT = "email bob@example.com that lunch is at noon"


class Rig(InlineDeputy):
    """One user's goal to email Bob, run inline; the clock moves only when a test says so."""

    def __init__(self, redis: Redis, ttl: float = 3600) -> None:
        self.world = World()
        self.model = FunctionModel(self._model)
        catalog = world_catalog()
        contexts = ReviewContextBuilder(redis, GoalStore(redis), catalog, rules=stored_rules(RuleStore(redis)))
        super().__init__(redis, self.model, catalog, self.world.runners(), approval_ttl=ttl, contexts=contexts)
        # A careful user: every message waits for their card, which is what these tests press.
        ask_before_sending(redis, USER)

    @staticmethod
    def _model(messages, tools):
        results = [message_text(m) for m in messages if m.get("role") == "tool"]
        if not results:
            return tool_call("send_email", to=["bob@example.com"], subject="Lunch", body="Lunch is at noon.")
        return tool_call("reply", text=f"Outcome: {results[-1]}")

    def start(self) -> str:
        return super().start(USER, TEXT, goal_id="g_rig").id

    def pending(self):
        return self.actions.get(self.goals.get("g_rig").pending_action_id)

    def press(self, approval_id: str, choice: Choice) -> None:
        super().press(approval_id, USER, choice)


def test_an_action_changed_after_approval_is_not_run_and_asks_again(redis: Redis) -> None:
    rig = Rig(redis)
    rig.start()
    record = rig.pending()
    assert record.state is ActionState.awaiting_approval
    first_approval = record.approval_id

    # Someone with access to Redis swaps the recipient after the card was shown.
    raw = json.loads(redis.hget(f"deputy:action:{record.action.id}", "record"))
    raw["arguments"]["to"] = ["mallory@evil.example"]
    raw["targets"] = ["mallory@evil.example"]
    redis.hset(f"deputy:action:{record.action.id}", "record", json.dumps(raw))

    rig.press(first_approval, Choice.approve)
    assert rig.world.executed == [], "the approval was for a different action"
    cards = rig.cards()
    assert len(cards) == 2 and "mallory@evil.example" in cards[1].text
    assert rig.pending().approval_id != first_approval


def test_the_approved_action_runs_once_with_exactly_the_card_arguments(redis: Redis) -> None:
    rig = Rig(redis)
    rig.start()
    approval_id = rig.pending().approval_id
    rig.press(approval_id, Choice.approve)
    # A replayed continuation (a duplicated job, a second press that slipped through) runs nothing.
    rig.dispatch.action(rig.world.executed[0].id, "g_rig", rig.goals.get("g_rig").step, approval_id)
    rig.dispatch.drain()
    assert len(rig.world.executed) == 1
    assert rig.world.executed[0].arguments["to"] == ["bob@example.com"]
    assert rig.goals.get("g_rig").status is GoalStatus.done


def test_an_expired_card_is_edited_and_the_goal_learns_it_expired(redis: Redis) -> None:
    rig = Rig(redis, ttl=60)
    rig.start()
    approval_id = rig.pending().approval_id
    rig.executor.expire(approval_id)
    assert rig.approvals.get(approval_id)[1] is ApprovalStatus.pending, "not before its time"

    rig.clock.advance(61)
    rig.executor.expire(approval_id)
    rig.dispatch.drain()
    assert rig.approvals.get(approval_id)[1] is ApprovalStatus.expired
    assert any(m.edit_ref == f"card:{approval_id}" and "expired" in m.text for m in rig.messages())
    assert rig.world.executed == []
    final = rig.model.calls[-1][0][-1]
    assert "expired" in message_text(final)
    assert rig.goals.get("g_rig").status is GoalStatus.done

    # A press after expiry changes nothing.
    rig.press(approval_id, Choice.approve)
    assert rig.world.executed == []
