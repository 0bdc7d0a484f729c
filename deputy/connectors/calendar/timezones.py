"""Times for the calendar: explicit inputs, daylight-saving gaps and overlaps, local display.

The rules, which the operation schemas repeat for the model:

- A date-time without an offset ("2026-12-03T10:00") is wall-clock time in the given IANA
  zone (the event's `timezone` argument, else the user's zone).
- A wall-clock time the clocks skip (02:30 on 2026-03-29 in Europe/Berlin) is refused with
  a plain explanation, never silently shifted: the user meant *some* time, and only they
  know which.
- A wall-clock time that happens twice (01:30 on 2026-11-01 in America/New_York) means the
  first of the two, as RFC 5545 section 3.3.5 resolves it; an explicit offset
  ("2026-11-01T01:30-05:00") picks the second.
- A date-time with an offset ("Z", "+01:00") is that exact instant, whatever the zone.
- Times read from a calendar are shown in the user's zone; floating times (no zone at all)
  are the user's wall clock, and stored times inside a gap follow RFC 5545 (the offset in
  force before the gap, so 02:30 becomes 03:30).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_MOMENT = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:[T ](?P<time>\d{2}:\d{2}(?::\d{2})?)(?P<offset>Z|[+-]\d{2}:?\d{2})?)?"
)


class TimeProblem(ValueError):
    """A time the user or the model gave that cannot be used; the message says why, plainly."""


def zone_named(name: str) -> ZoneInfo:
    """The IANA zone `name` ("Europe/Berlin"); TimeProblem for anything else."""
    # ZoneInfo also accepts file paths relative to the tz database, and "localtime"; a short
    # Area/Location shape keeps it to real zone names.
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){0,2}", name):
        raise TimeProblem(f"{str(name)[:60]!r} is not a time zone name; use an IANA name like Europe/Berlin.")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise TimeProblem(f"{name!r} is not a known time zone; use an IANA name like Europe/Berlin.") from None


def parse_moment(text: str) -> date | datetime:
    """A date ("2026-12-03") or a date-time, naive unless it carries an offset.

    Seconds are kept; anything else than ISO 8601 dates and times is refused.
    """
    match = _MOMENT.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise TimeProblem(f"{str(text)[:40]!r} is not a date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM).")
    try:
        day = date.fromisoformat(match["date"])
        if match["time"] is None:
            return day
        clock = time.fromisoformat(match["time"])
    except ValueError:
        raise TimeProblem(f"{text.strip()!r} is not a real date or time.") from None
    moment = datetime.combine(day, clock)
    offset = match["offset"]
    if offset is None:
        return moment
    if offset == "Z":
        return moment.replace(tzinfo=timezone.utc)
    sign = 1 if offset[0] == "+" else -1
    digits = offset[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 18 or minutes > 59:
        raise TimeProblem(f"{offset!r} is not a valid UTC offset.")
    return moment.replace(tzinfo=timezone(sign * timedelta(hours=hours, minutes=minutes)))


def skipped(wall: datetime, zone: ZoneInfo) -> bool:
    """Whether the naive wall-clock time `wall` never happens in `zone` (a spring-forward gap)."""
    there = wall.replace(tzinfo=zone)
    back = there.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None)
    return back != wall


def repeated(wall: datetime, zone: ZoneInfo) -> bool:
    """Whether `wall` happens twice in `zone` (a fall-back overlap)."""
    first, second = wall.replace(tzinfo=zone, fold=0), wall.replace(tzinfo=zone, fold=1)
    return first.utcoffset() != second.utcoffset() and not skipped(wall, zone)


def localize(wall: datetime, zone: ZoneInfo) -> datetime:
    """`wall` (naive) as an aware time in `zone`: the first of two in an overlap, refused in a gap."""
    if skipped(wall, zone):
        after = _normalised(wall.replace(tzinfo=zone, fold=0), zone)
        jump = abs((wall.replace(tzinfo=zone, fold=1).utcoffset() or timedelta())
                   - (wall.replace(tzinfo=zone, fold=0).utcoffset() or timedelta()))
        raise TimeProblem(
            f"{wall:%Y-%m-%d %H:%M} does not exist in {zone.key}: the clocks skip forward "
            f"{_span(jump)} that night for daylight saving time. Pick a time outside the skipped "
            f"hour, for example {after:%H:%M}."
        )
    return wall.replace(tzinfo=zone, fold=0)


def resolve(moment: datetime, zone: ZoneInfo) -> datetime:
    """An aware time in `zone`: naive input is wall-clock time there, aware input keeps its instant."""
    if moment.tzinfo is None:
        return localize(moment, zone)
    return moment.astimezone(zone)


def stored_in(moment: datetime, zone: ZoneInfo) -> datetime:
    """A time read from a calendar, in the user's `zone`; floating and skipped times as RFC 5545 says."""
    if moment.tzinfo is None:
        # fold=0 in a gap uses the offset before it, which is the RFC's reading.
        return _normalised(moment.replace(tzinfo=zone, fold=0), zone)
    return moment.astimezone(zone)


def _normalised(moment: datetime, zone: ZoneInfo) -> datetime:
    # astimezone() to the zone a time already has returns it unchanged, gap and all; via
    # UTC the wall clock is recomputed (02:30 in a skipped hour becomes 03:30).
    return moment.astimezone(timezone.utc).astimezone(zone)


def day_start(day: date, zone: ZoneInfo) -> datetime:
    """The first instant of `day` in `zone` (midnight, or the end of a gap at midnight)."""
    return stored_in(datetime.combine(day, time()), zone)


def show(moment: datetime, zone: ZoneInfo) -> str:
    """`Thu 2026-12-03 09:00` in `zone`, with the UTC offset when that wall time happens twice."""
    local = moment.astimezone(zone)
    text = f"{local:%a %Y-%m-%d %H:%M}"
    if repeated(local.replace(tzinfo=None), zone):
        text += f" (UTC{_offset(local)})"
    return text


def show_clock(moment: datetime, zone: ZoneInfo) -> str:
    """`09:00` in `zone`, with the UTC offset when that wall time happens twice."""
    local = moment.astimezone(zone)
    text = f"{local:%H:%M}"
    if repeated(local.replace(tzinfo=None), zone):
        text += f" (UTC{_offset(local)})"
    return text


def _offset(moment: datetime) -> str:
    total = int((moment.utcoffset() or timedelta()).total_seconds() // 60)
    sign = "+" if total >= 0 else "-"
    return f"{sign}{abs(total) // 60:02d}:{abs(total) % 60:02d}"


def _span(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes % 60 == 0:
        hours = minutes // 60
        return "one hour" if hours == 1 else f"{hours} hours"
    return f"{minutes} minutes"
