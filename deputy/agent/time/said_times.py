"""The days and times the user's own words name, read by Deputy's time resolver for the guard.

The guard (a pure package below this one) compares an action's dates with these; reading
them here keeps one resolver for both the runner and the guard. Every run of time words
counts ("Lunch with Ana on Thursday at 12:30" names Thursday and 12:30); "Friday 9 to 11" is
a day with a span of hours, read as "Friday at 9" and "Friday at 11". A clock time said
without a day ("at 9", or "move it to 4": `moved_hours`) is a clock time on whatever day the user named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from datetime import date, datetime

from deputy.agent.time.moved_hours import with_moved_hours
from deputy.agent.time.time_words import Resolved, resolve_time, time_phrases
from deputy.sentinel.said_values import SaidTime

_CLOCK = r"\d{1,2}(?::\d{2}|\.\d{2})?\s*(?:am|pm)?"
_ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_RANGE = re.compile(rf"(?<![\d:.-])\b(?:from\s+)?(?P<a>{_CLOCK})\s*(?:to|-|–|until|till)\s*(?P<b>{_CLOCK})(?![\w:])",
                    re.IGNORECASE)
_NAMES_A_DAY = re.compile(
    r"\b(?:today|tonight|tomorrow|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{4}-\d{2}-\d{2}\b", re.IGNORECASE)


def said_times(user_words: Sequence[str], said_at: datetime | float, zone: str) -> list[SaidTime]:
    """Each day and time the user named, in their zone, as it was meant when they said it."""
    found: list[SaidTime] = []
    for text in user_words:
        for said in _read(text, said_at, zone):
            if said not in found:
                found.append(said)
    return found


@lru_cache(maxsize=2048)
def _read(text: str, said_at: datetime | float, zone: str) -> tuple[SaidTime, ...]:
    # Memoised: the executor reviews every action of a goal against the same words, said at the same moment.
    found: list[SaidTime] = []
    text = with_moved_hours(text)  # "move it to 4 instead" names 16:00
    written = [(m.group(0), day) for m in _ISO_DAY.finditer(text) if (day := _iso_day(m.group(0))) is not None]
    found += [SaidTime(words=words, day=day, zone=zone) for words, day in written]
    on_day = written[0][1] if written else None
    rest = _ISO_DAY.sub(" ", text)
    span = _RANGE.search(rest)
    if span is not None:
        rest = rest[:span.start()] + " " + rest[span.end():]
        day_words = next((p for p in time_phrases(rest) if _NAMES_A_DAY.search(p)), "")
        first = _resolve(f"{day_words} at {span['a']}".strip(), said_at, zone, on_day)
        last = _resolve(f"{day_words} at {span['b']}".strip(), said_at, zone, on_day)
        if first is not None and last is not None and first.at and last.at:
            # A written-out date is already a day of its own (and which one a span goes with is unsaid).
            found.append(SaidTime(words=" ".join(f"{day_words} {span.group(0)}".split()),
                                  day=first.at.date() if day_words else None,
                                  start=first.at.time(), end=last.at.time(), zone=first.zone))
    for phrase in time_phrases(rest):
        result = _resolve(phrase, said_at, zone, on_day)
        if result is None:
            continue
        names_day = bool(_NAMES_A_DAY.search(phrase))
        if result.at is not None:
            found.append(SaidTime(words=phrase, day=result.at.date() if names_day else None,
                                  start=result.at.time(), zone=result.zone))
        elif result.day is not None and names_day:
            found.append(SaidTime(words=phrase, day=result.day, zone=result.zone))
    return tuple(found)

def names_a_day(phrase: str) -> bool:
    """Whether a time phrase names a day ("Thursday at 3", "tomorrow"), not only a clock time ("at 4")."""
    return bool(_NAMES_A_DAY.search(phrase))


def _resolve(words: str, said_at: datetime | float, zone: str, on_day: date | None) -> Resolved | None:
    result = resolve_time(words, said_at, zone, allow_past=True, on_day=on_day)
    return result if isinstance(result, Resolved) else None


def _iso_day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


__all__ = ["said_times"]
