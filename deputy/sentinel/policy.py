"""The guard's decision core: a pure function of the action and its context.

No IO, no clock reads, no model: `review` must be safe when every model output is chosen
by an attacker, so it decides from the operation's declared effect and risk tags (looked
up by the executor in its own catalog), the provenance of every value the action carries,
the user's rules and what the user approved, never from anything the model says.

Order of precedence, first match wins:
1. always denied: revealing or sending credentials, disabling two-factor authentication,
   password or recovery changes the user did not ask for, forwarding mail to an address
   the user does not know;
2. reads are allowed, except opening an address the user did not give (navigation) or one
   the model composed to carry data the user did not give;
3. exactly what the user approved on a card is allowed; so is a purchase within a spending
   rule with an amount cap that the user's own words asked for, with nothing from outside
   in it but the price (`deputy.sentinel.spending`: the token is capped at the rule's limit);
4. a value that came from untrusted content, or from nowhere (made up), means ask; so does
   free text (a title, a body, a form field) copied from untrusted content; in a delete, a
   share or an account change every identifier (an id, a name, a number) is such a value;
5. a goal whose untrusted content looked like an injection asks before acting;
6. an action outside the user's intent (a kind of action the user's own words never asked
   for) asks once the goal has read outside content: that content may be steering it;
7. the user's rules (deny > ask > allow), which can never reach past 1 to 6;
8. defaults by effect: plain writes are allowed; so is a message, an invitation, a share or
   a form the user asked for in their own words, sent to recipients they named themselves,
   with every value traced to them, and an account change that only brings someone the user
   named into a place they named (`membership`); spending, other account changes, deleting,
   irreversible acts and anything else consequential ask (a rule "always ask before emailing" restores a card
   for every message), and so does the user's setting for messages (`message_modes`);
also asked: an action whose day, time, amount or message differs from the user's words
(`against_words`), and any message of a goal whose outside content spoke to the assistant.
Reading the user's own data is not obeying it: an action inside the intent, every value of
which traces to the user or their contacts, is not asked about merely because the goal read
something. Every reason is true (nothing says "you asked" unless it traces to the user's
words) and all reasons together fit in `MAX_REASON_CHARS`, so a card is one short message.
"""

from __future__ import annotations

from datetime import datetime, timezone
from enum import Enum

from pydantic import BaseModel, Field

from deputy.core.accounts.approval_mode import DEFAULT_APPROVAL_MODE, ApprovalMode
from deputy.core.records.effects import EffectClass, RiskTag
from deputy.core.records.actions import Action
from deputy.sentinel.addressed import addressed_by_user
from deputy.sentinel.against_words import against_words
from deputy.sentinel.membership import joined_by_user
from deputy.sentinel.reuse import derived as _derived
from deputy.sentinel.message_modes import allowed_reason, known_contacts, message_allowed
from deputy.sentinel.said_values import SaidTime
from deputy.sentinel.speaks_to_assistant import passages_to_assistant
from deputy.sentinel.intent import Kind, action_kinds, intended_kinds
from deputy.sentinel.navigation import composed_data
from deputy.sentinel.reasons import MAX_REASON_CHARS  # noqa: F401 (the cards' budget, named where decisions are)
from deputy.sentinel.reasons import (
    fit as _fit, named_once as _named_once, short as _short, steering as _steering, value_reasons as _value_reasons,
    warning as _warning)
from deputy.sentinel.spending import SpendingLimit, within_limit
from deputy.sentinel.provenance import ProvenanceContext, TracedValue, Trust, trace_action, untrusted_sources
from deputy.sentinel.textflow import CopiedText, Source, copied_passages
from deputy.sentinel.value_sources import Flow


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
    copied: list[str] = Field(default_factory=list, description="Passages copied from outside content, explained.")
    allow_always: bool = Field(
        default=False, description="Asked only because of defaults or a rule: the card may offer “Always allow this”."
    )
    spending_limit: SpendingLimit | None = Field(
        default=None, description="Allowed without a tap under this spending rule: the token is capped at its limit.")
    value_sources: list[Flow] = Field(
        default_factory=list, description="Where each value of the action came from, as traced for this review "
                                          "(kept with the review's audit entry: the web view draws it).")


class RuleVerdict(BaseModel):
    """What the user's rules say about an action (computed by `deputy.sentinel.rules`)."""

    verdict: Verdict | None = None
    reasons: list[str] = Field(default_factory=list)
    spending_limit: SpendingLimit | None = Field(
        default=None, description="An allow rule with an amount cap for this purchase's merchant (deputy.sentinel.spending).")


class ReviewContext(BaseModel):
    """What the guard knows besides the action itself."""

    approved_fingerprint: str | None = Field(
        default=None, description="Fingerprint of the action the user approved for this request, if any."
    )
    provenance: ProvenanceContext = Field(default_factory=ProvenanceContext)
    injection_warnings: list[str] = Field(default_factory=list)
    rules: RuleVerdict = Field(default_factory=RuleVerdict)
    now: datetime = Field(default_factory=lambda: datetime.fromtimestamp(0, tz=timezone.utc))
    approval_mode: ApprovalMode = Field(default=DEFAULT_APPROVAL_MODE, description="The user's setting for messages.")
    said_times: list[SaidTime] = Field(default_factory=list, description="Days and times the user's words name.")


_ASKING_TAGS = {RiskTag.delete, RiskTag.share, RiskTag.irreversible}


def review(action: Action, context: ReviewContext) -> Decision:
    """Allow, deny or ask the user about `action`, with reasons a person can read."""
    provenance = context.provenance
    traced = _trace(action, provenance)
    denied = _always_denied(action, context, traced)
    if denied is not None:
        return Decision(verdict=Verdict.deny, reasons=[denied], risk=Risk.high, untrusted_values=_untrusted(traced))
    tags = frozenset(action.tags)
    sources = untrusted_sources(provenance) if provenance.untrusted else []
    if action.effect is EffectClass.read and not (tags & _ASKING_TAGS):
        return _review_read(action, provenance, traced, tags)
    if context.approved_fingerprint is not None:
        if context.approved_fingerprint == action.fingerprint():
            return Decision(verdict=Verdict.allow, reasons=["You approved exactly this action."], risk=Risk.low)
        return Decision(
            verdict=Verdict.ask,
            reasons=["The action differs from the one you approved, so I need to ask again."],
            risk=Risk.high,
        )
    warning = _warning(context.injection_warnings, provenance)
    untrusted = _untrusted(traced)
    reported = {v.value.strip().lower() for v in untrusted}
    copied = [c for c in _copied(action, provenance, sources)
              if c.passage.lower() not in reported]
    if context.rules.verdict is Verdict.allow and (
            within := within_limit(action, context.rules.spending_limit, provenance, traced,
                                   warned=bool(warning), copied=bool(copied))):
        return Decision(verdict=Verdict.allow, reasons=[within], risk=Risk.low,
                        spending_limit=context.rules.spending_limit)
    if untrusted or copied:
        reasons = [*_value_reasons(untrusted), *(f"Careful: {c.explain()}." for c in copied)]
        risk = Risk.high if copied or warning or any(v.trust is Trust.tainted for v in untrusted) else Risk.medium
        return _ask(action, [*reasons, *warning], risk, untrusted, copied, provenance)
    # Outside content that spoke to the assistant marks the goal: its words may come back
    # paraphrased, so every message after it is shown with the passage, whatever it says.
    spoken = passages_to_assistant(provenance.untrusted) if _delivers(action) and provenance.untrusted else []
    if warning or spoken:
        return _ask(action, [*(f"Careful: {p.explain()}." for p in spoken), *warning], Risk.high, [],
                    provenance=provenance)
    if context.rules.verdict is Verdict.deny:
        return Decision(verdict=Verdict.deny, reasons=context.rules.reasons, risk=Risk.medium)
    asked_for = _asked_for(action, provenance)
    if sources and not asked_for:
        kinds = action_kinds(action.effect, tags, action.connector, action.operation)
        # Outside content was read and the user never asked for this kind of action: the
        # content may be what suggested it, so a human decides, whatever the rules allow.
        return _ask(action, [_steering(kinds, sources)], Risk.medium, [])
    if differs := against_words(action, provenance, context.said_times):
        return _ask(action, differs, Risk.medium, [])
    reached = _reached(action, traced)
    if sources and _delivers(action) and _to_people(action) and not addressed_by_user(
            reached, _kinds(action), provenance.user_words, provenance.trusted_texts):
        # The goal read outside content and the user never named these people as someone to write
        # to (only, say, as someone to ask about): the content may have chosen them, so a human
        # decides, whatever the rules allow. (A form sent to a website is weighed by where its data
        # goes: `composed_data`, the egress guard.)
        return _ask(action, [f"You didn't ask me to write to {', '.join(action.targets)}, and this goal read "
                             "outside content that may have suggested it."], Risk.medium, [])
    if context.rules.verdict is Verdict.ask:
        return _ask(action, context.rules.reasons, Risk.medium, [])
    if context.rules.verdict is Verdict.allow:
        return Decision(verdict=Verdict.allow, reasons=context.rules.reasons, risk=Risk.low)
    if action.effect is EffectClass.write and not (tags & _ASKING_TAGS):
        named = action_kinds(action.effect, tags, action.connector, action.operation) & intended_kinds(
            provenance.user_words)
        traced_to_user = bool(named) and all(v.trust is Trust.trusted for v in traced)
        reason = "A change you asked for" if traced_to_user else "A change to your own data"
        return Decision(verdict=Verdict.allow, reasons=[reason + ", easy to undo."], risk=Risk.low)
    if joined := joined_by_user(action, traced, provenance.user_words):
        return Decision(verdict=Verdict.allow, reasons=[joined], risk=Risk.low)
    eligible = _eligible(action, provenance, traced)
    addressed = eligible and addressed_by_user(reached, _kinds(action), provenance.user_words,
                                               provenance.trusted_texts)
    allowed, why = message_allowed(
        context.approval_mode, eligible=eligible, addressed=addressed, targets=reached,
        contacts=known_contacts(provenance.contacts, provenance.trusted_texts, provenance.user_words),
        user_words=provenance.user_words)
    if allowed:
        return Decision(verdict=Verdict.allow, risk=Risk.low, reasons=[
            allowed_reason(reached, addressed, read_outside=bool(provenance.untrusted))])
    decision = _ask(action, why, Risk.medium, [])
    # "Always allow" would be a rule that lets such messages through without a card: the opposite of a
    # user who chose a card before every message, so their message cards never offer it.
    every_message = context.approval_mode is ApprovalMode.every_message and _delivers(action)
    decision.allow_always = action.effect in (EffectClass.communicate, EffectClass.write) and not every_message
    return decision


def acts_on_objects(action: Action) -> bool:
    """A delete, a share or an account change: what it acts on matters as much as whom it reaches."""
    return action.effect is EffectClass.account or bool(frozenset(action.tags) & {RiskTag.delete, RiskTag.share})


def _trace(action: Action, provenance: ProvenanceContext) -> list[TracedValue]:
    # In a delete, share or account change every identifier is traced (`provenance`): an id
    # first seen in outside content, or nowhere, is asked about before any rule is weighed.
    derived = _derived(action, provenance)
    if "traced" not in derived:
        derived["traced"] = trace_action(action.targets, action.arguments, action.amount, provenance,
                                         identifiers=acts_on_objects(action))
    return derived["traced"]


def _copied(action: Action, provenance: ProvenanceContext, sources: list[Source]) -> list[CopiedText]:
    """Free text in the action copied from outside content (not quoted back to its own author)."""
    derived = _derived(action, provenance)
    if "copied" not in derived:
        derived["copied"] = copied_passages(action.arguments, _copy_sources(action, sources), provenance.trusted_texts)
    return derived["copied"]


# Effects whose only consequence is that someone the user named receives something the user
# asked to send them. Money, accounts, deleting and irreversible acts always ask by default.
_DIRECTABLE = frozenset({EffectClass.communicate, EffectClass.write})


def _eligible(action: Action, provenance: ProvenanceContext, traced: list[TracedValue]) -> bool:
    """The user asked for exactly this kind of delivery and every value in it traces to them;
    outside content was already ruled out above (nothing copied, no outside value). Whether it
    still waits for a card depends on the recipients and the user's setting (`message_modes`)."""
    if action.effect not in _DIRECTABLE or frozenset(action.tags) & (_ASKING_TAGS - {RiskTag.share}):
        return False
    if action.amount is not None or not _delivers(action) or not all(v.trust is Trust.trusted for v in traced):
        return False
    return bool(_kinds(action) & intended_kinds(provenance.user_words))


def _delivers(action: Action) -> bool:
    """Someone receives something: a message, an invitation, a share, a form on a website."""
    return action.effect is EffectClass.communicate or bool(_kinds(action) & {Kind.send, Kind.share, Kind.post})


def _reached(action: Action, traced: list[TracedValue]) -> list[str]:
    """The targets an action reaches: an object the user pointed at by its name (the file a share
    gives, `deputy.sentinel.pointed_items`) is what it acts on, not someone to write to."""
    pointed = {v.value.strip().lower() for v in traced if v.pointed}
    return [t for t in action.targets if t.strip().lower() not in pointed] if pointed else action.targets


def _to_people(action: Action) -> bool:
    """The action reaches people (addresses, names, channels), not a website's form."""
    return bool(action.targets) and not any("://" in target for target in action.targets)


def _kinds(action: Action) -> frozenset[Kind]:
    return action_kinds(action.effect, frozenset(action.tags), action.connector, action.operation)


# A plain write (a cart, a draft, a held booking, an event) is a step of these tasks.
_STEPS_BY_WRITES = frozenset({Kind.write, Kind.schedule, Kind.buy, Kind.book, Kind.pay, Kind.send})


def _asked_for(action: Action, provenance: ProvenanceContext) -> bool:
    """The user's own words ask for this kind of action (or for a task it is a plain step of)."""
    tags = frozenset(action.tags)
    wanted = intended_kinds(provenance.user_words)
    if action_kinds(action.effect, tags, action.connector, action.operation) & wanted:
        return True
    return action.effect is EffectClass.write and not (tags & _ASKING_TAGS) and bool(wanted & _STEPS_BY_WRITES)


def _copy_sources(action: Action, sources: list[Source]) -> list[Source]:
    """Outside content whose copies matter here: quoting a message back to its own author
    (a reply's "Re: subject") tells them nothing new and obeys nobody."""
    if action.effect is not EffectClass.communicate:
        return sources
    recipients = {t.strip().lower() for t in action.targets}
    return [s for s in sources if not (s.author and s.author in recipients)]


def requested_by_user(action: Action, provenance: ProvenanceContext) -> bool:
    """The user's words ask for this kind of action and every value in it traces to them:
    what a rule "only if I asked for it" may let through (nothing copied from outside)."""
    traced = _trace(action, provenance)
    if any(v.trust is not Trust.trusted for v in traced):
        return False
    if not _asked_for(action, provenance):
        return False
    if _delivers(action) and not addressed_by_user(_reached(action, traced), _kinds(action), provenance.user_words,
                                                    provenance.trusted_texts):
        return False  # the user typed the address, but not as someone to send this to
    sources = untrusted_sources(provenance) if provenance.untrusted else []
    return not _copied(action, provenance, sources)


def _review_read(action: Action, provenance: ProvenanceContext, traced: list[TracedValue],
                 tags: frozenset[RiskTag]) -> Decision:
    if RiskTag.navigation not in tags:
        return Decision(verdict=Verdict.allow, reasons=["Reading changes nothing."], risk=Risk.low)
    unknown_site = [v for v in _untrusted(traced) if v.argument == "target"]
    carried = [] if unknown_site else composed_data(action.targets, provenance)
    if not unknown_site and not carried:
        return Decision(verdict=Verdict.allow, reasons=["Reading changes nothing."], risk=Risk.low)
    # Following a link the outside world handed us, or one the model filled with data, is
    # how data leaks: the user decides.
    if unknown_site:
        reasons = ["I ask before opening this address because you didn't give it to me.",
                   *[f"Careful: {v.explain()}." for v in unknown_site]]
    else:
        reasons = ["I ask before opening this address because it would send the site "
                   + ", ".join(f"“{_short(c, 60)}”" for c in carried[:3]) + ", which you didn't give me."]
    return Decision(
        verdict=Verdict.ask, reasons=_fit(reasons),
        risk=Risk.high if carried or any(v.trust is Trust.tainted for v in unknown_site) else Risk.medium,
        untrusted_values=unknown_site,
    )


def _what(action: Action) -> str:
    targets = ", ".join(action.targets) or "someone"
    tags = frozenset(action.tags)
    kinds = action_kinds(action.effect, tags, action.connector, action.operation)
    money = f"{action.amount} {action.currency or ''}".strip() if action.amount is not None else ""
    if RiskTag.delete in tags:
        return f"it deletes something ({targets})"
    if Kind.post in kinds:
        return f"it sends data to a website outside Deputy ({targets})"
    if Kind.share in kinds and Kind.schedule in kinds:
        return f"it invites people to an event, who will see it ({targets})"
    if Kind.share in kinds and action.effect is EffectClass.spend:
        # A booking: the money and the traveller's personal details both leave the user.
        paid = money + " to " if money else ""
        return f"it spends your money ({paid}{targets}) and gives your personal details to them"
    if Kind.share in kinds:
        return f"it shares your data with {targets}"
    if action.effect is EffectClass.communicate:
        return f"it sends a message on your behalf to {targets}"
    if action.effect is EffectClass.spend:
        return f"it spends your money ({money + ' to ' if money else ''}{targets})"
    if action.effect is EffectClass.account:
        return f"it changes one of your accounts ({targets})"
    if action.effect is EffectClass.write:
        return f"it changes data in one of your services ({targets})"
    return f"it acts outside Deputy ({targets})"


def _ask(action: Action, reasons: list[str], risk: Risk, untrusted: list[TracedValue],
         copied: list[CopiedText] | None = None, provenance: ProvenanceContext | None = None) -> Decision:
    because = f"I ask before this because {_what(action)}."
    # An item named by a value, a copied passage, a note to the assistant and the detector's warning
    # is spelled out once; later mentions say "that same email".
    named = [*(v.origins[0] for v in untrusted if v.origins), *(c.origins[0] for c in copied or [] if c.origins)]
    if provenance is not None and provenance.untrusted:
        said = " ".join(reasons)
        named += [origin for origin in _known_origins(provenance) if origin in said]
    origins = [o for o in dict.fromkeys(named) if len(o) > 24]
    return Decision(verdict=Verdict.ask, reasons=_fit(_named_once([because, *reasons], origins)), risk=risk,
                    untrusted_values=untrusted, copied=[c.explain() for c in copied or []])


def _known_origins(provenance: ProvenanceContext) -> list[str]:
    """Every origin a reason may name: each item of what the goal read, and each reading as a whole."""
    return list(dict.fromkeys([*(s.origin for s in untrusted_sources(provenance)),
                               *(item.origin for item in provenance.untrusted)]))


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
    # A name the model chose (an event title, a payee's display name) is not an address:
    # made up, it steers nothing; copied from outside content, it is reported as tainted.
    return [v for v in traced if v.trust is Trust.tainted or (v.trust is Trust.unverified and v.kind != "name")]

