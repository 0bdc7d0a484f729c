"""What the user's plan includes, checked before an action is handed to the executor.

An operation whose capability the plan leaves out (browsing, purchases, connected
services...) is not submitted: the call fails with a sentence for the user, which the
model passes on. This is a plan, not a security boundary: Sentinel reviews every action
that is submitted whatever the plan says.
"""

from __future__ import annotations

from deputy.agent.goals import Goal
from deputy.core.records.effects import OperationSpec
from deputy.core.accounts.plans import capabilities_of
from deputy.core.accounts.quota_texts import refusal_text
from deputy.core.accounts.quotas import Quotas


def plan_refusal(quotas: Quotas, goal: Goal, spec: OperationSpec, now: float) -> str | None:
    """The tool result for an operation the user's plan does not include, else None."""
    for capability in capabilities_of(spec.connector, spec.effect.value):
        refusal = quotas.capability_refusal(goal.user_id, capability)
        if refusal is not None:
            text = refusal_text(refusal, now, None, quotas.book.upgrade, "do that")
            return f"Error: not done, the user's plan does not include it. Tell the user: {text}"
    return None


def held_refusal(quotas: Quotas, goal: Goal, what: str, have: int, now: float) -> str | None:
    """The tool result when one more memory (or file) would pass the plan's limit, else None."""
    refusal = quotas.held_refusal(goal.user_id, what, have)
    if refusal is None:
        return None
    text = refusal_text(refusal, now, None, quotas.book.upgrade, "keep one more")
    return f"Error: not done, the user's plan has no room for more. Tell the user: {text}"
