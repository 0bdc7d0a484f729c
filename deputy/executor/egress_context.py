"""What the egress guard knows about a goal when one of its requests leaves the machine."""

from __future__ import annotations

from deputy.agent.goals import GoalStore
from deputy.agent.guard_view import guard_view
from deputy.memory import MemoryStore, MemoryTrust
from deputy.core.records.actions import Action
from deputy.sentinel.egress.policy import EgressContext
from deputy.sentinel.provenance import values_in


def _domain(value: str) -> str | None:
    if "@" in value and "://" not in value:
        return value.rsplit("@", 1)[1].lower()
    if "://" in value:
        host = value.split("://", 1)[1].split("/", 1)[0].split("@")[-1].split(":")[0]
        return host.lower() or None
    return None


def egress_context_for(action: Action, goals: GoalStore, memory: MemoryStore) -> EgressContext:
    """Trusted domains from the user's words; tainted values from what the goal read; private
    values (the user's own facts) that must not leave for a site the user did not choose."""
    seen = guard_view(goals, goals.get(action.goal_id))
    user_texts = seen.user_words  # never model text: a part's instructions may name the attacker's site
    remembered = [m.text for m in memory.list(action.user_id) if m.trust is MemoryTrust.user]
    trusted_domains = {d for text in user_texts for _, value in values_in(text) if (d := _domain(value))}
    trusted_values = {value for text in user_texts for _, value in values_in(text)}
    tainted: dict[str, str] = {}
    for item in seen.untrusted:
        for _, value in values_in(item.text):
            if value not in trusted_values:
                tainted.setdefault(value, item.origin)
    private = {value: "something you told me" for text in remembered for _, value in values_in(text)}
    return EgressContext(private_values=private, tainted_values=tainted, trusted_domains=trusted_domains)
