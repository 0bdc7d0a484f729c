"""The conventions Deputy follows when a user's words for a time leave something open.

One place, so the resolver, its tests and the documentation say the same thing:

- **Parts of the day** are fixed clock times (`PARTS_OF_DAY`): "after lunch" is 13:30,
  "in the morning" 09:00, "tonight" 20:00.
- **A bare hour** ("at 9", "the 3rd at 4") without am/pm: 1 to 6 mean the afternoon
  (13:00-18:00), 7 to 12 mean the morning as written; a part of the day that says evening or
  afternoon ("at 7 in the evening", "tonight at 8") turns it into the afternoon or evening.
- **A weekday** ("on Sunday", "next Friday") is the coming one, never a day in the past:
  "on Sunday" on a Tuesday is in five days. Said on that same weekday it could mean today or
  a week from today, so Deputy asks; "this <weekday>" then means today and "next <weekday>"
  a week from today.
- **A day of the month** ("the 3rd") is the next one to come: said on the 5th it is the 3rd
  of next month (a month without that day is skipped: "the 31st" in April is 31 May). Said on
  that very day, Deputy asks whether today or next month is meant.
- **A date without a year** ("3 Dec") is the next one to come: today, or later this year,
  else next year.
- **A time without a day** ("at 14:00") is today if it is still to come, else tomorrow.
- **A day without a time** ("on Sunday") is the whole day (an all-day calendar entry); a
  reminder or check on such a day comes at `REMINDER_TIME` (09:00), and checking "until
  Friday" goes on to the end of Friday.
- **A span** ("this week", "next month", "the weekend") is asked about when a write needs one
  day, and read as its days when reading the calendar: a week is Monday to Sunday, a month
  its first to last day, the weekend the coming Saturday and Sunday.
- **"In two hours"** is elapsed time (across a daylight-saving change too); "tomorrow at
  14:00" is the wall clock (14:00 whatever the change).
- **A wall-clock time the clocks skip** (02:30 on the last Sunday of March in Berlin) is
  not guessed: Deputy asks. One that happens twice (the October change) is the first.
- **The zone** is the user's (`/settings timezone`), UTC when they set none; every time
  Deputy shows carries the zone's short name ("Thu 3 Dec 13:30 CET").
"""

from __future__ import annotations

from datetime import time

PARTS_OF_DAY: dict[str, time] = {
    "early morning": time(7, 0),
    "morning": time(9, 0),
    "before lunch": time(11, 30),
    "lunchtime": time(12, 30),
    "lunch": time(12, 30),
    "after lunch": time(13, 30),
    "noon": time(12, 0),
    "midday": time(12, 0),
    "afternoon": time(15, 0),
    "end of the day": time(17, 0),
    "end of day": time(17, 0),
    "after work": time(18, 0),
    "evening": time(19, 0),
    "dinner": time(19, 0),
    "tonight": time(20, 0),
    "night": time(21, 0),
    "midnight": time(0, 0),
}
"""What a part of the day means as a clock time."""

PARTS_OF_DAY_READ: dict[str, tuple[time, time]] = {
    "early morning": (time(5, 0), time(9, 0)),
    "morning": (time(6, 0), time(12, 0)),
    "before lunch": (time(9, 0), time(12, 0)),
    "lunchtime": (time(12, 0), time(14, 0)),
    "lunch": (time(12, 0), time(14, 0)),
    "after lunch": (time(13, 0), time(18, 0)),
    "afternoon": (time(12, 0), time(18, 0)),
    "end of the day": (time(16, 0), time(19, 0)),
    "end of day": (time(16, 0), time(19, 0)),
    "after work": (time(17, 0), time(23, 59)),
    "evening": (time(17, 0), time(23, 59)),
    "dinner": (time(18, 0), time(22, 0)),
    "tonight": (time(17, 0), time(23, 59)),
    "night": (time(20, 0), time(23, 59)),
}
"""What "am I free Friday afternoon?" reads: the stretch of the day a part names, not its one clock time
(15:00 is where an event said for "the afternoon" starts; a read from 15:00 to 15:00 finds nothing)."""

AFTERNOON_PARTS = frozenset({"afternoon", "after lunch", "after work", "evening", "dinner", "tonight", "night"})
"""Parts of the day after which a bare hour ("at 7 in the evening") is pm."""

BARE_HOUR_PM_UNTIL = 6
"""A bare hour from 1 to this one is afternoon ("at 4" is 16:00); later ones are as written."""

REMINDER_TIME = time(9, 0)
"""When a reminder or check set for a day without a time ("remind me on Sunday") comes."""

__all__ = ["AFTERNOON_PARTS", "BARE_HOUR_PM_UNTIL", "PARTS_OF_DAY", "PARTS_OF_DAY_READ", "REMINDER_TIME"]
