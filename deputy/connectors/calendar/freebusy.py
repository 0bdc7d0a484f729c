"""Busy intervals and free slots from occurrences: pure interval arithmetic in the user's zone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Iterable
from zoneinfo import ZoneInfo

from deputy.connectors.calendar.events import Occurrence
from deputy.connectors.calendar.timezones import stored_in


@dataclass(frozen=True)
class WorkingHours:
    """Wall-clock hours in the user's zone when slots may be offered; `end` before
    `start` means the hours run past midnight (a night shift)."""

    start: time
    end: time
    weekends: bool = False


@dataclass(frozen=True)
class Busy:
    """One merged busy interval and the titles of what fills it."""

    start: datetime
    end: datetime
    titles: tuple[str, ...]


def busy_intervals(occurrences: Iterable[Occurrence], start: datetime, end: datetime, zone: ZoneInfo) -> list[Busy]:
    """The merged intervals inside [start, end) when some busy occurrence takes place (UTC instants)."""
    start, end = start.astimezone(timezone.utc), end.astimezone(timezone.utc)
    spans: list[tuple[datetime, datetime, str]] = []
    for occurrence in occurrences:
        if not occurrence.busy:
            continue
        first, last = occurrence.span(zone)
        first, last = max(first, start), min(last, end)
        if last > first:
            spans.append((first, last, occurrence.title))
    spans.sort(key=lambda span: (span[0], span[1]))
    merged: list[Busy] = []
    for first, last, title in spans:
        if merged and first <= merged[-1].end:
            previous = merged[-1]
            titles = previous.titles if title in previous.titles else (*previous.titles, title)
            merged[-1] = Busy(previous.start, max(previous.end, last), titles)
        else:
            merged.append(Busy(first, last, (title,)))
    return merged


def free_slots(
    busy: list[Busy],
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    minimum: timedelta,
    hours: WorkingHours | None = None,
) -> list[tuple[datetime, datetime]]:
    """The gaps of at least `minimum` in [start, end) outside `busy`, within `hours` if given.

    Slots are UTC instants (see `Occurrence.span` for why); show them in the user's zone.
    """
    start, end = start.astimezone(timezone.utc), end.astimezone(timezone.utc)
    slots: list[tuple[datetime, datetime]] = []
    for window_start, window_end in _windows(start, end, zone, hours):
        cursor = window_start
        for interval in busy:
            if interval.end <= cursor or interval.start >= window_end:
                continue
            if interval.start - cursor >= minimum:
                slots.append((cursor, interval.start))
            cursor = max(cursor, interval.end)
        if window_end - cursor >= minimum:
            slots.append((cursor, window_end))
    return slots


def _windows(
    start: datetime, end: datetime, zone: ZoneInfo, hours: WorkingHours | None
) -> list[tuple[datetime, datetime]]:
    if hours is None:
        return [(start, end)] if end > start else []
    windows: list[tuple[datetime, datetime]] = []
    # From the day before: night hours that started then may reach into the range.
    day = start.astimezone(zone).date() - timedelta(days=1)
    last_day = end.astimezone(zone).date()
    while day <= last_day:
        if hours.weekends or day.weekday() < 5:
            first = _at(day, hours.start, zone)
            last = _at(day + timedelta(days=1) if hours.end <= hours.start else day, hours.end, zone)
            first, last = max(first, start), min(last, end)
            if last > first:
                windows.append((first, last))
        day += timedelta(days=1)
    return windows


def _at(day: date, clock: time, zone: ZoneInfo) -> datetime:
    # A working hour that falls in a DST gap moves forward, as RFC 5545 reads such times.
    return stored_in(datetime.combine(day, clock), zone).astimezone(timezone.utc)
