"""The user's own words against the action: the day and time, the amount and the recipients.

The model fills in an action's arguments; the user said what they wanted. Where code can read
both, a difference is shown on a card beside what the user said ("you said: Friday 9–11 →
Fri 11 Dec 09:00–11:00; this action: Sun 6 Dec 09:00"), whatever the model claims. The days
and times the user named are read by Deputy's deterministic time resolver outside this
package and handed in as `SaidTime`s; amounts and addresses are read here. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel

from deputy.sentinel.textflow import string_fields


class SaidTime(BaseModel, frozen=True):
    """A day, a clock time (or a span of one), or both, that the user named for this goal."""

    words: str
    day: date | None = None
    start: time | None = None
    end: time | None = None
    zone: str = "UTC"

    def shown(self) -> str:
        clock = f"{self.start:%H:%M}" if self.start else ""
        if self.start and self.end:
            clock += f"–{self.end:%H:%M}"
        day = f"{self.day:%a} {self.day.day} {self.day:%b}" if self.day else ""
        return " ".join(part for part in (day, clock) if part)


def fits(moment: datetime | date, said: Sequence[SaidTime]) -> bool:
    """On a day the user named (if they named any) and at a clock time they named (if any)."""
    days = {s.day for s in said if s.day is not None}
    clocks = {c for s in said for c in (s.start, s.end) if c is not None}
    if isinstance(moment, datetime):
        return ((not days or moment.date() in days)
                and (not clocks or moment.time().replace(second=0, microsecond=0) in clocks))
    return not days or moment in days


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")


def action_times(arguments: dict[str, Any], zone: str) -> list[datetime | date]:
    """Every date or date-time the action carries, as the user's clock reads it."""
    tz = _zone(zone)
    found: list[datetime | date] = []
    for _path, value in string_fields(arguments):
        text = value.strip()
        if len(text) > 40 or not _ISO.fullmatch(text):
            continue
        try:
            if len(text) == 10:
                found.append(date.fromisoformat(text))
                continue
            moment = datetime.fromisoformat(text.replace(" ", "T"))
        except ValueError:
            continue
        found.append(moment.astimezone(tz) if moment.tzinfo else moment.replace(tzinfo=tz))
    return found


def time_mismatch(arguments: dict[str, Any], said: Sequence[SaidTime]) -> str | None:
    """A sentence for the card when none of the action's times is one the user named; else None."""
    if not said:
        return None
    times = action_times(arguments, said[0].zone)
    if not times or any(fits(t, said) for t in times):
        return None
    first = times[0]
    this = f"{first:%a} {first.day} {first:%b}" + (f" {first:%H:%M}" if isinstance(first, datetime) else "")
    you = "; ".join(f"{s.words} → {s.shown()}" for s in _most_precise(said)[:2])
    return f"The time differs from what you said. You said: {you}; this action: {this}."


def _most_precise(said: Sequence[SaidTime]) -> list[SaidTime]:
    """What to show: the times with both a day and a clock first."""
    return sorted(said, key=lambda s: (s.day is None, s.start is None, s.end is None))


_MONEY = re.compile(
    r"(?:[$€£]\s?(?P<a>\d[\d,]*(?:\.\d+)?)|(?P<b>\d[\d,]*(?:\.\d+)?)\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b)",
    re.IGNORECASE)
_CEILING_WORDS = re.compile(
    r"(?:under|below|at most|up to|max(?:imum)?|less than|no more than|not more than|budget(?: of)?|within)\s*$",
    re.IGNORECASE)


def named_amounts(words: Iterable[str]) -> tuple[set[Decimal], Decimal | None]:
    """The amounts the user named outright, and the highest ceiling they set ("under $50")."""
    exact: set[Decimal] = set()
    ceiling: Decimal | None = None
    for text in words:
        for match in _MONEY.finditer(text):
            try:
                amount = Decimal((match["a"] or match["b"]).replace(",", ""))
            except InvalidOperation:
                continue
            if _CEILING_WORDS.search(text[max(0, match.start() - 20):match.start()]):
                ceiling = amount if ceiling is None else max(ceiling, amount)
            else:
                exact.add(amount)
    return exact, ceiling


def amount_mismatch(amount: Decimal | float | str | None, currency: str | None, words: Sequence[str]) -> str | None:
    """A sentence for the card when the action's amount is not one the user named; else None."""
    if amount is None:
        return None
    exact, ceiling = named_amounts(words)
    if not exact and ceiling is None:
        return None
    try:
        value = Decimal(str(amount))
    except InvalidOperation:
        return None
    if value in exact or (ceiling is not None and value <= ceiling):
        return None
    said = ", ".join(f"{a:,}" for a in sorted(exact)) if exact else f"at most {ceiling:,}"
    return f"The amount differs from what you said. You said: {said}; this action: {value:,} {currency or ''}".rstrip() + "."


_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


def named_addresses(words: Iterable[str]) -> set[str]:
    return {m.group(0).lower() for text in words for m in _EMAIL.finditer(text)}


def recipient_mismatch(targets: Sequence[str], words: Sequence[str]) -> str | None:
    """A sentence for the card when the user named addresses and the action reaches another one."""
    named = named_addresses(words)
    others = [t for t in targets if _EMAIL.fullmatch(t.strip()) and t.strip().lower() not in named]
    if not named or not others:
        return None
    return (f"The recipient differs from whom you named. You said: {', '.join(sorted(named)[:3])}; "
            f"this action: {', '.join(others[:3])}.")


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


__all__ = ["SaidTime", "action_times", "fits", "amount_mismatch", "named_addresses", "named_amounts", "recipient_mismatch",
           "time_mismatch"]
