"""Pause, resume, continue, cancel and edit a goal from its buttons.

Workers honour these at their next checkpoint: a step that finds its goal paused or
cancelled stops (see `GoalRunner._checkpoint`), and the executor runs nothing for a
cancelled goal.
"""

from __future__ import annotations

from typing import Callable

from deputy.agent.goal_lifecycle import GoalEvent, advance, allowed, move_and_hand_on, next_turn
from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.origins import user_edit
from deputy.agent.watch.digests import CHOICE_KINDS, choice_line
from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.bot.texts import shorten
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.sentinel.stores.approvals import Choice, PressOutcome

_EDITING = "deputy:user:{}:editing"
EDIT_WINDOW_SECONDS = 600


def press_goal_control(services: BotServices, kind: str, goal_id: str, user_id: int) -> PressAnswer:
    goal = services.goals.get(goal_id)
    if goal is None or goal.user_id != user_id:
        return PressAnswer("I can't find that goal.")
    name = shorten(goal.text, 40)
    if kind in CHOICE_KINDS:
        return _set_digest(services, goal_id, CHOICE_KINDS[kind], name)
    if kind == "gk":
        # An offered change declined: nothing about the goal changes; the offer's buttons go.
        services.audit.append(user_id, "change_kept", services.clock(), goal_id=goal_id)
        return PressAnswer("Kept as it is.", "👍 Kept as it is.")
    if kind == "ge":
        services.redis.set(_EDITING.format(user_id), goal_id, ex=EDIT_WINDOW_SECONDS)
        return PressAnswer(f"Send me the change for “{name}” as your next message.")
    if kind == "gx":
        stopped = services.goals.update(goal_id, _if_allowed(GoalEvent.cancel))
        services.audit.append(user_id, "goal_cancelled", services.clock(), goal_id=goal_id)
        if stopped is not None and stopped.status is GoalStatus.cancelled:
            _close_open_card(services, stopped, user_id)
            return PressAnswer("Stopped.", f"⏹ Stopped “{name}”.")
        return PressAnswer("That goal had already ended.")
    if kind == "gp":
        paused = services.goals.update(goal_id, _if_allowed(GoalEvent.pause))
        if paused is not None and paused.status is GoalStatus.paused:
            return PressAnswer("Paused.", f"⏸ Paused “{name}”. Resume it from /goals.")
        return PressAnswer("That goal isn't running.")
    # "gc" (continue after a budget stop) and "gr" (resume) both pick the goal up again.
    resumed = move_and_hand_on(services.goals, goal_id, lambda g: _resume(g, services.clock()), services.dispatch.step,
                               services.clock())
    if resumed is None or resumed.status is GoalStatus.paused or resumed.status.finished:
        return PressAnswer("That goal isn't paused.")
    return PressAnswer("Back to work.", f"▶️ Continuing “{name}”.")


def _set_digest(services: BotServices, goal_id: str, choice: str, name: str) -> PressAnswer:
    """The user's digest choice for a watching goal, kept with its monitor."""
    def change(goal: Goal) -> Goal | None:
        if goal.monitor is None or goal.status.finished:
            return None
        goal.monitor.digest = choice  # type: ignore[assignment]
        return goal

    changed = services.goals.update(goal_id, change)
    if changed is None or changed.monitor is None or changed.monitor.digest != choice:
        return PressAnswer("That goal isn't watching anything now.")
    words = {"daily": "every day", "weekly": "every week", "off": "no more"}[choice]
    return PressAnswer("Digest changed.", f"{choice_line(changed)}: {words} digest for “{name}”.")


def editing_key(user_id: int) -> str:
    """Holds the goal the user pressed Edit on, whose change is their next message."""
    return _EDITING.format(user_id)


def apply_edit(services: BotServices, goal_id: str, user_id: int, text: str) -> Goal | None:
    def change(goal: Goal) -> Goal | None:
        if goal.user_id != user_id or goal.status in (GoalStatus.cancelled,):
            return None
        goal.messages.append(user_edit(text))
        if not allowed(goal.status, GoalEvent.edit):
            return goal  # busy elsewhere (an action, a card, its parts): picked up when that comes back
        goal.pending_calls = []
        return next_turn(goal, GoalEvent.edit, services.clock())

    return move_and_hand_on(services.goals, goal_id, change, services.dispatch.step, services.clock())


def _close_open_card(services: BotServices, goal: Goal, user_id: int) -> None:
    """The card a stopped goal waited on is closed as the user's No, so nothing is left waiting on it."""
    record = services.actions.get(goal.pending_action_id or "")
    if record is None or record.approval_id is None:
        return
    result = services.approvals.decide(record.approval_id, user_id, Choice.deny, services.clock())
    if result.outcome is not PressOutcome.decided or result.request is None:
        return  # answered, expired or never shown: nothing to close
    request = result.request
    services.audit.append(user_id, "approval_decided", services.clock(), approval_id=record.approval_id,
                          action_id=request.action_id, decision="drop" if request.kind == "outcome_unknown" else "denied")
    closed = "I won't try it again" if request.kind == "outcome_unknown" else "this was not done"
    Outbox(services.redis).put(OutboxMessage(
        chat_id=request.chat_id, text=f"{request.card_text}\n\n⏹ You stopped this goal, so {closed}.",
        edit_ref=f"card:{record.approval_id}", dedupe_key=f"stopped:{record.approval_id}"))
    # The executor records the action's end, as it does for a press.
    services.dispatch.action(request.action_id, goal.id, goal.step, approval_id=record.approval_id)


def _if_allowed(event: GoalEvent) -> Callable[[Goal], Goal | None]:
    """Move the goal by `event` when its status allows it (a second Stop changes nothing)."""
    def change(goal: Goal) -> Goal | None:
        return advance(goal, event) if allowed(goal.status, event) else None

    return change


def _resume(goal: Goal, now: float) -> Goal | None:
    if not allowed(goal.status, GoalEvent.resume):
        return None
    advance(goal, GoalEvent.resume)
    # A fresh budget: the user chose to go on.
    goal.steps_base = goal.step
    goal.tokens_base = goal.prompt_tokens + goal.completion_tokens
    goal.updated_at = now
    return goal
