"""Which day and month a moment falls in for a user, and when each resets (pure).

Quotas count the user's own days: a user in Tokyo gets a fresh day at midnight in Tokyo,
not at midnight UTC. Months reset at local midnight on the 1st. zoneinfo handles days of
23 or 25 hours; an unknown zone name counts as UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


@dataclass(frozen=True)
class Periods:
    day: str  # "20261202": the user's local date, a key suffix
    month: str  # "202612"
    day_resets: float  # the next local midnight
    month_resets: float  # local midnight starting the next month
    zone: str

    def key(self, period: str) -> str:
        return self.day if period == "day" else self.month

    def resets(self, period: str) -> float:
        return self.day_resets if period == "day" else self.month_resets


def _zone(name: str | None) -> ZoneInfo | timezone:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return timezone.utc


def periods(now: float, zone_name: str | None) -> Periods:
    tz = _zone(zone_name)
    local = datetime.fromtimestamp(now, tz=tz)
    today = local.date()
    # Built from the calendar date (not by adding 24 hours), so DST days reset at midnight too.
    tomorrow = datetime.combine(today + timedelta(days=1), datetime.min.time(), tzinfo=tz)
    first_next = (today.replace(day=28) + timedelta(days=4)).replace(day=1)
    next_month = datetime.combine(first_next, datetime.min.time(), tzinfo=tz)
    return Periods(day=today.strftime("%Y%m%d"), month=today.strftime("%Y%m"),
                   day_resets=tomorrow.timestamp(), month_resets=next_month.timestamp(),
                   zone=zone_name or "UTC")


def reset_words(moment: float, now: float, zone_name: str | None) -> str:
    """When a limit resets, as the user reads it: "at midnight (00:00 Europe/Berlin)", "on Jan 1"."""
    tz = _zone(zone_name)
    local = datetime.fromtimestamp(moment, tz=tz)
    today = datetime.fromtimestamp(now, tz=tz).date()
    clock = local.strftime("%H:%M")
    where = zone_name or "UTC"
    if local.date() == today:
        return f"today at {clock} ({where})"
    if local.date() == today + timedelta(days=1):
        return f"tomorrow at {clock} ({where})" if clock != "00:00" else f"at midnight ({where} time)"
    return f"on {local.strftime('%b')} {local.day} ({where} time)"
