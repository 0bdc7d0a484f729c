"""Turning a user's sentence into a rule with a helper model, which is not trusted.

The model only proposes. Its arguments are validated against `RuleSpec` (unknown fields,
wrong types and values outside the enums are refused), what no rule may say is dropped
with a note or refused, and the user confirms `describe()` of what will actually be
enforced, never the model's own summary.
"""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from deputy.agent.model.chat_model import ChatModel, ModelError
from deputy.core.records.effects import EffectClass
from deputy.sentinel.rules import RequestedVerdict, RuleSpec, UserRule, describe, new_rule_id

MAX_SENTENCE_CHARS = 500
"""Only this much of a sentence is read; the rest is ignored (and the user is told)."""
TOOL_NAME = "define_rule"
_EXAMPLES = "“ask me before any payment over $50” or “never email bob@example.com”"

_SYSTEM = """You turn one sentence, in which a user tells their assistant Deputy what it may do, \
into one structured rule. Call the tool define_rule exactly once; never answer in text.

- verdict: "allow" = Deputy may do it without asking; "ask" = Deputy must ask first; \
"deny" = Deputy must never do it.
- scope.effects: read, write (changes the user's own data, e.g. calendar events), communicate \
(emails and messages to people), spend (payments, purchases, paid bookings), credential \
(passwords and secrets), account (account settings). scope.connectors / scope.operations: \
service and operation names, e.g. "calendar", "email", "bookings". An empty list means any.
- conditions.amount_above: the rule applies to amounts over this; conditions.amount_at_most: \
to amounts up to this. Always give conditions.currency as an ISO code ($ is USD, € is EUR).
- conditions.target_in / target_not_in: email addresses, domains written *.example.com, \
merchant or calendar names. conditions.targets_in_contacts: true = only people in the user's \
contacts, false = someone outside them.
- conditions.weekdays: lower-case English day names. conditions.time_of_day: {{"start": "HH:MM", \
"end": "HH:MM"}} on the user's clock.
- conditions.only_if_user_requested: true when the rule covers only what the user explicitly \
asked for in their own words.

Today is {today} ({weekday}); the user's time zone is {timezone}."""


class RuleParseError(Exception):
    """The sentence could not become a rule. `user_message` is a plain sentence for the chat."""

    def __init__(self, user_message: str, *, detail: str = "", retryable: bool = False) -> None:
        super().__init__(user_message)
        self.user_message = user_message
        self.detail = detail
        self.retryable = retryable


class ParsedRule(BaseModel):
    """A rule read from a sentence, waiting for the user to confirm `description`."""

    spec: RuleSpec
    text: str = Field(description="The sentence as read (cut at MAX_SENTENCE_CHARS).")
    description: str = Field(description="describe(spec): what will be enforced, for the confirmation card.")
    notes: list[str] = Field(default_factory=list, description="What was cut or left out, in plain words.")

    def to_rule(self, *, created_at: float, rule_id: str | None = None) -> UserRule:
        """The rule to store once the user confirms it."""
        return UserRule.model_validate(
            {**self.spec.model_dump(), "id": rule_id or new_rule_id(), "source": "user", "text": self.text,
             "created_at": created_at}
        )


def rule_tool() -> dict[str, Any]:
    """The one tool offered to the model; its parameters are `RuleSpec`'s JSON schema."""
    return {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": "Define the rule the user's sentence states.",
            "parameters": _inline_refs(RuleSpec.model_json_schema()),
        },
    }


def parse_rule(sentence: str, model: ChatModel, today: date, timezone: str) -> ParsedRule | RuleParseError:
    """One model call turning `sentence` into a rule to confirm, or a plain error to show."""
    text = " ".join(sentence.split())
    notes = [f"I only read the first {MAX_SENTENCE_CHARS} characters."] if len(text) > MAX_SENTENCE_CHARS else []
    text = text[:MAX_SENTENCE_CHARS]
    if not text:
        return RuleParseError(f"Tell me the rule in one sentence, e.g. {_EXAMPLES}.")
    system = _SYSTEM.format(today=today.isoformat(), weekday=f"{today:%A}", timezone=timezone)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": text}]
    try:
        reply = model.complete(messages, [rule_tool()])
    except ModelError as exc:
        message = f"{exc.user_message} Please try again in a moment."
        return RuleParseError(message, detail=str(exc), retryable=exc.retryable)
    calls = reply.tool_calls
    if len(calls) != 1 or calls[0].name != TOOL_NAME:
        return _unreadable(f"expected one {TOOL_NAME} call, got {[c.name for c in calls]}")
    try:
        arguments = calls[0].parsed_arguments()
    except (ValueError, RecursionError) as exc:
        return _unreadable(f"arguments are not a JSON object: {type(exc).__name__}")
    arguments = _without_credential_allowance(arguments, notes)
    if isinstance(arguments, RuleParseError):
        return arguments
    try:
        spec = RuleSpec.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_input=False))
        return _unreadable(f"invalid rule: {problems[:500]}")
    return ParsedRule(spec=spec, text=text, description=describe(spec), notes=notes)


def _unreadable(detail: str) -> RuleParseError:
    return RuleParseError(f"I couldn't turn that into a rule; try e.g. {_EXAMPLES}.", detail=detail)


def _without_credential_allowance(arguments: dict[str, Any], notes: list[str]) -> dict[str, Any] | RuleParseError:
    # The policy never lets a rule allow a credential action, so an allow rule naming
    # credentials would promise the user something that cannot happen: drop that part.
    # Dropping the only effect would leave an empty list, which means "any action": a
    # widening, so that is refused instead.
    scope = arguments.get("scope")
    if arguments.get("verdict") != RequestedVerdict.allow.value or not isinstance(scope, dict):
        return arguments
    effects = scope.get("effects")
    if not isinstance(effects, list) or EffectClass.credential.value not in effects:
        return arguments
    kept = [e for e in effects if e != EffectClass.credential.value]
    if not kept:
        return RuleParseError(
            "No rule can let Deputy handle passwords or other secrets on its own, so I didn't make one.",
            detail="model proposed an allow rule for credential effects only",
        )
    notes.append("I left out passwords and other secrets: no rule can let Deputy handle those on its own.")
    return {**arguments, "scope": {**scope, "effects": kept}}


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    # Small local models handle a self-contained schema better than one with $refs.
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(copy.deepcopy(definitions[node["$ref"].rsplit("/", 1)[1]]))
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    return resolve(schema)
