"""Writing events: a new calendar object, and edits (move, cancel one occurrence) of a stored one.

Pure: iCalendar text in, iCalendar bytes out. Timed events are written with the zone's
TZID and a VTIMEZONE (never as UTC), so a 09:00 meeting stays at 09:00 across daylight
saving changes and repeats correctly; all-day events are written as dates.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import icalendar
import recurring_ical_events

from deputy.connectors.calendar.events import parse_calendar
from deputy.connectors.calendar.ids import occurrence_key, parse_occurrence

PRODID = "-//Deputy//Calendar connector//EN"
# Properties that only make sense on the master of a recurring event.
_SERIES_ONLY = ("RRULE", "RDATE", "EXDATE", "EXRULE")


class EditProblem(ValueError):
    """An edit that cannot be made to this event; the message says why, for the user."""


@dataclass(frozen=True)
class NewEvent:
    """A fully resolved event to create: aware times in their zone, or dates for all-day."""

    uid: str
    title: str
    start: datetime | date
    end: datetime | date
    location: str | None = None
    description: str | None = None
    attendees: tuple[str, ...] = ()
    organizer: str | None = None


def uid_for(idempotency_key: str) -> str:
    """The UID of the event created under `idempotency_key`: a retried job finds its own event."""
    return f"deputy-{hashlib.sha256(idempotency_key.encode('utf-8')).hexdigest()[:32]}@deputy"


def build_event(event: NewEvent, now: datetime) -> bytes:
    """A VCALENDAR holding `event`, with the VTIMEZONE its times need."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    component = icalendar.Event()
    component.add("uid", event.uid)
    stamp = now.astimezone(timezone.utc)
    component.add("dtstamp", stamp)
    component.add("created", stamp)
    component.add("last-modified", stamp)
    component.add("sequence", 0)
    component.add("summary", event.title)
    component.add("dtstart", writable(event.start))
    component.add("dtend", writable(event.end))
    if isinstance(event.start, datetime):
        component.add("transp", "OPAQUE")  # all-day events stay without: see Occurrence.busy
    if event.location:
        component.add("location", event.location)
    if event.description:
        component.add("description", event.description)
    if event.attendees and event.organizer:
        component.add("organizer", _address(event.organizer, {"CN": event.organizer}))
    for attendee in event.attendees:
        component.add(
            "attendee",
            _address(attendee, {"ROLE": "REQ-PARTICIPANT", "PARTSTAT": "NEEDS-ACTION", "RSVP": "TRUE"}),
        )
    calendar.add_component(component)
    calendar.add_missing_timezones()
    return calendar.to_ical()


def writable(value: date | datetime) -> date | datetime:
    """`value` as iCalendar can hold it: in its zone (TZID), except the second of two equal
    wall-clock times on a fall-back night, which a TZID would read as the first (RFC 5545
    3.3.5); that one is written in UTC."""
    if isinstance(value, datetime) and value.tzinfo is not None and value.tzinfo is not timezone.utc:
        first = value.replace(fold=0)
        if first.utcoffset() != value.utcoffset():
            return value.astimezone(timezone.utc)
    return value


def move(
    text: str | bytes,
    uid: str,
    occurrence: str | None,
    start: datetime | date,
    end: datetime | date | None,
    now: datetime,
) -> tuple[bytes, datetime | date, datetime | date]:
    """Move the event (or one occurrence of it) to `start`; keep its length when `end` is None.

    Returns the new object and the new start and end. A whole repeating series cannot
    be moved this way (its exceptions would no longer line up): move one occurrence.
    """
    calendar = parse_calendar(text)
    master = _master(calendar, uid)
    if occurrence is None:
        if master is None:
            raise EditProblem("I couldn't find that event in the calendar object; it may have changed.")
        if any(name in master for name in _SERIES_ONLY):
            raise EditProblem(
                "That is a repeating event. I can move one occurrence at a time (use the id of that "
                "occurrence from list_events), or cancel the series and create a new one."
            )
        target = master
    else:
        target = _override(calendar, uid, occurrence) or _new_override(calendar, master, uid, occurrence)
    old_start = target["DTSTART"].dt
    old_end = _end_of(target, old_start)
    if isinstance(old_start, datetime) and not isinstance(start, datetime):
        # "push the dentist to Thursday": another day, the same time of day and length.
        start = datetime.combine(start, old_start.timetz())
        end = None if end is None or not isinstance(end, datetime) else end
    _check_kind(old_start, start)
    if end is None:
        end = _shifted(start, _length(old_start, old_end))
    else:
        _check_kind(old_start, end)
    if _length(start, end) <= timedelta(0):
        raise EditProblem("The new end must be after the new start.")
    for name in ("DTSTART", "DTEND", "DURATION"):
        target.pop(name, None)
    target.add("dtstart", writable(start))
    target.add("dtend", writable(end))
    _touch(target, now)
    calendar.add_missing_timezones()
    return calendar.to_ical(), start, end


def cancel_occurrence(text: str | bytes, uid: str, occurrence: str, now: datetime) -> bytes | None:
    """Take one occurrence out of a repeating event (an EXDATE on the series).

    Returns the new object, or None when nothing would be left (the caller deletes it).
    """
    calendar = parse_calendar(text)
    master = _master(calendar, uid)
    existing = _override(calendar, uid, occurrence)
    if existing is None and (master is None or not _rule_has(calendar, uid, occurrence)):
        raise EditProblem("That occurrence isn't in the calendar (it may already have been cancelled).")
    if existing is not None:
        calendar.subcomponents.remove(existing)
    if master is None:
        left = [c for c in calendar.walk("VEVENT") if str(c.get("UID", "")) == uid]
        return calendar.to_ical() if left else None
    original = _in_kind_of(master["DTSTART"].dt, parse_occurrence(occurrence))
    master.add("exdate", original)
    _touch(master, now)
    return calendar.to_ical()


def _check_kind(old: date | datetime, new: date | datetime) -> None:
    if isinstance(old, datetime) != isinstance(new, datetime):
        if isinstance(old, datetime):
            raise EditProblem("That event has a time of day; give the new time as YYYY-MM-DDTHH:MM.")
        raise EditProblem("That is an all-day event; give the new day as YYYY-MM-DD.")


def _master(calendar: icalendar.Calendar, uid: str) -> icalendar.Event | None:
    for event in calendar.walk("VEVENT"):
        if str(event.get("UID", "")) == uid and "RECURRENCE-ID" not in event:
            return event
    return None


def _override(calendar: icalendar.Calendar, uid: str, occurrence: str) -> icalendar.Event | None:
    for event in calendar.walk("VEVENT"):
        recurrence = event.get("RECURRENCE-ID")
        if str(event.get("UID", "")) == uid and recurrence is not None and occurrence_key(recurrence.dt) == occurrence:
            return event
    return None


def _rule_has(calendar: icalendar.Calendar, uid: str, occurrence: str) -> bool:
    """Whether the series' rules produce an occurrence that originally starts at `occurrence`."""
    moment = parse_occurrence(occurrence)
    around = moment if isinstance(moment, datetime) else datetime.combine(moment, datetime.min.time())
    try:
        found = recurring_ical_events.of(calendar, keep_recurrence_attributes=True).between(
            around - timedelta(days=2), around + timedelta(days=2)
        )
    except Exception:  # a broken rule: then it produces nothing we can point at
        return False
    return any(
        str(c.get("UID", "")) == uid and c.get("RECURRENCE-ID") is not None
        and occurrence_key(c["RECURRENCE-ID"].dt) == occurrence
        for c in found
    )


def _new_override(
    calendar: icalendar.Calendar, master: icalendar.Event | None, uid: str, occurrence: str
) -> icalendar.Event:
    if master is None or not _rule_has(calendar, uid, occurrence):
        raise EditProblem("That occurrence isn't in the calendar (it may have been cancelled or moved).")
    override = copy.deepcopy(master)
    for name in (*_SERIES_ONLY, "DTSTART", "DTEND", "DURATION", "RECURRENCE-ID"):
        override.pop(name, None)
    original = _in_kind_of(master["DTSTART"].dt, parse_occurrence(occurrence))
    override.add("recurrence-id", original)
    override.add("dtstart", original)
    first = master["DTSTART"].dt
    override.add("dtend", _shifted(original, _length(first, _end_of(master, first))))
    calendar.add_component(override)
    return override


def _in_kind_of(reference: date | datetime, value: date | datetime) -> date | datetime:
    """`value` written the way `reference` (the series' DTSTART) is: same zone, or floating, or a date."""
    if not isinstance(reference, datetime):
        return value.date() if isinstance(value, datetime) else value
    if not isinstance(value, datetime):
        return datetime.combine(value, reference.timetz())
    if reference.tzinfo is None:
        return value.replace(tzinfo=None)
    return value.astimezone(reference.tzinfo) if value.tzinfo else value.replace(tzinfo=reference.tzinfo)


def _length(start: date | datetime, end: date | datetime) -> timedelta:
    """How long from `start` to `end`, in real time (not wall-clock time) when they are aware."""
    if isinstance(start, datetime) and isinstance(end, datetime) and start.tzinfo and end.tzinfo:
        return end.astimezone(timezone.utc) - start.astimezone(timezone.utc)
    if isinstance(start, datetime) != isinstance(end, datetime):
        return timedelta(days=1) if not isinstance(start, datetime) else timedelta(0)
    return end - start  # type: ignore[operator]


def _shifted(start: date | datetime, length: timedelta) -> date | datetime:
    """`start` plus `length` of real time, shown in `start`'s zone."""
    if isinstance(start, datetime) and start.tzinfo is not None:
        return (start.astimezone(timezone.utc) + length).astimezone(start.tzinfo)
    return start + length


def _end_of(event: icalendar.Event, start: date | datetime) -> date | datetime:
    dtend = event.get("DTEND")
    if dtend is not None:
        return dtend.dt
    duration = event.get("DURATION")
    if duration is not None:
        return start + duration.dt
    return start if isinstance(start, datetime) else start + timedelta(days=1)


def _touch(event: icalendar.Event, now: datetime) -> None:
    stamp = now.astimezone(timezone.utc)
    for name in ("DTSTAMP", "LAST-MODIFIED"):
        event.pop(name, None)
    event.add("dtstamp", stamp)
    event.add("last-modified", stamp)
    sequence = int(event.pop("SEQUENCE", 0) or 0)
    event.add("sequence", sequence + 1)


def _address(email: str, params: dict[str, str]) -> icalendar.vCalAddress:
    address = icalendar.vCalAddress(f"mailto:{email}")
    for name, value in params.items():
        address.params[name] = value
    return address
