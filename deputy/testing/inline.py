"""Running goals in one process, without queues: for tests, evaluations and benchmarks.

`InlineDispatch` implements the same `Dispatch` the runner and executor use over RQ, but
keeps the jobs in a list and runs them in order when `drain` is called. `InlineDeputy`
wires the agent's runner and the executor to it over real Redis records, with one
`ManualClock` for both, so a test says when time passes. Everything else (the guard,
approvals, the outbox, the audit trail) is the real thing. `RecordingDispatch` only
records what it is handed, for tests of a single step: given one, `InlineDeputy` runs
nothing by itself and the test calls `runner.run_step` step by step.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from redis import Redis

from deputy.agent.goals import Goal, GoalStore
from deputy.agent.model.chat_model import ChatModel
from deputy.agent.runner import GoalRunner
from deputy.connectors.catalog import Catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.ids import new_id
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox, OutboxMessage
from deputy.core.records.payloads import ActionJob
from deputy.executor.executor import ActionRunner, Executor
from deputy.executor.payments import PaymentIssuer
from deputy.executor.review_context import ReviewContextBuilder
from deputy.sentinel.stores.action_store import ActionRecord, ActionStore
from deputy.sentinel.stores.approvals import ApprovalSigner, ApprovalStore, Choice
from deputy.sentinel.stores.audit import AuditLog


class InlineDispatch:
    def __init__(self) -> None:
        self._jobs: deque[tuple[str, object]] = deque()
        self.delayed: list[tuple[str, int, float]] = []
        self.delayed_actions: list[ActionJob] = []
        self.runner: GoalRunner | None = None
        self.executor: Executor | None = None

    def step(self, goal_id: str, step: int, delay: float = 0, pipeline: Any = None, owner: int | None = None) -> None:
        # Inline jobs run from this list, not from Redis: a pipeline's transaction has nothing to hold.
        if delay > 0:
            self.delayed.append((goal_id, step, delay))  # run by `release_delayed`, when the test says
        else:
            self._jobs.append(("step", (goal_id, step)))

    def release_delayed(self) -> int:
        """Queue the delayed steps now (after the test moved its clock past their time)."""
        released, self.delayed = self.delayed, []
        actions, self.delayed_actions = self.delayed_actions, []
        for goal_id, step, _delay in released:
            self._jobs.append(("step", (goal_id, step)))
        self._jobs.extend(("action", job) for job in actions)
        return len(released) + len(actions)

    def action(self, action_id: str, goal_id: str, step: int, approval_id: str | None = None,
               delay: float = 0) -> None:
        job = ActionJob(action_id=action_id, goal_id=goal_id, step=step, approval_id=approval_id)
        if delay > 0:
            self.delayed_actions.append(job)  # run by `release_delayed`, when the test says
        else:
            self._jobs.append(("action", job))

    def expire_approval(self, approval_id: str, when: float) -> None:
        """Inline runs have no clock to wait on: expiry is triggered by calling the executor."""

    def undo(self, action_id: str) -> None:
        self._jobs.append(("undo", action_id))

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
            elif kind == "undo":
                self.executor.undo(payload)  # type: ignore[arg-type]
            else:
                self.executor.handle(payload)  # type: ignore[arg-type]
            ran += 1
        return ran


@dataclass
class RecordingDispatch:
    """A `Dispatch` that runs nothing: it records what the runner or executor hands on."""

    steps: list[tuple[str, int, float]] = field(default_factory=list)
    actions: list[tuple[str, str, int]] = field(default_factory=list)
    idles: list[str] = field(default_factory=list)
    carried_on: list[tuple[str, int]] = field(default_factory=list)
    expiries: list[tuple[str, float]] = field(default_factory=list)

    def step(self, goal_id: str, step: int, delay: float = 0, pipeline: Any = None, owner: int | None = None) -> None:
        self.steps.append((goal_id, step, delay))

    def action(self, action_id: str, goal_id: str, step: int, approval_id: str | None = None,
               delay: float = 0) -> None:
        self.actions.append((action_id, goal_id, step))

    def idle(self, goal_id: str) -> None:
        self.idles.append(goal_id)

    def carry_on(self, goal_id: str, step: int) -> None:
        self.carried_on.append((goal_id, step))

    def expire_approval(self, approval_id: str, when: float) -> None:
        self.expiries.append((approval_id, when))


class InlineDeputy:
    """The agent's runner and the executor in one process, on real records, run by `InlineDispatch`.

    `runner_options` go to `GoalRunner` (limits, scanner, memory, settings...); `contexts`
    replaces the executor's default `ReviewContextBuilder` (stored rules, a clock); `signer`
    the key cards are signed with, for a caller that reads the buttons back; `executor_options`
    go to `Executor` (a scrubber for secrets in what services return...). With a
    `RecordingDispatch` as `dispatch`, nothing runs by itself: the test runs each step and
    reads what the step handed on.
    """

    def __init__(
        self,
        redis: Redis,
        model: ChatModel,
        catalog: Catalog,
        runners: Mapping[str, ActionRunner],
        *,
        clock: Callable[[], float] | None = None,
        approval_ttl: float = 60,
        contexts: ReviewContextBuilder | None = None,
        signer: ApprovalSigner | None = None,
        payments: PaymentIssuer | None = None,
        executor_options: Mapping[str, Any] | None = None,
        dispatch: RecordingDispatch | None = None,
        **runner_options: Any,
    ) -> None:
        self.redis, self.model = redis, model
        self.clock = clock if clock is not None else ManualClock()
        self.goals, self.actions, self.approvals = GoalStore(redis), ActionStore(redis), ApprovalStore(redis)
        self.outbox, self.audit = Outbox(redis), AuditLog(redis)
        self.dispatch: InlineDispatch | RecordingDispatch = dispatch if dispatch is not None else InlineDispatch()
        self.runner = GoalRunner(self.goals, self.actions, model, self.outbox, self.dispatch, catalog,
                                 clock=self.clock, **runner_options)
        self.executor = Executor(
            self.actions, self.approvals, self.goals, self.outbox, self.audit, signer or ApprovalSigner("k"),
            self.dispatch, runners, contexts or ReviewContextBuilder(redis, self.goals, catalog), approval_ttl=approval_ttl,
            clock=self.clock, payments=payments, **(executor_options or {}),
        )
        if isinstance(self.dispatch, InlineDispatch):
            self.dispatch.runner, self.dispatch.executor = self.runner, self.executor

    def new_goal(self, user_id: int, text: str, goal_id: str | None = None,
                 messages: list[dict[str, Any]] | None = None, chat_id: int | None = None) -> Goal:
        """Store a goal as the bot does for a text message, without running it."""
        now = self.clock()
        return self.goals.save(Goal(
            id=goal_id or new_id("g"), user_id=user_id, chat_id=chat_id if chat_id is not None else user_id, text=text,
            messages=messages if messages is not None else [{"role": "user", "content": text}],
            created_at=now, updated_at=now,
        ))

    def start(self, user_id: int, text: str, goal_id: str | None = None,
              messages: list[dict[str, Any]] | None = None) -> Goal:
        """Store a goal as the bot does for a text message, and run it until it waits."""
        inline = self._inline()
        goal = self.new_goal(user_id, text, goal_id, messages)
        inline.step(goal.id, 0)
        inline.drain()
        return self._stored(goal.id)

    def _inline(self) -> InlineDispatch:
        assert isinstance(self.dispatch, InlineDispatch), "a recording dispatch runs nothing: run the steps by hand"
        return self.dispatch

    def goal(self, goal_id: str) -> Goal:
        return self._stored(goal_id)

    def _stored(self, goal_id: str) -> Goal:
        goal = self.goals.get(goal_id)
        assert goal is not None, f"no goal {goal_id}"
        return goal

    def tick(self, seconds: float) -> None:
        """Let `seconds` pass (on a `ManualClock`), then run what came due."""
        assert isinstance(self.clock, ManualClock), "only a manual clock can be moved"
        self.clock.advance(seconds)
        inline = self._inline()
        inline.release_delayed()
        inline.drain()

    def press(self, approval_id: str, user_id: int, choice: Choice) -> None:
        """The user answers an approval card; the continuation runs."""
        self.approvals.decide(approval_id, user_id, choice, self.clock())
        found = self.approvals.get(approval_id)
        assert found is not None, f"no approval {approval_id}"
        request = found[0]
        inline = self._inline()
        inline.action(request.action_id, request.goal_id, self._stored(request.goal_id).step, approval_id)
        inline.drain()

    def messages(self) -> list[OutboxMessage]:
        """Everything sent to any chat, oldest first."""
        return [OutboxMessage.model_validate_json(f[b"json"]) for _, f in self.redis.xrange(OUTBOX_STREAM)]

    def sent(self) -> list[str]:
        return [message.text for message in self.messages()]

    def cards(self) -> list[OutboxMessage]:
        return [message for message in self.messages() if message.buttons]

    def stored_actions(self, user_id: int | None = None) -> list[ActionRecord]:
        """Every action submitted so far (of `user_id`, if given), in no particular order."""
        ids = [key.decode().split(":", 2)[2] for key in self.redis.scan_iter("deputy:action:*")]
        records = [record for record in map(self.actions.get, ids) if record is not None]
        return [record for record in records if user_id is None or record.action.user_id == user_id]
