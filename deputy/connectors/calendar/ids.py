"""Event ids the agent sees: `<calendar>/<uid>` for an event, `.../<occurrence>` for one repeat.

The calendar part is a short slug of the calendar's address (see `client.calendar_slug`);
the UID is percent-encoded so a "/" inside it cannot be mistaken for the separator; the
occurrence part is the original start of one occurrence of a recurring event, in UTC
(`20261203T080000Z`), as a floating time (`20261203T090000`) or as a date (`20261203`).
The same event always gets the same id, so the agent can list, then move or cancel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone
from urllib.parse import quote, unquote

_SLUG = re.compile(r"[A-Za-z0-9._-]{1,80}")
_OCCURRENCE = re.compile(r"\d{8}(?:T\d{6}Z?)?")
MAX_ID_LENGTH = 600


class BadEventId(ValueError):
    """Text that is not an event id this connector handed out."""


@dataclass(frozen=True)
class EventRef:
    """What an event id points at: one calendar, one UID and maybe one occurrence."""

    calendar: str
    uid: str
    occurrence: str | None = None

    def __str__(self) -> str:
        text = f"{self.calendar}/{quote(self.uid, safe='@.-_:+=')}"
        return f"{text}/{self.occurrence}" if self.occurrence else text

    @property
    def series(self) -> EventRef:
        """The whole event (every occurrence) this reference belongs to."""
        return EventRef(self.calendar, self.uid)


def occurrence_key(recurrence_id: date | datetime) -> str:
    """The id suffix for the occurrence that originally started at `recurrence_id`."""
    if isinstance(recurrence_id, datetime):
        if recurrence_id.tzinfo is None:
            return f"{recurrence_id:%Y%m%dT%H%M%S}"
        return f"{recurrence_id.astimezone(timezone.utc):%Y%m%dT%H%M%SZ}"
    return f"{recurrence_id:%Y%m%d}"


def parse_occurrence(key: str) -> date | datetime:
    """The original start an occurrence key stands for (aware UTC, naive floating, or a date)."""
    if len(key) == 8:
        return datetime.strptime(key, "%Y%m%d").date()
    if key.endswith("Z"):
        return datetime.strptime(key, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
    return datetime.strptime(key, "%Y%m%dT%H%M%S")


def parse_event_id(text: str) -> EventRef:
    """The `EventRef` behind an id from `list_events`; BadEventId if it isn't one."""
    if not isinstance(text, str) or not 3 <= len(text) <= MAX_ID_LENGTH:
        raise BadEventId("not an event id")
    parts = text.strip().split("/")
    if len(parts) not in (2, 3) or not _SLUG.fullmatch(parts[0]) or not parts[1]:
        raise BadEventId("not an event id")
    occurrence = parts[2] if len(parts) == 3 else None
    if occurrence is not None:
        if not _OCCURRENCE.fullmatch(occurrence):
            raise BadEventId("not an event id")
        try:
            parse_occurrence(occurrence)
        except ValueError:
            raise BadEventId("not an event id") from None
    try:
        uid = unquote(parts[1], errors="strict")
    except UnicodeDecodeError:
        raise BadEventId("not an event id") from None
    if not uid.strip() or any(ord(c) < 32 for c in uid):
        raise BadEventId("not an event id")
    return EventRef(parts[0], uid, occurrence)
