"""A message the user edits after sending it: never a new goal.

Telegram delivers an edit as an ``edited_message`` update carrying the whole new text. If the
edited message is still what a goal waits to read (the goal it started has not taken a turn
yet, or it answered a question and the goal has not read the answer yet), the goal reads the
new text instead. Otherwise the edit comes too late to change anything safely (the model may
already have acted on the old words), so it is left alone and the user is told how to change
the goal.

Which goal a message fed is kept for a few days under the user's namespace (erased with them).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from deputy.agent.goals import Goal, GoalStatus
from deputy.core.confidential import Locked

if TYPE_CHECKING:  # the goal intake (which the services hold) queues `queue_fed`
    from deputy.bot.services import BotServices

_FED = "deputy:user:{}:message:{}:fed"
KEEP_SECONDS = 3 * 24 * 3600
IGNORED = "I saw your edit; send the change as a new message or use Edit on the goal (/goals)."


def queue_fed(pipe: Any, user_id: int, message_id: int, goal_id: str, index: int) -> None:
    """The message at `message_id` became the goal's message number `index` (its text, or an answer):
    queued on a pipeline (the goal intake's writes)."""
    pipe.set(_FED.format(user_id, message_id), json.dumps([goal_id, index]), ex=KEEP_SECONDS)


def remember_fed_now(services: BotServices, user_id: int, message_id: int, goal: Goal) -> None:
    """As `queue_fed`, at once, for the goal's newest message (an answer just added)."""
    services.redis.set(_FED.format(user_id, message_id), json.dumps([goal.id, len(goal.messages) - 1]),
                       ex=KEEP_SECONDS)


def apply_message_edit(services: BotServices, user_id: int, message_id: int, text: str) -> Goal | None:
    """Give the goal still waiting to read this message its new text; None if there is none (or it read it)."""
    raw = services.redis.get(_FED.format(user_id, message_id))
    if raw is None:
        return None
    goal_id, index = json.loads(raw)
    reworded: list[bool] = []

    def reword(goal: Goal) -> Goal | None:
        reworded.clear()
        if goal.user_id != user_id or not _still_unread(goal, index):
            return None
        reworded.append(True)
        goal.messages[index] = {**goal.messages[index], "content": text}
        if index == 0:
            goal.text = text
        goal.updated_at = services.clock()
        return goal

    try:
        # A compare-and-set: a worker in the middle of the goal's turn fails to save it and
        # takes the turn again from this version.
        goal = services.goals.update(goal_id, reword)
    except Locked:  # a confidential user's sealed goal: they are told to send the change instead
        return None
    return goal if reworded else None


def _still_unread(goal: Goal, index: int) -> bool:
    """The goal has not taken a turn since the message: it is its newest, and the turn is still to come."""
    return (goal.status is GoalStatus.running and goal.waiting_model is None and not goal.pending_calls
            and index == len(goal.messages) - 1 and goal.messages[index].get("role") == "user")
