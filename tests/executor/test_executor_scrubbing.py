"""Secrets in what a service returns never reach the model, the audit trail or the chat."""

from __future__ import annotations

import time

from redis import Redis

from agent.goals import Goal, GoalStore
from agent.runner import GoalRunner
from agent.testing import FunctionModel, tool_call
from core.outbox import OUTBOX_STREAM, Outbox
from sandbox.world import World
from sandbox.world_operations import world_catalog
from sentinel.stores.action_store import ActionStore
from sentinel.stores.approvals import ApprovalSigner, ApprovalStore
from sentinel.stores.audit import AuditLog
from vault import Scrubber
from executor.executor import Executor
from workers.inline import InlineDispatch
from executor.review_context import ReviewContextBuilder

SECRET = "hunter2-correct-horse"


def test_a_document_carrying_a_secret_is_scrubbed_before_the_model_sees_it(redis: Redis) -> None:
    world = World(documents={"notes.txt": f"Wifi password: {SECRET}. Card 4111 1111 1111 1111."})
    catalog = world_catalog()
    dispatch = InlineDispatch()
    goals, actions, outbox = GoalStore(redis), ActionStore(redis), Outbox(redis)

    def model(messages, tools):
        if not any(m.get("role") == "tool" for m in messages):
            return tool_call("read_document", name="notes.txt")
        return tool_call("reply", text="I read your notes.")

    brain = FunctionModel(model)
    dispatch.runner = GoalRunner(goals, actions, brain, outbox, dispatch, catalog)
    dispatch.executor = Executor(
        actions, ApprovalStore(redis), goals, outbox, AuditLog(redis), ApprovalSigner("s"), dispatch,
        world.runners(), ReviewContextBuilder(redis, goals, catalog), approval_ttl=60, scrubber=Scrubber([SECRET]),
    )
    now = time.time()
    goal = goals.save(Goal(id="g_scrub", user_id=5, chat_id=5, text="read my document notes.txt",
                           messages=[{"role": "user", "content": "read my document notes.txt"}],
                           created_at=now, updated_at=now))
    dispatch.step(goal.id, 0)
    dispatch.drain()

    seen = repr(brain.calls)
    assert "[redacted]" in seen, "the document was read and passed on, minus the secrets"
    assert SECRET not in seen and "4111 1111 1111 1111" not in seen
    assert SECRET not in repr(goals.get(goal.id).model_dump())
    assert all(SECRET not in e.model_dump_json() for e in AuditLog(redis).entries(5))
    assert all(SECRET.encode() not in f[b"json"] for _, f in redis.xrange(OUTBOX_STREAM))
