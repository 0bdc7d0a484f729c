"""Spoken replies: the answer to a request the user spoke also goes back as a voice note.

Off unless the operator sets `DEPUTY_SPOKEN_REPLIES=voice`; then each user may turn it off for
themselves (`/settings voice off`). A goal started from a voice note is marked `spoken` at intake
(`SPOKEN`, set around the handling of the heard words); Deputy's answers
about it carry the mark to the outbox, whose consumer sends the text as always and then the same
words said by espeak-ng (in the voice of the language the answer is written in), encoded by ffmpeg as an OGG/Opus voice note, on this machine: nothing of
it leaves for a speech service. The text stays the reply of record; a voice note that cannot be
made or sent is logged and never holds the text back.
"""

from __future__ import annotations

import asyncio
import logging
import re
from contextvars import ContextVar

from redis import Redis
from telegram import Bot

from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.confidential import Locked
from deputy.speech.synthesis import spoken_note
from deputy.speech.voices import voice_for

log = logging.getLogger(__name__)

SPOKEN: ContextVar[bool] = ContextVar("spoken_request", default=False)
"""True while the bot handles words the user said in a voice note (the goal they start is `spoken`)."""
MAX_SPOKEN_CHARS = 600  # about 40 s of speech: a long answer is read, not listened to
_LINK = re.compile(r"https?://\S+")


def wants_spoken_replies(redis: Redis, user_id: int) -> bool:
    """The user's own choice (`/settings voice on|off`, on unless they turned it off)."""
    try:
        return UserSettingsStore(redis).get(user_id).spoken_replies
    except Locked:  # a confidential user's settings, sealed while they are locked: text only then
        return False


def speakable(text: str) -> str:
    """The words worth saying: links left out, cut at a sentence near the limit."""
    words = " ".join(_LINK.sub("", text).split())
    if len(words) <= MAX_SPOKEN_CHARS:
        return words
    cut = words[:MAX_SPOKEN_CHARS]
    return cut[: cut.rfind(". ") + 1] or cut


async def send_spoken(bot: Bot, chat_id: int, text: str) -> None:
    """`text` as a voice note in `chat_id`; a failure is logged, never raised."""
    words = speakable(text)
    if not words:
        return
    try:
        note = await asyncio.to_thread(spoken_note, words, voice_for(words))
        await bot.send_voice(chat_id, voice=note)
    except Exception as exc:  # noqa: BLE001 - the text went already; the voice note is a courtesy
        log.warning("a spoken reply could not be sent (%s)", type(exc).__name__)
