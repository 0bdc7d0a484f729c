"""The items of a reading: each email, event, file or record a read returns, with its own origin.

A connector labels a whole result ("INBOX in your mailbox (emails from a@…, b@…)", "the MCP
server drive"), but a value copied from it came from one item, and an approval card must
name that one ("the email from x@example.org, 'Invoice', INBOX/7"). The connector knows
where each item starts and ends, which no text the item holds can forge, so it hands the
items over with the result (`ReadItem`: the item's text exactly as the result shows it).
The executor finds each in the stored result (`locate`) and the goal keeps the spans with
what it read (`ItemSpan`). Results that are JSON (an MCP tool's, an API's) are split into
their records by `json_records`. Pure functions.
"""

from __future__ import annotations

import json
import re
from email.utils import parsedate_to_datetime
from typing import Any, Sequence

from pydantic import BaseModel, ConfigDict

MAX_ITEMS = 200
"""Items kept per reading; the rest of a longer listing is named by the whole reading's origin."""
_MAX_FIELD = 40
_ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


class ReadItem(BaseModel):
    """One item of a result, as the result shows it: `text` is an exact part of the summary."""

    model_config = ConfigDict(frozen=True)

    origin: str
    text: str
    author: str | None = None
    """The address of whoever wrote it, when the service records it (an email's sender)."""


class ItemSpan(BaseModel):
    """Where one item sits in a stored reading: `text[start:end]`."""

    model_config = ConfigDict(frozen=True)

    origin: str
    start: int
    end: int
    author: str | None = None


def locate(text: str, items: Sequence[ReadItem]) -> list[ItemSpan]:
    """Each item's place in `text`, in order; an item not found there (cut, or changed by
    scrubbing) is left out, and what it held stays named by the whole reading."""
    spans: list[ItemSpan] = []
    at = 0
    for item in items[:MAX_ITEMS]:
        if not item.text.strip():
            continue
        found = text.find(item.text, at)
        if found < 0:
            continue
        spans.append(ItemSpan(origin=item.origin, start=found, end=found + len(item.text), author=item.author))
        at = found + len(item.text)
    return spans


def clipped(spans: Sequence[ItemSpan], length: int) -> list[ItemSpan]:
    """The spans that lie within the first `length` characters (a stored reading is cut)."""
    return [s for s in spans if 0 <= s.start < s.end <= length]


def _cut(text: str, limit: int = _MAX_FIELD) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def email_origin(sender: str, subject: str, ref: str | None = None, date: str = "") -> str:
    """`the email from x@example.org, 'Invoice', INBOX/7`: one email, named by who sent it,
    its subject and where it is (or, without an id, the day it was sent)."""
    address = _ADDRESS.search(sender)
    who = address.group(0) if address else (_cut(sender) or "an unknown sender")
    parts = [f"the email from {who}"]
    subject = subject.strip()
    if subject and subject != "(no subject)":
        parts.append(f"'{_cut(subject)}'")
    if ref:
        parts.append(_cut(ref))
    elif day := short_date(date):
        parts.append(day)
    return ", ".join(parts)


def event_origin(title: str, when: str, organiser: str | None, ref: str | None = None) -> str:
    """`the event 'Quick sync' on Wed 2026-12-02 15:00 organised by x@evil.example (id work/abc)`."""
    parts = [f"the event '{_cut(title) or 'untitled'}'"]
    if when:
        parts.append(f"on {_cut(when, 48)}")
    if organiser:
        parts.append(f"organised by {_cut(organiser, 80)}")
    if ref:
        parts.append(f"(id {_cut(ref, 60)})")
    return " ".join(parts)


def short_date(value: str) -> str:
    """`3 Dec` for an email's date header (or an ISO date); '' when there is none."""
    value = value.strip()
    if not value or value == "(none)":
        return ""
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        match = re.match(r"(\d{4})-(\d{2})-(\d{2})", value)
        if not match:
            return value[:16]
        months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
        month = int(match.group(2))
        return f"{int(match.group(3))} {months[month - 1]}" if 1 <= month <= 12 else value[:16]
    return f"{moment.day} {moment:%b}"


# Fields that say which record it is, most telling first ("file_id", "name", "sender"...).
_NAMING = ("id", "name", "filename", "title", "subject", "sender", "from", "author", "user", "recipient", "email",
           "date")
_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"\s*")


def json_records(text: str, container: str) -> list[ReadItem]:
    """The records of a JSON result, one item each, named by their telling fields.

    A record is an object in a top-level JSON array, or in an array one level inside a top-level
    object (`{"results": [...]}`); JSON values may follow a status line or each other. Fewer
    than two records name nothing more precisely than the whole result: none are returned. A record's
    fields are the service's data, not a signature: no author is taken from them."""
    records: list[tuple[int, int, dict[str, Any]]] = []
    for start, end, value in _values(text):
        if isinstance(value, list):
            records += _objects_in_array(text, start)
        elif isinstance(value, dict):
            inner = [r for s, e, v in _members(text, start) if isinstance(v, list) for r in _objects_in_array(text, s)]
            records += inner or [(start, end, value)]
    if len(records) < 2:
        return []
    return [ReadItem(origin=f"the record {n} ({_naming(value)}) of {container}" if _naming(value)
                     else f"the record {n} of {container}", text=text[start:end])
            for n, (start, end, value) in enumerate(records[:MAX_ITEMS], start=1)]


def _values(text: str) -> list[tuple[int, int, Any]]:
    """The JSON values that start a line of `text` (or the text itself), with their spans."""
    found: list[tuple[int, int, Any]] = []
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


def _objects_in_array(text: str, start: int) -> list[tuple[int, int, dict[str, Any]]]:
    """The objects of the array that opens at `start`, with their exact spans; stops where it is cut."""
    found: list[tuple[int, int, dict[str, Any]]] = []
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


def _members(text: str, start: int) -> list[tuple[int, int, Any]]:
    """The member values of the object that opens at `start`, with their spans."""
    found: list[tuple[int, int, Any]] = []
    at = _skip(text, start + 1)
    while at < len(text) and text[at] == '"':
        try:
            _, at = _DECODER.raw_decode(text, at)
            at = _skip(text, at)
            if text[at] != ":":
                break
            at = _skip(text, at + 1)
            value, end = _DECODER.raw_decode(text, at)
        except (ValueError, IndexError):
            break
        found.append((at, end, value))
        at = _skip(text, end)
        if at < len(text) and text[at] == ",":
            at = _skip(text, at + 1)
    return found


def _key_word(key: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).lower()
    return re.split(r"[^a-z0-9]+", words.strip(" _-"))[-1] if words.strip(" _-") else ""


def _naming(record: dict[str, Any]) -> str:
    """One or two short telling fields of a record: `id '14', name 'recipe.docx'`."""
    picked: list[str] = []
    for wanted in _NAMING:
        for key, value in record.items():
            if len(picked) == 2 or sum(map(len, picked)) > _MAX_FIELD // 2:
                return ", ".join(picked)
            if _key_word(str(key)) != wanted or isinstance(value, (dict, list, bool)) or value is None:
                continue
            shown = " ".join(str(value).split())
            if not shown or len(shown) > _MAX_FIELD:
                continue
            entry = f"{_cut(str(key), 20)} {shown}" if isinstance(value, (int, float)) else f"{_cut(str(key), 20)} '{shown}'"
            if entry not in picked:
                picked.append(entry)
    return ", ".join(picked)


__all__ = ["ItemSpan", "MAX_ITEMS", "ReadItem", "clipped", "email_origin", "event_origin", "json_records", "locate",
           "short_date"]
