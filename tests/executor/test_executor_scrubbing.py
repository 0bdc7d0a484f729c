"""Secrets in what a service returns never reach the model, the audit trail or the chat."""

from __future__ import annotations

from redis import Redis

from agent.testing import FunctionModel, tool_call
from core.outbox import OUTBOX_STREAM
from sandbox.world import World
from sandbox.world_operations import world_catalog
from sentinel.stores.audit import AuditLog
from vault import Scrubber
from workers.inline import InlineDeputy

SECRET = "hunter2-correct-horse"


def test_a_document_carrying_a_secret_is_scrubbed_before_the_model_sees_it(redis: Redis) -> None:
    world = World(documents={"notes.txt": f"Wifi password: {SECRET}. Card 4111 1111 1111 1111."})

    def model(messages, tools):
        if not any(m.get("role") == "tool" for m in messages):
            return tool_call("read_document", name="notes.txt")
        return tool_call("reply", text="I read your notes.")

    brain = FunctionModel(model)
    deputy = InlineDeputy(redis, brain, world_catalog(), world.runners(),
                          executor_options={"scrubber": Scrubber([SECRET])})
    goal = deputy.start(5, "read my document notes.txt", goal_id="g_scrub")

    seen = repr(brain.calls)
    assert "[redacted]" in seen, "the document was read and passed on, minus the secrets"
    assert SECRET not in seen and "4111 1111 1111 1111" not in seen
    assert SECRET not in repr(goal.model_dump())
    assert all(SECRET not in e.model_dump_json() for e in AuditLog(redis).entries(5))
    assert all(SECRET.encode() not in f[b"json"] for _, f in redis.xrange(OUTBOX_STREAM))
