"""Pause, resume, continue, cancel and edit a goal from its buttons.

Workers honour these at their next checkpoint: a step that finds its goal paused or
cancelled stops (see `GoalRunner._checkpoint`), and the executor runs nothing for a
cancelled goal.
"""

from __future__ import annotations

from typing import Callable

from agent.goals import Goal, GoalStatus
from agent.origins import user_edit
from bot.presses_common import PressAnswer
from bot.services import BotServices
from bot.texts import shorten

_ACTIVE = (GoalStatus.running, GoalStatus.acting, GoalStatus.waiting_approval, GoalStatus.waiting_user,
           GoalStatus.scheduled, GoalStatus.waiting_children)
_EDITING = "deputy:user:{}:editing"
EDIT_WINDOW_SECONDS = 600


def press_goal_control(services: BotServices, kind: str, goal_id: str, user_id: int) -> PressAnswer:
    goal = services.goals.get(goal_id)
    if goal is None or goal.user_id != user_id:
        return PressAnswer("I can't find that goal.")
    name = shorten(goal.text, 40)
    if kind == "ge":
        services.redis.set(_EDITING.format(user_id), goal_id, ex=EDIT_WINDOW_SECONDS)
        return PressAnswer(f"Send me the change for “{name}” as your next message.")
    if kind == "gx":
        stopped = services.goals.update(goal_id, _to(GoalStatus.cancelled, lambda g: not g.status.finished))
        services.audit.append(user_id, "goal_cancelled", services.clock(), goal_id=goal_id)
        if stopped is not None and stopped.status is GoalStatus.cancelled:
            return PressAnswer("Stopped.", f"⏹ Stopped “{name}”.")
        return PressAnswer("That goal had already ended.")
    if kind == "gp":
        paused = services.goals.update(goal_id, _pause)
        if paused is not None and paused.status is GoalStatus.paused:
            return PressAnswer("Paused.", f"⏸ Paused “{name}”. Resume it from /goals.")
        return PressAnswer("That goal isn't running.")
    # "gc" (continue after a budget stop) and "gr" (resume) both pick the goal up again.
    resumed = services.goals.update(goal_id, lambda g: _resume(g, services.clock()))
    if resumed is None or resumed.status is GoalStatus.paused or resumed.status.finished:
        return PressAnswer("That goal isn't paused.")
    if resumed.status in (GoalStatus.running, GoalStatus.acting):
        services.dispatch.step(resumed.id, resumed.step)
    elif resumed.status is GoalStatus.scheduled and resumed.monitor is not None:
        # A check that fell due during the pause found the goal paused and ended: queue the next one
        # (if it is still queued, whichever runs second finds the check done and waits).
        services.dispatch.step(resumed.id, resumed.step, delay=max(resumed.monitor.next_at - services.clock(), 0))
    return PressAnswer("Back to work.", f"▶️ Continuing “{name}”.")


def editing_key(user_id: int) -> str:
    """Holds the goal the user pressed Edit on, whose change is their next message."""
    return _EDITING.format(user_id)


def apply_edit(services: BotServices, goal_id: str, user_id: int, text: str) -> Goal | None:
    def change(goal: Goal) -> Goal | None:
        if goal.user_id != user_id or goal.status in (GoalStatus.cancelled,):
            return None
        goal.messages.append(user_edit(text))
        if goal.status in (GoalStatus.acting, GoalStatus.waiting_approval, GoalStatus.waiting_children):
            return goal  # picked up when the pending work comes back
        goal.status = GoalStatus.running
        goal.pending_calls = []
        goal.step += 1
        goal.steps_base = goal.step
        goal.updated_at = services.clock()
        return goal

    goal = services.goals.update(goal_id, change)
    if goal is not None and goal.status is GoalStatus.running:
        services.dispatch.step(goal.id, goal.step)
    return goal


def _to(status: GoalStatus, allowed: Callable[[Goal], bool]) -> Callable[[Goal], Goal | None]:
    def change(goal: Goal) -> Goal | None:
        if not allowed(goal):
            return None
        goal.status = status
        return goal

    return change


def _pause(goal: Goal) -> Goal | None:
    if goal.status not in _ACTIVE:
        return None
    goal.paused_from = goal.status
    goal.status = GoalStatus.paused
    return goal


def _resume(goal: Goal, now: float) -> Goal | None:
    if goal.status is not GoalStatus.paused:
        return None
    previous = goal.paused_from or GoalStatus.running
    goal.status = GoalStatus.acting if previous is GoalStatus.waiting_approval else previous
    goal.paused_from = None
    # A fresh budget: the user chose to go on.
    goal.steps_base = goal.step
    goal.tokens_base = goal.prompt_tokens + goal.completion_tokens
    goal.updated_at = now
    return goal
