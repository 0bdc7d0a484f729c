"""Shared helpers of the calendar connector tests (a uniquely named module, unlike conftest)."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from typing import Any, Callable

from deputy.core.records.effects import OperationResult
from deputy.connectors.calendar.operations import CALENDAR_OPERATIONS
from deputy.connectors.catalog import Catalog
from deputy.core.records.actions import Action

NOW = datetime(2026, 11, 30, 7, 0, tzinfo=timezone.utc)
"""A Monday morning; the demo fortnight is seeded around it."""
ZONE = "Europe/Berlin"
CATALOG = Catalog(CALENDAR_OPERATIONS)

Call = Callable[..., "OperationResult | str"]


def make_action(operation: str, arguments: dict[str, Any], user_id: int = 7) -> Action:
    """An Action as the agent builds it: arguments validated by the operation's model."""
    found = CATALOG.get(operation)
    assert found is not None, operation
    args = found.validate(arguments)
    return Action(
        id="a_" + secrets.token_hex(4), goal_id="g1", user_id=user_id, chat_id=user_id, connector="calendar",
        operation=operation, effect=found.spec.effect, tags=sorted(found.spec.tags),
        arguments=args.model_dump(mode="json"),
        targets=found.targets(args), tool_call_id="call_1", created_at=0.0,
    )
