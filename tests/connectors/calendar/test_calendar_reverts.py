"""Undo on the real CalDAV server: a created event is deleted, a moved or removed one is put back."""

from __future__ import annotations

from typing import Callable

from calendar_testkit import Call, make_action

from deputy.connectors.calendar.runners import CalendarRunners
from deputy.connectors.calendar.reverts import CalendarReverts


def test_undo_of_a_created_event_removes_it(call: Call, runners: CalendarRunners, scratch: str,
                                            stored: Callable[[str], list[str]]) -> None:
    created = call("create_event", key="a_undo1", title="Dentist", start="2026-12-03T10:00", calendar=scratch)
    assert len(stored(scratch)) == 1
    said = CalendarReverts(runners).revert(make_action("list_events", {"start": "2026-12-03"}), created.undo)
    assert said.startswith("Removed “Dentist”") and stored(scratch) == []
    again = CalendarReverts(runners).revert(make_action("list_events", {"start": "2026-12-03"}), created.undo)
    assert "already gone" in again, "a second undo changes nothing and says so"


def test_undo_of_a_move_puts_the_event_back_at_its_time(call: Call, runners: CalendarRunners, scratch: str,
                                                        stored: Callable[[str], list[str]]) -> None:
    created = call("create_event", key="a_undo2", title="Standup", start="2026-12-03T09:00", calendar=scratch)
    [before] = stored(scratch)
    event_id = created.summary.split("(id ")[1].split(")")[0]
    moved = call("move_event", event_id=event_id, start="2026-12-04T15:00")
    assert stored(scratch) != [before]
    said = CalendarReverts(runners).revert(make_action("list_events", {"start": "2026-12-03"}), moved.undo)
    assert "back as it was" in said
    assert stored(scratch) == [before]


def test_undo_of_a_removal_recreates_the_event(call: Call, runners: CalendarRunners, scratch: str,
                                               stored: Callable[[str], list[str]]) -> None:
    created = call("create_event", key="a_undo3", title="Gym", start="2026-12-03T18:00", calendar=scratch)
    [before] = stored(scratch)
    event_id = created.summary.split("(id ")[1].split(")")[0]
    removed = call("cancel_event", event_id=event_id)
    assert stored(scratch) == []
    said = CalendarReverts(runners).revert(make_action("list_events", {"start": "2026-12-03"}), removed.undo)
    assert "Put “Gym” back" in said and stored(scratch) == [before]
