"""Which earlier goal a user's message follows up, and /new to start afresh.

Two ways a message follows a goal:
- it replies (Telegram's reply) to one of Deputy's messages about that goal, whenever it was
  sent: each message the workers send about a goal (its answer, question, cards, what was sent)
  is remembered with it by the outbox (`message_goal_key`). If that goal waits for the user's answer, the message is
  the answer; otherwise it is a new goal that carries the earlier one;
- it comes soon after the user's latest goal in the same chat (`FOLLOW_UP_WINDOW`) and the user
  did not send /new since.
What the new goal carries, and how the guard sees it, is `deputy.agent.follow_ups`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Update
from telegram.ext import ContextTypes

from deputy.agent.follow_ups import follows_soon, last_goal_key
from deputy.agent.goal_reads import LOAD, reads_key
from deputy.agent.goals import Goal, GoalStatus, goal_key
from deputy.bot.intake import Pending
from deputy.bot.services import BotServices
from deputy.core.confidential import Locked
from deputy.core.records.outbox import message_goal_key

log = logging.getLogger(__name__)

FRESH_START = "Fresh start: your next message begins a new request, with nothing carried over from before."


@dataclass(frozen=True)
class Followed:
    goal: Goal
    replied: bool  # the user replied to one of Deputy's messages about it


class FollowUps:
    def __init__(self, services: BotServices) -> None:
        self._s = services

    async def replied_to(self, update: Update) -> Goal | None:
        """The goal the Deputy message this message replies to was about, if it was about one."""
        replied = getattr(update.effective_message, "reply_to_message", None)
        if replied is None:
            return None
        client = self._s.intake.client()
        goal_id = await client.get(message_goal_key(update.effective_chat.id, replied.message_id))
        goal = await self._load(goal_id.decode()) if goal_id else None
        return goal if goal is not None and goal.user_id == update.effective_user.id else None

    async def followed(self, update: Update, pending: Pending, replied: Goal | None) -> Followed | None:
        """The goal a new message follows up: the one it replied to, else the latest if recent enough."""
        if replied is not None:
            return Followed(replied, True)
        latest = pending.new_goal.last_goal if pending.new_goal is not None else None
        if latest is None:
            return None
        goal = self._parse(latest, pending.new_goal.last_goal_reads)
        if goal is None or not follows_soon(goal, update.effective_chat.id, self._s.clock()):
            return None
        return Followed(goal, False)

    async def _load(self, goal_id: str) -> Goal | None:
        raw, reads = await LOAD(self._s.intake.client(), [goal_key(goal_id), reads_key(goal_id)])
        return self._parse(raw, reads)

    def _parse(self, raw: bytes | None, reads: list[bytes]) -> Goal | None:
        """The goal with what it read: a follow-up carries that on as outside content (`follow_ups.carry`)."""
        try:
            return self._s.goals.parse(raw, reads=reads)
        except Locked:  # a confidential user's goal, sealed while they are locked: no context then
            return None

    async def new(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/new: the next message starts a goal of its own, with nothing carried over."""
        await self._s.intake.client().delete(last_goal_key(update.effective_user.id))
        await update.effective_message.reply_text(FRESH_START)


def waits_for_answer(goal: Goal) -> bool:
    return goal.status is GoalStatus.waiting_user
