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
"""

from __future__ import annotations

from enum import Enum

from deputy.agent.goals import Goal, GoalStatus

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
REPEATABLE = (GoalEvent.act, GoalEvent.card, GoalEvent.observed, GoalEvent.check, GoalEvent.watch)


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
    return goal


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
