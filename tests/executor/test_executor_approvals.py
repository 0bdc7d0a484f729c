"""The approval lifecycle inside the executor: exactly the approved action, once, in time."""

from __future__ import annotations

import json
import time

from redis import Redis

from agent.goals import Goal, GoalStatus, GoalStore
from agent.runner import GoalRunner
from agent.testing import FunctionModel, message_text, tool_call
from core.outbox import OUTBOX_STREAM, Outbox, OutboxMessage
from sandbox.world import World
from sandbox.world_operations import world_catalog
from sentinel.stores.action_store import ActionStore
from core.actions import ActionState
from sentinel.stores.approvals import ApprovalSigner, ApprovalStatus, ApprovalStore, Choice
from sentinel.stores.audit import AuditLog
from executor.executor import Executor
from workers.inline import InlineDispatch
from executor.review_context import ReviewContextBuilder

USER = 77
TEXT = "email bob@example.com that lunch is at noon"


class Rig:
    def __init__(self, redis: Redis, ttl: float = 3600) -> None:
        self.redis = redis
        self.world = World()
        self.dispatch = InlineDispatch()
        self.goals, self.actions = GoalStore(redis), ActionStore(redis)
        self.approvals = ApprovalStore(redis)
        self.now = time.time()
        self.model = FunctionModel(self._model)
        catalog = world_catalog()
        self.dispatch.runner = GoalRunner(self.goals, self.actions, self.model, Outbox(redis), self.dispatch, catalog)
        self.executor = Executor(
            self.actions, self.approvals, self.goals, Outbox(redis), AuditLog(redis), ApprovalSigner("k"),
            self.dispatch, self.world.runners(), ReviewContextBuilder(redis, self.goals, catalog),
            approval_ttl=ttl, clock=lambda: self.now,
        )
        self.dispatch.executor = self.executor

    @staticmethod
    def _model(messages, tools):
        results = [message_text(m) for m in messages if m.get("role") == "tool"]
        if not results:
            return tool_call("send_email", to=["bob@example.com"], subject="Lunch", body="Lunch is at noon.")
        return tool_call("reply", text=f"Outcome: {results[-1]}")

    def start(self) -> str:
        goal = self.goals.save(Goal(id="g_rig", user_id=USER, chat_id=USER, text=TEXT,
                                    messages=[{"role": "user", "content": TEXT}], created_at=self.now,
                                    updated_at=self.now))
        self.dispatch.step(goal.id, 0)
        self.dispatch.drain()
        return goal.id

    def cards(self) -> list[OutboxMessage]:
        messages = [OutboxMessage.model_validate_json(f[b"json"]) for _, f in self.redis.xrange(OUTBOX_STREAM)]
        return [m for m in messages if m.buttons]

    def pending(self):
        record = self.actions.get(self.goals.get("g_rig").pending_action_id)
        return record

    def press(self, approval_id: str, choice: Choice) -> None:
        self.approvals.decide(approval_id, USER, choice, self.now)
        request, _ = self.approvals.get(approval_id)
        self.dispatch.action(request.action_id, "g_rig", self.goals.get("g_rig").step, approval_id)
        self.dispatch.drain()


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

    rig.now += 61
    rig.executor.expire(approval_id)
    rig.dispatch.drain()
    assert rig.approvals.get(approval_id)[1] is ApprovalStatus.expired
    edits = [OutboxMessage.model_validate_json(f[b"json"]) for _, f in redis.xrange(OUTBOX_STREAM)]
    assert any(m.edit_ref == f"card:{approval_id}" and "expired" in m.text for m in edits)
    assert rig.world.executed == []
    final = rig.model.calls[-1][0][-1]
    assert "expired" in message_text(final)
    assert rig.goals.get("g_rig").status is GoalStatus.done

    # A press after expiry changes nothing.
    rig.press(approval_id, Choice.approve)
    assert rig.world.executed == []
