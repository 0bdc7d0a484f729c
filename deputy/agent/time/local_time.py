"""Times as the user lives them: wall-clock times read in their time zone, and shown back in it.

The model gives times as ISO strings. One with an offset (`2026-12-04T17:00+01:00`, `...Z`)
is an instant and is kept as given. One without is a wall-clock time in the user's zone
(their settings, UTC by default), resolved with zoneinfo, which knows every DST rule:

- a time that does not exist (skipped when clocks go forward, 02:30 on the last Sunday of
  March in Berlin) is moved forward by the gap: 02:30 becomes 03:30 summer time, the same
  instant 02:30 winter time would have been. A reminder never comes before it was asked for;
- a time that happens twice (clocks go back, 02:30 on the last Sunday of October) is the
  first of the two (summer time), the earlier instant, as people mean "at 02:30 that night".

Both are what `datetime(..., fold=0)` means in zoneinfo, so the rule is deterministic.

A daily check ("every morning at 8") keeps its wall-clock time: the next one is the next
local 08:00, which is 23 or 25 hours later across a DST change, not 24.

All functions here are pure; they take the zone (a name from the user's settings) explicitly.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

UTC = "UTC"


def zone(name: str | None) -> ZoneInfo:
    """The zone a settings name stands for; an unknown or missing name is UTC (settings validate names)."""
    try:
        return ZoneInfo(name or UTC)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(UTC)


def parse_moment(text: str, zone_name: str | None) -> float:
    """An ISO date-time as a timestamp: an explicit offset is respected, a bare one is local wall time.

    Raises ValueError on text that is not an ISO date-time.
    """
    moment = datetime.fromisoformat(text.strip())
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone(zone_name), fold=0)  # fold=0: see the module docstring
    return moment.timestamp()


def parse_clock(text: str) -> time:
    """`08:00` (or `8:00`, `08:00:00`) as a wall-clock time of day; raises ValueError otherwise."""
    parts = text.strip().split(":")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a time of day: {text!r}")
    hour, minute = int(parts[0]), int(parts[1])
    second = int(parts[2]) if len(parts) == 3 else 0
    return time(hour, minute, second)  # raises ValueError when out of range


def next_daily(after: float, clock: time, zone_name: str | None) -> float:
    """The first instant strictly after `after` when the user's wall clock shows `clock`.

    Walks local calendar days, so it stays at the same local time across DST changes; a
    day where that time does not exist gets the moved-forward instant (see the docstring).
    """
    tz = zone(zone_name)
    day = datetime.fromtimestamp(after, tz=tz).date()
    for offset in range(3):
        candidate = datetime.combine(day + timedelta(days=offset), clock, tzinfo=tz).timestamp()
        if candidate > after:
            return candidate
    raise AssertionError("a wall-clock time recurs within three days")  # pragma: no cover


def next_midnight(now: float, zone_name: str | None) -> float:
    """The next midnight of the user's day (zoneinfo handles a day of 23 or 25 hours)."""
    return next_daily(now, time(0, 0), zone_name)


def short_zone(moment: float, zone_name: str | None) -> str:
    """The zone's short name at that moment: `CET`, `CEST`, `EST`, `UTC`; `UTC+04` when it has none."""
    local = datetime.fromtimestamp(moment, tz=zone(zone_name))
    name = local.tzname() or ""
    if not name or name[0] in "+-":
        offset = local.utcoffset() or timedelta(0)
        minutes = int(offset.total_seconds() // 60)
        sign = "+" if minutes >= 0 else "-"
        hours, rest = divmod(abs(minutes), 60)
        return f"UTC{sign}{hours:02d}" + (f":{rest:02d}" if rest else "")
    return name


def clock_words(moment: float, zone_name: str | None = None) -> str:
    """`17:00 CET`."""
    local = datetime.fromtimestamp(moment, tz=zone(zone_name))
    return f"{local:%H:%M} {short_zone(moment, zone_name)}"


def day_words(moment: float, zone_name: str | None = None) -> str:
    """`12 Dec 18:00 CET`: an end date on a card."""
    local = datetime.fromtimestamp(moment, tz=zone(zone_name))
    return f"{local.day} {local:%b %H:%M} {short_zone(moment, zone_name)}"


def moment_words(moment: float, zone_name: str | None = None) -> str:
    """`Fri 4 Dec 17:00 CET`: a deadline as people say it."""
    local = datetime.fromtimestamp(moment, tz=zone(zone_name))
    return f"{local:%a} {local.day} {local:%b %H:%M} {short_zone(moment, zone_name)}"


def model_words(moment: float, zone_name: str | None) -> str:
    """For the model: the user's words and the exact ISO instant, `Fri 4 Dec 17:00 CET (2026-12-04T17:00+01:00)`.

    The model repeats the first part to the user; the second leaves no doubt which instant it is.
    """
    local = datetime.fromtimestamp(moment, tz=zone(zone_name))
    return f"{moment_words(moment, zone_name)} ({local.isoformat(timespec='minutes')})"


__all__ = ["clock_words", "day_words", "model_words", "moment_words", "next_daily", "next_midnight", "parse_clock",
           "parse_moment", "short_zone", "zone"]
