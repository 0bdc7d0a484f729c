"""Deadlines in the user's words, resolved by code in their zone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from deputy.agent.time.deadline_words import resolve_deadline

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 2, 9, 0, tzinfo=BERLIN).timestamp()  # a Wednesday


@pytest.mark.parametrize("words,expected", [
    ("by Friday", datetime(2026, 12, 4, 23, 59)),
    ("before the 15th", datetime(2026, 12, 15, 0, 0)),
    ("by end of month", datetime(2026, 12, 31, 23, 59)),
    ("in 3 days", datetime(2026, 12, 5, 23, 59)),
    ("by 5pm tomorrow", datetime(2026, 12, 3, 17, 0)),
    ("within 2 hours", datetime(2026, 12, 2, 11, 0)),
    ("until Dec 20", datetime(2026, 12, 20, 23, 59)),
])
def test_the_ways_people_say_a_deadline(words: str, expected: datetime) -> None:
    assert resolve_deadline(words, NOW, "Europe/Berlin") == expected.replace(tzinfo=BERLIN).timestamp()


def test_words_that_name_no_time_are_no_deadline_and_vague_ones_are_a_question() -> None:
    assert resolve_deadline("by email", NOW, "Europe/Berlin") is None
    assert resolve_deadline("in person", NOW, "Europe/Berlin") is None
    assert "which day" in resolve_deadline("by the weekend", NOW, "Europe/Berlin")
