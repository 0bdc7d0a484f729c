"""A bare hour said as where something moves is a clock time; other bare numbers stay numbers."""

from __future__ import annotations

from datetime import date, time

from deputy.agent.time.moved_hours import with_moved_hours
from deputy.agent.time.said_times import said_times

NOW = 1_796_119_200.0  # Tue 1 Dec 2026 10:00 UTC


def test_a_bare_hour_something_moves_to_reads_as_that_hour():
    assert with_moved_hours("move it to 4 instead") == "move it to at 4 instead"
    assert with_moved_hours("make it 6 instead") == "make it at 6 instead"
    assert with_moved_hours("push it to 5.") == "push it to at 5."
    assert with_moved_hours("4 instead") == "at 4 instead"


def test_other_numbers_stay_numbers():
    for words in ("make it 4 people", "table 4 instead", "move it to 4:30", "make it 2 instead of 3",
                  "move it to 4pm instead", "room 12"):
        assert with_moved_hours(words) == words


def test_the_guard_reads_the_new_hour_on_the_day_the_user_named_before():
    said = said_times(["Put the yoga class on my calendar for Thursday at 3 pm.", "move it to 4 instead"], NOW, "UTC")
    assert {(s.day, s.start) for s in said} == {(date(2026, 12, 3), time(15, 0)), (None, time(16, 0))}
