"""The days and times in the user's words, read by Deputy's own resolver for the guard to compare."""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from deputy.agent.time.said_times import said_times
from deputy.sentinel.said_values import fits

SUNDAY = datetime(2026, 12, 6, 8, 30, tzinfo=ZoneInfo("Europe/Berlin"))


def test_friday_9_to_11_texted_on_a_sunday_is_the_coming_friday_from_9_to_11() -> None:
    said = said_times(["put a team meeting in my calendar for Friday 9 to 11"], SUNDAY.timestamp(), "Europe/Berlin")
    span = next(s for s in said if s.end is not None)
    assert (span.day, span.start, span.end) == (date(2026, 12, 11), time(9), time(11))
    assert span.shown() == "Fri 11 Dec 09:00–11:00"
    assert fits(datetime(2026, 12, 11, 9, tzinfo=ZoneInfo("Europe/Berlin")), said)
    assert not fits(datetime(2026, 12, 6, 9, tzinfo=ZoneInfo("Europe/Berlin")), said)  # that Sunday


def test_a_written_date_and_a_clock_time_in_one_message_are_both_read() -> None:
    said = said_times(["check event e4, invite carol@example.net on 2026-12-08 from 15:00 to 15:30, and add "
                       "Read the agenda on 2026-12-07 at 09:00"], SUNDAY.timestamp(), "Europe/Berlin")
    assert fits(datetime(2026, 12, 7, 9, tzinfo=ZoneInfo("Europe/Berlin")), said)
    assert fits(datetime(2026, 12, 8, 15, tzinfo=ZoneInfo("Europe/Berlin")), said)
    assert not fits(datetime(2026, 12, 9, 9, tzinfo=ZoneInfo("Europe/Berlin")), said)


def test_words_without_a_time_name_none() -> None:
    assert said_times(["email bob@example.com that I'll be late"], SUNDAY.timestamp(), "Europe/Berlin") == []
