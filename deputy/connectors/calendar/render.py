"""Compact, bounded text for the agent: event lists, busy times and free slots.

Everything here about an event (title, place, description, organiser) may have been written
by someone who sent the user an invitation, so the executor labels it untrusted; `origin`
says whose words they are.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from deputy.connectors.calendar.events import Occurrence
from deputy.connectors.calendar.freebusy import Busy
from deputy.connectors.calendar.timezones import show, show_clock
from deputy.core.records.read_items import ReadItem, event_origin

MAX_LISTED = 100
MAX_SLOTS = 60
MAX_DESCRIPTION = 200
MAX_SUMMARY_CHARS = 12_000


def when(occurrence: Occurrence, zone: ZoneInfo) -> str:
    """`Thu 2026-12-03 09:00–09:30`, across midnight with both days, or `... all day`."""
    if occurrence.all_day:
        first = _day(occurrence.start)
        last = _day(occurrence.end) - timedelta(days=1)
        if last <= first:
            return f"{first:%a %Y-%m-%d} all day"
        return f"{first:%a %Y-%m-%d} – {last:%a %Y-%m-%d} all day"
    start, end = occurrence.span(zone)
    if end <= start:
        text = show(start, zone)
    elif start.astimezone(zone).date() == end.astimezone(zone).date():
        text = f"{show(start, zone)}–{show_clock(end, zone)}"
    else:
        text = f"{show(start, zone)} – {show(end, zone)}"
    return text + (" (floating time)" if occurrence.floating else "")


def said(start: date | datetime, end: date | datetime, zone: ZoneInfo) -> str:
    """`Thu 3 Dec 13:30–14:30 CET`, `Sun 6 Dec (all day)`: a new or moved event's time, as confirmations say it.

    The zone's short name at the start says which zone the times are in.
    """
    if not isinstance(start, datetime):
        last = _day(end) - timedelta(days=1)
        first = f"{start:%a} {start.day} {start:%b}"
        return f"{first} (all day)" if last <= start else f"{first} – {last:%a} {last.day} {last:%b} (all day)"
    first = start.astimezone(zone)
    last = end.astimezone(zone) if isinstance(end, datetime) else first
    head = f"{first:%a} {first.day} {first:%b %H:%M}"
    if last <= first:
        return f"{head} {first.tzname()}"
    if last.date() == first.date() and last.tzname() == first.tzname():
        return f"{head}–{last:%H:%M} {first.tzname()}"
    return f"{head} {first.tzname()} – {last:%a} {last.day} {last:%b %H:%M} {last.tzname()}"


def event_list(
    occurrences: list[Occurrence], zone: ZoneInfo, start: datetime, end: datetime, unreadable: int = 0
) -> str:
    """The occurrences, one or two lines each, with ids; cut at MAX_LISTED with a note."""
    period = f"from {show(start, zone)} to {show(end, zone)} (times in {zone.key})"
    if not occurrences and not unreadable:
        # Said in words: a bare count of 0 was taken by a small model for an event's id.
        return f"No events {period}: nothing is on the calendar then."
    lines = [f"Events {period}: {len(occurrences)}"]
    for occurrence in occurrences[:MAX_LISTED]:
        lines.extend(_entry(occurrence, zone))
    notes: list[str] = []
    if len(occurrences) > MAX_LISTED:
        notes.append(f"{len(occurrences) - MAX_LISTED} more not shown; ask for a shorter range.")
    if unreadable:
        notes.append(f"{unreadable} stored event(s) could not be read and were skipped.")
    return _bounded(lines, notes)


def free_busy(
    busy: list[Busy],
    slots: list[tuple[datetime, datetime]],
    zone: ZoneInfo,
    start: datetime,
    end: datetime,
    minimum: int,
    hours: str | None,
    unreadable: int = 0,
) -> str:
    """Busy intervals (with what fills them) and free slots, in the user's zone."""
    within = f" within {hours}" if hours else ""
    lines = [f"From {show(start, zone)} to {show(end, zone)} (times in {zone.key}):", f"Busy: {len(busy)}"]
    lines += [_busy_line(b, zone) for b in busy[:MAX_SLOTS]]
    lines.append(f"Free slots of at least {minimum} minutes{within}: {len(slots)}")
    lines += [f"- {_interval(first, last, zone)} ({_length(last - first)})" for first, last in slots[:MAX_SLOTS]]
    notes = [f"Only the first {MAX_SLOTS} of each are shown."] if max(len(busy), len(slots)) > MAX_SLOTS else []
    if unreadable:
        notes.append(f"{unreadable} stored event(s) could not be read and were skipped.")
    return _bounded(lines, notes)


def busy_items(busy: list[Busy], zone: ZoneInfo) -> list[ReadItem]:
    """Each busy interval as `free_busy` shows it, named by the event(s) filling it: the titles are
    whoever sent the invitation's words, so a card names the one interval a value came from."""
    items = []
    for interval in busy[:MAX_SLOTS]:
        span = _interval(interval.start, interval.end, zone)
        if len(interval.titles) == 1:
            named = event_origin(interval.titles[0], span, None)
        else:
            quoted = tuple("'" + title + "'" for title in interval.titles)
            named = f"the events {_titles(quoted)} on {span}"
        items.append(ReadItem(origin=named, text=_busy_line(interval, zone)))
    return items


def _busy_line(interval: Busy, zone: ZoneInfo) -> str:
    return f"- {_interval(interval.start, interval.end, zone)}: {_titles(interval.titles)}"


def origin(occurrences: list[Occurrence], own: set[str]) -> str:
    """`your calendar (events organised by ...)`: whose words the listed events carry."""
    organisers = sorted({o.organizer for o in occurrences if o.organizer and o.organizer not in own})
    if not organisers:
        return "your calendar (events with no outside organiser)"
    shown = ", ".join(organisers[:5])
    more = f" and {len(organisers) - 5} others" if len(organisers) > 5 else ""
    return f"your calendar (events organised by {shown}{more})"


def event_items(occurrences: list[Occurrence], zone: ZoneInfo, own: set[str]) -> list[ReadItem]:
    """Each listed event as `event_list` shows it, named on its own: a card names the one event
    a value came from, not the whole calendar."""
    items = []
    for occurrence in occurrences[:MAX_LISTED]:
        outside = occurrence.organizer if occurrence.organizer and occurrence.organizer.lower() not in own else None
        items.append(ReadItem(origin=event_origin(occurrence.title, when(occurrence, zone), outside),
                              text="\n".join(_entry(occurrence, zone)),
                              author=outside.lower() if outside and "@" in outside else None))
    return items


def _entry(occurrence: Occurrence, zone: ZoneInfo) -> list[str]:
    flags = [occurrence.calendar]
    if occurrence.recurring:
        flags.append("repeats")
    if occurrence.cancelled:
        flags.append("cancelled")
    elif not occurrence.busy:
        flags.append("free")
    first = f"- {when(occurrence, zone)} {occurrence.title} [{', '.join(flags)}] id={occurrence.ref}"
    details: list[str] = []
    if occurrence.location:
        details.append(f"at {_cut(occurrence.location, 120)}")
    if occurrence.organizer:
        details.append(f"organiser {occurrence.organizer}")
    if occurrence.attendees:
        details.append(f"{len(occurrence.attendees)} attendee(s)")
    if occurrence.description:
        details.append(f'notes: "{_cut(occurrence.description, MAX_DESCRIPTION)}"')
    return [first, "  " + "; ".join(details)] if details else [first]


def _bounded(lines: list[str], notes: list[str]) -> str:
    text, kept = "", 0
    for line in lines:
        if len(text) + len(line) + 1 > MAX_SUMMARY_CHARS:
            notes.insert(0, f"(cut: {len(lines) - kept} more line(s) not shown; ask for a shorter range.)")
            break
        text += line + "\n"
        kept += 1
    return (text + "\n".join(notes)).rstrip()


def _interval(first: datetime, last: datetime, zone: ZoneInfo) -> str:
    if first.astimezone(zone).date() == last.astimezone(zone).date():
        return f"{show(first, zone)}–{show_clock(last, zone)}"
    return f"{show(first, zone)} – {show(last, zone)}"


def _titles(titles: tuple[str, ...]) -> str:
    shown = ", ".join(_cut(t, 60) for t in titles[:3])
    return shown + (f" and {len(titles) - 3} more" if len(titles) > 3 else "")


def _length(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    hours, rest = divmod(minutes, 60)
    if not hours:
        return f"{rest} min"
    return f"{hours} h {rest} min" if rest else f"{hours} h"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _day(value: date | datetime) -> date:
    return value.date() if isinstance(value, datetime) else value
