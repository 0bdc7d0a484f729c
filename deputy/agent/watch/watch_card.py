"""How a monitor reads on the goal card and in /activity: what it watches, how often, until
when, and (for a watch on something that should happen) when it reminds the user."""

from __future__ import annotations

from deputy.agent.goals import Monitor
from deputy.agent.time.local_time import clock_words, moment_words
from deputy.agent.time.local_time import day_words as _local_day


def watch_line(monitor: Monitor) -> str:
    """What a monitor watches, for the goal card: `new email from x, every 5 min, until 12 Dec 18:00 CET`.

    Every time is in the user's zone (the monitor keeps it), labelled with its short name.
    """
    zone = monitor.timezone
    if monitor.daily_at:
        how = f"every day at {monitor.daily_at} {_zone_label(monitor)}"
    else:
        how = f"every {_minutes(monitor.every_seconds)}" if monitor.every_seconds else "once"
    parts = [f"Watching: {monitor.what}", how]
    reminds_by = monitor.probe is not None and monitor.probe.remind_by is not None
    if monitor.until is not None and not reminds_by:
        parts.append(f"until {day_words(monitor.until, zone)}")
    parts.append(f"{monitor.checks_done} of {monitor.max_checks} checks done")
    if monitor.checks_done < monitor.max_checks:
        parts.append(f"next check {_next_words(monitor)}")
    probe = monitor.probe
    if probe is not None and probe.reminds and not monitor.probe_state.found:
        missing = _absent(monitor.what)
        if probe.remind_by is not None:
            parts.append(f"reminding you if {missing} by {moment_words(probe.remind_by, zone)}")
        else:
            parts.append(f"reminding you at each check while {missing}")
        if probe.if_found == "end_quietly":
            parts.append("ending quietly if it comes")
    if probe is not None:
        parts.append(f"read by {probe.operation}, no model call while nothing changes")
    return ", ".join(parts)


def _absent(what: str) -> str:
    """`no email from sam@example.org` for the watch `new email from sam@example.org`."""
    words = what.strip().rstrip(".")
    for lead in ("new ", "a new ", "an ", "a ", "any "):
        if words.lower().startswith(lead):
            words = words[len(lead):]
            break
    if words.lower().startswith(("whether ", "if ", "when ")):
        return f"nothing new on “{what}”"
    return f"no {words}"


def _minutes(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 86400:
        return f"{seconds / 3600:g} h"
    return f"{seconds / 86400:g} days"


def _zone_label(monitor: Monitor) -> str:
    return clock_words(monitor.next_at, monitor.timezone).split(" ", 1)[1]


def _next_words(monitor: Monitor) -> str:
    return moment_words(monitor.next_at, monitor.timezone)


def day_words(moment: float, zone_name: str | None = None) -> str:
    """`12 Dec 18:00 CET` in the user's zone (UTC when none is given)."""
    return _local_day(moment, zone_name)


__all__ = ["day_words", "watch_line"]
