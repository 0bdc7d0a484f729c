"""The steps of a monitored goal: parking until its next check, and checks that run a probe.

A check with a probe never calls the model on its own: the probe goes to the executor as
an ordinary read action, and when it is back `Monitoring` compares it in code. Only news
continues into a model call; otherwise the goal parks again. These steps return what
happens next (`AskModel` for news, a `Stop` to end the goal) and the runner does it.
"""

from __future__ import annotations

from typing import Callable

from deputy.agent.goal_lifecycle import GoalEvent, advance
from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.watch import digests
from deputy.agent.watch.monitoring import Monitoring
from deputy.agent.watch.reminders import reminder_text
from deputy.agent.reading import Reading
from deputy.agent.steps import AskModel, Dispatch, StepOutcome, Stop, TurnResult, hand_to_executor
from deputy.agent.tools import ToolArgumentError
from deputy.connectors.catalog import Catalog
from deputy.core.records.outbox import Outbox
from deputy.sentinel.negotiation.outlook import digest_lines
from deputy.sentinel.stores.mandates import MandateStore
from deputy.sentinel.stores.action_store import ActionRecord, ActionStore
from deputy.core.records.actions import ActionState


class WatchSteps:
    def __init__(
        self,
        monitoring: Monitoring,
        actions: ActionStore,
        dispatch: Dispatch,
        outbox: Outbox,
        reading: Reading,
        *,
        checkpoint: Callable[[Goal], Goal],
        catalog_for: Callable[[Goal], Catalog],
        mandates: MandateStore | None = None,
    ) -> None:
        """`mandates`: a negotiating goal's digest tells its rounds and offers too."""
        self._monitoring = monitoring
        self._actions = actions
        self._dispatch = dispatch
        self._outbox = outbox
        self._reading = reading
        self._checkpoint = checkpoint
        self._catalog_for = catalog_for
        self._mandates = mandates

    def check_due(self, goal: Goal) -> TurnResult | None:
        """A scheduled goal's job ran: skip, probe, or (None) let the model look again."""
        monitor = goal.monitor
        if monitor is None or self._monitoring.now() + 1 < monitor.next_at:
            return StepOutcome.waiting  # an early duplicate; the real check is still queued
        skipped = self._monitoring.due_check(goal)
        if skipped is not None:
            if skipped:
                self._outbox.send(goal.chat_id, skipped, dedupe_key=f"{goal.id}:checks-used-up:{monitor.next_at}",
                                  proactive=True)
            return self.park(goal)
        if monitor.reminder is not None:
            # A reminder is the user's own text at their time: sent as it is, no model call.
            self._outbox.send(goal.chat_id, reminder_text(monitor.reminder),
                              dedupe_key=f"{goal.id}:reminder:{monitor.checks_done}", proactive=True)
            return self.park(goal)
        if monitor.probe is not None:
            return self.run_probe(goal)
        self._monitoring.wake(goal)
        return None

    def park(self, goal: Goal) -> StepOutcome:
        """Wait for the next scheduled check, or end the monitor after its last one."""
        if self._monitoring.park(goal):
            self._digest(goal)
            goal = self._checkpoint(goal)
            self._monitoring.enqueue_next(goal)
            return StepOutcome.waiting
        if goal.monitor is None or goal.monitor.reminder is None:  # a reminder's last time says it all
            self._outbox.send(goal.chat_id, self._monitoring.ended_message(goal),
                              dedupe_key=f"{goal.id}:{goal.step}:monitor-ended", proactive=True)
        advance(goal, GoalEvent.finish)
        self._checkpoint(goal)
        self._dispatch.idle(goal.id)
        return StepOutcome.finished

    def _digest(self, goal: Goal) -> None:
        """Start the digest's count when the watch begins; send the digest when it is due."""
        monitor = goal.monitor
        assert monitor is not None
        now = self._monitoring.now()
        change = digests.stale_plan(monitor) if not monitor.change_offered else None
        if change is not None:
            # The figure came within reach of the user's limit: offer the change once, now; the user decides.
            monitor.change_offered = True
            self._outbox.put(digests.change_message(goal, change))
        if monitor.digest_mark is None or digests.digest_choice(goal) == "off":
            # While off, the count keeps moving: a digest turned on later tells only what came after.
            monitor.digest_mark = digests.mark_now(goal, now)
        elif digests.due(goal, now):
            self._outbox.put(digests.digest_message(goal, now, self._negotiation_lines(goal, now)))
            monitor.digest_mark = digests.mark_now(goal, now, sent=monitor.digest_mark.sent + 1)

    def _negotiation_lines(self, goal: Goal, now: float) -> list[str]:
        """A negotiating goal's rounds and offers since its last digest (that mark moves to now)."""
        goal_id = goal.parent_id or goal.id  # a part of a negotiation watches under its root's mandate
        found = None
        if self._mandates is not None:
            for candidate in dict.fromkeys((goal.id, goal_id)):
                found = self._mandates.get(goal.user_id, candidate)
                if found is not None:
                    goal_id = candidate
                    break
        if found is None:
            return []
        assert self._mandates is not None
        mandate, state = found
        since = self._mandates.last_digest(goal.user_id, goal_id)
        lines = digest_lines(mandate, state, since if since is not None else 0.0)  # none yet: all of it
        self._mandates.mark_digest(goal.user_id, goal_id, now)
        return [f"🤝 Negotiating {mandate.subject}:", *lines]

    def run_probe(self, goal: Goal) -> TurnResult:
        """Hand the monitor's probe to the executor, as an ordinary (read) action; no model call."""
        action = self._monitoring.probe_action(goal, self._catalog_for(goal))
        if action is None:
            if self._monitoring.needs_probe_run(goal):
                goal.monitor = None
                raise ToolArgumentError("the probe's tool is not available.")
            outcome = self._probe_done(goal, None)  # the service is gone: a failed check
            assert outcome is not None
            return outcome
        return hand_to_executor(goal, action, self._actions, self._dispatch, self._checkpoint)

    def after_probe(self, goal: Goal) -> TurnResult | None:
        """The probe is back (or not yet): compare in code; None continues the step (the first reading)."""
        record = self._actions.get(goal.pending_action_id or "")
        if record is not None and not record.state.terminal:
            if record.state is ActionState.submitted:
                self._dispatch.action(record.action.id, goal.id, goal.step)
            self._dispatch.idle(goal.id)
            return StepOutcome.waiting
        return self._probe_done(goal, record)

    def _probe_done(self, goal: Goal, record: ActionRecord | None) -> TurnResult | None:
        assert goal.monitor is not None
        goal.monitor.probe_action_id = None
        advance(goal, GoalEvent.observed).pending_action_id = None
        if self._monitoring.needs_probe_run(goal):
            # The first reading: the pending schedule_check call gets its answer from it.
            self._monitoring.settle_baseline(goal, record, self._reading.observe)
            return None
        checked = self._monitoring.check_result(goal, record, self._reading.observe)
        if record is not None and checked.kind != "news":
            self._actions.keep_briefly(record.action.id)
        if checked.kind == "news":
            return AskModel(goal)
        if checked.kind in ("stopped", "done"):
            # Stopped by the guard, the deadline's reminder, or what a reminder-only watch waited for came.
            if checked.message:
                self._outbox.send(goal.chat_id, checked.message, dedupe_key=f"{goal.id}:{goal.step}:watch-stopped",
                                  proactive=True)
            advance(goal, GoalEvent.finish)
            return Stop("end", goal)
        if checked.kind == "remind":
            self._outbox.send(goal.chat_id, checked.message, proactive=True,
                              dedupe_key=f"{goal.id}:reminder:{goal.monitor.checks_done}")
        if checked.kind == "failing":
            self._outbox.send(goal.chat_id, checked.message, proactive=True,
                              dedupe_key=f"{goal.id}:watch-failing:{goal.monitor.checks_done}")
        return self.park(goal)
