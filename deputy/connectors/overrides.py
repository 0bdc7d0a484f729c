"""What the user says about imported operations (OpenAPI or MCP) that the service can't: what they cost.

By default GET and HEAD are reads, DELETE is a write tagged `delete`, and every other
method is `communicate` (the method can't show that nobody is spoken to). The user may mark an operation otherwise, e.g. a booking POST as `spend` with
the argument that holds its price, so the guard sees the money before it moves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from deputy.core.records.effects import EffectClass, RiskTag
from deputy.connectors.argument_roles import MAX_PATHS, PATH, marked_targets

_PATH = r"[^.\s]{1,64}(\.[^.\s]{1,64}){0,7}"


class OperationOverride(BaseModel):
    """How one imported operation should be classified.

    `amount` and `currency_field` are dotted paths into the tool's arguments (`body.total`);
    `currency` is a fixed ISO 4217 code for APIs that only take one currency.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    effect: EffectClass | None = None
    tags: frozenset[RiskTag] = frozenset()
    """Added to the tags the method implies."""
    amount: str | None = Field(default=None, pattern=_PATH)
    currency: str | None = Field(default=None, pattern=r"[A-Z]{3}")
    currency_field: str | None = Field(default=None, pattern=_PATH)
    recipients: tuple[Annotated[str, Field(pattern=PATH)], ...] = Field(default=(), max_length=MAX_PATHS)
    """Arguments naming who receives something: their values are the operation's targets."""
    objects: tuple[Annotated[str, Field(pattern=PATH)], ...] = Field(default=(), max_length=MAX_PATHS)
    """Arguments naming what the operation acts on (a file id): targets too, after the recipients."""

    @model_validator(mode="after")
    def _amount_needs_currency(self) -> OperationOverride:
        if self.currency is not None and self.currency_field is not None:
            raise ValueError("give either a fixed currency or a currency_field, not both")
        if self.amount is not None and self.currency is None and self.currency_field is None:
            raise ValueError("an amount needs a currency or a currency_field")
        if self.amount is None and (self.currency is not None or self.currency_field is not None):
            raise ValueError("a currency only makes sense with an amount")
        return self


Overrides = Mapping[str, EffectClass | OperationOverride | str]
"""Overrides by tool name or operationId; a bare effect class is shorthand."""


def as_override(value: EffectClass | OperationOverride | str) -> OperationOverride:
    """Accept a bare effect class (or its name) as shorthand for an override of the effect."""
    if isinstance(value, OperationOverride):
        return value
    return OperationOverride(effect=EffectClass(value))


def _at(arguments: dict[str, Any], path: str) -> Any:
    node: Any = arguments
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def targets_of(arguments: dict[str, Any], override: OperationOverride | None) -> list[str]:
    """The values at the paths the user marked as recipients and objects; [] when none is marked or given."""
    if override is None or not (override.recipients or override.objects):
        return []
    return marked_targets(arguments, override.recipients, override.objects)


def read_amount(arguments: dict[str, Any], override: OperationOverride) -> tuple[Decimal, str] | None:
    """The amount and currency these arguments commit to, or None if they don't say."""
    if override.amount is None:
        return None
    raw = _at(arguments, override.amount)
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        return None
    try:
        amount = Decimal(str(raw).strip())
    except InvalidOperation:
        return None
    currency = override.currency or _at(arguments, override.currency_field or "")
    if not amount.is_finite() or amount < 0 or not isinstance(currency, str):
        return None
    currency = currency.strip().upper()
    return (amount, currency) if re.fullmatch(r"[A-Z]{3}", currency) else None


def amount_problem(arguments: dict[str, Any], override: OperationOverride) -> str | None:
    """Why these arguments don't state a usable amount, for the model; None if they do."""
    if override.amount is None or read_amount(arguments, override) is not None:
        return None
    where = override.amount if override.currency else f"{override.amount} and {override.currency_field}"
    return (
        f"{where}: this operation spends money, so it needs the amount as a non-negative number"
        + ("" if override.currency else " and a 3-letter currency code")
    )
