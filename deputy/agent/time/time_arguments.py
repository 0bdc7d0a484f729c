"""The time arguments of a tool call, resolved by code before the call becomes an action.

The model copies the user's words for a time into a tool's time arguments (the operation
lists them in `Operation.time_arguments`); `resolve_arguments` replaces each with the ISO
instant `deputy.agent.time.time_words` reads them as, in the user's zone, so the guard, the card and the
executor all see the instant the user meant, never the model's arithmetic. An end given
as a clock time alone ("15:00") falls on the start's day. A `timezone` argument is kept only
when the user named that place or zone themselves; otherwise the user's own zone is used
(and written into the arguments, so the calendar stores the event in it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from deputy.agent.time.moved_hours import with_moved_hours
from deputy.agent.time.said_times import names_a_day, said_times
from deputy.agent.time.time_conventions import PARTS_OF_DAY_READ, REMINDER_TIME
from deputy.agent.time.time_words import (
    Resolved, Unclear, names_a_time, part_of_day_named, resolve_span, resolve_time, time_phrase)
from deputy.core.records.effects import EffectClass
from deputy.connectors.calendar.timezones import TimeProblem, zone_named
from deputy.connectors.catalog import Operation


@dataclass(frozen=True)
class TimedArguments:
    """The arguments with their times resolved, and what each time was resolved to."""

    arguments: dict[str, Any]
    times: list[Resolved] = field(default_factory=list)

    def when(self) -> str | None:
        """`Thu 3 Dec 13:30 CET`: the first time, as the user reads it (None without one)."""
        return self.times[0].shown() if self.times else None


def resolve_arguments(
    operation: Operation, raw: dict[str, Any], now: float, user_zone: str, user_words: list[str]
) -> TimedArguments | Unclear:
    """`raw` with every time argument of `operation` turned into an ISO instant, or the question to ask."""
    if not operation.time_arguments:
        return TimedArguments(raw)
    arguments = dict(raw)
    zone = _zone(arguments.get("timezone"), user_zone, user_words)
    if "timezone" in operation.arguments.model_fields:
        arguments["timezone"] = zone
    # Reading the calendar may look back ("what did I have yesterday"); writing never does.
    allow_past = operation.spec.effect is EffectClass.read
    if allow_past and len(operation.time_arguments) == 2:
        arguments = _read_the_users_days(operation, arguments, now, zone, user_words)
        spanned = (_span(operation, arguments, now, zone, " ".join(user_words).lower())
                   or _part_of_day_read(operation, arguments, now, zone))
        if spanned is not None:
            return spanned
    if not allow_past or len(operation.time_arguments) == 1:
        # A search of a day ("a table on Thursday") is the user's day too, not the model's arithmetic.
        arguments = _users_time_wins(operation, arguments, now, zone, user_words)
    if not allow_past:
        if isinstance(arguments.get("duration_minutes"), (int, float)) and arguments["duration_minutes"] <= 0:
            # A length of no minutes (a small model's filler) is no length: the calendar's default applies.
            arguments.pop("duration_minutes")
    first_day: date | None = None
    times: list[Resolved] = []
    for name in operation.time_arguments:
        value = _get(arguments, name)
        if times and not allow_past and isinstance(value, str) and value.strip() == _get(raw, operation.time_arguments[0]):
            # An end written as the start itself (a small model's habit) is no length at all: the
            # calendar's default length applies instead of refusing the event.
            _drop(arguments, name)
            continue
        if not isinstance(value, str):
            continue  # missing or not text: the arguments' own check says so to the model
        result = resolve_time(value, now, zone, allow_past=allow_past, on_day=first_day)
        if isinstance(result, Unclear):
            return result
        _set(arguments, name, result.iso if not _date_only(operation, name) else _day_of(result).isoformat())
        if first_day is None:
            first_day = _day_of(result)
            _end_from_range(operation, arguments, result)
        times.append(result)
    return TimedArguments(arguments, times)


def _end_from_range(operation: Operation, arguments: dict[str, Any], start: Resolved) -> None:
    """A start said as a range ("Friday 9 to 11") gives the end, when no end or length was given."""
    if start.until is None or len(operation.time_arguments) < 2 or arguments.get("duration_minutes"):
        return
    end_name = operation.time_arguments[1]
    end = _get(arguments, end_name)
    if end is None or (isinstance(end, str) and not end.strip()):
        _set(arguments, end_name, start.until.isoformat(timespec="minutes"))


def invented_time(operation: Operation, raw: dict[str, Any], known_texts: list[str]) -> bool:
    """Whether a write carries a time although nothing the user said or the goal read names one."""
    if operation.spec.effect is EffectClass.read or not operation.time_arguments:
        return False
    if not any(isinstance(value := _get(raw, name), str) and value.strip() for name in operation.time_arguments):
        return False
    return not any(names_a_time(text) for text in known_texts)


def shown_times(operation: Operation, arguments: dict[str, Any], user_zone: str, now: float) -> str | None:
    """`Thu 3 Dec 13:30 CET` for a stored action's resolved start, `Fri 4 Dec` for an API's date
    field (its time, if any, is another field); None when it has none."""
    if not operation.time_arguments:
        return None
    name = operation.time_arguments[0]
    value = _get(arguments, name)
    if not isinstance(value, str):
        return None
    zone = arguments.get("timezone") if isinstance(arguments.get("timezone"), str) else user_zone
    result = resolve_time(value, now, zone, allow_past=True)
    if not isinstance(result, Resolved):
        return None
    if _date_only(operation, name):
        day = _day_of(result)
        return f"{day:%a} {day.day} {day:%b}"
    return result.shown()


def resolve_schedule(raw: dict[str, Any], now: float, user_zone: str) -> dict[str, Any] | Unclear:
    """`schedule_check`'s times (`at`, `until`, the probe's `remind_if_none_by`) said in words, as
    ISO instants in the user's zone. ISO text is left as it is: the monitor reads it itself."""
    arguments = dict(raw)
    probe = dict(arguments["probe"]) if isinstance(arguments.get("probe"), dict) else None
    for holder, name in ((arguments, "at"), (arguments, "until"), (probe, "remind_if_none_by")):
        value = holder.get(name) if holder is not None else None
        if not isinstance(value, str) or _ISO_START.match(value.strip()):
            continue
        result = resolve_time(value, now, user_zone)
        if isinstance(result, Unclear):
            return result
        if result.at is None:
            assert result.day is not None
            # A day alone: a reminder comes that morning; checking "until" it goes on to its end.
            if name == "until":
                day, clock = result.day + timedelta(days=1), time(0, 0)
            else:
                day, clock = result.day, REMINDER_TIME
            result = resolve_time(datetime.combine(day, clock).isoformat(timespec="minutes"), now, user_zone)
            if isinstance(result, Unclear):
                return result
        holder[name] = result.iso  # type: ignore[index]
    if probe is not None:
        arguments["probe"] = probe
    return arguments


def _users_time_wins(
    operation: Operation, arguments: dict[str, Any], now: float, zone: str, user_words: list[str]
) -> dict[str, Any]:
    """The user's own words for the time, where the model wrote a date of its own instead.

    A small model asked to copy "tomorrow at 9am" often writes "2026-11-29T09:00" (counting wrong,
    or not at all). When the start it wrote is an ISO date that is not in the user's words, and
    the user's latest words name one clear instant that differs from it, those words are used,
    and an end the model wrote from its own arithmetic is dropped (the calendar's default length
    applies). Code does the date; the model only had to pass it on.
    """
    first = operation.time_arguments[0]
    written = _get(arguments, first)
    said = " ".join(user_words).lower()
    if not _models_own_date(written, said):
        return arguments
    for words in reversed(user_words):
        phrase = time_phrase(with_moved_hours(words))
        if phrase is None:
            continue
        modelled = resolve_time(written, now, zone, allow_past=True)
        # A clock time alone ("move it to 4 instead", after "Thursday at 3") falls on the model's day when
        # the user named that day in other words; otherwise on the next time that clock time comes.
        on_day = None
        if isinstance(modelled, Resolved) and modelled.at is not None and not names_a_day(phrase):
            named = {said.day for said in said_times(user_words, now, zone) if said.day is not None}
            on_day = modelled.at.date() if modelled.at.date() in named else None
        meant = resolve_time(phrase, now, zone, on_day=on_day)
        if isinstance(meant, Unclear) or meant.at is None:
            return arguments  # no single instant in their words: the usual checks decide
        if isinstance(modelled, Resolved) and modelled.at == meant.at:
            return arguments
        corrected = dict(arguments)
        _set(corrected, first, phrase)
        for later in operation.time_arguments[1:]:
            value = _get(corrected, later)
            if _models_own_date(value, said):
                _drop(corrected, later)
        return corrected
    return arguments


def _drop(arguments: dict[str, Any], path: str) -> None:
    *parents, last = path.split(".")
    node = arguments
    for part in parents:
        node[part] = dict(node[part])
        node = node[part]
    node.pop(last, None)


_DATE_IN_WORDS = re.compile(
    r"\b\d{4}\b|\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\bmay\s+\d|\d\s+may\b|"
    r"\b(?:mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(?:day)?\b", re.IGNORECASE)


def _read_the_users_days(
    operation: Operation, arguments: dict[str, Any], now: float, zone: str, user_words: list[str]
) -> dict[str, Any]:
    """A read over one moment (an end equal to the start, or none) reads that moment's day; and the days
    are those the user named ("tomorrow", "this week", "on Wednesday") where the model wrote dates of its
    own instead.
    Listing the calendar from 11:00 to 11:00 finds nothing; listing today for "tomorrow's lunch", the
    wrong lunch."""
    first, last = operation.time_arguments
    start, end = _get(arguments, first), _get(arguments, last)
    said = " ".join(user_words).lower()
    if not isinstance(start, str) or not (end in (None, "", start) or _models_own_date(end, said)):
        return arguments
    days: tuple[date, date] | None = None
    if _models_own_date(start, said):
        for words in reversed(user_words):
            spoken = _SPAN_WORDS.search(words)
            days = resolve_span(spoken.group(0), now, zone) if spoken else None
            phrase = time_phrase(words) if days is None else None
            if phrase is not None:
                days = _days_named(phrase, now, zone)
            if days is not None or phrase is not None:
                break
    if days is None:
        if end == start and "T" in start:
            modelled = resolve_time(start, now, zone, allow_past=True)
            if isinstance(modelled, Resolved):
                days = (_day_of(modelled), _day_of(modelled))
    if days is None:
        return arguments
    corrected = dict(arguments)
    _set(corrected, first, days[0].isoformat())
    _set(corrected, last, days[1].isoformat())
    return corrected


def _models_own_date(value: object, said: str) -> bool:
    """Whether `value` carries a date (ISO, or a date in words with a year, month or weekday) that the user never
    wrote: the model worked it out itself ("Wednesday 09 December 2026 15:00" for "friday afternoon")."""
    if not isinstance(value, str) or value.strip().lower() in said:
        return False
    return bool(_ISO_START.search(value) or _DATE_IN_WORDS.search(value))


def _days_named(phrase: str, now: float, zone: str) -> tuple[date, date] | None:
    """The days a phrase names, reading as much of it as makes sense: for a read, "tomorrow's team
    lunch" is tomorrow."""
    words = [re.sub(r"'s$", "", word) for word in phrase.split()]
    for count in range(len(words), 0, -1):
        head = " ".join(words[:count])
        span = resolve_span(head, now, zone)
        if span is not None:
            return span
        meant = resolve_time(head, now, zone, allow_past=True)
        if isinstance(meant, Resolved):
            return _day_of(meant), _day_of(meant)
    return None


def _span(operation: Operation, arguments: dict[str, Any], now: float, zone: str, said: str) -> TimedArguments | None:
    """A read over "this week" or "next month": from its first to its last day. The span may be the end
    alone ("how many meetings next week?" read from a date the model worked out itself to "next week")."""
    first_name, last_name = operation.time_arguments
    words, end = _get(arguments, first_name), _get(arguments, last_name)
    span = resolve_span(words, now, zone) if isinstance(words, str) else None
    if span is None and isinstance(end, str) and (words in (None, "") or _models_own_date(words, said)):
        words, span = end, resolve_span(end, now, zone)
        end = None
    if span is None or end not in (None, "", words):
        return None
    _set(arguments, first_name, span[0].isoformat())
    _set(arguments, last_name, span[1].isoformat())
    return TimedArguments(arguments, [Resolved(words, zone, day=span[0]), Resolved(words, zone, day=span[1])])


def _part_of_day_read(operation: Operation, arguments: dict[str, Any], now: float,
                      zone: str) -> TimedArguments | None:
    """A read over "Friday afternoon" (no end, or the same words as the end): that stretch of the day."""
    first_name, last_name = operation.time_arguments
    words = _get(arguments, first_name)
    if not isinstance(words, str) or _get(arguments, last_name) not in (None, "", words):
        return None
    part = part_of_day_named(words)
    if part is None or part not in PARTS_OF_DAY_READ:
        return None
    meant = resolve_time(words, now, zone, allow_past=True)
    if not isinstance(meant, Resolved) or meant.at is None:
        return None
    first, last = PARTS_OF_DAY_READ[part]
    start = meant.at.replace(hour=first.hour, minute=first.minute)
    end = meant.at.replace(hour=last.hour, minute=last.minute)
    _set(arguments, first_name, start.isoformat(timespec="minutes"))
    _set(arguments, last_name, end.isoformat(timespec="minutes"))
    return TimedArguments(arguments, [Resolved(words, zone, at=start), Resolved(words, zone, at=end)])


def _date_only(operation: Operation, path: str) -> bool:
    """Whether the argument takes a date alone (an API's `format: date` field)."""
    schema: object = operation.schema or {}
    for part in path.split("."):
        schema = schema.get("properties", {}).get(part) if isinstance(schema, dict) else None
    return isinstance(schema, dict) and schema.get("format") == "date"


def _get(arguments: dict[str, Any], path: str) -> object:
    """The value at `path` ("start", or "body.date" inside a request body); None when absent."""
    node: object = arguments
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _set(arguments: dict[str, Any], path: str, value: str) -> None:
    """Set the value at `path`, copying the dicts on the way so the model's call is left as it was."""
    *parents, last = path.split(".")
    node = arguments
    for part in parents:
        node[part] = dict(node[part])
        node = node[part]
    node[last] = value


def _day_of(result: Resolved) -> date:
    return result.day if result.at is None else result.at.date()  # type: ignore[return-value]


def _zone(asked: object, user_zone: str, user_words: list[str]) -> str:
    """The model's `timezone` when the user named it ("9am New York time"), else the user's zone."""
    if not isinstance(asked, str) or not asked.strip() or asked.strip() == user_zone:
        return user_zone
    key = asked.strip()
    try:
        key = zone_named(key).key
    except TimeProblem:
        return user_zone
    place = key.rsplit("/", 1)[-1].replace("_", " ").lower()
    said = " ".join(user_words).lower()
    if key.lower() in said or (len(place) > 2 and place in said):
        return key
    return user_zone


_ISO_START = re.compile(r"\d{4}-\d{2}-\d{2}")
_SPAN_WORDS = re.compile(r"\b(?:(?:this|next|the|coming)\s+)?(?:week|weekend|month)\b", re.IGNORECASE)

__all__ = ["TimedArguments", "invented_time", "resolve_arguments", "resolve_schedule", "shown_times"]
