"""The user's answer to a goal that asked them something: added to its transcript, and the goal runs on."""

from __future__ import annotations

from typing import Callable

from deputy.agent.goal_lifecycle import GoalEvent, next_turn
from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.origins import user_message


def add_answer(goals: GoalStore, goal_id: str, text: str, now: float,
               step: Callable[[str, int], None]) -> Goal | None:
    """Give the waiting goal the user's `text` and enqueue its next step (`step`); None if it no longer waits."""

    def answered(goal: Goal) -> Goal | None:
        if goal.status is not GoalStatus.waiting_user:
            return None
        goal.messages.append(user_message(text))
        return next_turn(goal, GoalEvent.answered, now)

    goal = goals.update(goal_id, answered)
    if goal is None or goal.status is not GoalStatus.running:
        return None
    step(goal.id, goal.step)
    return goal
