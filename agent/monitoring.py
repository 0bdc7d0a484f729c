"""Monitoring: a goal that looks again later, quietly, until something matters.

`schedule_check` sets a `Monitor` and ends the step; the next check is a queue job that
the RQ scheduler releases at its time, so an idle monitored goal costs no worker and no
model call. Each check adds a short note to the transcript and asks the model to look
again; `no_news` schedules the next check in silence; the monitor ends after its last
check or its end date, with one message saying so.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Callable

from agent.goals import Goal, GoalStatus, Monitor
from agent.tools import ScheduleArgs

if TYPE_CHECKING:
    from agent.runner import Dispatch


def _parse_until(text: str | None) -> float | None:
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


class Monitoring:
    def __init__(self, dispatch: "Dispatch", clock: Callable[[], float]) -> None:
        self._dispatch = dispatch
        self._clock = clock

    def schedule(self, goal: Goal, args: ScheduleArgs) -> str:
        """Set the goal's monitor from the model's request; the tool result says when."""
        if args.every_minutes is None and args.in_minutes is None:
            return "Error: give every_minutes (repeat) or in_minutes (once)."
        try:
            until = _parse_until(args.until)
        except ValueError:
            return "Error: until must be an ISO date-time such as 2026-12-24T18:00."
        now = self._clock()
        first = (args.in_minutes or args.every_minutes or 0) * 60
        every = args.every_minutes * 60 if args.every_minutes else None
        max_checks = args.max_checks if every else 1
        goal.monitor = Monitor(what=args.what, every_seconds=every, next_at=now + first, until=until,
                               max_checks=max_checks)
        return f"Scheduled: first check at {_when(goal.monitor.next_at)}; up to {max_checks} checks."

    def park(self, goal: Goal) -> bool:
        """End this step waiting for the next check; False when the monitor is over."""
        monitor = goal.monitor
        if monitor is None or monitor.checks_done >= monitor.max_checks:
            return False
        if monitor.until is not None and monitor.next_at > monitor.until:
            return False
        goal.status = GoalStatus.scheduled
        return True

    def wake(self, goal: Goal) -> None:
        """The check is due: note it in the transcript and let the model look again."""
        monitor = goal.monitor
        assert monitor is not None
        monitor.checks_done += 1
        if monitor.every_seconds:
            monitor.next_at = max(monitor.next_at + monitor.every_seconds, self._clock() + 1)
        goal.status = GoalStatus.running
        goal.loop_signatures = []  # each check is a fresh look, not a repetition
        goal.messages.append({
            "role": "user",
            "content": f"(Scheduled check {monitor.checks_done} of {monitor.max_checks}, {_when(self._clock())}.) "
            f"Look again: {monitor.what}. If nothing relevant changed, call no_news; if it did, tell me with reply.",
        })

    def enqueue_next(self, goal: Goal) -> None:
        assert goal.monitor is not None
        self._dispatch.step(goal.id, goal.step, delay=max(goal.monitor.next_at - self._clock(), 0.01))

    def ended_message(self, goal: Goal) -> str:
        monitor = goal.monitor
        assert monitor is not None
        return (f"I stopped watching “{monitor.what}” after {monitor.checks_done} checks; nothing relevant changed. "
                "Text me if you want me to keep looking.")


def _when(moment: float) -> str:
    return datetime.fromtimestamp(moment, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
