"""`/link`: one Deputy account for Telegram and WhatsApp, and which app news goes to.

Both run before the gate: `/link CODE` from a WhatsApp number not yet allowed is how that
number joins an allowed Telegram account (the code proves it), and the app a linked person
last wrote from is recorded for every update.
"""

from __future__ import annotations

from telegram import Update
from telegram.ext import ApplicationHandlerStop, ContextTypes

from deputy.bot.services import BotServices
from deputy.core.accounts.account_links import CODE_SECONDS, AccountLinks, LinkError
from deputy.core.accounts.surfaces import NUMBER_KEY, SURFACE_KEY, WHATSAPP_BOT_ID, Surface

# One round trip: only linked accounts have a surface to remember.
_RECORD = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('SET', KEYS[2], ARGV[1]) end
return 0
"""


def surface_of_bot(context: ContextTypes.DEFAULT_TYPE) -> Surface:
    return "whatsapp" if context.bot.id == WHATSAPP_BOT_ID else "telegram"


def _other(surface: Surface) -> str:
    return "Telegram" if surface == "whatsapp" else "WhatsApp"


class LinkHandlers:
    def __init__(self, services: BotServices) -> None:
        self._s = services
        self._links = AccountLinks(services.redis)
        self._record = services.redis.register_script(_RECORD)

    async def record_surface(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user = update.effective_user
        if user is not None:
            self._record(keys=[NUMBER_KEY.format(user.id), SURFACE_KEY.format(user.id)], args=[surface_of_bot(context)])

    async def link(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user, message = update.effective_user, update.effective_message
        surface = surface_of_bot(context)
        if context.args:
            try:
                self._links.redeem(context.args[0], user.id, surface)
            except LinkError as exc:
                await message.reply_text(str(exc))
            else:
                await message.reply_text(
                    "Linked: Telegram and WhatsApp now share one Deputy account (goals, memory and rules). "
                    "News goes to the app you last wrote from.")
            raise ApplicationHandlerStop
        if not self._s.is_allowed(user.id):
            return  # the gate, next, refuses strangers politely
        code = self._links.issue(user.id, surface)
        await message.reply_text(
            f"Your link code: {code}\nWithin {CODE_SECONDS // 60} minutes, send “/link {code}” to Deputy on "
            f"{_other(surface)}. Both apps will then share one account.")
        raise ApplicationHandlerStop
