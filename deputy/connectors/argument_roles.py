"""Which arguments of an imported operation say whom it reaches and what it acts on.

A built-in connector knows its own arguments: an email's targets are its recipients, a
deletion's target is the message it removes, so the guard traces exactly those values to
the user's words. An imported operation (an MCP tool, an OpenAPI operation) only has a
schema, so its mark says it: `recipients` are the dotted paths of the arguments that name
who receives something (a user id, a channel, an address), `objects` the paths of what the
operation acts on (a file id, a record id). The values at those paths become the action's
targets, and the guard treats them as it treats a built-in connector's.

`propose_roles` guesses the paths from the schema (argument names and formats) for the user
to confirm; a guess is never applied without the user's mark.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

PATH = r"^[^.\s]{1,64}(\.[^.\s]{1,64}){0,7}$"
MAX_PATHS = 8
MAX_VALUES = 20
"""Most targets taken from one action: a list of a thousand recipients is shown as its first ones."""
MAX_VALUE_CHARS = 200

# Words an argument's name ends with, by role ("to", "recipient_ids", "channelName", "fileId").
_RECIPIENT_WORDS = frozenset({
    "to", "cc", "bcc", "recipient", "recipients", "user", "users", "member", "members", "channel", "channels",
    "email", "emails", "phone", "address", "addresses", "people", "person", "invitee", "invitees", "attendees",
    "participants", "payee", "username", "handle", "contact", "contacts", "assignee", "collaborator", "collaborators",
})
_OBJECT_WORDS = frozenset({"file", "files", "record", "document", "doc", "item", "message", "event", "object",
                           "folder", "path", "filename", "ids", "id", "uid", "uuid", "key", "slug", "ref"})
_AMOUNT_WORDS = frozenset({"amount", "price", "total", "cost", "sum", "value"})
_RECIPIENT_FORMATS = frozenset({"email", "idn-email"})
_ROLES_BY_KIND = {
    "communicate": ("recipients",), "share": ("recipients", "objects"), "account": ("recipients", "objects"),
    "delete": ("objects",),
}


def words_of(name: str) -> list[str]:
    """The words of an argument name: "recipientUserIds" → ["recipient", "user", "ids"]."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


class ArgumentRoles(BaseModel):
    """Dotted argument paths by role, as the user confirmed them (or as proposed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    recipients: tuple[str, ...] = Field(default=(), max_length=MAX_PATHS)
    objects: tuple[str, ...] = Field(default=(), max_length=MAX_PATHS)


def values_at(arguments: Any, path: str) -> list[str]:
    """The scalar values at `path` (each item of a list), as text; nothing when it is absent."""
    node: Any = arguments
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return []
        node = node[part]
    items = node if isinstance(node, list) else [node]
    found = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            continue
        text = str(item).strip()[:MAX_VALUE_CHARS]
        if text:
            found.append(text)
    return found


def marked_targets(arguments: Any, recipients: tuple[str, ...], objects: tuple[str, ...]) -> list[str]:
    """The values at the marked paths, recipients first, each once; [] when none is given."""
    found: list[str] = []
    for path in (*recipients, *objects):
        for value in values_at(arguments, path):
            if value not in found:
                found.append(value)
    return found[:MAX_VALUES]


def propose_roles(schema: dict[str, Any] | None, kind: str) -> ArgumentRoles:
    """The paths Deputy would take for `kind` from the schema's argument names and formats."""
    wanted = _ROLES_BY_KIND.get(kind, ())
    recipients: list[str] = []
    objects: list[str] = []
    for path, prop in _leaves(schema):
        words = words_of(path.rsplit(".", 1)[-1])
        last = words[-1] if words else ""
        if last in _AMOUNT_WORDS or prop.get("format") in ("date", "date-time"):
            continue
        if "recipients" in wanted and (prop.get("format") in _RECIPIENT_FORMATS or last in _RECIPIENT_WORDS
                                       or (last in ("id", "ids") and any(w in _RECIPIENT_WORDS for w in words))):
            recipients.append(path)
        elif "objects" in wanted and (last in _OBJECT_WORDS or words[-2:] in (["file", "name"], ["record", "name"])):
            objects.append(path)
    return ArgumentRoles(recipients=tuple(recipients[:MAX_PATHS]), objects=tuple(objects[:MAX_PATHS]))


def _leaves(schema: Any, prefix: str = "", depth: int = 1) -> list[tuple[str, dict[str, Any]]]:
    """(dotted path, property schema) of every scalar argument, or list of scalars, 3 levels deep."""
    if not isinstance(schema, dict) or depth > 3:
        return []
    found: list[tuple[str, dict[str, Any]]] = []
    for key, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict) or not isinstance(key, str):
            continue
        path = f"{prefix}.{key}" if prefix else key
        kinds = prop.get("type") if isinstance(prop.get("type"), list) else [prop.get("type")]
        if "object" in kinds or "properties" in prop:
            found.extend(_leaves(prop, path, depth + 1))
        elif "array" in kinds:
            items = prop.get("items") if isinstance(prop.get("items"), dict) else {}
            if not ({"object", "array"} & set(items.get("type") if isinstance(items.get("type"), list)
                                               else [items.get("type")])):
                found.append((path, {**items, **{k: v for k, v in prop.items() if k != "items"}}))
        else:
            found.append((path, prop))
    return found
