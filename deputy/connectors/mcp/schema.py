"""A tool's input schema: checked when the server is connected, enforced before every call.

The schema comes from the server, the arguments from the model: neither is trusted. A
schema must be a JSON object schema of bounded size that `jsonschema` accepts; arguments
must be a bounded JSON object that the schema accepts, or no call is made.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError
from pydantic import RootModel, model_validator

from deputy.connectors.mcp.text import one_line
from deputy.connectors.unset_arguments import without_unset

MAX_SCHEMA_CHARS = 16_000
"""Largest input schema accepted (as compact JSON); bigger ones cost the model too much."""
MAX_ARGUMENT_CHARS = 64_000
"""Largest arguments object sent to a server (as compact JSON)."""
_MAX_SCHEMA_DESCRIPTION = 200


def _no_pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> None:
    """`pattern` is left to the server: a hostile server's regular expression could
    backtrack for minutes on the model's input, in our worker."""


def _validator_class(schema: dict[str, Any]) -> Any:
    base = validators.validator_for(schema, default=Draft202012Validator)
    return validators.extend(base, {"pattern": _no_pattern})


def schema_problem(schema: Any) -> str | None:
    """Why `schema` cannot be used as a tool's input schema, or None when it can."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return "its input schema is not a JSON object schema"
    try:
        size = len(json.dumps(schema, separators=(",", ":")))
    except (TypeError, ValueError):
        return "its input schema is not JSON"
    if size > MAX_SCHEMA_CHARS:
        return f"its input schema is larger than {MAX_SCHEMA_CHARS:,} characters"
    try:
        validators.validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as error:
        return f"its input schema is invalid ({one_line(error.message, 120)})"
    return None


def argument_problems(schema: dict[str, Any], arguments: Any) -> list[str]:
    """What is wrong with `arguments` for `schema`, as short plain sentences (empty: nothing)."""
    if not isinstance(arguments, dict):
        return ["the arguments must be a JSON object"]
    try:
        size = len(json.dumps(arguments, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError):
        return ["the arguments are not plain JSON"]
    if size > MAX_ARGUMENT_CHARS:
        return [f"the arguments are larger than {MAX_ARGUMENT_CHARS:,} bytes"]
    try:
        errors = sorted(_validator_class(schema)(schema).iter_errors(arguments), key=lambda e: [str(p) for p in e.path])
    except Exception:  # noqa: BLE001 - an unresolvable $ref or a broken keyword: the schema is at fault
        return ["the tool's input schema cannot be checked, so it cannot be called"]
    problems = []
    for error in errors[:3]:
        where = ".".join(str(p) for p in error.absolute_path)
        problems.append(one_line(f"{where}: {error.message}" if where else error.message, 200))
    return problems


def model_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as shown to the model: no titles, short one-line descriptions."""

    def trim(node: Any) -> Any:
        if isinstance(node, dict):
            trimmed = {}
            for key, value in node.items():
                if key in ("title", "$schema") and not isinstance(value, dict):
                    continue
                if key == "description" and isinstance(value, str):
                    trimmed[key] = one_line(value, _MAX_SCHEMA_DESCRIPTION)
                else:
                    trimmed[key] = trim(value)
            return trimmed
        if isinstance(node, list):
            return [trim(item) for item in node]
        return node

    return trim(schema)


class McpArguments(RootModel[dict[str, Any]]):
    """Arguments of an MCP tool: a JSON object; subclasses check it against the tool's schema."""

    _check: Callable[[dict[str, Any]], list[str]] | None = None
    _schema: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _unset_left_out(cls, value: Any) -> Any:
        schema = getattr(cls, "_schema", None)
        return without_unset(value, schema) if schema is not None else value

    @model_validator(mode="after")
    def _fits_schema(self) -> McpArguments:
        check = type(self)._check
        problems = check(self.root) if check is not None else []
        if problems:
            raise ValueError("; ".join(problems))
        return self


def arguments_model(name: str, schema: dict[str, Any]) -> type[McpArguments]:
    """A pydantic model for one tool that accepts exactly what `schema` accepts."""
    model = type(f"{name}_arguments", (McpArguments,), {"__module__": __name__})
    # Set after class creation: pydantic would turn an underscore attribute in the class
    # body into a private instance attribute.
    type.__setattr__(model, "_check", staticmethod(lambda arguments: argument_problems(schema, arguments)))
    type.__setattr__(model, "_schema", schema)
    return model
