"""Confidential mode in the chat: /confidential, /unlock and /lock (and the lock button).

The passphrase is never typed here: turning on and unlocking happen on the private connect
page, behind a one-time link. Locking needs no secret, so it is a command and a button.
"""

from __future__ import annotations

from redis import Redis
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes

from deputy.agent.goals import goal_count
from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.accounts.connect_links import CONFIDENTIAL_ON as TURN_ON, CONFIDENTIAL_UNLOCK as UNLOCK
from deputy.core.confidential import WaitingWork, confidential_keys

ABOUT = (
    "🔐 Confidential mode encrypts your goals and their conversations, memory, files, rules, settings and "
    "approvals with a key that only your passphrase opens. While it is locked, nobody running this Deputy "
    "can read them, and your background work (monitors, long goals) waits until you unlock it for a period "
    "you choose (1 hour to 7 days).\n\n"
    "⚠️ If you forget the passphrase, your data is gone for good: nobody can recover it.\n\n"
)


def keep_answer(redis: Redis, user_id: int, goal_id: str, text: str) -> str:
    """Park the user's answer to a goal while they are locked (sealed to their key); what to tell them."""
    WaitingWork(redis).park_answer(user_id, goal_id, confidential_keys(redis).seal_text(user_id, text))
    return "🔒 Your data is locked, so I kept your answer (encrypted); it reaches the goal when you /unlock."


def locked_goals_text(redis: Redis, user_id: int) -> str:
    """What /goals says while the user's data is locked: how many goals, how many wait, how to unlock."""
    goals = goal_count(redis, user_id)
    waiting = len(WaitingWork(redis).parked_goals(user_id))
    note = f", {waiting} of them waiting for you to unlock" if waiting else ""
    return (f"🔒 You have {goals} goal{'s' if goals != 1 else ''}{note}. Your data is locked (confidential mode), "
            "so I cannot show them. /unlock to see them and let waiting work carry on.")


def lock_button(services: BotServices, user_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("🔒 Lock now", callback_data=services.buttons.data(
        "lk", "me", user_id))]])


def lock_now(services: BotServices, user_id: int) -> str:
    keys = confidential_keys(services.redis)
    if not keys.enabled(user_id):
        return "Confidential mode is off, so there is nothing to lock. /confidential explains it."
    was_unlocked = keys.lock(user_id)
    services.audit.append(user_id, "confidential_locked", services.clock(), by="user")
    return ("🔒 Locked. Nothing of yours can be read until you /unlock again." if was_unlocked
            else "🔒 Your data is already locked. /unlock to open it.")


def press_lock(services: BotServices, user_id: int) -> PressAnswer:
    text = lock_now(services, user_id)
    return PressAnswer(text.split(".")[0] + ".", text)


class ConfidentialHandlers:
    def __init__(self, services: BotServices) -> None:
        self._s = services

    def _link(self, update: Update, service: str) -> str:
        token = self._s.links.create(update.effective_user.id, update.effective_chat.id, service)
        return f"{self._s.connect_url}/connect/{token}"

    async def confidential(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user_id = update.effective_user.id
        keys = confidential_keys(self._s.redis)
        if not keys.enabled(user_id):
            await update.effective_message.reply_text(
                ABOUT + "To turn it on, choose a passphrase on this private page (never here in the chat; the "
                f"link works once, for 15 minutes):\n{self._link(update, TURN_ON)}")
            return
        until = keys.unlocked_until(user_id, self._s.clock())
        if until is None:
            waiting = WaitingWork(self._s.redis).count(user_id)
            note = f" {waiting} piece(s) of work wait for you." if waiting else ""
            await update.effective_message.reply_text(f"🔒 Confidential mode is on and your data is locked.{note} "
                                                      "/unlock to open it.")
            return
        minutes = max(1, round((until - self._s.clock()) / 60))
        await update.effective_message.reply_text(
            f"🔓 Confidential mode is on; your data is unlocked for about {_duration(minutes)} more. /lock locks it now.",
            reply_markup=lock_button(self._s, user_id))

    async def unlock(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if not confidential_keys(self._s.redis).enabled(update.effective_user.id):
            await update.effective_message.reply_text("Confidential mode is off, so nothing is locked. "
                                                      "/confidential explains it.")
            return
        await update.effective_message.reply_text(
            "Open this private link and enter your passphrase there, never here in the chat (it works once, for "
            f"15 minutes):\n{self._link(update, UNLOCK)}")

    async def lock(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.effective_message.reply_text(lock_now(self._s, update.effective_user.id))


def _duration(minutes: int) -> str:
    if minutes < 90:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(minutes / 60)
    return f"{hours} hours" if hours < 48 else f"{round(hours / 24)} days"
