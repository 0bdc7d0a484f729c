"""Replies that may be longer than one Telegram message (4,096 characters): sent in parts.

A listing (what Deputy remembers, the user's rules, recent goals) grows with the user's data;
sent whole, Telegram would refuse it ("message is too long") and the user would see nothing.
The parts are cut at line breaks, and the buttons go with the last part, under the listing.
"""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Message

from deputy.bot.texts import MAX_MESSAGE_CHARS
from deputy.core.records.text_parts import split_text


async def reply_in_parts(message: Message, text: str, reply_markup: InlineKeyboardMarkup | None = None) -> None:
    """Reply with `text`, in as many messages as Telegram's limit needs; the buttons on the last."""
    parts = split_text(text, MAX_MESSAGE_CHARS)
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        await message.reply_text(part, reply_markup=reply_markup if last else None)
