"""Running goals in one process, without queues: for tests and evaluations.

`InlineDispatch` implements the same `Dispatch` the runner and executor use over RQ, but
keeps the jobs in a list and runs them in order when `drain` is called. Everything else
(Redis records, the guard, approvals, the outbox) is the real thing.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from core.payloads import ActionJob

if TYPE_CHECKING:
    from agent.runner import GoalRunner
    from executor.executor import Executor


class InlineDispatch:
    def __init__(self) -> None:
        self._jobs: deque[tuple[str, object]] = deque()
        self.delayed: list[tuple[str, int, float]] = []
        self.runner: GoalRunner | None = None
        self.executor: Executor | None = None

    def step(self, goal_id: str, step: int, delay: float = 0) -> None:
        if delay > 0:
            self.delayed.append((goal_id, step, delay))  # run by `release_delayed`, when the test says
        else:
            self._jobs.append(("step", (goal_id, step)))

    def release_delayed(self) -> int:
        """Queue the delayed steps now (after the test moved its clock past their time)."""
        released, self.delayed = self.delayed, []
        for goal_id, step, _delay in released:
            self._jobs.append(("step", (goal_id, step)))
        return len(released)

    def action(self, action_id: str, goal_id: str, step: int, approval_id: str | None = None) -> None:
        self._jobs.append(("action", ActionJob(action_id=action_id, goal_id=goal_id, step=step, approval_id=approval_id)))

    def expire_approval(self, approval_id: str, when: float) -> None:
        """Inline runs have no clock to wait on: expiry is triggered by calling the executor."""

    def idle(self, goal_id: str) -> None:
        """Nothing to release: inline jobs cannot be lost."""

    def drain(self, max_jobs: int = 1000) -> int:
        """Run queued jobs (and the jobs they queue) until none is left; returns how many ran."""
        if self.runner is None or self.executor is None:
            raise RuntimeError("bind a runner and an executor first")
        ran = 0
        while self._jobs:
            if ran >= max_jobs:
                raise RuntimeError(f"more than {max_jobs} jobs: a goal is looping")
            kind, payload = self._jobs.popleft()
            if kind == "step":
                goal_id, step = payload  # type: ignore[misc]
                self.runner.run_step(goal_id, step)
            else:
                self.executor.handle(payload)  # type: ignore[arg-type]
            ran += 1
        return ran
