"""An `Action`: one external operation the agent wants performed, as the guard sees it."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from deputy.core.records.effects import EffectClass, RiskTag


class Action(BaseModel):
    schema_version: int = 1
    id: str
    goal_id: str
    user_id: int
    chat_id: int
    connector: str
    operation: str
    effect: EffectClass
    arguments: dict[str, Any]
    targets: list[str] = Field(default_factory=list, description="Recipients, domains or merchants.")
    tags: list[RiskTag] = Field(default_factory=list)
    amount: Decimal | None = None
    currency: str | None = None
    tool_call_id: str
    created_at: float
    unattended: bool = Field(
        default=False,
        description="Runs with nobody waiting for it (a monitor's probe): anything the guard would ask about is "
        "refused instead, so a watch never posts approval cards.",
    )

    def fingerprint(self) -> str:
        """Digest of exactly what would happen; an approval is valid only for this value."""
        canonical = json.dumps(
            {
                "connector": self.connector,
                "operation": self.operation,
                "arguments": self.arguments,
                "amount": None if self.amount is None else str(self.amount),
                "currency": self.currency,
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        return hashlib.sha256(canonical.encode()).hexdigest()


class ActionState(str, Enum):
    submitted = "submitted"
    awaiting_approval = "awaiting_approval"
    executing = "executing"
    succeeded = "succeeded"
    failed = "failed"
    denied = "denied"
    declined = "declined"
    expired = "expired"
    uncertain = "uncertain"  # older records only: now `outcome_unknown` until the user chooses
    outcome_unknown = "outcome_unknown"  # the executor died midway; the user chooses Try again or Drop it
    dropped = "dropped"  # outcome unknown, and the user chose not to try again

    @property
    def terminal(self) -> bool:
        return self not in (
            ActionState.submitted, ActionState.awaiting_approval, ActionState.executing, ActionState.outcome_unknown
        )
