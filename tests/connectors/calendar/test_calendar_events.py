"""Reading, expanding and editing iCalendar data, and free/busy arithmetic: the pure cores."""

from __future__ import annotations

import time as clock
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from deputy.connectors.calendar.events import CalendarInfo, UnreadableEvent, expand
from deputy.connectors.calendar.freebusy import WorkingHours, busy_intervals, free_slots
from deputy.connectors.calendar.ical import EditProblem, NewEvent, build_event, cancel_occurrence, move, uid_for
from deputy.connectors.calendar.render import event_list, origin, when

BERLIN = ZoneInfo("Europe/Berlin")
UTC = timezone.utc
CAL = CalendarInfo(name="Personal", slug="personal")
NOW = datetime(2026, 11, 30, 7, tzinfo=UTC)


def vcal(*events: str) -> str:
    body = "".join(f"BEGIN:VEVENT\nDTSTAMP:20261101T000000Z\n{e.strip()}\nEND:VEVENT\n" for e in events)
    return f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n{body}END:VCALENDAR\n"


def window(first: str, last: str) -> tuple[datetime, datetime]:
    return datetime.fromisoformat(first).replace(tzinfo=BERLIN), datetime.fromisoformat(last).replace(tzinfo=BERLIN)


def test_utc_stored_event_is_shown_in_the_users_zone() -> None:
    text = vcal("UID:u1\nSUMMARY:Call\nDTSTART:20261203T080000Z\nDTEND:20261203T083000Z")
    [occurrence] = expand(text, CAL, *window("2026-12-03", "2026-12-04"), BERLIN)
    assert when(occurrence, BERLIN) == "Thu 2026-12-03 09:00–09:30"
    assert str(occurrence.ref) == "personal/u1" and not occurrence.recurring


def test_a_weekly_event_keeps_its_wall_clock_time_across_the_dst_change() -> None:
    text = vcal("UID:standup\nSUMMARY:Standup\nDTSTART;TZID=Europe/Berlin:20261019T090000\n"
                "DTEND;TZID=Europe/Berlin:20261019T091500\nRRULE:FREQ=WEEKLY;COUNT=3")
    found = expand(text, CAL, *window("2026-10-01", "2026-11-30"), BERLIN)
    assert [when(o, BERLIN)[-11:] for o in found] == ["09:00–09:15"] * 3
    # ... which is a different UTC hour after the clocks went back on 25 October.
    assert [o.span(BERLIN)[0].hour for o in found] == [7, 8, 8]
    assert [str(o.ref) for o in found][1] == "personal/standup/20261026T080000Z"


def test_recurrence_exceptions_and_moved_occurrences_are_honoured() -> None:
    text = vcal(
        "UID:gym\nSUMMARY:Gym\nDTSTART;TZID=Europe/Berlin:20261201T180000\nDTEND;TZID=Europe/Berlin:20261201T190000\n"
        "RRULE:FREQ=DAILY;COUNT=4\nEXDATE;TZID=Europe/Berlin:20261202T180000",
        "UID:gym\nRECURRENCE-ID;TZID=Europe/Berlin:20261203T180000\nSUMMARY:Gym (late)\n"
        "DTSTART;TZID=Europe/Berlin:20261203T200000\nDTEND;TZID=Europe/Berlin:20261203T210000",
    )
    found = expand(text, CAL, *window("2026-12-01", "2026-12-10"), BERLIN)
    assert [(o.title, when(o, BERLIN)) for o in found] == [
        ("Gym", "Tue 2026-12-01 18:00–19:00"),
        ("Gym (late)", "Thu 2026-12-03 20:00–21:00"),
        ("Gym", "Fri 2026-12-04 18:00–19:00"),
    ]
    # The moved occurrence keeps the id of its original slot.
    assert found[1].ref.occurrence == "20261203T170000Z"


def test_an_event_across_midnight_shows_in_both_days() -> None:
    text = vcal("UID:late\nSUMMARY:Concert\nDTSTART;TZID=Europe/Berlin:20261205T210000\n"
                "DTEND;TZID=Europe/Berlin:20261206T003000")
    assert expand(text, CAL, *window("2026-12-06", "2026-12-07"), BERLIN)
    [occurrence] = expand(text, CAL, *window("2026-12-05", "2026-12-06"), BERLIN)
    assert when(occurrence, BERLIN) == "Sat 2026-12-05 21:00 – Sun 2026-12-06 00:30"
    assert not expand(text, CAL, *window("2026-12-06T00:30", "2026-12-07"), BERLIN)


def test_all_day_and_floating_events() -> None:
    text = vcal(
        "UID:bday\nSUMMARY:Birthday\nDTSTART;VALUE=DATE:20261205\nDTEND;VALUE=DATE:20261206",
        "UID:trip\nSUMMARY:Trip\nDTSTART;VALUE=DATE:20261207\nDTEND;VALUE=DATE:20261210\nTRANSP:OPAQUE",
        "UID:float\nSUMMARY:Wake up\nDTSTART:20261205T070000\nDTEND:20261205T071500",
    )
    found = {o.title: o for o in expand(text, CAL, *window("2026-12-05", "2026-12-12"), BERLIN)}
    assert when(found["Birthday"], BERLIN) == "Sat 2026-12-05 all day"
    assert when(found["Trip"], BERLIN) == "Mon 2026-12-07 – Wed 2026-12-09 all day"
    assert when(found["Wake up"], BERLIN) == "Sat 2026-12-05 07:00–07:15 (floating time)"
    assert not found["Birthday"].busy and found["Trip"].busy and found["Wake up"].busy
    # The all-day event covers midnight to midnight of the user's zone.
    assert found["Birthday"].span(BERLIN)[0] == datetime(2026, 12, 4, 23, tzinfo=UTC)


def test_a_runaway_rule_costs_a_bounded_amount_of_work() -> None:
    hourly = vcal("UID:spam\nSUMMARY:Spam\nDTSTART:20261201T000000Z\nDURATION:PT1M\nRRULE:FREQ=HOURLY")
    started = clock.monotonic()
    assert len(expand(hourly, CAL, *window("2026-12-01", "2027-02-28"), BERLIN, limit=200)) == 200
    for freq in ("SECONDLY", "MINUTELY"):
        with pytest.raises(UnreadableEvent):
            expand(hourly.replace("FREQ=HOURLY", f"FREQ={freq}"), CAL, *window("2026-12-01", "2026-12-31"), BERLIN)
    assert clock.monotonic() - started < 2


@pytest.mark.parametrize("text", ["", "garbage", "BEGIN:VCALENDAR\nBEGIN:VEVENT\n", b"\xff\xfe\x00junk"])
def test_broken_objects_are_unreadable_not_crashes(text: str | bytes) -> None:
    with pytest.raises(UnreadableEvent):
        expand(text, CAL, *window("2026-12-01", "2026-12-31"), BERLIN)


def test_busy_intervals_merge_and_free_slots_respect_working_hours() -> None:
    text = vcal(
        "UID:a\nSUMMARY:A\nDTSTART;TZID=Europe/Berlin:20261201T100000\nDTEND;TZID=Europe/Berlin:20261201T110000",
        "UID:b\nSUMMARY:B\nDTSTART;TZID=Europe/Berlin:20261201T103000\nDTEND;TZID=Europe/Berlin:20261201T120000",
        "UID:c\nSUMMARY:Free\nTRANSP:TRANSPARENT\nDTSTART;TZID=Europe/Berlin:20261201T140000\n"
        "DTEND;TZID=Europe/Berlin:20261201T150000",
        "UID:d\nSUMMARY:Off\nSTATUS:CANCELLED\nDTSTART;TZID=Europe/Berlin:20261201T150000\n"
        "DTEND;TZID=Europe/Berlin:20261201T160000",
    )
    start, end = window("2026-12-01", "2026-12-02")
    busy = busy_intervals(expand(text, CAL, start, end, BERLIN), start, end, BERLIN)
    assert [(b.start.astimezone(BERLIN).hour, b.end.astimezone(BERLIN).hour, b.titles) for b in busy] == [
        (10, 12, ("A", "B"))
    ]
    hours = WorkingHours(time(9), time(17))
    slots = free_slots(busy, start, end, BERLIN, timedelta(minutes=90), hours)
    assert [(a.astimezone(BERLIN).hour, b.astimezone(BERLIN).hour) for a, b in slots] == [(12, 17)]
    slots = free_slots(busy, start, end, BERLIN, timedelta(minutes=60), hours)
    assert [(a.astimezone(BERLIN).hour, b.astimezone(BERLIN).hour) for a, b in slots] == [(9, 10), (12, 17)]
    assert [(a.hour, b.hour) for a, b in free_slots(busy, start, end, BERLIN, timedelta(minutes=60))] == [
        (23, 9), (11, 23)  # without working hours: the whole day, in UTC instants
    ]


def test_working_hours_skip_weekends_and_can_run_past_midnight() -> None:
    start, end = window("2026-12-04", "2026-12-08")  # Friday to Monday night
    day_slots = free_slots([], start, end, BERLIN, timedelta(hours=1), WorkingHours(time(9), time(17)))
    assert [a.astimezone(BERLIN).date().isoformat() for a, _ in day_slots] == ["2026-12-04", "2026-12-07"]
    night = free_slots([], start, end, BERLIN, timedelta(hours=1), WorkingHours(time(22), time(6), weekends=True))
    assert [(a.astimezone(BERLIN).strftime("%d %H"), b.astimezone(BERLIN).strftime("%d %H")) for a, b in night][:2] == [
        ("04 00", "04 06"), ("04 22", "05 06")
    ]


def test_free_time_on_the_fall_back_day_counts_real_hours() -> None:
    start, end = window("2026-10-25", "2026-10-26")  # 25 hours long in Berlin
    [(first, last)] = free_slots([], start, end, BERLIN, timedelta(minutes=30))
    assert last - first == timedelta(hours=25)


def test_a_new_event_is_written_with_its_zone_and_a_vtimezone() -> None:
    start = datetime(2026, 12, 3, 10, tzinfo=BERLIN)
    data = build_event(NewEvent(uid=uid_for("k"), title="Lunch; with Sam, and more", start=start,
                                end=start + timedelta(hours=1), location="Café Ü", description="line1\nline2",
                                attendees=("sam@example.com",), organizer="me@example.com"), NOW).decode()
    data = data.replace("\r\n ", "")  # unfold the 75-octet lines
    assert "DTSTART;TZID=Europe/Berlin:20261203T100000" in data
    assert "BEGIN:VTIMEZONE" in data and "TZID:Europe/Berlin" in data
    assert "ATTENDEE;PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;RSVP=TRUE:mailto:sam@example.com" in data
    assert "ORGANIZER;CN=me@example.com:mailto:me@example.com" in data
    [occurrence] = expand(data, CAL, *window("2026-12-03", "2026-12-04"), BERLIN)
    assert occurrence.title == "Lunch; with Sam, and more" and occurrence.location == "Café Ü"
    assert uid_for("k") == uid_for("k") != uid_for("k2")


def test_moving_keeps_the_real_duration_across_a_dst_change() -> None:
    text = vcal("UID:m\nSUMMARY:Meeting\nDTSTART:20261020T080000Z\nDTEND:20261020T093000Z")
    new_start = datetime(2026, 10, 25, 1, 30, tzinfo=BERLIN)  # the clocks go back at 03:00
    data, start, end = move(text, "m", None, new_start, None, NOW)
    assert end.astimezone(UTC) - start.astimezone(UTC) == timedelta(minutes=90)  # type: ignore[union-attr]
    assert "SEQUENCE:1" in data.decode()
    # The end is the second 02:00 of that night: only UTC can say which one.
    assert "DTEND:20261025T010000Z" in data.decode()
    [occurrence] = expand(data, CAL, *window("2026-10-25", "2026-10-26"), BERLIN)
    assert when(occurrence, BERLIN) == "Sun 2026-10-25 01:30–02:00 (UTC+01:00)"


def test_one_occurrence_of_a_series_can_be_moved_or_cancelled_but_not_the_whole_series() -> None:
    text = vcal("UID:s\nSUMMARY:Standup\nDTSTART;TZID=Europe/Berlin:20261130T093000\n"
                "DTEND;TZID=Europe/Berlin:20261130T094500\nRRULE:FREQ=DAILY;COUNT=5")
    with pytest.raises(EditProblem, match="repeating event"):
        move(text, "s", None, datetime(2026, 12, 1, 10, tzinfo=BERLIN), None, NOW)
    moved, _, _ = move(text, "s", "20261201T083000Z", datetime(2026, 12, 1, 11, tzinfo=BERLIN), None, NOW)
    cancelled = cancel_occurrence(moved, "s", "20261202T083000Z", NOW)
    assert cancelled is not None
    found = expand(cancelled, CAL, *window("2026-11-30", "2026-12-06"), BERLIN)
    assert [when(o, BERLIN) for o in found] == [
        "Mon 2026-11-30 09:30–09:45", "Tue 2026-12-01 11:00–11:15", "Thu 2026-12-03 09:30–09:45",
        "Fri 2026-12-04 09:30–09:45",
    ]
    with pytest.raises(EditProblem, match="isn't in the calendar"):
        cancel_occurrence(cancelled, "s", "20261202T083000Z", NOW)
    with pytest.raises(EditProblem):
        move(text, "s", "20261215T083000Z", datetime(2026, 12, 15, 11, tzinfo=BERLIN), None, NOW)
    # A new day alone keeps the occurrence's time of day and length.
    _, start, end = move(text, "s", "20261201T083000Z", date(2026, 12, 5), None, NOW)
    assert (start, end) == (datetime(2026, 12, 5, 9, 30, tzinfo=BERLIN), datetime(2026, 12, 5, 9, 45, tzinfo=BERLIN))


def test_the_list_is_bounded_and_says_whose_words_it_carries() -> None:
    events = [f"UID:e{i}\nSUMMARY:Event {i}\nORGANIZER:mailto:boss{i % 7}@corp.example\n"
              f"DESCRIPTION:{'long text ' * 100}\nDTSTART:20261201T{8 + i // 60:02d}{i % 60:02d}00Z\nDURATION:PT1M"
              for i in range(150)]
    start, end = window("2026-12-01", "2026-12-02")
    found = expand(vcal(*events), CAL, start, end, BERLIN)
    text = event_list(found, BERLIN, start, end, unreadable=2)
    assert len(text) <= 12_500
    assert "150" in text.splitlines()[0]
    assert "not shown" in text and "2 stored event(s) could not be read" in text
    assert text.count("long text") < 100 * 30  # descriptions are cut
    label = origin(found, own={"boss0@corp.example"})
    assert label.startswith("your calendar (events organised by boss1@corp.example") and "and 1 others" in label
    assert origin([], set()) == "your calendar (events with no outside organiser)"


def test_the_second_of_two_equal_wall_clock_times_is_written_in_utc() -> None:
    london = ZoneInfo("Europe/London")  # clocks go back from 02:00 BST to 01:00 GMT on 25 Oct 2026
    first = datetime(2026, 10, 25, 1, 30, tzinfo=london)
    second = first.replace(fold=1)
    data = build_event(NewEvent(uid="x", title="Night shift", start=first, end=second), NOW).decode()
    assert "DTSTART;TZID=Europe/London:20261025T013000" in data
    assert "DTEND:20261025T013000Z" in data
    [occurrence] = expand(data, CAL, *window("2026-10-24", "2026-10-26"), london)
    start, end = occurrence.span(london)
    assert end - start == timedelta(hours=1)
