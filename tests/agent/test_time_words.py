"""The time resolver: the user's words become the instant they meant, in their zone, or a question.

What a user would notice: "on Sunday" on a Tuesday lands on the coming Sunday (never the
Monday after, never a past day), "tomorrow at 14:00" is 14:00 on their own clock across a
daylight-saving change, "in two hours" is two real hours, and anything open to doubt is
asked about instead of guessed.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from deputy.agent.time.time_words import Resolved, Unclear, resolve_time

BERLIN, NEW_YORK = "Europe/Berlin", "America/New_York"


def at(zone: str, *parts: int) -> datetime:
    return datetime(*parts, tzinfo=ZoneInfo(zone))


def resolved(words: str, now: datetime, zone: str | None, **options) -> Resolved:
    result = resolve_time(words, now, zone, **options)
    assert isinstance(result, Resolved), f"{words!r}: {result}"
    return result


def question(words: str, now: datetime, zone: str | None, **options) -> str:
    result = resolve_time(words, now, zone, **options)
    assert isinstance(result, Unclear), f"{words!r} was resolved to {result}"
    return result.question


TUESDAY = at(BERLIN, 2026, 12, 1, 10, 0)  # Tue 1 Dec 2026, 10:00 CET


@pytest.mark.parametrize("words, expected", [
    ("on Sunday", date(2026, 12, 6)),
    ("Sunday", date(2026, 12, 6)),
    ("sun", date(2026, 12, 6)),
    ("on Monday", date(2026, 12, 7)),
    ("next Friday", date(2026, 12, 4)),
    ("this Tuesday", date(2026, 12, 1)),
    ("next Tuesday", date(2026, 12, 8)),
    ("tomorrow", date(2026, 12, 2)),
    ("the day after tomorrow", date(2026, 12, 3)),
    ("3 Dec", date(2026, 12, 3)),
    ("Thursday the 3rd", date(2026, 12, 3)),
    ("2026-12-24", date(2026, 12, 24)),
])
def test_a_day_without_a_time_is_that_whole_day_and_never_in_the_past(words, expected):
    result = resolved(words, TUESDAY, BERLIN)
    assert result.day == expected and result.at is None
    assert result.iso == expected.isoformat()


def test_on_sunday_sent_on_a_tuesday_is_the_coming_sunday_as_the_card_shows_it():
    result = resolved("on Sunday", TUESDAY, BERLIN)
    assert result.shown() == "Sun 6 Dec (all day)"


@pytest.mark.parametrize("words, expected", [
    ("Thursday after lunch", at(BERLIN, 2026, 12, 3, 13, 30)),
    ("Thursday at 13:30", at(BERLIN, 2026, 12, 3, 13, 30)),
    ("the 3rd at 9", at(BERLIN, 2026, 12, 3, 9, 0)),
    ("tomorrow at 14:00", at(BERLIN, 2026, 12, 2, 14, 0)),
    ("tomorrow at 2pm", at(BERLIN, 2026, 12, 2, 14, 0)),
    ("tomorrow at 2 p.m.", at(BERLIN, 2026, 12, 2, 14, 0)),
    ("Friday at 7 in the evening", at(BERLIN, 2026, 12, 4, 19, 0)),
    ("tomorrow morning", at(BERLIN, 2026, 12, 2, 9, 0)),
    ("tonight at 8", at(BERLIN, 2026, 12, 1, 20, 0)),
    ("Dec 3 at 9", at(BERLIN, 2026, 12, 3, 9, 0)),
    ("3 December 13:30", at(BERLIN, 2026, 12, 3, 13, 30)),
    ("in 3 days at 9", at(BERLIN, 2026, 12, 4, 9, 0)),
    ("at 4", at(BERLIN, 2026, 12, 1, 16, 0)),  # a bare 1-6 is the afternoon
    ("at 9", at(BERLIN, 2026, 12, 2, 9, 0)),  # 09:00 has passed today: tomorrow
    ("2026-12-03T14:00", at(BERLIN, 2026, 12, 3, 14, 0)),  # a bare ISO time is the user's wall clock
    ("Thursday 3 December 2026T14:00", at(BERLIN, 2026, 12, 3, 14, 0)),  # a model's day in words with ISO's "T"
    ("thursdayT14:00", at(BERLIN, 2026, 12, 3, 14, 0)),
])
def test_words_with_a_time_are_that_wall_clock_time_in_the_users_zone(words, expected):
    result = resolved(words, TUESDAY, BERLIN)
    assert result.at == expected and result.at.utcoffset() == expected.utcoffset()


def test_the_card_format_names_the_zone():
    assert resolved("Thursday after lunch", TUESDAY, BERLIN).shown() == "Thu 3 Dec 13:30 CET"
    assert resolved("Thursday after lunch", TUESDAY, BERLIN).iso == "2026-12-03T13:30+01:00"


def test_an_unset_zone_is_utc_and_says_so():
    now = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
    result = resolved("tomorrow at 14:00", now, None)
    assert result.at == datetime(2026, 12, 2, 14, 0, tzinfo=timezone.utc)
    assert result.shown() == "Wed 2 Dec 14:00 UTC"


def test_the_same_words_mean_the_same_wall_clock_in_each_users_zone():
    instant = datetime(2026, 12, 1, 16, 0, tzinfo=timezone.utc)  # 17:00 in Berlin, 11:00 in New York
    berlin = resolved("tomorrow at 14:00", instant, BERLIN)
    new_york = resolved("tomorrow at 14:00", instant, NEW_YORK)
    assert berlin.iso == "2026-12-02T14:00+01:00" and berlin.shown() == "Wed 2 Dec 14:00 CET"
    assert new_york.iso == "2026-12-02T14:00-05:00" and new_york.shown() == "Wed 2 Dec 14:00 EST"
    late = datetime(2026, 12, 2, 3, 0, tzinfo=timezone.utc)  # already Wednesday in Berlin, still Tuesday in New York
    assert resolved("tomorrow", late, BERLIN).day == date(2026, 12, 3)
    assert resolved("tomorrow", late, NEW_YORK).day == date(2026, 12, 2)


@pytest.mark.parametrize("words, minutes", [("in two hours", 120), ("in 2h", 120), ("in 90 mins", 90),
                                            ("in half an hour", 30), ("in an hour and a half", 90), ("now", 0)])
def test_an_amount_of_time_from_now_is_elapsed_time(words, minutes):
    assert resolved(words, TUESDAY, BERLIN).at.timestamp() - TUESDAY.timestamp() == minutes * 60


def test_deputys_own_format_reads_back_but_another_zones_name_is_asked_about():
    assert resolved("Thu 3 Dec 13:30 CET", TUESDAY, BERLIN).at == at(BERLIN, 2026, 12, 3, 13, 30)
    assert "couldn't tell" in question("Thu 3 Dec 13:30 EST", TUESDAY, BERLIN)


def test_a_bare_iso_instant_with_an_offset_keeps_its_instant():
    result = resolved("2026-12-03T14:00+05:00", TUESDAY, BERLIN)
    assert result.at == datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc)
    assert result.shown() == "Thu 3 Dec 10:00 CET"


# -- daylight saving ------------------------------------------------------------------

def test_tomorrow_at_14_across_the_spring_change_in_berlin_is_14_summer_time():
    saturday = at(BERLIN, 2026, 3, 28, 18, 0)  # clocks go forward the night after (Sun 29 Mar)
    result = resolved("tomorrow at 14:00", saturday, BERLIN)
    assert result.shown() == "Sun 29 Mar 14:00 CEST"
    assert result.at == datetime(2026, 3, 29, 12, 0, tzinfo=timezone.utc)
    # Twenty hours on the user's clock are nineteen real ones that night.
    assert result.at.timestamp() - saturday.timestamp() == timedelta(hours=19).total_seconds()


def test_tomorrow_at_14_across_the_autumn_change_in_berlin_is_14_winter_time():
    saturday = at(BERLIN, 2026, 10, 24, 18, 0)  # clocks go back on Sun 25 Oct
    result = resolved("tomorrow at 14:00", saturday, BERLIN)
    assert result.shown() == "Sun 25 Oct 14:00 CET"
    assert result.at == datetime(2026, 10, 25, 13, 0, tzinfo=timezone.utc)


def test_in_two_hours_across_a_change_is_two_real_hours():
    before = at(BERLIN, 2026, 3, 29, 1, 30)  # 02:00 becomes 03:00
    result = resolved("in two hours", before, BERLIN)
    assert result.at.timestamp() - before.timestamp() == 2 * 3600
    assert result.shown() == "Sun 29 Mar 04:30 CEST"
    evening = at(NEW_YORK, 2026, 10, 31, 23, 30)  # New York falls back at 02:00 on Sun 1 Nov
    later = resolved("in 3 hours", evening, NEW_YORK)
    assert later.at.timestamp() - evening.timestamp() == 3 * 3600
    assert later.shown() == "Sun 1 Nov 01:30 EST"  # the second 01:30 of that night


def test_a_skipped_wall_clock_time_is_asked_about_not_shifted():
    saturday = at(BERLIN, 2026, 3, 28, 12, 0)
    asked = question("tomorrow at 02:30", saturday, BERLIN)
    assert "does not exist" in asked and "03:30" in asked
    asked = question("2026-03-08T02:30", at(NEW_YORK, 2026, 3, 7, 12, 0), NEW_YORK)
    assert "does not exist" in asked


def test_a_repeated_wall_clock_time_is_the_first_of_the_two():
    saturday = at(NEW_YORK, 2026, 10, 31, 12, 0)
    result = resolved("tomorrow at 01:30", saturday, NEW_YORK)
    # 01:30 EDT, UTC-4 (compared as timestamps: Python never calls an ambiguous time equal across zones)
    assert result.at.timestamp() == datetime(2026, 11, 1, 5, 30, tzinfo=timezone.utc).timestamp()
    assert result.shown() == "Sun 1 Nov 01:30 EDT"


def test_a_weekday_across_the_new_york_spring_change_keeps_its_wall_clock():
    friday = at(NEW_YORK, 2026, 3, 6, 9, 0)  # EST; Sunday 8 Mar is the change
    result = resolved("Monday at 9", friday, NEW_YORK)
    assert result.shown() == "Mon 9 Mar 09:00 EDT"
    assert result.at == datetime(2026, 3, 9, 13, 0, tzinfo=timezone.utc)


# -- weekday on the same weekday, days of the month, month ends ------------------------

def test_a_weekday_said_on_that_weekday_is_asked_about():
    asked = question("on Tuesday", TUESDAY, BERLIN)
    assert "today (Tue 1 Dec)" in asked and "next Tuesday (Tue 8 Dec)" in asked
    assert resolved("next Tuesday at 9", TUESDAY, BERLIN).at == at(BERLIN, 2026, 12, 8, 9, 0)
    assert resolved("this Tuesday at 18:00", TUESDAY, BERLIN).at == at(BERLIN, 2026, 12, 1, 18, 0)


def test_the_3rd_said_on_the_5th_is_next_months():
    fifth = at(BERLIN, 2027, 1, 5, 12, 0)
    assert resolved("the 3rd at 9", fifth, BERLIN).at == at(BERLIN, 2027, 2, 3, 9, 0)
    assert resolved("the 7th", fifth, BERLIN).day == date(2027, 1, 7)


def test_the_day_of_the_month_said_on_that_day_is_asked_about():
    asked = question("the 3rd", at(BERLIN, 2026, 12, 3, 8, 0), BERLIN)
    assert "today (Thu 3 Dec)" in asked and "Sun 3 Jan" in asked


def test_month_ends_skip_months_without_that_day_and_roll_over_the_year():
    in_april = at(BERLIN, 2027, 4, 2, 9, 0)
    assert resolved("the 31st", in_april, BERLIN).day == date(2027, 5, 31)
    end_of_january = at(BERLIN, 2027, 1, 31, 9, 0)
    assert resolved("the 30th", end_of_january, BERLIN).day == date(2027, 3, 30)  # no 30 February
    new_years_eve = at(BERLIN, 2026, 12, 31, 22, 0)
    assert resolved("tomorrow at 10", new_years_eve, BERLIN).at == at(BERLIN, 2027, 1, 1, 10, 0)
    assert resolved("on Friday", new_years_eve, BERLIN).day == date(2027, 1, 1)
    assert resolved("3 Jan", new_years_eve, BERLIN).day == date(2027, 1, 3)
    leap = at(BERLIN, 2028, 2, 27, 9, 0)
    assert resolved("the 29th", leap, BERLIN).day == date(2028, 2, 29)
    assert "no 30 February" in question("30 Feb", leap, BERLIN)


# -- asking instead of guessing ----------------------------------------------------------

@pytest.mark.parametrize("words", ["next week", "sometime soon", "this weekend", "blah", "Thursday or Friday", ""])
def test_vague_or_unreadable_words_become_a_polite_question(words):
    asked = question(words, TUESDAY, BERLIN)
    assert asked.endswith("?")


def test_a_time_that_has_passed_is_asked_about_unless_reading_the_past():
    assert "already passed" in question("today at 9", TUESDAY, BERLIN)
    assert "already passed" in question("yesterday", TUESDAY, BERLIN)
    assert resolved("yesterday", TUESDAY, BERLIN, allow_past=True).day == date(2026, 11, 30)
    assert resolved("last Sunday", TUESDAY, BERLIN, allow_past=True).day == date(2026, 11, 29)


def test_a_weekday_that_does_not_match_the_date_is_asked_about():
    assert "is a Sunday, not a Monday" in question("Monday 6 Dec", TUESDAY, BERLIN)


def test_an_end_time_alone_falls_on_the_start_day():
    result = resolved("15:00", TUESDAY, BERLIN, on_day=date(2026, 12, 3))
    assert result.at == at(BERLIN, 2026, 12, 3, 15, 0)


# -- a start and an end in one breath ----------------------------------------------------------

SUNDAY_MORNING = datetime(2026, 12, 6, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))


@pytest.mark.parametrize(("words", "start", "end"), [
    ("Friday 9 to 11", "2026-12-11T09:00", "2026-12-11T11:00"),
    ("on Friday from 9 to 11", "2026-12-11T09:00", "2026-12-11T11:00"),
    ("Friday 9-11", "2026-12-11T09:00", "2026-12-11T11:00"),
    ("friday 9:30-10:15", "2026-12-11T09:30", "2026-12-11T10:15"),
    ("tomorrow 2 to 4pm", "2026-12-07T14:00", "2026-12-07T16:00"),
    ("monday 11 to 1pm", "2026-12-07T11:00", "2026-12-07T13:00"),
    ("friday between 2 and 4", "2026-12-11T14:00", "2026-12-11T16:00"),
    ("friday 10pm to 1am", "2026-12-11T22:00", "2026-12-12T01:00"),
    ("from 9am to 5pm tomorrow", "2026-12-07T09:00", "2026-12-07T17:00"),
])
def test_a_range_names_its_start_and_its_end(words: str, start: str, end: str) -> None:
    result = resolve_time(words, SUNDAY_MORNING, "Europe/Berlin")
    assert isinstance(result, Resolved), result
    assert result.iso.startswith(start)
    assert result.until is not None and result.until.isoformat().startswith(end)


@pytest.mark.parametrize(("words", "start"), [
    ("Friday 9", "2026-12-11T09:00"), ("dinner friday 8", "2026-12-11T20:00"), ("tonight 10", "2026-12-06T22:00"),
])
def test_an_hour_said_straight_after_the_day_is_that_days_hour(words: str, start: str) -> None:
    result = resolve_time(words, SUNDAY_MORNING, "Europe/Berlin")
    assert isinstance(result, Resolved) and result.iso.startswith(start) and result.until is None


@pytest.mark.parametrize("words", ["12-12", "friday 3-4 people", "Friday 11 December"])
def test_dates_and_counts_are_not_ranges(words: str) -> None:
    result = resolve_time(words, SUNDAY_MORNING, "Europe/Berlin")
    assert not (isinstance(result, Resolved) and result.until is not None)
