"""A tool call's times, resolved by code before it becomes an action.

The calendar's start and end, and an API's date fields, reach the guard and the executor as
the instants the user's words name in the user's zone: a zone the model made up is not
used, one the user named is; an end said as a clock time falls on the start's day; a date
field gets a date.
"""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

from deputy.agent.time.time_arguments import TimedArguments, invented_time, resolve_arguments, resolve_schedule, shown_times
from deputy.agent.time.time_words import Unclear
from deputy.connectors.calendar.operations import CREATE_EVENT, LIST_EVENTS
from deputy.connectors.openapi.importer import import_openapi
from deputy.connectors.openapi.document import parse_openapi

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=ZoneInfo("Europe/Berlin")).timestamp()  # Tue 1 Dec 2026

BOOKINGS = {
    "openapi": "3.0.3",
    "info": {"title": "Tables", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {"/bookings": {"post": {
        "operationId": "book_table",
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["date", "time", "party_size"],
            "properties": {"date": {"type": "string", "format": "date"},
                           "time": {"type": "string", "description": "HH:MM"},
                           "party_size": {"type": "integer"}}}}}},
        "responses": {"200": {"description": "booked"}},
    }}},
}


def timed(operation, raw, zone="Europe/Berlin", words=("",)) -> TimedArguments:
    result = resolve_arguments(operation, raw, NOW, zone, list(words))
    assert isinstance(result, TimedArguments), result
    return result


def test_start_and_end_become_instants_in_the_users_zone_and_the_end_falls_on_the_start_day():
    result = timed(CREATE_EVENT, {"title": "Dentist", "start": "Thursday after lunch", "end": "15:00"})
    assert result.arguments["start"] == "2026-12-03T13:30+01:00"
    assert result.arguments["end"] == "2026-12-03T15:00+01:00"
    assert result.arguments["timezone"] == "Europe/Berlin"
    assert result.when() == "Thu 3 Dec 13:30 CET"
    CREATE_EVENT.validate(result.arguments)  # what the executor checks again


def test_a_zone_the_model_named_is_used_only_when_the_user_said_it():
    made_up = timed(CREATE_EVENT, {"title": "Call", "start": "tomorrow at 9", "timezone": "America/New_York"},
                    words=["call the office tomorrow at 9"])
    assert made_up.arguments["start"] == "2026-12-02T09:00+01:00"
    assert made_up.arguments["timezone"] == "Europe/Berlin"
    said = timed(CREATE_EVENT, {"title": "Call", "start": "tomorrow at 9", "timezone": "America/New_York"},
                 words=["call the office tomorrow at 9 New York time"])
    assert said.arguments["start"] == "2026-12-02T09:00-05:00"
    assert said.arguments["timezone"] == "America/New_York"


def test_reading_the_calendar_may_look_back_but_writing_may_not():
    assert timed(LIST_EVENTS, {"start": "yesterday"}).arguments["start"] == "2026-11-30"
    past = resolve_arguments(CREATE_EVENT, {"title": "x", "start": "yesterday"}, NOW, "Europe/Berlin", [])
    assert isinstance(past, Unclear) and "already passed" in past.question


def test_reading_this_week_or_next_month_reads_their_days_but_a_write_asks():
    assert timed(LIST_EVENTS, {"start": "this week"}).arguments == {"start": "2026-11-30", "end": "2026-12-06"}
    assert timed(LIST_EVENTS, {"start": "next month"}).arguments == {"start": "2027-01-01", "end": "2027-01-31"}
    assert timed(LIST_EVENTS, {"start": "the weekend", "end": "the weekend"}).arguments == {
        "start": "2026-12-05", "end": "2026-12-06"}
    asked = resolve_arguments(CREATE_EVENT, {"title": "x", "start": "next week"}, NOW, "Europe/Berlin", [])
    assert isinstance(asked, Unclear) and "more than one day" in asked.question


def test_an_api_date_field_gets_the_date_the_words_name():
    [operation] = import_openapi(parse_openapi(json.dumps(BOOKINGS)), service="tables").operations
    assert operation.time_arguments == ("body.date",)
    raw = {"body": {"date": "on Friday", "time": "19:00", "party_size": 2}}
    result = timed(operation, raw)
    assert result.arguments["body"] == {"date": "2026-12-04", "time": "19:00", "party_size": 2}
    assert raw["body"]["date"] == "on Friday", "the model's call is left as it was"
    operation.validate(result.arguments)
    evening = timed(operation, {"body": {"date": "Friday at 7pm", "time": "19:00", "party_size": 2}})
    assert evening.arguments["body"]["date"] == "2026-12-04"
    # The answer after the booking names the day; the time is the API's own field, shown on the card.
    assert shown_times(operation, result.arguments, "Europe/Berlin", NOW) == "Fri 4 Dec"
    assert shown_times(CREATE_EVENT, timed(CREATE_EVENT, {"title": "x", "start": "Friday at 7pm"}).arguments,
                       "Europe/Berlin", NOW) == "Fri 4 Dec 19:00 CET"


def test_a_time_in_no_ones_words_is_invented():
    raw = {"title": "Bank", "start": "2026-12-03T10:00"}
    assert invented_time(CREATE_EVENT, raw, ["put calling the bank in my calendar"])
    assert not invented_time(CREATE_EVENT, raw, ["call the bank on Thursday at 10"])
    assert not invented_time(CREATE_EVENT, raw, ["put it in my calendar", "Appointment: 3 December, 10:00"])
    assert not invented_time(LIST_EVENTS, {"start": "2026-12-03"}, ["what's in my calendar"])


def test_reminders_in_words_get_their_instants_and_iso_stays_for_the_monitor():
    resolved = resolve_schedule({"what": "call mum", "at": "on Sunday", "until": "Friday",
                                 "probe": {"tool": "search_email", "remind_if_none_by": "Thursday at 17:00"}},
                                NOW, "Europe/Berlin")
    assert resolved["at"] == "2026-12-06T09:00+01:00"  # a day alone: that morning
    assert resolved["until"] == "2026-12-05T00:00+01:00"  # until Friday: to its end
    assert resolved["probe"]["remind_if_none_by"] == "2026-12-03T17:00+01:00"
    assert resolve_schedule({"what": "x", "at": "2026-03-29T02:30"}, NOW, "Europe/Berlin")["at"] == "2026-03-29T02:30"
    assert isinstance(resolve_schedule({"what": "x", "at": "next week"}, NOW, "Europe/Berlin"), Unclear)


def test_the_users_own_words_win_over_a_date_the_model_worked_out_wrongly():
    # Asked on Tuesday 1 Dec for "Thursday at 14:00", a small model wrote today's date, and an end
    # equal to its start. The card and the calendar get Thursday 3 Dec 14:00, the user's time.
    words = ["Block Thursday at 14:00 for the plumber"]
    result = timed(CREATE_EVENT, {"title": "Plumber", "start": "2026-12-01T14:00", "end": "2026-12-01T14:00"},
                   words=words)
    assert result.arguments["start"] == "2026-12-03T14:00+01:00"
    assert "end" not in result.arguments  # the model's end came from the same arithmetic
    CREATE_EVENT.validate(result.arguments)


def test_a_model_date_that_matches_the_users_words_or_no_clear_words_is_left_alone():
    right = timed(CREATE_EVENT, {"title": "Plumber", "start": "2026-12-03T14:00", "end": "2026-12-03T15:00"},
                  words=["Block Thursday at 14:00 for the plumber"])
    assert (right.arguments["start"], right.arguments["end"]) == ("2026-12-03T14:00+01:00", "2026-12-03T15:00+01:00")
    # "Thursday" alone names no instant: the model's time stands, for the usual checks to judge.
    day_only = timed(CREATE_EVENT, {"title": "Plumber", "start": "2026-12-03T09:00"}, words=["plumber on Thursday"])
    assert day_only.arguments["start"] == "2026-12-03T09:00+01:00"
    # The user typed the ISO date themselves: it is theirs.
    typed = timed(CREATE_EVENT, {"title": "Plumber", "start": "2026-12-04T09:00"},
                  words=["add plumber 2026-12-04T09:00 please, not thursday at 14:00"])
    assert typed.arguments["start"] == "2026-12-04T09:00+01:00"


def test_an_end_written_as_the_start_itself_gives_the_default_length_not_a_refusal():
    result = timed(CREATE_EVENT, {"title": "Dentist", "start": "2026-12-03T09:00", "end": "2026-12-03T09:00"},
                   words=["Add a dentist appointment to my calendar on 3 December 2026 at 9:00"])
    assert result.arguments["start"] == "2026-12-03T09:00+01:00" and "end" not in result.arguments
    CREATE_EVENT.validate(result.arguments)


def test_a_length_of_no_minutes_gives_the_default_length_not_a_refusal():
    result = timed(CREATE_EVENT, {"title": "Yoga", "start": "2026-12-08T07:30", "duration_minutes": 0},
                   words=["Add yoga next Tuesday at 7:30 in the morning"])
    assert "duration_minutes" not in result.arguments
    CREATE_EVENT.validate(result.arguments)
    kept = timed(CREATE_EVENT, {"title": "Yoga", "start": "2026-12-08T07:30", "duration_minutes": 45},
                 words=["Add yoga next Tuesday at 7:30 for 45 minutes"])
    assert kept.arguments["duration_minutes"] == 45


def test_a_read_of_one_moment_reads_the_day_the_user_named():
    # "Cancel tomorrow's team lunch": the model listed today from 12:00 to 12:00, which finds nothing.
    listed = timed(LIST_EVENTS, {"start": "2026-12-01T12:00", "end": "2026-12-01T12:00"},
                   words=["Cancel tomorrow's team lunch"])
    assert (listed.arguments["start"], listed.arguments["end"]) == ("2026-12-02", "2026-12-02")
    LIST_EVENTS.validate(listed.arguments)
    week = timed(LIST_EVENTS, {"start": "2026-12-01", "end": "2026-12-01"}, words=["What's on my calendar this week?"])
    assert (week.arguments["start"], week.arguments["end"]) == ("2026-11-30", "2026-12-06")
    # With no day in the user's words, the moment the model chose is read as its whole day.
    moment = timed(LIST_EVENTS, {"start": "2026-12-04T11:00", "end": "2026-12-04T11:00"}, words=["Move my dentist"])
    assert (moment.arguments["start"], moment.arguments["end"]) == ("2026-12-04", "2026-12-04")


def test_a_date_the_model_wrote_among_words_still_gives_way_to_the_users_words():
    result = timed(CREATE_EVENT, {"title": "Yoga", "start": "Tuesday 2026-12-02T07:30:00"},
                   words=["Add yoga next Tuesday at 7:30 in the morning"])
    assert result.arguments["start"] == "2026-12-08T07:30+01:00"


def test_a_read_over_days_the_model_worked_out_reads_the_day_the_user_named():
    # "What do I have on Wednesday?", asked on a Tuesday: the model listed Tuesday, all day.
    listed = timed(LIST_EVENTS, {"start": "2026-12-01T00:00:00", "end": "2026-12-01T23:59:59"},
                   words=["What do I have on Wednesday?"])
    assert (listed.arguments["start"], listed.arguments["end"]) == ("2026-12-02", "2026-12-02")
    # A range in the user's own words is theirs and stays.
    kept = timed(LIST_EVENTS, {"start": "tomorrow", "end": "Friday"}, words=["What do I have from tomorrow to Friday?"])
    assert kept.arguments["end"].startswith("2026-12-04")


def test_a_read_over_dates_the_model_wrote_in_words_reads_the_day_the_user_named():
    # "am I free friday afternoon?" asked on a Tuesday: the model wrote its own dates, in words, and wrong.
    from deputy.connectors.calendar.operations import FREE_BUSY

    free = timed(FREE_BUSY, {"start": "Wednesday 02 December 2026 15:00", "end": "Friday 02 December 2026 17:00"},
                 words=["am I free friday afternoon?"])
    assert (free.arguments["start"], free.arguments["end"]) == ("2026-12-04", "2026-12-04")
    # Words the user said themselves are theirs, and stay.
    kept = timed(FREE_BUSY, {"start": "friday", "end": "friday"}, words=["am I free friday?"])
    assert kept.arguments["start"].startswith("2026-12-04")


def test_a_weekday_the_model_wrote_in_words_gives_way_to_the_users_own_day_on_a_write():
    # "Block Friday 9 to 11 for focus time", the model writing Thursday in words for the start and the end.
    result = timed(CREATE_EVENT, {"title": "Focus time", "start": "thursday at 9", "end": "thursday at 11"},
                   words=["Block Friday 9 to 11 for focus time"])
    assert result.arguments["start"].startswith("2026-12-04T09:00")
    assert result.arguments.get("end", "2026-12-04T11:00").startswith("2026-12-04T11:00")


def test_a_follow_up_moving_the_earlier_event_to_a_bare_hour_keeps_the_new_time_on_that_day():
    # "Thursday at 3 pm" was the earlier request's time; "move it to 4 instead" is the new one. The
    # model's Thursday 16:00 stands: the earlier words do not pull it back to 15:00, nor "4" to today.
    from deputy.connectors.calendar.operations import MOVE_EVENT

    words = ["Put the yoga class on my calendar for Thursday at 3 pm.", "move it to 4 instead"]
    moved = timed(MOVE_EVENT, {"event_id": "personal/x@deputy", "start": "2026-12-03T16:00"}, words=words)
    assert moved.arguments["start"] == "2026-12-03T16:00+01:00"
    # A day said in the new words still wins over a day the model worked out wrongly.
    fixed = timed(MOVE_EVENT, {"event_id": "personal/x@deputy", "start": "2026-12-02T16:00"},
                  words=[words[0], "move it to Friday at 4 pm instead"])
    assert fixed.arguments["start"] == "2026-12-04T16:00+01:00"


def test_a_clock_time_alone_still_corrects_a_day_the_user_never_named():
    # "at 14:00" with no day anywhere in the user's words: the model's Friday is its own arithmetic.
    result = timed(CREATE_EVENT, {"title": "Plumber", "start": "2026-12-04T14:00"},
                   words=["Block 14:00 for the plumber"])
    assert result.arguments["start"] == "2026-12-01T14:00+01:00"


def test_a_read_over_a_part_of_the_day_reads_that_stretch_of_the_day():
    # "am I free friday afternoon?": the model copied the user's words into the start and the end alike.
    from deputy.connectors.calendar.operations import FREE_BUSY

    free = timed(FREE_BUSY, {"start": "friday afternoon", "end": "friday afternoon"},
                 words=["am I free friday afternoon?"])
    assert (free.arguments["start"], free.arguments["end"]) == ("2026-12-04T12:00+01:00", "2026-12-04T18:00+01:00")
    FREE_BUSY.validate(free.arguments)
    evening = timed(LIST_EVENTS, {"start": "tomorrow evening"}, words=["what's on tomorrow evening"])
    assert (evening.arguments["start"], evening.arguments["end"]) == ("2026-12-02T17:00+01:00", "2026-12-02T23:59+01:00")
    spanish = timed(LIST_EVENTS, {"start": "mañana por la tarde", "end": "mañana por la tarde"},
                    words=["¿tengo algo mañana por la tarde?"])
    assert spanish.arguments["start"].startswith("2026-12-02T") and spanish.arguments["end"] > spanish.arguments["start"]
    # A clock time beside the part is a moment, not a stretch; a write is never stretched.
    at_three = timed(LIST_EVENTS, {"start": "friday at 3 in the afternoon"}, words=["anything friday at 3 in the afternoon?"])
    assert at_three.arguments["start"] == "2026-12-04T15:00+01:00"
    event = timed(CREATE_EVENT, {"title": "Walk", "start": "friday afternoon"}, words=["walk friday afternoon"])
    assert event.arguments["start"] == "2026-12-04T15:00+01:00"


def test_a_span_said_as_the_end_of_a_read_reads_the_span():
    # "how many work meetings do I have next week": the model started at a date it worked out and ended at "next week".
    from deputy.connectors.calendar.operations import FREE_BUSY

    counted = timed(FREE_BUSY, {"start": "Friday 11 December 2026", "end": "next week"},
                    words=["how many work meetings do I have next week"])
    assert (counted.arguments["start"], counted.arguments["end"]) == ("2026-12-07", "2026-12-13")
    listed = timed(LIST_EVENTS, {"end": "this week"}, words=["what's left this week"])
    assert (listed.arguments["start"], listed.arguments["end"]) == ("2026-11-30", "2026-12-06")
    # A start the user said themselves stays theirs: "from tomorrow to next week" is not next week alone.
    kept = resolve_arguments(LIST_EVENTS, {"start": "tomorrow", "end": "next week"}, NOW, "Europe/Berlin",
                             ["anything from tomorrow to next week?"])
    assert not isinstance(kept, TimedArguments) or kept.arguments["start"].startswith("2026-12-02")


def test_a_search_of_a_day_searches_the_day_the_user_named():
    # "a table for 3 at an indian restaurant in london, thursday 7pm", asked on a Tuesday: the model searched today.
    spec = {"openapi": "3.0.3", "info": {"title": "Tables", "version": "1"}, "servers": [{"url": "http://127.0.0.1:9"}],
            "paths": {"/restaurants": {"get": {"operationId": "search", "responses": {"200": {"description": "ok"}},
                                               "parameters": [{"name": "date", "in": "query",
                                                               "schema": {"type": "string", "format": "date"}}]}}}}
    search = import_openapi(parse_openapi(json.dumps(spec)), service="restaurants").operations[0]
    assert search.time_arguments
    found = timed(search, {"date": "2026-12-01"}, words=["a table for 3 at an indian restaurant in london, thursday 7pm"])
    assert found.arguments["date"] == "2026-12-03"
    kept = timed(search, {"date": "2026-12-03"}, words=["a table for 3, thursday 7pm"])
    assert kept.arguments["date"] == "2026-12-03"
