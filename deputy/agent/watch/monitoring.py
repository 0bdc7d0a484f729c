"""Monitoring: a goal that looks again later, quietly, until something matters.

`schedule_check` sets a `Monitor` and ends the step; the next check is a queue job that
the RQ scheduler releases at its time, so an idle monitored goal costs no worker and no
model call. A check wakes the model in one of two ways:

- without a probe, each check adds a short note to the transcript and asks the model to
  look again; `no_news` schedules the next check in silence;
- with a probe (a read operation and a comparison, `deputy.agent.probes`), each check runs the
  read as an ordinary action through the executor and the guard, and code compares the
  result with the fingerprint kept from the last check. Nothing new: the goal parks again
  and neither the model nor the user hears of it. Something new: the new items reach the
  model as an untrusted tool result and it decides what to tell the user. The first
  reading, taken when the watch is set up, is the baseline (and proves the read works).

A probe can also remind the user when nothing new comes (`remind_if_none_by`, one reminder
at a deadline; `remind_each_check`, one at every check with nothing new). Code sends the
model's reminder sentence, framed with the check's time, as a proactive message (held in
quiet hours); the model is not called. A deadline watch always makes its last check at the
deadline, and ends there.

Every check counts against the user's daily budget (`CheckBudget`); a probe that fails is
tried again at the next check, and after a few failures in a row the user is told once.
The monitor ends after its last check or its end date, with one message saying so.

Times are the user's (`deputy.agent.time.local_time`): bare times from the model are wall-clock times in
the zone of their settings, kept with the monitor, and every time the user or the model reads
is in that zone with its short name. `daily_at` checks stay at the same local time across DST.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Literal

from deputy.agent.watch.check_budget import CheckBudget
from deputy.agent.goal_lifecycle import GoalEvent, advance
from deputy.agent.goals import Goal, GoalStatus, Monitor
from deputy.agent.time.local_time import (
    clock_words,
    model_words,
    moment_words,
    next_daily,
    next_midnight,
    parse_clock,
    parse_moment,
)
from deputy.agent.origins import model_note
from deputy.agent.watch.probe_setup import validate_probe
from deputy.agent.probes import ProbeState, after_check, compare, reminder_message
from deputy.agent.prompt import tool_message
from deputy.agent.tools import ScheduleArgs
from deputy.agent.watch.reminders import next_monthly
from deputy.agent.watch.watch_card import day_words as _day
from deputy.agent.watch.watch_card import watch_line
from deputy.core.records.effects import EffectClass
from deputy.connectors.catalog import Catalog, InvalidArguments
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.sentinel.stores.action_store import ActionRecord
from deputy.core.records.actions import Action, ActionState

if TYPE_CHECKING:
    from deputy.agent.steps import Dispatch

FAILURES_BEFORE_TELLING = 3
"""Failed probes in a row before the user hears that the watch cannot look."""

Observe = Callable[[Goal, ActionRecord], str]


@dataclass(frozen=True)
class CheckResult:
    """What one probe check came to: stay quiet, wake the model, tell the user, or stop."""

    kind: Literal["quiet", "news", "failing", "stopped", "remind", "done"]
    message: str = ""


def _parse_until(text: str | None, zone_name: str) -> float | None:
    if not text:
        return None
    return parse_moment(text, zone_name)


class Monitoring:
    def __init__(self, dispatch: "Dispatch", clock: Callable[[], float], budget: CheckBudget | None = None,
                 settings: UserSettingsStore | None = None) -> None:
        self._dispatch = dispatch
        self._clock = clock
        self._budget = budget
        self._settings = settings

    def now(self) -> float:
        return self._clock()

    def zone_of(self, user_id: int) -> str:
        """The user's time zone name from their settings (UTC without settings)."""
        return self._settings.get(user_id).timezone if self._settings is not None else "UTC"

    # -- setting a monitor up -------------------------------------------------------------

    def schedule(self, goal: Goal, args: ScheduleArgs, call_id: str, catalog: Catalog) -> str | None:
        """Set the goal's monitor from the model's request; the tool result says when.

        None means the monitor has a probe whose first reading must come in first: the
        runner runs it, and the same call then gets its answer from `setup_note`.
        """
        current = goal.monitor
        if current is not None and current.call_id == call_id and current.setup_note is not None:
            if current.setup_failed:
                goal.monitor = None
            return current.setup_note
        zone = self.zone_of(goal.user_id)
        deadline_only = args.probe is not None and args.probe.remind_if_none_by is not None
        if args.every_minutes is None and args.in_minutes is None and args.at is None and args.daily_at is None \
                and not deadline_only:
            return "Error: give every_minutes (repeat), daily_at (every day), in_minutes or at (once)."
        if args.every_minutes is not None and args.daily_at is not None:
            return "Error: give every_minutes or daily_at, not both."
        try:
            until = _parse_until(args.until, zone)
        except ValueError:
            return "Error: until must be an ISO date-time such as 2026-12-24T18:00."
        try:
            at = parse_moment(args.at, zone) if args.at else None
        except ValueError:
            return "Error: at must be an ISO date-time such as 2026-12-04T09:00."
        try:
            daily = parse_clock(args.daily_at) if args.daily_at else None
        except ValueError:
            return "Error: daily_at must be a time of day such as 08:00."
        now = self._clock()
        if at is not None and at <= now:
            return (f"Error: at is {model_words(at, zone)}, which is not in the future; it is "
                    f"{model_words(now, zone)} now. Give a later time.")
        probe = None
        if args.probe is not None:
            checked = validate_probe(args.probe, catalog, zone)
            if isinstance(checked, str):
                return checked
            probe = checked
            if probe.remind_by is not None and probe.remind_by <= now:
                return (f"Error: remind_if_none_by is {model_words(probe.remind_by, zone)}, which is not in the "
                        f"future; it is {model_words(now, zone)} now. Give a later time.")
            if not self._take(goal):
                limit, resumes = self._refused(goal.user_id, now)
                return (f"Error: {self._period_words(goal.user_id)[0]} {limit} scheduled checks are used up, "
                        f"so I can't set up a watch before {moment_words(resumes, zone)}. "
                        "Tell the user.")
        first = (args.in_minutes or args.every_minutes or 0) * 60
        every = args.every_minutes * 60 if args.every_minutes else (86400.0 if daily is not None else None)
        max_checks = args.max_checks if every or args.every_months else 1
        next_at = now + first
        if at is not None:
            next_at = at
        elif daily is not None and args.in_minutes is None:
            next_at = next_daily(now, daily, zone)
        if probe is not None and probe.remind_by is not None:
            # The deadline ends the watch, and its last check is always at the deadline.
            until = probe.remind_by
            next_at = probe.remind_by if max_checks == 1 or next_at > probe.remind_by else next_at
        goal.monitor = Monitor(what=args.what, every_seconds=every, next_at=next_at, until=until,
                               max_checks=max_checks, probe=probe, call_id=call_id, timezone=zone,
                               daily_at=daily.strftime("%H:%M") if daily is not None else None,
                               reminder=args.reminder, every_months=args.every_months,
                               anchor_at=next_at if args.every_months else None)
        if probe is not None:
            return None
        return f"Scheduled: first check at {_when(goal.monitor)}{_repeat(goal.monitor)}; up to {max_checks} checks."

    def reminder_set(self, goal: Goal) -> str:
        """What the user reads when a reminder is set: when, how it repeats, and the text."""
        monitor = goal.monitor
        assert monitor is not None and monitor.reminder is not None
        return (f"⏰ I'll remind you {moment_words(monitor.next_at, monitor.timezone)}"
                f"{_repeat(monitor).replace(' the user', ' your')}: “{monitor.reminder}”")

    def needs_probe_run(self, goal: Goal) -> bool:
        """The monitor just set up has a probe whose baseline is not taken yet."""
        monitor = goal.monitor
        return monitor is not None and monitor.probe is not None and monitor.setup_note is None

    def settle_baseline(self, goal: Goal, record: ActionRecord | None, observe: Observe) -> None:
        """The first reading is in: keep its fingerprint, and write the schedule_check answer."""
        monitor = goal.monitor
        assert monitor is not None and monitor.probe is not None
        if record is None or record.state is not ActionState.succeeded:
            why = (record.outcome if record is not None else None) or "the read did not run"
            monitor.setup_failed = True
            monitor.setup_note = (f"Error: the watch's first reading did not work, so nothing is scheduled: {why}")
            return
        result = compare(monitor.probe, ProbeState(), record.outcome or "")
        if result.problem is not None:
            monitor.setup_failed = True
            monitor.setup_note = f"Error: this probe can't be compared: {result.problem}. Fix it and schedule again."
            return
        if result.state.holds:
            monitor.setup_failed = True
            monitor.setup_note = ("Not scheduled: what the user is waiting for is already true now; tell them. "
                                  "The answer:\n" + observe(goal, record))
            return
        monitor.probe_state = result.state
        monitor.first_value = result.state.value
        probe = monitor.probe
        woken = "you will be woken only if the result has something new"
        if probe.reminds:
            found = ("if something new comes, you are woken to tell the user" if probe.if_found == "tell"
                     else "if something new comes, the watch ends without a message")
            if probe.remind_by is not None:
                woken = (f"if nothing new comes by {model_words(probe.remind_by, monitor.timezone)}, I send the user "
                         f"your reminder “{probe.reminder}” once and stop; {found}")
            else:
                woken = f"at each check with nothing new I send the user your reminder “{probe.reminder}”; {found}"
        monitor.setup_note = (
            f"Scheduled: watching {monitor.what} with {probe.operation} ({_baseline(monitor)}); first "
            f"check at {_when(monitor)}{_repeat(monitor)}; up to {monitor.max_checks} checks. Between checks you are "
            f"not called; {woken}. End your turn now."
        )

    # -- checks ---------------------------------------------------------------------------

    def due_check(self, goal: Goal) -> str | None:
        """A check is due: count it against the daily budget and move to the next time.

        Returns None when the check may go ahead; otherwise the check is skipped and the
        result is the notice for the user ("" when they were already told today).
        """
        monitor = goal.monitor
        assert monitor is not None
        monitor.timezone = self.zone_of(goal.user_id)  # the user may have moved since the last check
        if not self._take(goal):
            # Skipped until the budget starts again (midnight UTC for the operator's daily cap, the
            # user's own midnight or month for their plan), or the next regular time, if later.
            self._advance(monitor)
            limit, budget_day = self._refused(goal.user_id, self._clock())
            monitor.next_at = max(monitor.next_at, budget_day)
            if monitor.daily_at is not None and monitor.next_at == budget_day:
                monitor.next_at = next_daily(budget_day - 1, parse_clock(monitor.daily_at), monitor.timezone)
            first = self._budget is not None and self._budget.first_refusal_today(goal.user_id, self._clock())
            this, span = self._period_words(goal.user_id)
            return (f"I've made {this} {limit} scheduled checks, the most I do in a {span}, so I'm skipping "
                    f"checks on “{monitor.what}” until "
                    f"{clock_words(budget_day, monitor.timezone)}, then I'll carry on.") if first else ""
        monitor.checks_done += 1
        self._advance(monitor)
        return None

    def wake(self, goal: Goal) -> None:
        """A check without a probe: note it in the transcript and let the model look again."""
        monitor = goal.monitor
        assert monitor is not None
        advance(goal, GoalEvent.check)
        goal.loop_signatures = []  # each check is a fresh look, not a repetition
        # Model text: `what` is what the model chose to watch, not the user's words.
        goal.messages.append(model_note(
            f"(Scheduled check {monitor.checks_done} of {monitor.max_checks}, "
            f"{model_words(self._clock(), monitor.timezone)}.) "
            f"Look again: {monitor.what}. If nothing relevant changed, call no_news; if it did, tell me with reply.",
        ))

    def probe_action(self, goal: Goal, catalog: Catalog) -> Action | None:
        """The probe as an action for the executor (None when its operation is gone or changed)."""
        monitor = goal.monitor
        assert monitor is not None and monitor.probe is not None
        probe = monitor.probe
        operation = catalog.find(probe.connector, probe.operation)
        if operation is None or operation.spec.effect is not EffectClass.read:
            return None
        try:
            args = operation.validate(probe.arguments)
        except InvalidArguments:  # the service's description changed since the watch was set up
            return None
        monitor.probe_runs += 1
        runs = monitor.probe_runs
        digest = hashlib.sha256(f"{goal.id}\x00probe\x00{monitor.call_id}\x00{runs}".encode()).hexdigest()[:20]
        monitor.probe_action_id = "a_" + digest
        return Action(
            id=monitor.probe_action_id, goal_id=goal.id, user_id=goal.user_id, chat_id=goal.chat_id,
            connector=operation.spec.connector, operation=operation.spec.operation, effect=operation.spec.effect,
            tags=sorted(operation.spec.tags), arguments=args.model_dump(mode="json"), targets=operation.targets(args),
            tool_call_id=f"probe_{runs}", created_at=self._clock(), unattended=True,
        )

    def is_probe(self, goal: Goal) -> bool:
        """The action the goal waits for is its monitor's probe (not a tool call of the model)."""
        monitor = goal.monitor
        return monitor is not None and monitor.probe_action_id is not None \
            and monitor.probe_action_id == goal.pending_action_id

    def check_result(self, goal: Goal, record: ActionRecord | None, observe: Observe) -> CheckResult:
        """Compare a check's reading with the last one; on news, give it to the model."""
        monitor = goal.monitor
        assert monitor is not None and monitor.probe is not None
        if record is not None and record.state in (ActionState.denied, ActionState.declined, ActionState.expired):
            return CheckResult("stopped", f"I stopped watching “{monitor.what}”: the guard would not let me look "
                               f"without asking you ({record.outcome or record.state.value}).")
        problem = None
        if record is not None and record.state is ActionState.succeeded:
            found_before = monitor.probe_state.found
            result = compare(monitor.probe, monitor.probe_state, record.outcome or "")
            problem = result.problem
            if problem is None:
                monitor.probe_state = result.state.model_copy(update={"failures": 0, "failure_told": False})
                outcome = after_check(monitor.probe, found_before, result.changed, self._clock())
                if outcome == "news":
                    self._give_news(goal, record.model_copy(update={"outcome": result.news}), observe)
                    return CheckResult("news")
                if outcome == "end_quietly":
                    monitor.news += 1
                    return CheckResult("done")
                if outcome in ("remind", "remind_and_end"):
                    monitor.probe_state.reminders += 1
                    last = outcome == "remind_and_end"
                    return CheckResult("done" if last else "remind",
                                       reminder_message(monitor.probe, self._clock(), last=last,
                                                        zone_name=monitor.timezone))
                return CheckResult("quiet")
        state = monitor.probe_state
        state.failures += 1
        if state.failures < FAILURES_BEFORE_TELLING or state.failure_told:
            return CheckResult("quiet")
        state.failure_told = True
        why = problem or (record.outcome if record is not None else None) or "the read did not run"
        until = f" until {_day(monitor.until, monitor.timezone)}" if monitor.until else ""
        return CheckResult("failing", f"I couldn't check “{monitor.what}” the last {state.failures} times "
                           f"({why.removeprefix('Failed: ')}). I'll keep trying at each check{until}.")

    def _give_news(self, goal: Goal, record: ActionRecord, observe: Observe) -> None:
        monitor = goal.monitor
        assert monitor is not None and monitor.probe is not None
        call_id = f"probe_{goal.id[-8:]}_{monitor.checks_done}"
        sent = monitor.probe_state.reminders
        reminded = f" I had reminded the user {sent} time(s) that it had not come yet." if sent else ""
        monitor.news += 1
        advance(goal, GoalEvent.check)
        goal.loop_signatures = []
        goal.messages.append(model_note(
            f"(Scheduled check {monitor.checks_done} of {monitor.max_checks}, "
            f"{model_words(self._clock(), monitor.timezone)}.) "
            f"The watch on {monitor.what} found something new; the new part of its result follows.{reminded} "
            "Tell me what matters with reply (I am not expecting a message), or call no_news if it does not matter.",
        ))
        goal.messages.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function",
            "function": {"name": monitor.probe.operation, "arguments": json.dumps(monitor.probe.arguments)},
        }]})
        goal.messages.append(tool_message(call_id, observe(goal, record)))

    # -- between checks -------------------------------------------------------------------

    def park(self, goal: Goal) -> bool:
        """End this step waiting for the next check; False when the monitor is over."""
        monitor = goal.monitor
        if monitor is None or monitor.checks_done >= monitor.max_checks:
            return False
        if monitor.until is not None and monitor.next_at > monitor.until:
            return False
        advance(goal, GoalEvent.watch)
        return True

    def enqueue_next(self, goal: Goal) -> None:
        assert goal.monitor is not None
        self._dispatch.step(goal.id, goal.step, delay=max(goal.monitor.next_at - self._clock(), 0.01), owner=goal.user_id)

    def ended_message(self, goal: Goal) -> str:
        monitor = goal.monitor
        assert monitor is not None
        probe = monitor.probe
        if probe is not None and probe.remind_by is not None and not monitor.probe_state.found:
            # The deadline's check was skipped (checks used up) or could not read: say so, not "nothing changed".
            return (f"I couldn't make the last check on “{monitor.what}” at "
                    f"{moment_words(probe.remind_by, monitor.timezone)}, so I "
                    "can't tell you whether it came. Text me if you want me to look again.")
        if monitor.news:
            return (f"That was the last check on “{monitor.what}” ({monitor.checks_done} checks), so I've stopped "
                    "watching. Text me if you want me to keep looking.")
        return (f"I stopped watching “{monitor.what}” after {monitor.checks_done} checks; nothing relevant changed. "
                "Text me if you want me to keep looking.")

    def _refused(self, user_id: int, now: float) -> tuple[int, float]:
        """The limit a refused check ran into and when checks may go on (the plan's reset, else midnight UTC)."""
        if self._budget is None:
            return 0, next_midnight(now, "UTC")
        return self._budget.limit_of(user_id), self._budget.resumes_at(user_id, now)

    def _period_words(self, user_id: int) -> tuple[str, str]:
        """("today's", "day") or ("this month's", "month"): the period whose checks ran out."""
        if self._budget is not None and self._budget.refused_period(user_id) == "month":
            return "this month's", "month"
        return "today's", "day"

    def _take(self, goal: Goal) -> bool:
        return self._budget is None or self._budget.take(goal.user_id, self._clock())

    def _advance(self, monitor: Monitor) -> None:
        if monitor.daily_at is not None:
            # The next local wall-clock time, not 24 hours on: it stays at 08:00 across a DST change.
            after = max(monitor.next_at, self._clock())
            monitor.next_at = next_daily(after, parse_clock(monitor.daily_at), monitor.timezone)
        elif monitor.every_seconds:
            monitor.next_at = max(monitor.next_at + monitor.every_seconds, self._clock() + 1)
        elif monitor.every_months and monitor.anchor_at is not None:
            monitor.next_at = next_monthly(max(monitor.next_at, self._clock()), monitor.anchor_at, monitor.timezone)
        deadline = monitor.probe.remind_by if monitor.probe is not None else None
        if deadline is None:
            return
        if self._clock() + 1 >= deadline:
            monitor.next_at = max(monitor.next_at, deadline + 1)  # this was the deadline's check: none after it
        elif monitor.next_at > deadline or monitor.checks_done + 1 >= monitor.max_checks:
            monitor.next_at = deadline  # the last check is the deadline's, whatever the interval


def _baseline(monitor: Monitor) -> str:
    probe, state = monitor.probe, monitor.probe_state
    assert probe is not None
    if probe.compare == "threshold":
        limit = f"below {probe.below:g}" if probe.below is not None else f"above {probe.above:g}"
        return f"{probe.field} is {state.value:g} now; I wake you when it goes {limit}"
    if probe.compare == "changed":
        return "I wake you when its answer changes"
    return f"{len(state.seen)} item(s) there now; I wake you only for new ones"


def _when(monitor: Monitor) -> str:
    """The next check for the model, in the user's zone with the exact instant: it repeats these words."""
    return model_words(monitor.next_at, monitor.timezone)


def _repeat(monitor: Monitor) -> str:
    if monitor.every_months:
        return ", then on that day of every month"
    if monitor.every_seconds == 7 * 86400:
        return ", then every week at that time"
    if monitor.daily_at is None:
        return ""
    # The zone's name, not its abbreviation: the abbreviation changes with daylight saving, the time does not.
    return f", then every day at {monitor.daily_at} the user's time ({monitor.timezone})"


__all__ = ["CheckResult", "Monitoring", "watch_line"]  # watch_line (from deputy.agent.watch.watch_card) still importable here
