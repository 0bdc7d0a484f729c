"""Secrets in what a service returns never reach the model, the audit trail or the chat."""

from __future__ import annotations

from redis import Redis

from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.sandbox.world import World
from deputy.sandbox.world_operations import world_catalog
from deputy.vault import Scrubber, redact_patterns
from deputy.testing.inline import InlineDeputy

USER = 5
# The mailbox password Deputy signs in with. It looks like ordinary words, so no generic
# secret pattern can tell it from prose: only a scrubber that knows it takes it out.
MAILBOX_PASSWORD = "plum tulip orbit 42"
CARD = "4111 1111 1111 1111"
NOTES = f"Cottage wifi is the same as my mail, {MAILBOX_PASSWORD}. Card {CARD} for the deposit."


def test_a_document_carrying_the_mailbox_password_is_scrubbed_before_anyone_reads_it(redis: Redis) -> None:
    assert MAILBOX_PASSWORD in redact_patterns(NOTES), "the password is one only a knowing scrubber can find"
    assert CARD not in redact_patterns(NOTES)
    world = World(documents={"notes.txt": NOTES})

    def model(messages, tools):
        results = [message_text(m) for m in messages if m.get("role") == "tool"]
        if not results:
            return tool_call("read_document", name="notes.txt")
        # A model passes on what it read: whatever reached it would reach the chat.
        return tool_call("reply", text=f"Your notes say: {results[-1]}")

    brain = FunctionModel(model)
    deputy = InlineDeputy(redis, brain, world_catalog(), world.runners(),
                          executor_options={"scrubber": Scrubber([MAILBOX_PASSWORD])})
    goal = deputy.start(USER, "read my document notes.txt", goal_id="g_scrub")

    told = deputy.sent()
    trail = [entry.model_dump_json() for entry in deputy.audit.entries(USER)]
    transcript = repr(brain.calls) + repr(goal.model_dump())
    everything = {"the chat": repr(told), "the audit trail": repr(trail), "the model's transcript": transcript,
                  "the stored action": repr([a.model_dump() for a in deputy.stored_actions(USER)])}
    for where, seen in everything.items():
        assert MAILBOX_PASSWORD not in seen, f"the mailbox password reached {where}"
        assert CARD not in seen, f"the card number reached {where}"
    assert any("Cottage wifi is the same as my mail, [redacted]" in text for text in told), told
    assert any("action_succeeded" in entry and "Cottage wifi" in entry for entry in trail), "the outcome is audited"
    assert "Cottage wifi" in transcript, "the document was read and passed on, minus the secrets"
