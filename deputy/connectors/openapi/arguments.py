"""Validating a model's arguments for an imported operation against its JSON schema.

The argument model is a pydantic `RootModel` over a plain dict, built per operation, that
runs `jsonschema` (Draft 2020-12, with format checks) on the whole value: the catalog and
the agent treat it like any hand-written argument model, and `model_dump()` gives back
exactly the validated dict.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaViolation
from pydantic import ConfigDict, RootModel, model_validator

from deputy.connectors.unset_arguments import without_unset

MAX_ARGUMENT_CHARS = 200_000
"""Largest arguments accepted, measured as compact JSON."""
_MAX_PROBLEMS = 5
_MAX_PROBLEM_CHARS = 200


class ApiArguments(RootModel[dict[str, Any]]):
    """Base of every imported operation's argument model; `root` is the arguments dict."""

    model_config = ConfigDict(hide_input_in_errors=True)


Check = Callable[[dict[str, Any]], str | None]
"""A further rule beyond the schema: a problem sentence for the model, or None."""


def arguments_model(tool: str, validator: Draft202012Validator, checks: Sequence[Check] = ()) -> type[ApiArguments]:
    """A model class that accepts exactly the argument dicts `validator` and `checks` accept."""

    class Arguments(ApiArguments):
        @model_validator(mode="before")
        @classmethod
        def _unset_left_out(cls, value: Any) -> Any:
            return without_unset(value, validator.schema)

        @model_validator(mode="after")
        def _conforms(self) -> Arguments:
            problems = schema_problems(validator, self.root)
            if not problems:
                problems = [problem for check in checks if (problem := check(self.root))]
            if problems:
                raise ValueError("; ".join(problems))
            return self

    Arguments.__name__ = Arguments.__qualname__ = f"{tool}_arguments"
    return Arguments


def schema_problems(validator: Draft202012Validator, value: dict[str, Any]) -> list[str]:
    """Plain, bounded descriptions of how `value` breaks the schema (empty if it doesn't)."""
    try:
        size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError):
        return ["the arguments must be plain JSON values"]
    if size > MAX_ARGUMENT_CHARS:
        return [f"the arguments are {size:,} characters long; at most {MAX_ARGUMENT_CHARS:,} are accepted"]
    errors = sorted(validator.iter_errors(value), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    return [_describe(error) for error in errors[:_MAX_PROBLEMS]]


def _describe(error: SchemaViolation) -> str:
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    text = f"{where}: {error.message}"
    return text if len(text) <= _MAX_PROBLEM_CHARS else text[: _MAX_PROBLEM_CHARS - 1] + "…"
