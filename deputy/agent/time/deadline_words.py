"""A deadline in the user's words (“by Friday”, “before the 15th”, “by end of month”, “in 3 days”,
“by 5pm tomorrow”, “within a week”), turned into an instant in their zone by the same resolver
as every other time the user says (`deputy.agent.time.time_words`), never by the model.

A whole day is inclusive after “by”/“until” (the end of that day) and exclusive after
“before” (its start). Words that name no time (“by email”, “in person”) are not a deadline.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta

from deputy.agent.time.local_time import zone as zone_of
from deputy.agent.time.time_words import Resolved, Unclear, names_a_time, resolve_span, resolve_time

_PHRASE = re.compile(r"^(?P<prep>within|by|before|until|till|til|no later than|in)\s+(?P<rest>.+)$", re.IGNORECASE)
_END_OF = re.compile(
    r"^(?:the )?end of (?:the |this )?(?P<which>next )?(?P<unit>day|today|week|month)$|^(?P<short>eod|eow|eom)$",
    re.IGNORECASE)


def resolve_deadline(words: str, now: float, zone_name: str | None) -> float | str | None:
    """The instant `words` name as a deadline, a polite question when they are unclear, or None when they
    name no time at all."""
    match = _PHRASE.match(" ".join(words.split()))
    if match is None:
        return None
    prep = match["prep"].lower()
    rest = match["rest"].strip(" .").lower()
    if prep in ("within", "in"):
        rest = "in " + rest
    ending = _end_of(rest, now, zone_name)
    if ending is not None:
        return ending
    if not names_a_time(rest):
        return None
    result = resolve_time(rest, now, zone_name)
    if isinstance(result, Unclear):
        return result.question
    return _instant(result, before=prep == "before", zone_name=zone_name)


def _instant(result: Resolved, before: bool, zone_name: str | None) -> float:
    if result.at is not None:
        return result.at.timestamp()
    assert result.day is not None
    return _day_edge(result.day, before, zone_name)


def _day_edge(day: date, start: bool, zone_name: str | None) -> float:
    """The start of `day` (“before the 15th”) or its last minute (“by Friday”), in the user's zone."""
    tz = zone_of(zone_name)
    if start:
        return datetime.combine(day, time(0, 0), tzinfo=tz).timestamp()
    return datetime.combine(day, time(23, 59), tzinfo=tz).timestamp()


def _end_of(rest: str, now: float, zone_name: str | None) -> float | None:
    match = _END_OF.match(rest)
    if match is None:
        return None
    unit = {"eod": "day", "eow": "week", "eom": "month"}.get(match["short"] or "", match["unit"] or "")
    later = bool(match["which"])
    if unit in ("day", "today"):
        today = datetime.fromtimestamp(now, tz=zone_of(zone_name)).date()
        return _day_edge(today + timedelta(days=1 if later else 0), False, zone_name)
    span = resolve_span(f"{'next' if later else 'this'} {unit}", now, zone_name)
    assert span is not None
    return _day_edge(span[1], False, zone_name)


_DELIVERY = re.compile(
    r"\b(?:delivered|deliver(?:y|ies)?|arriv(?:e|es|ing)|here|shipped|in my hands)\s+"
    r"(?P<phrase>(?:by|before|until|till|within|no later than|in)\s+[^,.;!?\n]+)", re.IGNORECASE)


def delivery_deadline(texts: list[str], now: float, zone_name: str | None) -> float | None:
    """The latest delivery the user's words allow ("the cheapest cable delivered by Friday"), as an
    instant in their zone; None when they set none (or said it too vaguely to compare dates with)."""
    for text in texts:
        for match in _DELIVERY.finditer(text):
            words = match["phrase"].split()
            # The longest run of words that names a time: "by Friday please" is "by Friday".
            for count in range(len(words), 1, -1):
                found = resolve_deadline(" ".join(words[:count]), now, zone_name)
                if isinstance(found, float):
                    return found
    return None
