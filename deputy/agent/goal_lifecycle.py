"""A goal's lifecycle: every status change a goal may make, as pure transitions.

Nobody assigns `goal.status` by hand: the bot, the runner, the executor, hand-offs and
monitors name a `GoalEvent`, and this table says from which statuses it may happen and
where it leads. A move the table does not allow raises `IllegalGoalMove`, so a bug shows
up as an error in the log, never as a cancelled goal that quietly runs another step.

    running ──act──▶ acting ──card──▶ waiting_approval ──approved──▶ acting
       ▲               │                    │
       └───observed────┴────────────────────┘   (the action's result is back)
    running ──ask_user──▶ waiting_user ──answered──▶ running
    running ──split──▶ waiting_children ──joined──▶ running
    running ──watch──▶ scheduled ──check──▶ running        (monitors between checks)
    running ──finish──▶ done            failed ──retry──▶ running
    any unfinished ──fail──▶ failed     any unfinished ──cancel──▶ cancelled (for good)
    any active ──pause──▶ paused ──resume──▶ where it was (acting, if it waited on a card)
    any but cancelled or busy elsewhere ──edit──▶ running

Re-running a step (after a crash) may repeat a move the step had already made, so the
moves a step makes (`REPEATABLE`) may lead to the status the goal is already in. The
user's moves (an answer, a retry, an edit...) may not: each counts once.

A move also names the job that follows it (`NextStep`): a move made from outside a running
step (the user answered, retried, edited or resumed; the user approved the card the goal
waited on) leaves work that no step is doing, so its goal needs its next step queued. Whoever
saved the move hands it on with `hand_on`; nobody decides that for themselves. A move made
inside a step (`act`, `observed`, `check`...) names none: the step that made it goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable, Protocol

from deputy.agent.goals import Goal, GoalStatus, GoalStore

S = GoalStatus
ACTIVE = (S.running, S.acting, S.waiting_approval, S.waiting_user, S.scheduled, S.waiting_children)
UNFINISHED = (*ACTIVE, S.paused)
# Work of the goal is out with the executor or its parts: an edit waits until it comes back.
BUSY_ELSEWHERE = (S.acting, S.waiting_approval, S.waiting_children)


class GoalEvent(str, Enum):
    act = "act"  # an action was handed to the executor
    card = "card"  # the action waits for the user's tap (an approval or an outcome-unknown card)
    approved = "approved"  # the user tapped Approve: the action runs
    observed = "observed"  # the action's result (or its absence) is back in the transcript
    ask_user = "ask_user"  # Deputy asked the user something and waits for the answer
    answered = "answered"  # the user answered (or finished what a page needed from them)
    split = "split"  # the goal was split into parts that run on their own
    joined = "joined"  # every part ended: their results are back
    watch = "watch"  # a monitor waits for its next check
    check = "check"  # a monitor's check is due (or found news)
    finish = "finish"  # the goal's answer was delivered
    fail = "fail"  # the goal stopped on an error the user was told about
    retry = "retry"  # the user sent /retry for a stopped goal
    pause = "pause"  # the user (or a budget) paused it
    resume = "resume"  # the user pressed Resume or Continue
    cancel = "cancel"  # the user pressed Stop
    edit = "edit"  # the user changed the goal: it starts over with the change


_FROM: dict[GoalEvent, tuple[GoalStatus, ...]] = {
    GoalEvent.act: (S.running, S.scheduled),
    GoalEvent.card: (S.acting,),
    GoalEvent.approved: (S.waiting_approval,),
    GoalEvent.observed: (S.acting, S.waiting_approval, S.scheduled),
    GoalEvent.ask_user: (S.running, S.acting),
    GoalEvent.answered: (S.waiting_user,),
    GoalEvent.split: (S.running,),
    GoalEvent.joined: (S.waiting_children,),
    GoalEvent.watch: (S.running,),
    GoalEvent.check: (S.scheduled,),
    GoalEvent.finish: (S.running, S.scheduled),
    GoalEvent.fail: UNFINISHED,
    GoalEvent.retry: (S.failed,),
    GoalEvent.pause: ACTIVE,
    GoalEvent.resume: (S.paused,),
    GoalEvent.cancel: UNFINISHED,
    GoalEvent.edit: tuple(s for s in GoalStatus if s is not S.cancelled and s not in BUSY_ELSEWHERE),
}

_TO: dict[GoalEvent, GoalStatus] = {
    GoalEvent.act: S.acting,
    GoalEvent.card: S.waiting_approval,
    GoalEvent.approved: S.acting,
    GoalEvent.observed: S.running,
    GoalEvent.ask_user: S.waiting_user,
    GoalEvent.answered: S.running,
    GoalEvent.split: S.waiting_children,
    GoalEvent.joined: S.running,
    GoalEvent.watch: S.scheduled,
    GoalEvent.check: S.running,
    GoalEvent.finish: S.done,
    GoalEvent.fail: S.failed,
    GoalEvent.retry: S.running,
    GoalEvent.pause: S.paused,
    GoalEvent.cancel: S.cancelled,
    GoalEvent.edit: S.running,
}


# Moves a step makes, which a step run again after a crash may make a second time.
# The executor's `approved` too: its action job, run again after a crash, hands the goal on again.
REPEATABLE = (GoalEvent.act, GoalEvent.card, GoalEvent.observed, GoalEvent.check, GoalEvent.watch, GoalEvent.approved)


# Moves made from outside a running step: the goal has work nobody is doing until its step is queued.
_WAKING = (GoalEvent.answered, GoalEvent.retry, GoalEvent.edit, GoalEvent.resume, GoalEvent.approved)


@dataclass(frozen=True)
class NextStep:
    """The job that follows a move: the goal's step `step`, not before `not_before` (epoch seconds) if set."""

    goal_id: str
    step: int
    not_before: float | None = None


class StepQueue(Protocol):
    """Queues a goal's step (`Dispatch.step`), now or after `delay` seconds; with `pipeline` (a Redis
    MULTI), only queues its writes there."""

    def __call__(self, goal_id: str, step: int, delay: float = 0, pipeline: Any = None,
                 owner: int | None = None) -> None: ...


class IllegalGoalMove(RuntimeError):
    def __init__(self, goal_id: str, status: GoalStatus, event: GoalEvent) -> None:
        super().__init__(f"goal {goal_id}: cannot {event.value} while {status.value}")
        self.status, self.event = status, event


def allowed(status: GoalStatus, event: GoalEvent) -> bool:
    """Whether `event` may happen to a goal in `status` (repeating a move already made counts)."""
    if event is GoalEvent.resume:
        return status is S.paused
    return status in _FROM[event] or (event in REPEATABLE and status is _TO[event])


def target(goal: Goal, event: GoalEvent) -> GoalStatus:
    """Where `event` takes this goal (a resumed goal goes back to where it was paused)."""
    if event is GoalEvent.resume:
        previous = goal.paused_from or S.running
        # Paused while its card waited: the card may have been answered meanwhile, and the
        # executor takes it from acting either way.
        return S.acting if previous is S.waiting_approval else previous
    return _TO[event]


def advance(goal: Goal, event: GoalEvent) -> Goal:
    """Move `goal` by `event` (in place, returned for chaining); raises `IllegalGoalMove`."""
    if not allowed(goal.status, event):
        raise IllegalGoalMove(goal.id, goal.status, event)
    new = target(goal, event)
    if event is GoalEvent.pause:
        goal.paused_from = goal.status if goal.status is not S.paused else goal.paused_from
    elif goal.status is S.paused:
        goal.paused_from = None  # resumed, edited, stopped: no longer paused
    goal.status = new
    goal._last_move = event
    return goal


def follow_up(goal: Goal, event: GoalEvent) -> NextStep | None:
    """The job that follows `event` having moved `goal` (already moved): see the module's docstring."""
    if event not in _WAKING:
        return None
    if goal.status in (S.running, S.acting):
        return NextStep(goal.id, goal.step)
    if goal.status is S.scheduled and goal.monitor is not None:
        # Resumed between checks: a check that fell due during the pause found the goal paused and
        # ended, so the next one is queued (if it is still queued, whichever runs second waits).
        return NextStep(goal.id, goal.step, goal.monitor.next_at)
    return None


def next_job(goal: Goal | None) -> NextStep | None:
    """The job the last move of this (saved) goal names, if any (read from the goal as it was saved)."""
    return None if goal is None or goal._last_move is None else follow_up(goal, goal._last_move)


def hand_on(goal: Goal | None, queue_step: StepQueue, now: float) -> Goal | None:
    """Queue the job that follows the move `goal` just made, if it names one; returns `goal`.

    Call it with what `GoalStore.update` returned: an update that changed nothing returns the
    goal as stored, which names no job.
    """
    job = next_job(goal)
    if job is not None and job.not_before is not None:
        queue_step(job.goal_id, job.step, delay=max(job.not_before - now, 0))
    elif job is not None:
        queue_step(job.goal_id, job.step)
    return goal


def move_and_hand_on(goals: GoalStore, goal_id: str, change: Callable[[Goal], Goal | None], queue_step: StepQueue,
                     now: float) -> Goal | None:
    """`hand_on(goals.update(goal_id, change), ...)` with the move and its job written together.

    Saving and then queueing is two writes: an executor killed between them, or a Redis restart
    that loses the queueing's reply, left a goal moved on (approved, answered) with no job, and
    the move, done again, changes nothing and names no job. Here both land or neither does.
    """
    def queue_next(pipeline: Any, saved: Goal) -> None:
        job = next_job(saved)
        if job is not None:
            delay = max(job.not_before - now, 0) if job.not_before is not None else 0
            queue_step(job.goal_id, job.step, delay=delay, pipeline=pipeline, owner=saved.user_id)

    return goals.update(goal_id, change, also=queue_next)


def if_waiting_on(action_id: str, event: GoalEvent, *current: GoalStatus) -> Callable[[Goal], Goal | None]:
    """A `GoalStore.update` change: move by `event` only if the goal is still in `current` and waits on this action.

    A paused or cancelled goal stays so, and a job of an earlier action delivered again (a crash,
    a replayed press) leaves a goal that now waits on another action alone.
    """
    def change(goal: Goal) -> Goal | None:
        if goal.status not in current or goal.pending_action_id != action_id:
            return None
        return advance(goal, event)

    return change


def next_turn(goal: Goal, event: GoalEvent, now: float) -> Goal:
    """The user spoke (an answer, an edit, a retry, a page finished): a new step with a fresh budget.

    The step number moves on so the next job is a new one (a re-run of the old step finds
    nothing to do), and the step budget counts from here: a conversation with the user
    is not a runaway loop.
    """
    advance(goal, event)
    goal.step += 1
    goal.steps_base = goal.step
    goal.updated_at = now
    return goal
