"""OpenAPI schemas as JSON Schema for validation, and as a short view for the model.

OpenAPI 3.1 schemas are JSON Schema 2020-12 already; 3.0 uses a dialect (`nullable`,
boolean `exclusiveMinimum`) that is translated here. Both go through the same pass that
drops what only documents a schema (examples, XML hints, extensions), drops read-only
properties (they are never sent) and drops regular expressions (see `_UNSAFE`).
"""

from __future__ import annotations

import json
from typing import Any

MAX_VIEW_CHARS = 6_000
"""A tool's parameter schema larger than this is shortened further for the model."""

_SCHEMA_MAPS = ("properties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = (
    "items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
    "unevaluatedItems", "unevaluatedProperties", "additionalItems",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_DOCUMENTATION = frozenset({
    "example", "examples", "xml", "externalDocs", "discriminator", "deprecated", "$schema", "$id",
    "$anchor", "$dynamicAnchor", "$comment", "title", "readOnly", "writeOnly", "nullable",
})
# A document's regular expressions would run against model-chosen input inside the
# executor, and Python's `re` has no time limit: one backtracking pattern could hang it.
# The server enforces its own patterns anyway.
_UNSAFE = frozenset({"pattern", "patternProperties"})
_VIEW_SCALARS = (
    "type", "format", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "default",
)
_MAX_ENUM = 25
_MAX_PROPERTIES = 40
_MAX_BRANCHES = 4


def request_schema(schema: Any, openapi_version: str) -> dict[str, Any]:
    """JSON Schema 2020-12 for a value Deputy sends, from an (already inlined) OpenAPI schema."""
    return _convert(schema, openapi_version.startswith("3.0"))


def _convert(schema: Any, dialect_30: bool) -> Any:
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DOCUMENTATION or key in _UNSAFE or key.startswith("x-"):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _convert(sub, dialect_30) for name, sub in value.items() if not _read_only(sub)}
        elif key in _SCHEMA_ONE:
            out[key] = _convert(value, dialect_30)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_convert(sub, dialect_30) for sub in value]
        else:
            out[key] = value
    if isinstance(schema.get("properties"), dict) and isinstance(out.get("required"), list):
        hidden = {name for name, sub in schema["properties"].items() if _read_only(sub)}
        out["required"] = [name for name in out["required"] if name not in hidden]
    if dialect_30:
        _translate_30(schema, out)
    return out


def _read_only(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("readOnly") is True


def _translate_30(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """OpenAPI 3.0's `nullable` and boolean exclusive bounds, in JSON Schema terms."""
    if schema.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = out.get(bound)
        if isinstance(flag, bool):
            del out[bound]
            if flag and plain in out:
                out[bound] = out.pop(plain)


def model_view(schema: dict[str, Any]) -> dict[str, Any]:
    """A short JSON schema of the same shape for the model: deep or wordy parts trimmed
    until it fits `MAX_VIEW_CHARS`. Validation always uses the full schema."""
    for depth, words in ((5, 160), (4, 100), (3, 60), (2, 0), (1, 0), (0, 0)):
        view = _view(schema, depth, words)
        if len(json.dumps(view, ensure_ascii=False)) <= MAX_VIEW_CHARS:
            return view
    return {"type": "object"}


def _view(schema: Any, depth: int, words: int) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    schema = _merge_all_of(schema)
    out: dict[str, Any] = {key: schema[key] for key in _VIEW_SCALARS if key in schema}
    if words and isinstance(schema.get("description"), str):
        out["description"] = _shorten(schema["description"], words)
    enum = schema.get("enum")
    if isinstance(enum, list):
        if len(enum) <= _MAX_ENUM:
            out["enum"] = enum
        elif words:
            sample = ", ".join(json.dumps(v, ensure_ascii=False) for v in enum[:5])
            out["description"] = _shorten(f"{out.get('description', '')} One of {len(enum)} values, e.g. {sample}.", 200)
    if depth <= 0:
        return out
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = [n for n in schema.get("required", []) if isinstance(n, str) and n in properties]
        names = list(dict.fromkeys([*required, *properties]))[:_MAX_PROPERTIES]
        out["properties"] = {name: _view(properties[name], depth - 1, words) for name in names}
        if required:
            out["required"] = required
        if len(properties) > len(names) and words:
            out["description"] = _shorten(f"{out.get('description', '')} (More properties are accepted.)", 200)
    if isinstance(schema.get("items"), dict):
        out["items"] = _view(schema["items"], depth - 1, words)
    if isinstance(schema.get("additionalProperties"), dict) and "properties" not in out:
        out["additionalProperties"] = _view(schema["additionalProperties"], depth - 1, words)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            out[key] = [_view(branch, depth - 1, words) for branch in branches[:_MAX_BRANCHES]]
    return out


def _merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    """`allOf` of object schemas (the usual way to extend a type) as one object schema."""
    branches = schema.get("allOf")
    if not isinstance(branches, list):
        return schema
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    properties: dict[str, Any] = dict(merged.get("properties") or {})
    required: list[Any] = list(merged.get("required") or [])
    for branch in branches:
        if not isinstance(branch, dict):
            continue
        branch = _merge_all_of(branch)
        properties.update(branch.get("properties") or {})
        required.extend(branch.get("required") or [])
        for key, value in branch.items():
            if key not in ("properties", "required"):
                merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = list(dict.fromkeys(r for r in required if isinstance(r, str)))
    return merged


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
