"""The vocabulary of a goal step: how work is handed on, how a step ends, its limits."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, Literal, Protocol

from deputy.agent.goal_lifecycle import GoalEvent, advance
from deputy.agent.goals import Goal, GoalStatus

if TYPE_CHECKING:
    from deputy.sentinel.stores.action_store import ActionStore
    from deputy.core.records.actions import Action


class Dispatch(Protocol):
    """How the runner hands work on; implemented over RQ in `deputy.queue.dispatch`."""

    def step(self, goal_id: str, step: int, delay: float = 0, pipeline: Any = None,
             owner: int | None = None) -> None: ...

    def action(self, action_id: str, goal_id: str, step: int) -> None: ...

    def idle(self, goal_id: str) -> None: ...

    def carry_on(self, goal_id: str, step: int) -> None:
        """The running job goes on with `step` itself: if it dies, `step` is what is redone."""
        ...


class StepOutcome(str, Enum):
    stale = "stale"
    not_running = "not_running"
    waiting = "waiting"
    continued = "continued"
    acting = "acting"
    retrying = "retrying"
    finished = "finished"


@dataclass(frozen=True)
class Stop:
    """The goal stops here: the runner pauses it (asking to continue), fails it, or ends it."""

    how: Literal["pause", "fail", "end"]
    goal: Goal
    message: str = ""
    key: str | None = None  # a pause's own key, when the same pause may be asked again (a plan's limit)


@dataclass(frozen=True)
class RunCalls:
    """The model's reply asked for tools: the runner runs them in this same job."""

    goal: Goal




@dataclass(frozen=True)
class AskModel:
    """The model must be asked again in this same job: a monitor found news, or its answer went back to it."""

    goal: Goal


TurnResult = StepOutcome | Stop | RunCalls | AskModel
"""What a part of a step says happens next; the runner (`GoalRunner`) carries it out."""


class GoalStopped(Exception):
    """The user paused or cancelled the goal while this step was running."""


@dataclass(frozen=True)
class RunnerLimits:
    max_steps: int = 40
    max_tokens: int = 400_000
    loop_repeats: int = 3
    max_model_attempts: int = 3
    retry_delays: tuple[float, ...] = (2.0, 8.0, 30.0)


def hand_to_executor(
    goal: Goal, action: Action, actions: ActionStore, dispatch: Dispatch, checkpoint: Callable[[Goal], Goal]
) -> StepOutcome:
    """Store the action, mark the goal as acting on it (checkpointed), and hand it to the executor."""
    actions.submit(action)
    advance(goal, GoalEvent.act)
    goal.pending_action_id = action.id
    goal = checkpoint(goal)
    dispatch.action(action.id, goal.id, goal.step)
    dispatch.idle(goal.id)
    return StepOutcome.acting
