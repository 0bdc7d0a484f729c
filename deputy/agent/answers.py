"""The user's answer to a goal that asked them something: added to its transcript, and the goal runs on."""

from __future__ import annotations

from deputy.agent.goal_lifecycle import GoalEvent, StepQueue, move_and_hand_on, next_job, next_turn
from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.origins import user_message


def add_answer(goals: GoalStore, goal_id: str, text: str, now: float,
               step: StepQueue) -> Goal | None:
    """Give the waiting goal the user's `text` and enqueue its next step (`step`); None if it no longer waits."""

    def answered(goal: Goal) -> Goal | None:
        if goal.status is not GoalStatus.waiting_user:
            return None
        goal.messages.append(user_message(text))
        return next_turn(goal, GoalEvent.answered, now)

    goal = move_and_hand_on(goals, goal_id, answered, step, now)
    return goal if goal is not None and next_job(goal) is not None else None
