"""What the user says an imported operation does: the marks of /connections → "Operations of X".

An imported operation (a tool of an MCP server, an operation of an OpenAPI document) comes
with the service's own description of itself, which is the service's claim, not a fact. The
user's mark is the fact the guard relies on: read, write, communicate (speaks to someone),
spend (moves money; with the argument that holds the amount and, optionally, the one that
holds the currency), account (changes an account), delete or share (a change that removes
or exposes data). A mark becomes an effect class and risk tags (`effect`), and, for spend,
an `OperationOverride` that reads the amount out of the arguments so amount rules match.

An operation nobody marked is classified by what can be read of it safely: a GET or HEAD
reads, a DELETE deletes, and everything else is treated as `communicate` (it may speak to
someone: the guard asks), never as a plain write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from deputy.core.records.effects import EffectClass, RiskTag
from deputy.connectors.argument_roles import MAX_PATHS, PATH
from deputy.connectors.overrides import OperationOverride

MarkKind = Literal["read", "write", "communicate", "spend", "account", "delete", "share"]
KINDS: tuple[MarkKind, ...] = ("read", "write", "communicate", "spend", "account", "delete", "share")
_PATH = r"^[^.\s]{1,64}(\.[^.\s]{1,64}){0,7}$"

_EFFECTS: dict[str, tuple[EffectClass, frozenset[RiskTag]]] = {
    "read": (EffectClass.read, frozenset()),
    "write": (EffectClass.write, frozenset()),
    "communicate": (EffectClass.communicate, frozenset()),
    "spend": (EffectClass.spend, frozenset()),
    "account": (EffectClass.account, frozenset()),
    "delete": (EffectClass.write, frozenset({RiskTag.delete})),
    "share": (EffectClass.write, frozenset({RiskTag.share})),
}

GUARD_LEVEL: dict[str, int] = {"read": 0, "write": 1, "delete": 2, "share": 2, "communicate": 2, "account": 3,
                               "spend": 3}
"""How closely Sentinel watches each kind; lowering it needs a second, explicit press."""


class OperationMark(BaseModel):
    """The user's classification of one imported operation.

    `amount` and `currency_field` are dotted paths into the arguments (`body.total`);
    `currency` is a fixed ISO 4217 code for services that take one currency only. A spend
    mark without an amount path is allowed: the guard then sees an unknown amount, which
    amount rules treat as over any limit. An amount path needs a currency (fixed, or the
    argument holding it).

    `recipients` and `objects` are dotted paths too (`deputy.connectors.argument_roles`): the
    arguments naming who receives something (a user id, a channel, an address) and what the
    operation acts on (a file id, a record id). Their values become the action's targets,
    traced to the user's words as a built-in email's recipients are; a spend mark says where
    the money is instead.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: MarkKind
    amount: str | None = Field(default=None, pattern=_PATH)
    currency: str | None = Field(default=None, pattern=r"^[A-Z]{3}$")
    currency_field: str | None = Field(default=None, pattern=_PATH)
    recipients: tuple[Annotated[str, Field(pattern=PATH)], ...] = Field(default=(), max_length=MAX_PATHS)
    objects: tuple[Annotated[str, Field(pattern=PATH)], ...] = Field(default=(), max_length=MAX_PATHS)
    message: str | None = Field(default=None, pattern=PATH)
    """For a communicate mark: the argument that holds the words, when the user made this operation the
    channel a negotiation's moves are sent through (code writes those words, `deputy.executor.negotiation_moves`)."""

    @model_validator(mode="after")
    def _money_only_for_spend(self) -> OperationMark:
        if self.message is not None and self.kind != "communicate":
            raise ValueError("only a communicate mark carries messages")
        if self.kind != "spend" and (self.amount or self.currency or self.currency_field):
            raise ValueError("only a spend mark says where the amount is")
        if self.currency is not None and self.currency_field is not None:
            raise ValueError("give either a fixed currency or a currency argument, not both")
        if self.amount is None and (self.currency is not None or self.currency_field is not None):
            raise ValueError("a currency only makes sense with an amount")
        if self.amount is not None and self.currency is None and self.currency_field is None:
            raise ValueError("an amount needs a fixed currency or the argument that holds it")
        if self.kind in ("read", "spend") and (self.recipients or self.objects):
            raise ValueError(f"a {self.kind} mark names no recipients or objects")
        return self

    @model_validator(mode="before")
    @classmethod
    def _bare_kind(cls, value: Any) -> Any:
        # Marks stored before marks carried amounts were a bare effect class ("spend").
        if isinstance(value, EffectClass):
            return {"kind": value.value}
        if isinstance(value, str):
            return {"kind": value}
        return value

    def effect(self) -> tuple[EffectClass, frozenset[RiskTag]]:
        """The effect class and risk tags the guard weighs for an operation with this mark."""
        return _EFFECTS[self.kind]

    def override(self) -> OperationOverride:
        """The same mark as the OpenAPI importer's override (effect, tags, where the money is)."""
        effect, tags = self.effect()
        return OperationOverride(effect=effect, tags=tags, amount=self.amount, currency=self.currency,
                                 currency_field=self.currency_field, recipients=self.recipients,
                                 objects=self.objects)

    def describe(self) -> str:
        """Plain words for the chat: "spend (amount in body.total, USD)"."""
        if self.kind != "spend" or self.amount is None:
            roles = [f"{name} in {', '.join(paths)}" for name, paths in
                     (("recipients", self.recipients), ("acting on", self.objects),
                      ("negotiation messages", (self.message,) if self.message else ())) if paths]
            return f"{self.kind} ({'; '.join(roles)})" if roles else self.kind
        currency = self.currency or (f"currency in {self.currency_field}" if self.currency_field else "no currency")
        return f"spend (amount in {self.amount}, {currency})"


def kind_of(effect: EffectClass, tags: frozenset[RiskTag] | set[RiskTag]) -> MarkKind:
    """The mark kind that best names an effect class with its tags (for what a method implies)."""
    if effect is EffectClass.write and RiskTag.delete in tags:
        return "delete"
    if effect is EffectClass.write and RiskTag.share in tags:
        return "share"
    if effect is EffectClass.credential:
        return "account"
    return effect.value  # type: ignore[return-value]


def less_guarded(new: OperationMark, *than: tuple[EffectClass, frozenset[RiskTag]]) -> bool:
    """Whether `new` is watched less closely than any of `than` (a lower class, or a dropped tag)."""
    effect, tags = new.effect()
    for other_effect, other_tags in than:
        if GUARD_LEVEL[new.kind] < GUARD_LEVEL[kind_of(other_effect, other_tags)]:
            return True
        if other_tags - tags - {RiskTag.navigation}:
            return True
    return False


def as_marks(raw: Mapping[str, Any]) -> dict[str, OperationMark]:
    """Marks by tool name, accepting the bare effect classes stored by earlier versions."""
    return {name: OperationMark.model_validate(value) for name, value in raw.items()}


def argument_paths(schema: dict[str, Any] | None, *, depth: int = 3) -> list[tuple[str, str]]:
    """The (dotted path, JSON type) of each scalar argument in `schema`, for choosing where the amount is."""
    found: list[tuple[str, str]] = []

    def walk(node: Any, prefix: str, level: int) -> None:
        if not isinstance(node, dict) or level > depth:
            return
        for key, child in (node.get("properties") or {}).items():
            if not isinstance(child, dict) or not isinstance(key, str):
                continue
            path = f"{prefix}.{key}" if prefix else key
            kind = child.get("type")
            kinds = kind if isinstance(kind, list) else [kind]
            if "object" in kinds or "properties" in child:
                walk(child, path, level + 1)
            elif any(k in ("number", "integer", "string") for k in kinds):
                found.append((path, next(k for k in kinds if k in ("number", "integer", "string"))))

    walk(schema, "", 1)
    return found[:40]
