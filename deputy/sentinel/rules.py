"""The user's own rules for the guard: the schema, a pure evaluator and plain readings.

A rule states what the user *requests* for the actions it matches (allow, ask or deny).
`evaluate_rules` only reports that request, strictest first (deny > ask > allow); the
policy above it clamps it, so no rule reaches what is always denied or allows an action
built from untrusted content. Two asymmetries keep a rule from quietly widening anything:
a condition that cannot be decided (an amount in another currency or of unknown size)
holds for ask/deny rules and fails for allow rules; and target conditions hold for an
ask/deny rule when *any* target falls under them, for an allow rule only when there are
targets and *every* one does. An allow rule never matches a credential action.
"""

from __future__ import annotations

import secrets
from datetime import datetime, time
from decimal import Decimal
from enum import Enum
from typing import Annotated, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    model_validator,
)

from deputy.core.records.effects import EffectClass
from deputy.core.records.actions import Action


class RequestedVerdict(str, Enum):
    """What a rule asks for; the policy maps it onto its own `Verdict` and may clamp it."""

    allow = "allow"
    ask = "ask"
    deny = "deny"


_STRICTNESS = {RequestedVerdict.allow: 0, RequestedVerdict.ask: 1, RequestedVerdict.deny: 2}
_WORDS = {  # how describe() opens, and how a reason says what the rule wants
    RequestedVerdict.deny: ("Never allow", "forbids this"),
    RequestedVerdict.ask: ("Ask me before", "says to ask you first"),
    RequestedVerdict.allow: ("Don't ask me before", "lets me do this without asking"),
}


class Weekday(str, Enum):
    """Days by lower-case English name, declared in `datetime.weekday()` order."""

    monday = "monday"
    tuesday = "tuesday"
    wednesday = "wednesday"
    thursday = "thursday"
    friday = "friday"
    saturday = "saturday"
    sunday = "sunday"


_DAYS = list(Weekday)


def normalise_target(value: str) -> str:
    """The comparable form of a target: trimmed, lower case, single spaces, no `mailto:`."""
    return " ".join(value.split()).lower().rstrip(".").removeprefix("mailto:")


def _pattern(value: str) -> str:
    text = normalise_target(value).removeprefix("@")
    # Only a leading "*." is a wildcard: anything looser (a bare "*", "bob*") could be a
    # model's way of turning a narrow rule into "everyone".
    if not text or len(text) > 254 or "*" in text.removeprefix("*.") or text == "*.":
        raise ValueError(f"{value!r} is not an address, domain (*.example.com) or name")
    return text


Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$"), AfterValidator(str.lower)]
Pattern = Annotated[str, Field(max_length=300), AfterValidator(_pattern)]
Currency = Annotated[str, Field(pattern=r"^[A-Za-z]{3}$"), AfterValidator(str.upper)]
Amount = Annotated[Decimal, Field(ge=0, max_digits=20, allow_inf_nan=False)]


def _zone(name: str) -> str:
    # Refused when the input is built, not halfway through a review.
    try:
        ZoneInfo(name)
    except (KeyError, ValueError):  # ZoneInfoNotFoundError is a KeyError
        raise ValueError(f"unknown time zone {name!r}") from None
    return name


class RuleScope(BaseModel):
    """Which actions a rule is about: each non-empty list must match; empty means any."""

    model_config = ConfigDict(extra="forbid")
    effects: list[EffectClass] = Field(default_factory=list, max_length=6)
    connectors: list[Name] = Field(default_factory=list, max_length=20)
    operations: list[Name] = Field(default_factory=list, max_length=20)


class TimeWindow(BaseModel):
    """Wall-clock times [start, end) in the user's zone; a start after the end wraps midnight."""

    model_config = ConfigDict(extra="forbid")
    start: time
    end: time

    @model_validator(mode="after")
    def _plain(self) -> TimeWindow:
        # Whole minutes on the user's own clock: a zone or seconds here would make the
        # reading shown to the user ("between 09:00 and 17:00") differ from what runs.
        if any(t.tzinfo or t.second or t.microsecond for t in (self.start, self.end)) or self.start == self.end:
            raise ValueError("a time window is two different HH:MM times on the user's clock")
        return self

    def contains(self, moment: time) -> bool:
        """Whether the wall-clock `moment` falls inside the window."""
        start, end, moment = self.start, self.end, moment.replace(tzinfo=None)
        return start <= moment < end if start < end else (moment >= start or moment < end)


class RuleConditions(BaseModel):
    """Further tests on an action in scope; every one that is set must hold."""

    model_config = ConfigDict(extra="forbid")
    amount_above: Amount | None = None
    amount_at_most: Amount | None = None
    currency: Currency | None = None
    targets_in_contacts: StrictBool | None = None
    target_in: list[Pattern] = Field(default_factory=list, max_length=100)
    target_not_in: list[Pattern] = Field(default_factory=list, max_length=100)
    weekdays: list[Weekday] = Field(default_factory=list, max_length=7)
    time_of_day: TimeWindow | None = None
    only_if_user_requested: StrictBool = False

    @property
    def has_amount(self) -> bool:
        return self.amount_above is not None or self.amount_at_most is not None

    @model_validator(mode="after")
    def _coherent(self) -> RuleConditions:
        if self.has_amount and self.currency is None:
            raise ValueError("an amount limit needs a currency")
        low, high = self.amount_above, self.amount_at_most
        if low is not None and high is not None and low >= high:
            raise ValueError("no amount is both above the lower and at most the upper limit")
        return self


class RuleSpec(BaseModel):
    """The content of a rule: what the helper model fills in and the user confirms."""

    model_config = ConfigDict(extra="forbid")
    verdict: RequestedVerdict
    scope: RuleScope = Field(default_factory=RuleScope)
    conditions: RuleConditions = Field(default_factory=RuleConditions)

    @model_validator(mode="after")
    def _coherent(self) -> RuleSpec:
        if self.verdict is RequestedVerdict.allow and EffectClass.credential in self.scope.effects:
            raise ValueError("a rule cannot allow anything involving credentials")
        # Amounts only mean something for spending: an amount rule naming no effect is
        # about payments, and saying so keeps a "more than $50" rule off every email.
        if self.conditions.has_amount and not self.scope.effects:
            self.scope = self.scope.model_copy(update={"effects": [EffectClass.spend]})
        return self


class UserRule(RuleSpec):
    """A confirmed rule as stored and enforced."""

    schema_version: int = 1
    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")
    source: Literal["user", "always_allow_button"] = "user"
    text: str = Field(default="", max_length=500, description="The user's own sentence, if any.")
    created_at: float


def new_rule_id() -> str:
    """A short random id, small enough for a button's callback data."""
    return "r_" + secrets.token_urlsafe(6)


class RuleInput(BaseModel):
    """What the evaluator needs about one action, precomputed by the policy."""

    effect: EffectClass
    connector: Annotated[str, AfterValidator(str.lower)]
    operation: Annotated[str, AfterValidator(str.lower)]
    targets: list[Annotated[str, AfterValidator(normalise_target)]] = Field(default_factory=list)
    amount: Decimal | None = None
    currency: Annotated[str, AfterValidator(str.upper)] | None = None
    targets_in_contacts: bool = Field(default=False, description="True only if there are targets, all contacts.")
    user_requested: bool = Field(default=False, description="Targets and amount trace to the user's own words.")
    when: AwareDatetime
    timezone: Annotated[str, AfterValidator(_zone)] | None = Field(
        default=None, description="The user's IANA zone; `when` is read in it."
    )

    def local_when(self) -> datetime:
        """`when` on the user's wall clock."""
        return self.when.astimezone(ZoneInfo(self.timezone)) if self.timezone else self.when


class RuleMatch(BaseModel):
    """One rule that applies to the action, and the sentence saying so."""

    rule_id: str
    verdict: RequestedVerdict
    reason: str


class RuleOutcome(BaseModel):
    """The rules' request for one action; `verdict` is None when no rule matched."""

    verdict: RequestedVerdict | None = None
    reasons: list[str] = Field(default_factory=list, description="Why, from the rules that decided.")
    matches: list[RuleMatch] = Field(default_factory=list, description="Every matching rule, overruled ones too.")


def evaluate_rules(rules: list[UserRule], rule_input: RuleInput) -> RuleOutcome:
    """Match every rule; the strictest matching verdict wins (deny > ask > allow)."""
    matches = [m for rule in rules if (m := match_rule(rule, rule_input)) is not None]
    if not matches:
        return RuleOutcome()
    verdict = max((m.verdict for m in matches), key=_STRICTNESS.__getitem__)
    return RuleOutcome(verdict=verdict, reasons=[m.reason for m in matches if m.verdict is verdict], matches=matches)


def match_rule(rule: RuleSpec, rule_input: RuleInput) -> RuleMatch | None:
    """How one rule applies to one action, or None if it does not."""
    restrictive, scope, cond, inp = rule.verdict is not RequestedVerdict.allow, rule.scope, rule.conditions, rule_input
    if not restrictive and inp.effect is EffectClass.credential:
        return None
    in_scope = ((scope.effects, inp.effect), (scope.connectors, inp.connector), (scope.operations, inp.operation))
    if any(values and value not in values for values, value in in_scope):
        return None
    note = ""
    if cond.has_amount:
        if inp.amount is None or inp.currency != cond.currency:
            if not restrictive:
                return None
            known = f"in {inp.currency}" if inp.amount is not None else "unknown"
            note = f" (the amount is {known}, so I can't compare it with your {cond.currency} limit)"
        elif (cond.amount_above is not None and inp.amount <= cond.amount_above) or (
            cond.amount_at_most is not None and inp.amount > cond.amount_at_most
        ):
            return None
    if cond.targets_in_contacts is not None and cond.targets_in_contacts != inp.targets_in_contacts:
        return None
    if (cond.target_in or cond.target_not_in) and not _targets_hold(cond, inp.targets, restrictive):
        return None
    local = inp.local_when()
    if cond.weekdays and _DAYS[local.weekday()] not in cond.weekdays:
        return None
    if cond.time_of_day is not None and not cond.time_of_day.contains(local.time()):
        return None
    if cond.only_if_user_requested and not inp.user_requested:
        return None
    label = getattr(rule, "text", "").strip() or describe(rule)
    reason = f"Your rule “{label}” {_WORDS[rule.verdict][1]}{note}."
    return RuleMatch(rule_id=getattr(rule, "id", ""), verdict=rule.verdict, reason=reason)


def target_matches(pattern: str, target: str) -> bool:
    """Whether a normalised target falls under a rule pattern.

    `*.x.com` covers x.com and its subdomains (addresses and sites); a bare domain `x.com`
    covers that domain and addresses at it; an origin `https://x.com:8443` covers every
    address on that site alone; anything else must be equal.
    """
    if "://" in pattern:  # a shop's origin: same scheme, host and port
        return "://" in target and _origin(pattern) == _origin(target)
    if "://" in target:
        host = urlsplit(target).hostname or target
    else:
        host = target.rsplit("@", 1)[1] if "@" in target else target
    if pattern.startswith("*."):
        return host == pattern[2:] or host.endswith(pattern[1:])
    return target == pattern or ("@" not in pattern and host == pattern)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        port = -1
    return parts.scheme, (parts.hostname or "").lower(), port


def _targets_hold(cond: RuleConditions, targets: list[str], restrictive: bool) -> bool:
    def covered(target: str) -> bool:
        if cond.target_in and not any(target_matches(p, target) for p in cond.target_in):
            return False
        return not any(target_matches(p, target) for p in cond.target_not_in)

    if not targets:
        return False  # nobody is affected, so a rule about who is affected has nothing to say
    return any(map(covered, targets)) if restrictive else all(map(covered, targets))


def narrow_rule_for(action: Action, *, rule_id: str | None = None, now: float | None = None) -> UserRule:
    """The "Always allow this" rule: this connector and operation, only these targets.

    ValueError for a credential action (never allowable), for one without targets (the
    rule would cover the whole operation, not what the button promised) or with a target
    that is not a plain address, domain or name.
    """
    if action.effect is EffectClass.credential:
        raise ValueError("credential actions can never be always allowed")
    if not action.targets:
        raise ValueError("an action without a target cannot get a narrow rule")
    targets = sorted({_pattern(t) for t in action.targets})
    return UserRule(
        id=rule_id or new_rule_id(),
        verdict=RequestedVerdict.allow,
        scope=RuleScope(effects=[action.effect], connectors=[action.connector], operations=[action.operation]),
        conditions=RuleConditions(target_in=targets),
        source="always_allow_button",
        text=f"Always allow {action.operation} ({action.connector}) to {', '.join(targets)}"[:500],
        created_at=action.created_at if now is None else now,
    )


_WHAT = {
    EffectClass.read: "any reading of my data", EffectClass.write: "any change to my data",
    EffectClass.communicate: "any message", EffectClass.spend: "any payment",
    EffectClass.credential: "anything involving a password or other secret",
    EffectClass.account: "any change to my accounts",
}


def describe(rule: RuleSpec) -> str:
    """An unambiguous plain-English reading of exactly what the rule enforces."""
    scope, cond, restrictive = rule.scope, rule.conditions, rule.verdict is not RequestedVerdict.allow
    text = f"{_WORDS[rule.verdict][0]} " + (" or ".join(_WHAT[e] for e in scope.effects) or "any action")
    if scope.connectors:
        text += " in " + _either(scope.connectors)
    if scope.operations:
        text += " (only " + _either(scope.operations) + ")"
    bounds = [(w, a) for w, a in (("over", cond.amount_above), ("of at most", cond.amount_at_most)) if a is not None]
    if bounds:
        text += " " + " and ".join(f"{word} {_money(amount)} {cond.currency}" for word, amount in bounds)
    clauses = []
    if cond.targets_in_contacts is not None:
        who = "everyone involved is" if cond.targets_in_contacts else "anyone involved is not"
        clauses.append(f"when {who} in my contacts")
    if cond.target_in or cond.target_not_in:
        tests = [f"is {_either(_shown(cond.target_in))}"] if cond.target_in else []
        tests += [f"is not {_either(_shown(cond.target_not_in))}"] if cond.target_not_in else []
        clauses.append(f"when {'any' if restrictive else 'every'} recipient or target " + " and ".join(tests))
    if cond.weekdays:
        # "when it is", not "on": the day Deputy acts, not the date of what it books.
        clauses.append("when it is " + _either([d.value.capitalize() for d in _DAYS if d in cond.weekdays]) + " for me")
    if cond.time_of_day is not None:
        clauses.append(f"between {cond.time_of_day.start:%H:%M} and {cond.time_of_day.end:%H:%M} (my local time)")
    if cond.only_if_user_requested:
        clauses.append("when I asked for it myself (who and how much come from my own words)")
    text += "".join(", " + c for c in clauses) + "."
    if cond.has_amount:
        counts = "counts too, since I can't compare it" if restrictive else "never counts"
        text += f" An amount in another currency or of unknown size {counts}."
    return text + ("" if restrictive else " Deputy's built-in protections still apply.")


def _money(amount: Decimal) -> str:
    # Two decimals as people write money, but never rounded: 0.005 must not read "0.01".
    return f"{amount:.2f}" if amount == amount.quantize(Decimal("0.01")) else format(amount.normalize(), "f")


def _shown(patterns: list[str]) -> list[str]:
    return [f"an address or site at {p[2:]} (or a subdomain)" if p.startswith("*.") else p for p in patterns]


def _either(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
