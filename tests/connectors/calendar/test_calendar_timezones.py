"""Time zones, event ids and argument validation: the pure rules the calendar connector follows."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from deputy.connectors.calendar.arguments import CreateEventArgs, FreeBusyArgs, ListEventsArgs, MeetingArgs, MoveEventArgs
from deputy.connectors.calendar.ids import BadEventId, EventRef, occurrence_key, parse_event_id, parse_occurrence
from deputy.connectors.calendar.timezones import (
    TimeProblem,
    localize,
    parse_moment,
    repeated,
    resolve,
    show,
    skipped,
    stored_in,
    zone_named,
)
from deputy.connectors.catalog import InvalidArguments

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def test_dates_and_times_are_parsed_strictly() -> None:
    assert parse_moment("2026-12-03") == date(2026, 12, 3)
    assert parse_moment(" 2026-12-03T10:00 ") == datetime(2026, 12, 3, 10, 0)
    assert parse_moment("2026-12-03 10:00:30") == datetime(2026, 12, 3, 10, 0, 30)
    assert parse_moment("2026-12-03T10:00Z") == datetime(2026, 12, 3, 10, tzinfo=timezone.utc)
    assert parse_moment("2026-12-03T10:00+05:30").utcoffset() == timedelta(hours=5, minutes=30)
    bad_inputs = ["tomorrow", "2026-13-01", "2026-02-30T10:00", "2026-12-03T25:00", "03/12/2026",
                  "2026-12-03T10:00+19:00", ""]
    for bad in bad_inputs:
        with pytest.raises(TimeProblem):
            parse_moment(bad)


def test_only_real_iana_zones_are_accepted() -> None:
    assert zone_named("Europe/Berlin").key == "Europe/Berlin"
    assert zone_named("UTC").key == "UTC"
    for bad in ["Mars/Olympus", "../../etc/passwd", "Europe/Berlin\n", "", "CEST!"]:
        with pytest.raises(TimeProblem):
            zone_named(bad)


def test_a_skipped_wall_clock_time_is_refused_with_a_plain_reason() -> None:
    # 2026-03-29: Berlin's clocks jump from 02:00 to 03:00.
    wall = datetime(2026, 3, 29, 2, 30)
    assert skipped(wall, BERLIN)
    with pytest.raises(TimeProblem) as caught:
        localize(wall, BERLIN)
    message = str(caught.value)
    assert "does not exist in Europe/Berlin" in message
    assert "skip forward one hour" in message
    assert "03:30" in message  # a concrete suggestion


def test_a_repeated_wall_clock_time_means_the_first_one_and_an_offset_picks_the_second() -> None:
    # 2026-11-01: New York's clocks go back from 02:00 EDT to 01:00 EST.
    wall = datetime(2026, 11, 1, 1, 30)
    assert repeated(wall, NEW_YORK)
    first = localize(wall, NEW_YORK)
    assert first.utcoffset() == timedelta(hours=-4)
    second = resolve(parse_moment("2026-11-01T01:30-05:00"), NEW_YORK)  # type: ignore[arg-type]
    assert second.utcoffset() == timedelta(hours=-5)
    assert second.astimezone(timezone.utc) - first.astimezone(timezone.utc) == timedelta(hours=1)
    # Shown with its offset, so the two are told apart.
    assert show(first, NEW_YORK) == "Sun 2026-11-01 01:30 (UTC-04:00)"
    assert show(second, NEW_YORK) == "Sun 2026-11-01 01:30 (UTC-05:00)"
    assert show(datetime(2026, 11, 1, 12, tzinfo=NEW_YORK), NEW_YORK) == "Sun 2026-11-01 12:00"


def test_stored_times_follow_rfc5545_utc_converts_and_floating_is_the_users_wall_clock() -> None:
    assert stored_in(datetime(2026, 3, 29, 2, 30), BERLIN).strftime("%H:%M %z") == "03:30 +0200"
    assert stored_in(datetime(2026, 12, 3, 8, tzinfo=timezone.utc), BERLIN).strftime("%H:%M") == "09:00"
    assert stored_in(datetime(2026, 12, 3, 9), NEW_YORK).strftime("%H:%M %z") == "09:00 -0500"


def test_event_ids_round_trip_even_with_slashes_and_unicode_in_the_uid() -> None:
    for ref in [
        EventRef("personal", "abc-123@google.com"),
        EventRef("work", "weird/uid with spaces/ünïcode", "20261203T080000Z"),
        EventRef("cal-0123456789", "x", "20261203"),
        EventRef("home", "floating", "20261203T090000"),
    ]:
        assert parse_event_id(str(ref)) == ref
    assert str(EventRef("personal", "a/b")) == "personal/a%2Fb"


@pytest.mark.parametrize("text", [
    "", "nouid", "personal/", "/uid", "per sonal/uid", "personal/uid/notadate", "personal/uid/20261399",
    "a/b/c/d", "personal/%ff%fe", "personal/%0Aevil", "x" * 700,
])
def test_anything_else_is_not_an_event_id(text: str) -> None:
    with pytest.raises(BadEventId):
        parse_event_id(text)


def test_occurrence_keys_are_utc_floating_or_dates() -> None:
    assert occurrence_key(datetime(2026, 12, 3, 9, tzinfo=BERLIN)) == "20261203T080000Z"
    assert occurrence_key(datetime(2026, 12, 3, 9)) == "20261203T090000"
    assert occurrence_key(date(2026, 12, 3)) == "20261203"
    assert parse_occurrence("20261203T080000Z") == datetime(2026, 12, 3, 8, tzinfo=timezone.utc)


def test_arguments_are_checked_before_anything_runs() -> None:
    ok = CreateEventArgs.model_validate({"title": " Lunch \n with  Sam ", "start": "2026-12-03T12:00"})
    assert ok.title == "Lunch with Sam"
    bad = [
        {"title": "x", "start": "2026-12-03T12:00", "end": "2026-12-03T11:00"},
        {"title": "x", "start": "2026-12-03T12:00", "end": "2026-12-03T13:00", "duration_minutes": 60},
        {"title": "x", "start": "2026-12-03", "duration_minutes": 60},
        {"title": "x", "start": "2026-12-03T12:00", "end": "2026-12-04"},
        {"title": "x", "start": "2026-12-03T12:00", "timezone": "Nowhere/Land"},
        {"title": "", "start": "2026-12-03T12:00"},
        {"title": "x" * 201, "start": "2026-12-03T12:00"},
        {"title": "x", "start": "2026-12-03T12:00", "end": "2027-03-03T12:00"},
        {"title": "x", "start": "2026-12-03T12:00", "colour": "red"},
        {"title": "x", "start": "2026-12-03T12:00", "description": "a\x00b"},
        # Caught at validation when the zone is known: the DST gap.
        {"title": "x", "start": "2026-03-29T02:30", "timezone": "Europe/Berlin"},
    ]
    for raw in bad:
        with pytest.raises(ValueError):
            CreateEventArgs.model_validate(raw)


def test_invitations_go_through_schedule_meeting_only() -> None:
    with pytest.raises(ValueError, match="schedule_meeting"):
        CreateEventArgs.model_validate({"title": "x", "start": "2026-12-03T12:00", "attendees": ["a@b.example"]})
    with pytest.raises(ValueError, match="at least one attendee"):
        MeetingArgs.model_validate({"title": "x", "start": "2026-12-03T12:00"})
    meeting = MeetingArgs.model_validate(
        {"title": "x", "start": "2026-12-03T12:00", "attendees": "Sam@Example.COM"}
    )
    assert meeting.attendees == ["Sam@example.com"]
    for bad in ["not an address", "a@b", "évil@exämple.com", "a@b.example\r\nBcc: x@y.example"]:
        with pytest.raises(ValueError):
            MeetingArgs.model_validate({"title": "x", "start": "2026-12-03T12:00", "attendees": [bad]})
    with pytest.raises(ValueError):
        MeetingArgs.model_validate({"title": "x", "start": "2026-12-03T12:00", "attendees": ["a@b.example"] * 51})


def test_ranges_and_working_hours_have_limits() -> None:
    assert ListEventsArgs.model_validate({"start": "2026-12-01", "end": "2026-12-31"}).end == "2026-12-31"
    with pytest.raises(ValueError, match="at most 92 days"):
        ListEventsArgs.model_validate({"start": "2026-01-01", "end": "2026-12-31"})
    with pytest.raises(ValueError, match="after start"):
        ListEventsArgs.model_validate({"start": "2026-12-02", "end": "2026-12-01"})
    args = FreeBusyArgs.model_validate({"start": "2026-12-01", "end": "2026-12-05", "working_hours": "9:00-17:30"})
    assert [t.isoformat() for t in args.hours() or ()] == ["09:00:00", "17:30:00"]
    for hours in ["9-5", "09:00-09:00", "25:00-26:00", "nine to five"]:
        with pytest.raises(ValueError):
            FreeBusyArgs.model_validate({"start": "2026-12-01", "end": "2026-12-02", "working_hours": hours})
    with pytest.raises(ValueError):
        FreeBusyArgs.model_validate({"start": "2026-12-01", "end": "2026-12-02", "min_minutes": 2})
    with pytest.raises(ValueError, match="event id"):
        MoveEventArgs.model_validate({"event_id": "the dentist one", "start": "2026-12-03T10:00"})


def test_the_catalog_turns_bad_arguments_into_a_message_for_the_model() -> None:
    from deputy.connectors.calendar.operations import CREATE_EVENT

    with pytest.raises(InvalidArguments) as caught:
        CREATE_EVENT.validate({"title": "Run", "start": "2026-03-29T02:15", "timezone": "Europe/Berlin"})
    assert "does not exist in Europe/Berlin" in str(caught.value)
