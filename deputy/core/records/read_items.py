"""The items of a reading: each email, event, file or record a read returns, with its own origin.

A connector labels a whole result ("INBOX in your mailbox (emails from a@…, b@…)", "the MCP
server drive"), but a value copied from it came from one item, and an approval card must
name that one ("the email from x@example.org, 'Invoice', INBOX/7"). The connector knows
where each item starts and ends, which no text the item holds can forge, so it hands the
items over with the result (`ReadItem`: the item's text exactly as the result shows it).
The executor finds each in the stored result (`locate`) and the goal keeps the spans with
what it read (`ItemSpan`). Results that list records (an MCP tool's, an API's JSON or YAML)
are split into their records by `deputy.core.records.record_listings`. Pure functions.
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from typing import Sequence

from pydantic import BaseModel, ConfigDict

MAX_ITEMS = 200
"""Items kept per reading; the rest of a longer listing is named by the whole reading's origin."""
MAX_FIELD = 40
"""Characters of one field (a subject, a title) in an item's name."""
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


def short_field(text: str, limit: int = MAX_FIELD) -> str:
    """`text` on one line, cut to `limit` characters with "…"."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def email_origin(sender: str, subject: str, ref: str | None = None, date: str = "") -> str:
    """`the email from x@example.org, 'Invoice', INBOX/7`: one email, named by who sent it,
    its subject and where it is (or, without an id, the day it was sent)."""
    address = _ADDRESS.search(sender)
    who = address.group(0) if address else (short_field(sender) or "an unknown sender")
    parts = [f"the email from {who}"]
    subject = subject.strip()
    if subject and subject != "(no subject)":
        parts.append(f"'{short_field(subject)}'")
    if ref:
        parts.append(short_field(ref))
    elif day := short_date(date):
        parts.append(day)
    return ", ".join(parts)


def event_origin(title: str, when: str, organiser: str | None, ref: str | None = None) -> str:
    """`the event 'Quick sync' on Wed 2026-12-02 15:00 organised by x@evil.example (id work/abc)`."""
    parts = [f"the event '{short_field(title) or 'untitled'}'"]
    if when:
        parts.append(f"on {short_field(when, 48)}")
    if organiser:
        parts.append(f"organised by {short_field(organiser, 80)}")
    if ref:
        parts.append(f"(id {short_field(ref, 60)})")
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


__all__ = ["ItemSpan", "MAX_ITEMS", "ReadItem", "clipped", "email_origin", "event_origin", "locate", "short_date",
           "short_field"]
