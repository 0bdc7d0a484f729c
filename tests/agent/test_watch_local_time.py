"""Watch times in the user's zone: bare times are their wall clock, shown back with the zone's short name."""

from __future__ import annotations

from datetime import datetime, time, timezone

import pytest

from deputy.agent.goals import Monitor
from deputy.agent.time.local_time import (
    clock_words,
    day_words,
    model_words,
    moment_words,
    next_daily,
    next_midnight,
    parse_clock,
    parse_moment,
    short_zone,
)
from deputy.agent.probes import Probe, reminder_message
from deputy.agent.watch.watch_card import watch_line

BERLIN, NEW_YORK = "Europe/Berlin", "America/New_York"


def utc(*parts: int) -> float:
    return datetime(*parts, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize(("text", "zone", "instant"), [
    ("2026-12-04T17:00", BERLIN, utc(2026, 12, 4, 16)),  # CET, UTC+1
    ("2026-07-03T17:00", BERLIN, utc(2026, 7, 3, 15)),  # CEST, UTC+2
    ("2026-12-04T17:00", NEW_YORK, utc(2026, 12, 4, 22)),  # EST, UTC-5
    ("2026-07-03T17:00", NEW_YORK, utc(2026, 7, 3, 21)),  # EDT, UTC-4
    ("2026-12-04T17:00", None, utc(2026, 12, 4, 17)),  # no settings: UTC
    ("2026-12-04T17:00", "UTC", utc(2026, 12, 4, 17)),
    ("2026-12-04", BERLIN, utc(2026, 12, 3, 23)),  # a date alone is the start of that local day
])
def test_a_time_without_an_offset_is_the_users_wall_clock(text: str, zone: str | None, instant: float) -> None:
    assert parse_moment(text, zone) == instant


@pytest.mark.parametrize("zone", [BERLIN, NEW_YORK, None])
def test_an_explicit_offset_or_z_is_respected_whatever_the_users_zone(zone: str | None) -> None:
    assert parse_moment("2026-12-04T17:00+05:30", zone) == utc(2026, 12, 4, 11, 30)
    assert parse_moment("2026-12-04T17:00Z", zone) == utc(2026, 12, 4, 17)
    assert parse_moment(" 2026-12-04T17:00:00-05:00 ", zone) == utc(2026, 12, 4, 22)


def test_a_time_the_clocks_skip_moves_forward_by_the_gap_and_a_repeated_time_is_the_first() -> None:
    # Berlin, 29 March 2026: 02:00 CET jumps to 03:00 CEST, so 02:30 never happens: it becomes 03:30 CEST.
    skipped = parse_moment("2026-03-29T02:30", BERLIN)
    assert skipped == utc(2026, 3, 29, 1, 30)
    assert moment_words(skipped, BERLIN) == "Sun 29 Mar 03:30 CEST"
    # Berlin, 25 October 2026: 02:30 happens in CEST and again in CET; the first (earlier) one is meant.
    assert parse_moment("2026-10-25T02:30", BERLIN) == utc(2026, 10, 25, 0, 30)
    # New York, 1 November 2026: 01:30 EDT then 01:30 EST.
    assert parse_moment("2026-11-01T01:30", NEW_YORK) == utc(2026, 11, 1, 5, 30)


def test_not_a_date_time_is_refused() -> None:
    with pytest.raises(ValueError):
        parse_moment("Friday at five", BERLIN)


def test_times_are_shown_in_the_users_zone_with_its_short_name() -> None:
    friday = utc(2026, 12, 4, 16)
    assert moment_words(friday, BERLIN) == "Fri 4 Dec 17:00 CET"
    assert moment_words(utc(2026, 7, 3, 15), BERLIN) == "Fri 3 Jul 17:00 CEST"
    assert moment_words(friday, NEW_YORK) == "Fri 4 Dec 11:00 EST"
    assert moment_words(friday, None) == "Fri 4 Dec 16:00 UTC"
    assert clock_words(friday, BERLIN) == "17:00 CET"
    assert day_words(utc(2026, 12, 12, 17), BERLIN) == "12 Dec 18:00 CET"
    assert model_words(friday, BERLIN) == "Fri 4 Dec 17:00 CET (2026-12-04T17:00+01:00)"
    # Zones whose database has no abbreviation get their offset instead of "+04".
    assert short_zone(friday, "Asia/Dubai") == "UTC+04"
    assert short_zone(friday, "Asia/Kathmandu") == "UTC+05:45"
    assert short_zone(friday, "America/Sao_Paulo") == "UTC-03"
    assert short_zone(friday, "Not/AZone") == "UTC"


def test_a_daily_time_stays_at_the_same_wall_clock_time_across_dst_changes() -> None:
    eight = time(8, 0)
    # Berlin goes back an hour on 25 October 2026: 08:00 CEST then 08:00 CET, 25 hours apart.
    saturday = next_daily(utc(2026, 10, 24, 5), eight, BERLIN)
    sunday = next_daily(saturday, eight, BERLIN)
    assert (saturday, sunday) == (utc(2026, 10, 24, 6), utc(2026, 10, 25, 7))
    assert [clock_words(t, BERLIN) for t in (saturday, sunday)] == ["08:00 CEST", "08:00 CET"]
    # New York goes forward on 8 March 2026: 08:00 EST then 08:00 EDT, 23 hours apart.
    saturday = next_daily(utc(2026, 3, 7, 12), eight, NEW_YORK)
    sunday = next_daily(saturday, eight, NEW_YORK)
    assert sunday - saturday == 23 * 3600 and clock_words(sunday, NEW_YORK) == "08:00 EDT"
    # Strictly after: at 08:00 itself the next one is tomorrow's.
    assert next_daily(saturday, eight, NEW_YORK) == sunday
    # A daily time inside the spring gap happens at the moved-forward instant that day.
    assert next_daily(utc(2026, 3, 28, 12), time(2, 30), BERLIN) == utc(2026, 3, 29, 1, 30)


def test_midnight_and_clock_parsing() -> None:
    assert next_midnight(utc(2026, 12, 4, 22, 30), BERLIN) == utc(2026, 12, 4, 23)
    assert next_midnight(utc(2026, 12, 4, 22, 30), None) == utc(2026, 12, 5)
    assert parse_clock("08:00") == time(8) and parse_clock("8:05") == time(8, 5)
    for bad in ("8", "25:00", "08:60", "eight", "08:00 pm"):
        with pytest.raises(ValueError):
            parse_clock(bad)


def test_the_card_and_the_reminder_speak_the_monitors_zone() -> None:
    probe = Probe(connector="email", operation="search_email", arguments={}, remind_by=utc(2026, 12, 4, 16),
                  reminder="Sam hasn't replied yet.")
    monitor = Monitor(what="email from sam@example.org", every_seconds=3600, next_at=utc(2026, 12, 4, 8),
                      until=utc(2026, 12, 12, 17), probe=probe, timezone=BERLIN)
    line = watch_line(monitor)
    assert "reminding you if no email from sam@example.org by Fri 4 Dec 17:00 CET" in line
    assert "next check Fri 4 Dec 09:00 CET" in line
    assert "UTC" not in line
    daily = Monitor(what="the price", every_seconds=86400, next_at=utc(2026, 12, 5, 13), daily_at="08:00",
                    until=utc(2026, 12, 12, 17), timezone=NEW_YORK)
    assert watch_line(daily).startswith("Watching: the price, every day at 08:00 EST, until 12 Dec 12:00 EST")
    assert reminder_message(probe, utc(2026, 12, 3, 7), last=False, zone_name=BERLIN) == \
        "⏰ Sam hasn't replied yet. (checked 08:00 CET)"
    assert reminder_message(probe, utc(2026, 12, 4, 16), last=True, zone_name=NEW_YORK) == \
        "⏰ Sam hasn't replied yet. (Nothing new by Fri 4 Dec 11:00 EST, so I've stopped watching.)"
