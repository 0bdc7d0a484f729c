"""The catalog of operations the agent may request: the tools the model sees.

An `Operation` is pure description: its `OperationSpec` (effect class and risk tags, which
the guard reasons about), the pydantic model that validates its arguments, how to read its
targets, and, for reads that bring outside content back, where that content comes from.
Running an operation with credentials is the executor's business (`deputy.apps.executor`).
The executor looks operations up here by name, so what the guard reviews never depends on
what the agent claimed about an action's effect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable, Iterable

from pydantic import BaseModel, ValidationError

from deputy.core.records.effects import OperationSpec, RiskTag


class InvalidArguments(ValueError):
    """Arguments that do not fit the operation; the message is meant for the model."""


@dataclass(frozen=True)
class Operation:
    spec: OperationSpec
    arguments: type[BaseModel]
    targets: Callable[[BaseModel], list[str]] = field(default=lambda args: [])
    result_origin: Callable[[BaseModel], str] | None = None
    """For reads of outside content: a label for where the result came from."""
    schema: dict[str, Any] | None = None
    """Hand-written JSON schema for the model (small models do better with short ones)."""
    amount: Callable[[BaseModel], tuple[Decimal, str] | None] | None = None
    """For spending: the amount and currency the arguments commit to."""
    service: str | None = None
    """The account the operation acts within (a shop the user connected): trusted as a target."""
    tags_for: Callable[[BaseModel], frozenset[RiskTag]] | None = None
    """Risks that depend on the arguments (a move into the Trash deletes), besides the spec's own."""
    time_arguments: tuple[str, ...] = ()
    """Arguments that hold a time: the model passes the user's words ("Thursday after lunch"), and
    the agent resolves them into ISO instants in the user's zone before the arguments are checked."""
    effect_assumed: bool = False
    """The effect is Deputy's cautious assumption, not what anyone stated (an MCP tool nobody marked may
    read or may send): the guard weighs it as that effect, but a call of it is not taken for a change
    the user did not ask for (`deputy.agent.only_asked`)."""

    @property
    def name(self) -> str:
        return self.spec.operation

    def risk_tags(self, args: BaseModel) -> list[RiskTag]:
        """The risks of this call: the operation's own and those its arguments add."""
        return sorted(self.spec.tags | (self.tags_for(args) if self.tags_for is not None else frozenset()))

    def tool_schema(self) -> dict[str, Any]:
        parameters = self.schema or _plain_schema(self.arguments)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.spec.description, "parameters": parameters},
        }

    def argument_keys(self, optional_only: bool = False) -> set[str]:
        """The keys the arguments may be written under: each parameter's name and its alias ("from")."""
        return {key for name, field in self.arguments.model_fields.items()
                if not (optional_only and field.is_required()) for key in (name, field.alias) if key}

    def validate(self, raw: dict[str, Any]) -> BaseModel:
        # An optional parameter written as empty text (a small model filling every parameter) was not given.
        optional = self.argument_keys(optional_only=True)
        raw = {name: value for name, value in raw.items()
               if not (isinstance(value, str) and not value.strip() and name in optional)}
        try:
            return self.arguments.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            raise InvalidArguments(f"Invalid arguments ({problems}). Fix them and call the tool again.") from None


class Catalog:
    def __init__(self, operations: Iterable[Operation] = ()) -> None:
        self._by_name: dict[str, Operation] = {}
        self._services: list[str] | None = None
        for operation in operations:
            self.add(operation)

    def add(self, operation: Operation) -> None:
        if operation.name in self._by_name:
            raise ValueError(f"two operations are named {operation.name!r}")
        self._by_name[operation.name] = operation
        self._services = None

    def get(self, name: str) -> Operation | None:
        return self._by_name.get(name)

    def find(self, connector: str, operation: str) -> Operation | None:
        found = self._by_name.get(operation)
        return found if found is not None and found.spec.connector == connector else None

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [operation.tool_schema() for operation in self._by_name.values()]

    def services(self) -> list[str]:
        """Names of the services the user connected (their own accounts and shops)."""
        # Asked at every review; worked out again only when an operation is added.
        if self._services is None:
            self._services = sorted({o.service for o in self._by_name.values() if o.service})
        return list(self._services)

    def names(self) -> list[str]:
        return list(self._by_name)

    def merged(self, other: "Catalog") -> "Catalog":
        return Catalog([*self._by_name.values(), *other._by_name.values()])


def _plain_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema
