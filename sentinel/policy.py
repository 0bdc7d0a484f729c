"""The guard's decision core: a pure function of the action and its context.

No IO, no clock reads, no model: `review` must be safe when every model output is chosen
by an attacker, so it decides from the action's effect class, its exact arguments and what
the user approved, never from anything the model says about itself.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from connectors.base import EffectClass
from sentinel.actions import Action


class Verdict(str, Enum):
    allow = "allow"
    deny = "deny"
    ask = "ask"


class Risk(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"


class Decision(BaseModel):
    verdict: Verdict
    reasons: list[str]
    risk: Risk


class ReviewContext(BaseModel):
    """What the guard knows besides the action itself."""

    approved_fingerprint: str | None = Field(
        default=None, description="Fingerprint of the action the user approved for this request, if any."
    )


_ASK_REASONS: dict[EffectClass, str] = {
    EffectClass.communicate: "it sends a message on your behalf to {targets}",
    EffectClass.spend: "it spends your money (paying {targets})",
    EffectClass.account: "it changes one of your accounts ({targets})",
    EffectClass.write: "it changes data in one of your services ({targets})",
}


def review(action: Action, context: ReviewContext) -> Decision:
    """Allow, deny or ask the user about `action`, with reasons a person can read."""
    if action.effect is EffectClass.credential:
        return Decision(
            verdict=Verdict.deny,
            reasons=["Deputy never reveals, sends or changes a credential on the agent's request."],
            risk=Risk.high,
        )
    if action.effect is EffectClass.read:
        return Decision(verdict=Verdict.allow, reasons=["Reading your own data changes nothing."], risk=Risk.low)
    if context.approved_fingerprint is not None:
        if context.approved_fingerprint == action.fingerprint():
            return Decision(verdict=Verdict.allow, reasons=["You approved exactly this action."], risk=Risk.low)
        return Decision(
            verdict=Verdict.ask,
            reasons=["The action differs from the one you approved, so I need to ask again."],
            risk=Risk.high,
        )
    targets = ", ".join(action.targets) or "someone"
    template = _ASK_REASONS.get(action.effect, "it acts outside Deputy ({targets})")
    return Decision(
        verdict=Verdict.ask,
        reasons=[f"I ask before this because {template.format(targets=targets)}."],
        risk=Risk.medium,
    )
