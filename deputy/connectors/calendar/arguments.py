"""The arguments of the calendar operations, validated strictly: the model is untrusted.

Times stay strings here (what the model wrote, trimmed), so an approval's fingerprint is
over exactly what the user saw; the runner turns them into aware times with the user's
zone. Everything that can be checked without that zone is checked now, so a bad call comes
back to the model at once with a message it can act on.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time, timedelta
from typing import Annotated, ClassVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from deputy.connectors.calendar.ids import BadEventId, parse_event_id
from deputy.connectors.calendar.timezones import TimeProblem, localize, parse_moment, zone_named
from deputy.connectors.addresses import normalize_address

MAX_LIST_DAYS = 92
MAX_FREE_BUSY_DAYS = 31
MAX_ATTENDEES = 50
MAX_TIMED_EVENT = timedelta(days=31)
MAX_ALL_DAY_EVENT = timedelta(days=366)


def _moment(value: str) -> str:
    try:
        parse_moment(value)
    except TimeProblem as exc:
        raise ValueError(str(exc)) from None
    return value.strip()


def _zone(value: str) -> str:
    try:
        return zone_named(value.strip()).key
    except TimeProblem as exc:
        raise ValueError(str(exc)) from None


def _line(limit: int):
    def check(value: str) -> str:
        text = " ".join(value.split())
        if any(unicodedata.category(c) in ("Cc", "Cs") for c in text):
            raise ValueError("must be plain text without control characters")
        if len(text) > limit:
            raise ValueError(f"must be at most {limit} characters")
        return text
    return check


def _body(value: str) -> str:
    text = value.replace("\r\n", "\n").strip()
    if any(unicodedata.category(c) in ("Cc", "Cs") and c not in "\n\t" for c in text):
        raise ValueError("must be plain text without control characters")
    if len(text) > 4000:
        raise ValueError("must be at most 4000 characters")
    return text


def _event_id(value: str) -> str:
    try:
        parse_event_id(value)
    except BadEventId:
        raise ValueError("is not an event id from list_events; copy it exactly") from None
    return value.strip()


def _one_or_many(value: object) -> object:
    return [value] if isinstance(value, str) else value


Moment = Annotated[str, AfterValidator(_moment)]
Zone = Annotated[str, AfterValidator(_zone)]
EventId = Annotated[str, AfterValidator(_event_id)]
CalendarName = Annotated[str, AfterValidator(_line(80)), Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_max_length=5000)


def _check_gap(value: date | datetime, zone: str | None) -> None:
    """With a known zone, refuse a wall-clock time the clocks skip right away."""
    if zone and isinstance(value, datetime) and value.tzinfo is None:
        try:
            localize(value, zone_named(zone))
        except TimeProblem as exc:
            raise ValueError(str(exc)) from None


class ListEventsArgs(_Strict):
    """Events between two times; a date as `end` includes that whole day."""

    start: Moment
    end: Moment | None = None
    calendar: CalendarName | None = None

    @model_validator(mode="after")
    def _range(self) -> ListEventsArgs:
        _check_range(self.start, self.end, MAX_LIST_DAYS)
        return self


class FreeBusyArgs(_Strict):
    """Busy times and free slots of at least `min_minutes` between two times."""

    start: Moment
    end: Moment
    min_minutes: int = Field(default=30, ge=5, le=24 * 60)
    working_hours: Annotated[str, AfterValidator(lambda v: _hours(v) and v.strip())] | None = None
    include_weekends: bool = False
    calendar: CalendarName | None = None

    @model_validator(mode="after")
    def _range(self) -> FreeBusyArgs:
        _check_range(self.start, self.end, MAX_FREE_BUSY_DAYS)
        return self

    def hours(self) -> tuple[time, time] | None:
        return _hours(self.working_hours) if self.working_hours else None


class CreateEventArgs(_Strict):
    """A new event; a date as `start` makes an all-day event (then `end` is the last day).

    Inviting people is `schedule_meeting` (`MeetingArgs`): the guard weighs an invitation
    differently from a private entry, and an operation's risk tags are fixed.
    """

    title: Annotated[str, AfterValidator(_line(200)), Field(min_length=1)]
    start: Moment
    end: Moment | None = None
    duration_minutes: int | None = Field(default=None, ge=1, le=int(MAX_TIMED_EVENT.total_seconds() // 60))
    timezone: Zone | None = None
    location: Annotated[str, AfterValidator(_line(300))] | None = None
    description: Annotated[str, AfterValidator(_body)] | None = None
    attendees: Annotated[
        list[Annotated[str, AfterValidator(normalize_address)]],
        BeforeValidator(_one_or_many),
        Field(max_length=MAX_ATTENDEES),
    ] = []
    calendar: CalendarName | None = None

    _invites: ClassVar[bool] = False

    @model_validator(mode="after")
    def _shape(self) -> CreateEventArgs:
        # Mail systems treat the local part case-insensitively in practice: one invitation each.
        first: dict[str, str] = {}
        for address in self.attendees:
            first.setdefault(address.lower(), address)
        self.attendees = list(first.values())
        if self.attendees and not self._invites:
            raise ValueError("create_event invites nobody; use schedule_meeting to invite attendees")
        if self._invites and not self.attendees:
            raise ValueError("schedule_meeting needs at least one attendee; use create_event otherwise")
        start = parse_moment(self.start)
        end = parse_moment(self.end) if self.end else None
        if end is not None and self.duration_minutes is not None:
            raise ValueError("give either end or duration_minutes, not both")
        if not isinstance(start, datetime):
            if self.duration_minutes is not None:
                raise ValueError("an all-day event (start is a date) takes an end date, not duration_minutes")
            if end is not None and (isinstance(end, datetime) or end < start):
                raise ValueError("for an all-day event, end must be a date on or after start")
            if end is not None and end - start >= MAX_ALL_DAY_EVENT:
                raise ValueError("an all-day event can last at most a year")
            return self
        if end is not None and not isinstance(end, datetime):
            raise ValueError("start has a time of day, so end needs one too (YYYY-MM-DDTHH:MM)")
        _check_gap(start, self.timezone)
        if end is not None:
            _check_gap(end, self.timezone)
            _check_order(start, end, MAX_TIMED_EVENT)
        return self


class MeetingArgs(CreateEventArgs):
    """A new event with attendees, who receive an invitation from the calendar server."""

    _invites: ClassVar[bool] = True


class MoveEventArgs(_Strict):
    """A new start (and optionally end) for an event; without `end` it keeps its length."""

    event_id: EventId
    start: Moment
    end: Moment | None = None
    timezone: Zone | None = None

    @model_validator(mode="after")
    def _shape(self) -> MoveEventArgs:
        start = parse_moment(self.start)
        end = parse_moment(self.end) if self.end else None
        if end is not None and isinstance(end, datetime) != isinstance(start, datetime):
            raise ValueError("start and end must both be dates or both be date-times")
        _check_gap(start, self.timezone)
        if end is not None:
            _check_gap(end, self.timezone)
            if isinstance(start, datetime):
                _check_order(start, end, MAX_TIMED_EVENT)  # type: ignore[arg-type]
            elif end < start:
                raise ValueError("end must be on or after start")
        return self


class CancelEventArgs(_Strict):
    """The event (or one occurrence of a repeating event) to take off the calendar."""

    event_id: EventId


def _hours(value: str) -> tuple[time, time]:
    match = re.fullmatch(r"\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*", value)
    if not match:
        raise ValueError("working_hours must look like 09:00-17:00")
    try:
        first, last = (time.fromisoformat(part.zfill(5)) for part in match.groups())
    except ValueError:
        raise ValueError("working_hours must look like 09:00-17:00") from None
    if first == last:
        raise ValueError("working_hours must not start and end at the same time")
    return first, last


def _check_order(start: datetime, end: datetime, longest: timedelta) -> None:
    # Naive and aware times can't be compared; on the same footing the wall clocks are close enough.
    if (start.tzinfo is None) != (end.tzinfo is None):
        start, end = start.replace(tzinfo=None), end.replace(tzinfo=None)
    if end <= start:
        raise ValueError("end must be after start")
    if end - start > longest:
        raise ValueError(f"an event can last at most {longest.days} days")


def _check_range(start_text: str, end_text: str | None, days: int) -> None:
    start = parse_moment(start_text)
    if end_text is None:
        return
    end = parse_moment(end_text)
    first = start if isinstance(start, datetime) else datetime.combine(start, time())
    last = end if isinstance(end, datetime) else datetime.combine(end + timedelta(days=1), time())
    if (first.tzinfo is None) != (last.tzinfo is None):
        first, last = first.replace(tzinfo=None), last.replace(tzinfo=None)
    if last <= first:
        raise ValueError("end must be after start")
    if last - first > timedelta(days=days, hours=1):
        raise ValueError(f"the range can cover at most {days} days; ask for it in parts")
