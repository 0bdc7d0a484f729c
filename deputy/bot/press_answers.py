"""Answering a button press: once, at once, and never at the cost of the rest of the press.

Telegram takes an answer only for a short while after the press (about 15 seconds; later it
answers 400 "query is too old and response timeout expired or query ID is invalid"). A press
that waited (behind the chat's earlier updates, or replayed after a restart) can no longer be
answered, but its decision stands and its card must still change: a failed answer is logged,
never raised.
"""

from __future__ import annotations

import logging

from telegram import CallbackQuery
from telegram.error import TelegramError

from deputy.bot.texts import MAX_ALERT_CHARS

log = logging.getLogger(__name__)


async def answer_press(query: CallbackQuery, text: str | None = None, show_alert: bool = False) -> bool:
    """Answer the press (a toast, or an alert); False if Telegram would not take the answer."""
    if text is not None and len(text) > MAX_ALERT_CHARS:  # Telegram refuses longer answers outright
        text = text[: MAX_ALERT_CHARS - 1] + "…"
    try:
        await query.answer(text, show_alert=show_alert)
    except TelegramError as exc:
        log.info("a press could not be answered (the card still changes): %s", exc)
        return False
    return True
