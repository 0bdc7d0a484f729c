"""Optional arguments a model wrote as null: left out, as if never written.

A small model fills every parameter of a tool, and writes null for those it has nothing for (the
call grammar lets it, for parameters a tool can do without). A schema that says `"phone":
{"type": "string"}` then refuses the whole call over a phone number the user never had to give,
and the model asks the user for "all required information, including the email, notes and
phone". A null where the schema neither requires the key nor allows null means "not given".
Pure function of the value and its JSON schema.
"""

from __future__ import annotations

from typing import Any


def without_unset(value: Any, schema: Any) -> Any:
    """`value` without the nulls its `schema` does not ask for, at every level of its objects."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, list):
        items = schema.get("items")
        return [without_unset(item, items) for item in value] if isinstance(items, dict) else value
    if not isinstance(value, dict):
        return value
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = set(schema.get("required") or [])
    kept: dict[str, Any] = {}
    for key, item in value.items():
        sub = properties.get(key)
        if item is None and key not in required and not _allows_null(sub):
            continue
        kept[key] = without_unset(item, sub)
    return kept


def _allows_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return True  # nothing said about it: the value is the server's business
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or schema.get("nullable") is True:
        return True
    if isinstance(schema.get("enum"), list) and None in schema["enum"]:
        return True
    return any(_allows_null(option) for key in ("anyOf", "oneOf") for option in schema.get(key) or []
               if isinstance(option, dict))
