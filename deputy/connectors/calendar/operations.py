"""The calendar operations the agent may request, as the model and the guard see them."""

from __future__ import annotations

from typing import Any

from deputy.core.records.effects import EffectClass, OperationSpec, RiskTag
from deputy.connectors.calendar.arguments import (
    CancelEventArgs,
    CreateEventArgs,
    FreeBusyArgs,
    ListEventsArgs,
    MeetingArgs,
    MoveEventArgs,
)
from deputy.connectors.catalog import Operation

CALENDAR_SERVICE = "your calendar"
"""The user's own calendar account, named as a target the guard trusts."""

_WHEN = ("the user's own words for it, copied as they wrote them (\"Thursday after lunch\", \"tomorrow at 14:00\", "
         "\"on Sunday\"), or YYYY-MM-DDTHH:MM, or YYYY-MM-DD")
_TIMES = ("start", "end")
_EVENT_ID = {"type": "string", "description": "An event id exactly as list_events gave it."}
_CALENDAR = {"type": "string", "description": "Calendar name; leave out for the default calendar."}
_ONLY_CALENDAR = {"type": "string", "description": "Only this calendar; leave out for all of them."}
_ZONE = {"type": "string", "description": "Only when the user named another zone (IANA, like Europe/Berlin)."}


def _spec(
    operation: str, effect: EffectClass, description: str, *tags: RiskTag, target: str | None = None
) -> OperationSpec:
    return OperationSpec(connector="calendar", operation=operation, effect=effect, description=description,
                         tags=frozenset(tags), target_argument=target)


def _where(args: Any) -> list[str]:
    return [args.calendar] if getattr(args, "calendar", None) else [CALENDAR_SERVICE]


LIST_EVENTS_SPEC = _spec(
    "list_events", EffectClass.read, "List the user's calendar events between two dates, with their ids."
)
FREE_BUSY_SPEC = _spec(
    "free_busy", EffectClass.read, "Find when the user is busy and the free slots between two times."
)
CREATE_EVENT_SPEC = _spec("create_event", EffectClass.write, "Add an event to the user's own calendar.")
SCHEDULE_MEETING_SPEC = _spec(
    "schedule_meeting", EffectClass.write, "Add an event to the user's calendar and invite people to it.",
    RiskTag.share, target="attendees",
)
"""Invitations reach other people, so unlike `create_event` it carries the `share` tag."""
MOVE_EVENT_SPEC = _spec("move_event", EffectClass.write, "Move a calendar event to a new time.")
CANCEL_EVENT_SPEC = _spec(
    "cancel_event", EffectClass.write, "Remove an event (or one occurrence of a repeating one).", RiskTag.delete
)


LIST_EVENTS = Operation(
    spec=LIST_EVENTS_SPEC,
    arguments=ListEventsArgs,
    targets=_where,
    result_origin=lambda args: CALENDAR_SERVICE,
    service=CALENDAR_SERVICE,
    time_arguments=_TIMES,
    schema={
        "type": "object",
        "properties": {
            "start": {"type": "string", "description": f"From: {_WHEN}."},
            "end": {"type": "string",
                    "description": "Until, likewise (a day includes that whole day); default: one day."},
            "calendar": _ONLY_CALENDAR,
        },
        "required": ["start"],
    },
)

FREE_BUSY = Operation(
    spec=FREE_BUSY_SPEC,
    arguments=FreeBusyArgs,
    targets=_where,
    result_origin=lambda args: CALENDAR_SERVICE,
    service=CALENDAR_SERVICE,
    time_arguments=_TIMES,
    schema={
        "type": "object",
        "properties": {
            "start": {"type": "string", "description": f"From: {_WHEN}."},
            "end": {"type": "string", "description": "Until, likewise (a day includes that whole day)."},
            "min_minutes": {"type": "integer", "description": "Shortest useful free slot; default 30."},
            "working_hours": {"type": "string", "description": "Only offer slots within e.g. 09:00-17:00."},
            "include_weekends": {"type": "boolean", "description": "With working_hours: Sat/Sun too."},
            "calendar": _ONLY_CALENDAR,
        },
        "required": ["start", "end"],
    },
)

_NEW_EVENT_FIELDS: dict[str, Any] = {
    "title": {"type": "string"},
    "start": {"type": "string", "description": f"{_WHEN} (a date makes an all-day event)."},
    "end": {"type": "string", "description": "End, likewise; for all-day events the last day."},
    "duration_minutes": {"type": "integer", "description": "Instead of end; default 60."},
    "timezone": _ZONE,
    "location": {"type": "string"},
    "description": {"type": "string"},
    "calendar": _CALENDAR,
}

CREATE_EVENT = Operation(
    spec=CREATE_EVENT_SPEC,
    arguments=CreateEventArgs,
    targets=_where,
    service=CALENDAR_SERVICE,
    time_arguments=_TIMES,
    schema={"type": "object", "properties": _NEW_EVENT_FIELDS, "required": ["title", "start"]},
)

SCHEDULE_MEETING = Operation(
    spec=SCHEDULE_MEETING_SPEC,
    arguments=MeetingArgs,
    targets=lambda args: [*_where(args), *args.attendees],  # type: ignore[attr-defined]
    service=CALENDAR_SERVICE,
    time_arguments=_TIMES,
    schema={
        "type": "object",
        "properties": {
            **_NEW_EVENT_FIELDS,
            "attendees": {"type": "array", "items": {"type": "string"}, "description": "Emails to invite."},
        },
        "required": ["title", "start", "attendees"],
    },
)

MOVE_EVENT = Operation(
    spec=MOVE_EVENT_SPEC,
    arguments=MoveEventArgs,
    targets=lambda args: [CALENDAR_SERVICE],
    service=CALENDAR_SERVICE,
    time_arguments=_TIMES,
    schema={
        "type": "object",
        "properties": {
            "event_id": _EVENT_ID,
            "start": {"type": "string", "description": f"New start: {_WHEN}."},
            "end": {"type": "string", "description": "New end; leave out to keep the length."},
            "timezone": _ZONE,
        },
        "required": ["event_id", "start"],
    },
)

CANCEL_EVENT = Operation(
    spec=CANCEL_EVENT_SPEC,
    arguments=CancelEventArgs,
    targets=lambda args: [CALENDAR_SERVICE],
    service=CALENDAR_SERVICE,
    schema={"type": "object", "properties": {"event_id": _EVENT_ID}, "required": ["event_id"]},
)

CALENDAR_OPERATIONS = [LIST_EVENTS, FREE_BUSY, CREATE_EVENT, SCHEDULE_MEETING, MOVE_EVENT, CANCEL_EVENT]
"""Every calendar operation, for the catalog."""
