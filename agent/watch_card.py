"""How a monitor reads on the goal card and in /activity: what it watches, how often, until
when, and (for a watch on something that should happen) when it reminds the user."""

from __future__ import annotations

from datetime import datetime, timezone

from agent.goals import Monitor
from agent.probes import moment_words


def watch_line(monitor: Monitor) -> str:
    """What a monitor watches, for the goal card: `new email from x, every 5 min, until 12 Dec`."""
    how = f"every {_minutes(monitor.every_seconds)}" if monitor.every_seconds else "once"
    parts = [f"Watching: {monitor.what}", how]
    reminds_by = monitor.probe is not None and monitor.probe.remind_by is not None
    if monitor.until is not None and not reminds_by:
        parts.append(f"until {day_words(monitor.until)}")
    parts.append(f"{monitor.checks_done} of {monitor.max_checks} checks done")
    probe = monitor.probe
    if probe is not None and probe.reminds and not monitor.probe_state.found:
        missing = _absent(monitor.what)
        if probe.remind_by is not None:
            parts.append(f"reminding you if {missing} by {moment_words(probe.remind_by)}")
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


def day_words(moment: float) -> str:
    return datetime.fromtimestamp(moment, tz=timezone.utc).strftime("%d %b %H:%M UTC")


__all__ = ["day_words", "watch_line"]
