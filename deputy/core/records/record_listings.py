"""The records of a result that lists them: each its own item, named by its telling fields.

An MCP tool or an API answers a listing as JSON (an array, an array under a key, one object
per content block as the MCP SDK sends a list, an object of records keyed by their ids or
names) or as YAML (what many tool wrappers print). A value copied from it came from one
record, and a card names that record ("the record 3 (id '6', title 'Introductory meeting') of
the MCP server workspace"), not the whole server. Each record's text is an exact part of the
result, so `locate` places it. A record's fields are the service's data, not a signature: no
author is taken from them. Pure functions.
"""

from __future__ import annotations

import json
import re
from typing import Any

from deputy.core.records.read_items import MAX_FIELD, MAX_ITEMS, ReadItem, short_field

# Fields that say which record it is, most telling first ("file_id", "name", "sender"...).
_NAMING = ("id", "name", "filename", "title", "subject", "sender", "from", "author", "user", "recipient", "email",
           "date", "start")
_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"\s*")
# A YAML list item that is a mapping ("- id_: '6'"), and a field of one ("  title: Lunch").
_YAML_ITEM = re.compile(r"^(?P<indent>[ \t]*)- (?P<key>[A-Za-z_][\w.-]*):(?:[ \t]+(?P<value>.*))?$", re.M)
_YAML_FIELD = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*):(?:[ \t]+(?P<value>.*))?$")
# A YAML mapping keyed by names ("City Hub: 'Rating: 4.3 …'"): keys that hold a space.
_YAML_NAMED = re.compile(r"^(?P<key>[^\s#'\"\-:][^:\n]* [^:\n]*):(?=[ \t]|$)")

Span = tuple[int, int, Any]
"""(start, end, value) of a record in the text; a keyed record's value is `(key, value)`."""


def listed_records(text: str, container: str) -> list[ReadItem]:
    """The records of a JSON or YAML listing in `text`, one item each; none for anything else
    (fewer than two records name nothing more precisely than the whole result)."""
    return json_records(text, container) or yaml_records(text, container)


def json_records(text: str, container: str) -> list[ReadItem]:
    """The records of a JSON result: the objects of a top-level array, of an array one level
    inside the only top-level object (`{"results": [...]}`), the objects that follow each other
    (the MCP SDK's one content block per record), or the members of an object of records keyed
    by id or name. JSON values may follow a status line."""
    values = _values(text)
    records: list[Span] = []
    for start, end, value in values:
        if isinstance(value, list):
            records += _objects_in_array(text, start)
        elif isinstance(value, dict) and len(values) == 1:
            members = _members(text, start)
            inner = [r for _, s, _, v in members if isinstance(v, list) for r in _objects_in_array(text, s)]
            records += inner or _keyed(text, members) or [(start, end, value)]
        elif isinstance(value, dict):
            records.append((start, end, value))  # one record of several: what it holds stays inside it
    return _named(text, records, container)


def yaml_records(text: str, container: str) -> list[ReadItem]:
    """The records of a YAML result: the mappings of a list (at the top or under a key), or the
    entries of a mapping keyed by names."""
    items = list(_YAML_ITEM.finditer(text))
    if items:
        indent = min(len(m["indent"]) for m in items)
        starts = [m for m in items if len(m["indent"]) == indent]
        records = [(start, end, fields) for start, end, fields in (_yaml_record(text, m, indent) for m in starts)
                   if len(fields) >= 2]
        if len(records) >= 2:
            return _named(text, records, container)
    return _named(text, _yaml_keyed(text), container)


def _named(text: str, records: list[Span], container: str) -> list[ReadItem]:
    if len(records) < 2:
        return []
    items = []
    for n, (start, end, value) in enumerate(records[:MAX_ITEMS], start=1):
        if isinstance(value, tuple):  # keyed by its id or name: the key is its label
            key, inner = value
            naming = _naming(inner) if isinstance(inner, dict) else ""
            label = f"the record '{short_field(key)}'" + (f" ({naming})" if naming else "")
        else:
            naming = _naming(value)
            label = f"the record {n} ({naming})" if naming else f"the record {n}"
        items.append(ReadItem(origin=f"{label} of {container}", text=text[start:end]))
    return items


def record_fields(text: str) -> dict[str, Any]:
    """The fields of one record as a listing shows it (a JSON object, or a YAML list item and
    the fields at its own level); {} for anything else. What a field's text holds (a JSON
    string, a YAML block) stays that field's value: it never becomes a field of the record."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
    item = _YAML_ITEM.match(text)
    if item is None or item.start() != 0:
        return {}
    return _yaml_record(text, item, len(item["indent"]))[2]


def _values(text: str) -> list[Span]:
    """The JSON values that start a line of `text` (or the text itself), with their spans."""
    found: list[Span] = []
    at = 0
    for match in re.finditer(r"(?m)^[ \t]*([\[{])", text):
        start = match.start(1)
        if start < at:
            continue
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            if text[start] == "[":  # a listing cut short: its whole records still count
                cut = _objects_in_array(text, start)
                if cut:
                    found.append((start, cut[-1][1], [v for _, _, v in cut]))
                    at = cut[-1][1]
            continue
        found.append((start, end, value))
        at = end
    return found


def _skip(text: str, at: int) -> int:
    return _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]


def _objects_in_array(text: str, start: int) -> list[Span]:
    """The objects of the array that opens at `start`, with their exact spans; stops where it is cut."""
    found: list[Span] = []
    at = _skip(text, start + 1)
    while at < len(text) and text[at] != "]":
        try:
            value, end = _DECODER.raw_decode(text, at)
        except ValueError:
            break
        if isinstance(value, dict):
            found.append((at, end, value))
        at = _skip(text, end)
        if at < len(text) and text[at] == ",":
            at = _skip(text, at + 1)
        elif at >= len(text) or text[at] != "]":
            break
    return found


def _members(text: str, start: int) -> list[tuple[int, int, int, Any]]:
    """(key start, value start, value end, (key, value)) of each member of the object that opens at `start`."""
    found: list[tuple[int, int, int, Any]] = []
    at = _skip(text, start + 1)
    while at < len(text) and text[at] == '"':
        try:
            key_at = at
            key, at = _DECODER.raw_decode(text, at)
            at = _skip(text, at)
            if text[at] != ":":
                break
            at = _skip(text, at + 1)
            value, end = _DECODER.raw_decode(text, at)
        except (ValueError, IndexError):
            break
        found.append((key_at, at, end, value if isinstance(value, list) else (key, value)))
        at = _skip(text, end)
        if at < len(text) and text[at] == ",":
            at = _skip(text, at + 1)
    return found


def _keyed(text: str, members: list[tuple[int, int, int, Any]]) -> list[Span]:
    """The members of an object of records: every value an object (keyed by id), or every key a
    name with a space in it (`{"City Hub": "Rating 4.3 …"}`); a plain record's fields are not records."""
    pairs = [(key_at, end, value) for key_at, _, end, value in members if isinstance(value, tuple)]
    if len(pairs) < 2 or len(pairs) != len(members):
        return []
    if all(isinstance(value, dict) for _, _, (_, value) in pairs) or all(
            " " in key.strip() and isinstance(value, (str, dict)) for _, _, (key, value) in pairs):
        return pairs
    return []


def _yaml_record(text: str, item: re.Match[str], indent: int) -> Span:
    """The lines of the list item that starts at `item` (up to the next line indented no deeper
    than its dash), and its own fields (those at its first level)."""
    fields = {item["key"]: _scalar(item["value"] or "")}
    end = item.end()
    at = end + 1  # the next line
    while at < len(text):
        line_end = text.find("\n", at)
        line_end = len(text) if line_end < 0 else line_end
        line = text[at:line_end]
        if line.strip():
            depth = len(line) - len(line.lstrip(" \t"))
            if depth <= indent:
                break
            field = _YAML_FIELD.match(line[depth:]) if depth == indent + 2 else None
            if field is not None:
                fields.setdefault(field["key"], _scalar(field["value"] or ""))
            end = line_end
        at = line_end + 1
    return item.start(), end, fields


def _yaml_keyed(text: str) -> list[Span]:
    """The entries of a YAML mapping whose keys are names (each key holds a space), at the top level."""
    entries: list[tuple[int, str]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.strip() and not line[0].isspace():
            named = _YAML_NAMED.match(line)
            if named is None:
                return []
            entries.append((offset, named["key"]))
        offset += len(line)
    ends = [start for start, _ in entries[1:]] + [len(text)]
    return [(start, start + len(text[start:end].rstrip()), (key, None)) for (start, key), end in zip(entries, ends)]


def _scalar(value: str) -> Any:
    """A YAML scalar as a label shows it: quotes taken off, a bare whole number as a number."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return str(json.loads(value))
        except ValueError:
            return value[1:-1]
    if re.fullmatch(r"-?\d{1,18}", value):
        return int(value)
    return None if value in ("", "null", "~", "|", ">", "|-", ">-") else value


def _key_word(key: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).lower()
    return re.split(r"[^a-z0-9]+", words.strip(" _-"))[-1] if words.strip(" _-") else ""


def _naming(record: dict[str, Any]) -> str:
    """One or two short telling fields of a record: `id '14', name 'recipe.docx'`."""
    picked: list[str] = []
    for wanted in _NAMING:
        for key, value in record.items():
            if len(picked) == 2 or sum(map(len, picked)) > MAX_FIELD // 2:
                return ", ".join(picked)
            if _key_word(str(key)) != wanted or isinstance(value, (dict, list, bool)) or value is None:
                continue
            shown = " ".join(str(value).split())
            if not shown or len(shown) > MAX_FIELD:
                continue
            name = short_field(str(key), 20)
            entry = f"{name} {shown}" if isinstance(value, (int, float)) else f"{name} '{shown}'"
            if entry not in picked:
                picked.append(entry)
    return ", ".join(picked)


__all__ = ["json_records", "listed_records", "record_fields", "yaml_records"]
