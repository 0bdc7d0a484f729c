"""The guard's decision core: a pure function of the action and its context.

No IO, no clock reads, no model: `review` must be safe when every model output is chosen
by an attacker, so it decides from the operation's declared effect and risk tags (looked
up by the executor in its own catalog), the provenance of every value the action carries,
the user's rules and what the user approved, never from anything the model says.

Order of precedence, first match wins:
1. always denied: revealing or sending credentials, disabling two-factor authentication,
   password or recovery changes the user did not ask for, forwarding mail to an address
   the user does not know;
2. reads are allowed, except opening an address the user did not give (navigation);
3. exactly what the user approved on a card is allowed;
4. a value that came from untrusted content, or from nowhere (made up), means ask;
5. a goal whose untrusted content looked like an injection asks before acting;
6. the user's rules (deny > ask > allow), which can never reach past 1, 4 or 5, nor
   allow anything but a plain write once the goal has read untrusted content (an agent
   that read outside content and is about to act for the user needs a human);
7. defaults by effect: plain writes are allowed; deleting, sharing, irreversible acts,
   communicating, spending and account changes ask.
"""

from __future__ import annotations

from datetime import datetime, timezone
from enum import Enum

from pydantic import BaseModel, Field

from connectors.base import EffectClass, RiskTag
from sentinel.actions import Action
from sentinel.provenance import ProvenanceContext, TracedValue, Trust, trace_action


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
    untrusted_values: list[TracedValue] = Field(default_factory=list)
    allow_always: bool = Field(
        default=False, description="Asked only because of defaults or a rule: the card may offer “Always allow this”."
    )


class RuleVerdict(BaseModel):
    """What the user's rules say about an action (computed by `sentinel.rules`)."""

    verdict: Verdict | None = None
    reasons: list[str] = Field(default_factory=list)


class ReviewContext(BaseModel):
    """What the guard knows besides the action itself."""

    approved_fingerprint: str | None = Field(
        default=None, description="Fingerprint of the action the user approved for this request, if any."
    )
    provenance: ProvenanceContext = Field(default_factory=ProvenanceContext)
    injection_warnings: list[str] = Field(default_factory=list)
    rules: RuleVerdict = Field(default_factory=RuleVerdict)
    now: datetime = Field(default_factory=lambda: datetime.fromtimestamp(0, tz=timezone.utc))


_ASK_REASONS: dict[EffectClass, str] = {
    EffectClass.communicate: "it sends a message on your behalf to {targets}",
    EffectClass.spend: "it spends your money ({targets})",
    EffectClass.account: "it changes one of your accounts ({targets})",
    EffectClass.write: "it changes data in one of your services ({targets})",
}
_ASKING_TAGS = {RiskTag.delete, RiskTag.share, RiskTag.irreversible}


def review(action: Action, context: ReviewContext) -> Decision:
    """Allow, deny or ask the user about `action`, with reasons a person can read."""
    traced = trace_action(action.targets, action.arguments, action.amount, context.provenance)
    denied = _always_denied(action, context, traced)
    if denied is not None:
        return Decision(verdict=Verdict.deny, reasons=[denied], risk=Risk.high, untrusted_values=_untrusted(traced))
    tags = frozenset(action.tags)
    origins = sorted({item.origin for item in context.provenance.untrusted})
    read_note = [f"This goal has read outside content ({'; '.join(origins[:3])}), which may be steering it."] if origins else []
    if action.effect is EffectClass.read and not (tags & _ASKING_TAGS):
        unknown_site = [v for v in _untrusted(traced) if v.argument == "target"] if RiskTag.navigation in tags else []
        if not unknown_site:
            return Decision(verdict=Verdict.allow, reasons=["Reading changes nothing."], risk=Risk.low)
        # Following a link the outside world handed us is how data leaks: the user decides.
        reasons = [f"Careful: {v.explain()}." for v in unknown_site]
        return Decision(
            verdict=Verdict.ask,
            reasons=["I ask before opening this address because you didn't give it to me.", *reasons, *read_note],
            risk=Risk.high if any(v.trust is Trust.tainted for v in unknown_site) else Risk.medium,
            untrusted_values=unknown_site,
        )
    if context.approved_fingerprint is not None:
        if context.approved_fingerprint == action.fingerprint():
            return Decision(verdict=Verdict.allow, reasons=["You approved exactly this action."], risk=Risk.low)
        return Decision(
            verdict=Verdict.ask,
            reasons=["The action differs from the one you approved, so I need to ask again."],
            risk=Risk.high,
        )
    warning = (
        ["Something this goal read looked like an attempt to give me instructions: "
         + "; ".join(context.injection_warnings[:3]) + "."]
        if context.injection_warnings else []
    )
    untrusted = _untrusted(traced)
    if untrusted:
        tainted = any(v.trust is Trust.tainted for v in untrusted)
        reasons = [f"Careful: {v.explain()}." for v in untrusted]
        risk = Risk.high if tainted or warning else Risk.medium
        return _ask(action, [*reasons, *read_note, *warning], risk, untrusted)
    if warning:
        return _ask(action, [*warning, *read_note], Risk.high, [])
    if context.rules.verdict is Verdict.deny:
        return Decision(verdict=Verdict.deny, reasons=context.rules.reasons, risk=Risk.medium)
    plain_write = action.effect is EffectClass.write and not (tags & _ASKING_TAGS)
    if origins and not plain_write:
        # Untrusted content read + acting on the user's behalf: a human decides, whatever
        # the rules allow, because the content may have steered the decision.
        return _ask(action, [*context.rules.reasons, *read_note], Risk.medium, [])
    if context.rules.verdict is Verdict.ask:
        return _ask(action, context.rules.reasons, Risk.medium, [])
    if context.rules.verdict is Verdict.allow:
        return Decision(verdict=Verdict.allow, reasons=context.rules.reasons, risk=Risk.low)
    if plain_write:
        return Decision(verdict=Verdict.allow, reasons=["A change you asked for, easy to undo."], risk=Risk.low)
    decision = _ask(action, [], Risk.medium, [])
    decision.allow_always = action.effect in (EffectClass.communicate, EffectClass.write)
    return decision


def _ask(action: Action, reasons: list[str], risk: Risk, untrusted: list[TracedValue]) -> Decision:
    targets = ", ".join(action.targets) or "someone"
    template = _ASK_REASONS.get(action.effect, "it acts outside Deputy ({targets})")
    if RiskTag.delete in action.tags:
        template = "it deletes something ({targets})"
    because = f"I ask before this because {template.format(targets=targets)}."
    return Decision(verdict=Verdict.ask, reasons=[because, *reasons], risk=risk, untrusted_values=untrusted)


def _always_denied(action: Action, context: ReviewContext, traced: list[TracedValue]) -> str | None:
    tags = frozenset(action.tags)
    words = " ".join(context.provenance.trusted_texts).lower()
    if action.effect is EffectClass.credential or RiskTag.reveal_credential in tags:
        return "Deputy never reveals, sends or changes a credential on the agent's request."
    if RiskTag.disable_2fa in tags:
        return "Deputy never turns off two-factor authentication."
    if RiskTag.change_password in tags and "password" not in words:
        return "You didn't ask to change a password, so Deputy won't."
    if RiskTag.change_recovery in tags and "recovery" not in words:
        return "You didn't ask to change a recovery address or phone, so Deputy won't."
    if RiskTag.forwarding_rule in tags and any(v.trust is not Trust.trusted for v in traced if v.argument == "target"):
        return "Deputy never forwards your mail to an address that isn't yours or one of your contacts."
    return None


def _untrusted(traced: list[TracedValue]) -> list[TracedValue]:
    return [v for v in traced if v.trust is not Trust.trusted]

