"""Reading events: one stored calendar object in, its occurrences in a time window out.

Pure: the client fetches iCalendar text, this module parses and expands it (recurrence
rules, overrides and exceptions through `recurring_ical_events`), puts every time in the
user's zone and says whether each occurrence makes the user busy.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events

from deputy.connectors.calendar.ids import EventRef, occurrence_key
from deputy.connectors.calendar.timezones import day_start, stored_in

# A window edge is compared in the user's zone, but floating and all-day times only become
# instants once a zone is chosen; a day of slack either side keeps them from being cut off
# before the exact filter below.
_SLACK = timedelta(days=1)


class UnreadableEvent(ValueError):
    """A stored calendar object that is not valid iCalendar."""


@dataclass(frozen=True)
class CalendarInfo:
    """One of the user's calendars: its display name and the slug used in event ids."""

    name: str
    slug: str


@dataclass(frozen=True)
class Occurrence:
    """One happening of an event. Timed events carry aware times in the user's zone;
    all-day events carry dates, `end` exclusive as in iCalendar."""

    ref: EventRef
    calendar: str
    title: str
    start: datetime | date
    end: datetime | date
    all_day: bool
    recurring: bool
    floating: bool = False
    location: str | None = None
    description: str | None = None
    organizer: str | None = None
    attendees: tuple[str, ...] = ()
    cancelled: bool = False
    transparent: bool = False

    @property
    def busy(self) -> bool:
        """Whether this occurrence blocks the user's time.

        Cancelled and TRANSP:TRANSPARENT events never do. All-day events (birthdays,
        holidays, "working from home") only when they say TRANSP:OPAQUE explicitly,
        which is how Google, Apple and Outlook mark a day as blocked.
        """
        return not (self.cancelled or self.transparent)

    def span(self, zone: ZoneInfo) -> tuple[datetime, datetime]:
        """The occurrence as two UTC instants; all-day events run from midnight to midnight in `zone`.

        UTC because Python compares and subtracts two times of the same zone by their wall
        clocks, which is wrong across a daylight-saving change.
        """
        if isinstance(self.start, datetime) and isinstance(self.end, datetime):
            first, last = self.start, self.end
        else:
            first, last = day_start(_as_date(self.start), zone), day_start(_as_date(self.end), zone)
        return first.astimezone(timezone.utc), last.astimezone(timezone.utc)


def parse_calendar(text: str | bytes) -> icalendar.Calendar:
    """The iCalendar object in `text`; UnreadableEvent when it is not one."""
    try:
        calendar = icalendar.Calendar.from_ical(text)
    except Exception as exc:  # icalendar raises ValueError, KeyError, IndexError... on garbage
        raise UnreadableEvent(f"{type(exc).__name__}") from None
    if not isinstance(calendar, icalendar.Calendar):
        raise UnreadableEvent("not a VCALENDAR")
    return calendar


def expand(
    text: str | bytes,
    calendar: CalendarInfo,
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    limit: int = 500,
) -> list[Occurrence]:
    """The occurrences of the events in one stored object that overlap [start, end).

    At most `limit` occurrences are produced, so a hostile "every second, forever" rule
    costs a bounded amount of work. Raises UnreadableEvent for a broken object.
    """
    parsed = parse_calendar(text)
    _refuse_runaway_rules(parsed)
    repeating = _repeating_uids(parsed)
    found: list[Occurrence] = []
    try:
        lengths = _lengths(parsed)
        query = recurring_ical_events.of(parsed, skip_bad_series=True)
        for component in query.after(start - _SLACK):
            occurrence = _occurrence(component, calendar, zone, repeating, lengths)
            if occurrence is None:
                continue
            first, last = occurrence.span(zone)
            if first >= end + _SLACK:
                break  # `after` yields in start order: nothing later can overlap
            if _overlaps(first, last, start, end):
                found.append(occurrence)
                if len(found) >= limit:
                    break
    except UnreadableEvent:
        raise
    except Exception as exc:  # a broken rule or date deep inside the expansion library
        raise UnreadableEvent(type(exc).__name__) from None
    return found


def _refuse_runaway_rules(parsed: icalendar.Calendar) -> None:
    # The expansion library computes a day of occurrences at a time: 86,400 for a rule that
    # repeats every second. No real calendar repeats more often than hourly; such an object
    # is treated as unreadable rather than letting an invitation make every listing slow.
    for event in parsed.walk("VEVENT"):
        for rule in event.get("RRULE") if isinstance(event.get("RRULE"), list) else [event.get("RRULE")]:
            if rule is not None and str((rule.get("FREQ") or [""])[0]).upper() in ("SECONDLY", "MINUTELY"):
                raise UnreadableEvent("sub-hourly recurrence")


def _overlaps(first: datetime, last: datetime, start: datetime, end: datetime) -> bool:
    if last <= first:  # an instant: inside the window, the start included
        return start <= first < end
    return first < end and last > start


def _repeating_uids(parsed: icalendar.Calendar) -> set[str]:
    uids: set[str] = set()
    for event in parsed.walk("VEVENT"):
        if any(name in event for name in ("RRULE", "RDATE", "RECURRENCE-ID")):
            uids.add(str(event.get("UID", "")))
    return uids


def _lengths(parsed: icalendar.Calendar) -> dict[tuple[str, str | None], timedelta]:
    """How long each stored event (a series' master, or one changed occurrence) lasts, in real time.

    RFC 5545 3.8.5.3: every occurrence lasts the master's *exact* duration. The expansion
    library adds it as wall-clock time, an hour off for an occurrence that spans a
    daylight-saving change, so the end is recomputed from these.
    """
    lengths: dict[tuple[str, str | None], timedelta] = {}
    for event in parsed.walk("VEVENT"):
        dtstart = event.get("DTSTART")
        if dtstart is None:
            continue
        start = dtstart.dt
        recurrence = event.get("RECURRENCE-ID")
        key = occurrence_key(recurrence.dt) if recurrence is not None else None
        lengths[(str(event.get("UID", "")).strip(), key)] = _difference(start, _end(event, start))
    return lengths


def _difference(start: date | datetime, end: date | datetime) -> timedelta:
    if isinstance(start, datetime) and isinstance(end, datetime):
        if (start.tzinfo is None) != (end.tzinfo is None):
            return end.replace(tzinfo=None) - start.replace(tzinfo=None)
        return _instant(end) - _instant(start)  # type: ignore[operator]
    return _as_date(end) - _as_date(start)


def _occurrence(
    component: icalendar.Event,
    calendar: CalendarInfo,
    zone: ZoneInfo,
    repeating: set[str],
    lengths: dict[tuple[str, str | None], timedelta],
) -> Occurrence | None:
    uid = str(component.get("UID", "")).strip()
    dtstart = component.get("DTSTART")
    if not uid or dtstart is None:
        return None  # nothing an id could point at, or no time at all
    start = dtstart.dt
    recurrence = component.get("RECURRENCE-ID")
    length = lengths.get((uid, occurrence_key(recurrence.dt))) if recurrence is not None else None
    if length is None:
        length = lengths.get((uid, None))
    end = _end(component, start) if length is None else _plus(start, length)
    all_day = not isinstance(start, datetime)
    floating = not all_day and start.tzinfo is None
    if not all_day:
        start = stored_in(start, zone)
        end = stored_in(end, zone) if isinstance(end, datetime) else day_start(end, zone)
    elif isinstance(end, datetime):
        end = end.date()
    if _instant(end) < _instant(start):
        end = start
    recurring = uid in repeating
    key = occurrence_key(recurrence.dt) if recurring and recurrence is not None else None
    transp = str(component.get("TRANSP", "")).upper()
    return Occurrence(
        ref=EventRef(calendar.slug, uid, key),
        calendar=calendar.name,
        title=_text(component.get("SUMMARY")) or "(no title)",
        start=start,
        end=end,
        all_day=all_day,
        recurring=recurring,
        floating=floating,
        location=_text(component.get("LOCATION")),
        description=_text(component.get("DESCRIPTION")),
        organizer=_address(component.get("ORGANIZER")),
        attendees=tuple(a for a in map(_address, _list(component.get("ATTENDEE"))) if a),
        cancelled=str(component.get("STATUS", "")).upper() == "CANCELLED",
        transparent=transp == "TRANSPARENT" or (all_day and transp != "OPAQUE"),
    )


def _end(component: icalendar.Event, start: date | datetime) -> date | datetime:
    dtend = component.get("DTEND")
    if dtend is not None and type(dtend.dt) is type(start):
        return dtend.dt
    duration = component.get("DURATION")
    if duration is not None and isinstance(duration.dt, timedelta):
        if isinstance(start, datetime) and start.tzinfo is not None:
            return (start.astimezone(timezone.utc) + duration.dt).astimezone(start.tzinfo)
        return start + duration.dt
    # RFC 5545 3.6.1: an all-day event without an end lasts the day; a timed one is an instant.
    return start + timedelta(days=1) if not isinstance(start, datetime) else start


def _plus(start: date | datetime, length: timedelta) -> date | datetime:
    if isinstance(start, datetime) and start.tzinfo is not None:
        return (start.astimezone(timezone.utc) + length).astimezone(start.tzinfo)
    return start + length


def _instant(value: date | datetime) -> date | datetime:
    return value.astimezone(timezone.utc) if isinstance(value, datetime) else value


def _as_date(value: date | datetime) -> date:
    return value.date() if isinstance(value, datetime) else value


def _list(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _text(value: object) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split()) if not isinstance(value, list) else " ".join(map(str, value))
    return text or None


def _address(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    if text.lower().startswith("mailto:"):
        text = text[7:]
    return text.lower() or None
