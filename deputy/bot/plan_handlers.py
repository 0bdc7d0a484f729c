"""The user's side of plans: a new goal admitted or refused, /plan, invitations, message floods.

- A new goal takes its place in the user's plan as it is stored (`deputy.bot.intake.GoalIntake.admit`):
  over a limit the user reads which limit, when it resets and how to get more
  (`tell_refusal`), and nothing is stored or queued. Near a limit they are told once
  (`near_notices`).
- `/plan` shows the plan, what is used today and this month and when each resets.
- `/start <code>`: a stranger with an invitation code is let in (`deputy.bot.handlers.Handlers.gate`
  asks `admitted_by_invite`).
- A user sending messages faster than `messages_per_minute` gets one polite answer a minute
  and their extra messages are not taken, so one flood cannot crowd the bot out for others.
"""

from __future__ import annotations

import asyncio

from telegram import Update
from telegram.ext import ContextTypes

from deputy.bot.services import BotServices
from deputy.core.accounts.quota_texts import near_text, plan_text, refusal_text
from deputy.core.accounts.quotas import Started
from deputy.core.infrastructure.lua_scripts import LuaScript

_FLOOD = "deputy:flood:{}:{}"  # user, minute
_FLOOD_SECONDS = 120  # a minute's count outlives its minute
# KEYS: the minute's count. ARGV: how long to keep it. Returns the count with this message.
_COUNT_MESSAGE = LuaScript("""
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
""")
FLOOD_TEXT = ("You're sending messages faster than I can take them in, so I skipped the last few. "
              "Please wait a minute, then send what you still need.")


async def tell_refusal(services: BotServices, update: Update, started: Started) -> None:
    """Tell the user their new goal was refused: which limit, when it resets, how to get more."""
    now = services.clock()
    await update.effective_message.reply_text(refusal_text(started.refusal, now, started.zone,
                                                           services.quotas.book.upgrade))


def near_notices(started: Started | None, now: float) -> list[str]:
    """The heads-ups to send after the acknowledgement: limits the new goal brought near (once a period)."""
    if started is None:
        return []
    return [near_text(near, now, started.zone) for near in started.near]


async def files_refused(services: BotServices, update: Update) -> bool:
    """True (and the user told) when the plan has no room for one more stored file."""
    if services.quotas is None or services.uploads is None:
        return False
    have = await asyncio.to_thread(services.uploads.count, update.effective_user.id)
    return await _held_refused(services, update, "files", have, "keep this file")


async def services_refused(services: BotServices, update: Update, have: int) -> bool:
    """True (and the user told) when the plan has no room for one more connected service."""
    return await _held_refused(services, update, "services", have, "connect another service")


async def capability_refused(services: BotServices, update: Update, capability: str, doing: str) -> bool:
    """True (and the user told) when the user's plan does not include `capability`."""
    quotas = services.quotas
    if quotas is None:
        return False
    user_id, now = update.effective_user.id, services.clock()
    refusal = await asyncio.to_thread(quotas.capability_refusal, user_id, capability)
    if refusal is None:
        return False
    await update.effective_message.reply_text(refusal_text(refusal, now, None, quotas.book.upgrade, doing))
    return True


async def _held_refused(services: BotServices, update: Update, what: str, have: int, doing: str) -> bool:
    quotas = services.quotas
    if quotas is None:
        return False
    user_id, now = update.effective_user.id, services.clock()
    refusal = quotas.held_refusal(user_id, what, have)
    if refusal is None:
        return False
    zone = quotas.periods_of(user_id, now).zone
    await update.effective_message.reply_text(refusal_text(refusal, now, zone, quotas.book.upgrade, doing))
    return True


def admitted_by_invite(services: BotServices, update: Update) -> bool:
    """A stranger sending `/start <code>` with a good code, or one who came in with one before."""
    quotas, user = services.quotas, update.effective_user
    if quotas is None or user is None:
        return False
    message = update.effective_message
    words = (message.text or "").split() if message is not None and update.callback_query is None else []
    if len(words) == 2 and words[0].split("@")[0] == "/start" and quotas.accounts.redeem(words[1], user.id):
        return True
    return quotas.accounts.invited(user.id)


async def flooding(services: BotServices, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """True when this message is one too many this minute (the user is told once a minute)."""
    limit, user = services.messages_per_minute, update.effective_user
    if limit is None or user is None or update.effective_message is None or update.callback_query is not None:
        return False
    key = _FLOOD.format(user.id, int(services.clock() // 60))
    count = await _COUNT_MESSAGE(services.intake.client(), [key], [_FLOOD_SECONDS])
    if count <= limit:
        return False
    if count == limit + 1 and update.effective_chat is not None:
        await context.bot.send_message(update.effective_chat.id, FLOOD_TEXT)
    return True


class PlanHandlers:
    def __init__(self, services: BotServices) -> None:
        self._s = services

    async def plan(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        quotas = self._s.quotas
        if quotas is None:
            await update.effective_message.reply_text("This Deputy has no plans or limits set: use it freely.")
            return
        now = self._s.clock()
        usage = await asyncio.to_thread(quotas.usage, update.effective_user.id, now)
        await update.effective_message.reply_text(plan_text(usage, now, quotas.book.upgrade))
