"""Voice notes, audio files and videos: heard on this machine (or by the hosted provider set up), then
handled as text.

A voice note (or a round video note) the user recorded is the user's own words: its transcript
is shown back ("I heard: …") so a mishearing is seen before anything acts on it, and goes on as
if typed, through the same secret check as a typed message: a spoken password or card number is
taken out, the note deleted where the chat allows it, and the rest goes on with a handle.

An audio file, a video or a forwarded recording was made by someone else (a recipe video, a
podcast clip): what it says is outside content. Its transcript is kept as a text file given to a
new goal, which the worker labels untrusted like any document's text; the caption is the goal. A
video's pictures go with it: a few keyframes, each read for secrets as a photo is, given to the
goal as photos are.

A link to a video or audio file in a message is fetched through the egress guard
(`deputy.bot.media_links`) and handled as such a video, the message being the goal.

Recordings over the length or size limits, or in a language not allowed, are refused with a
plain sentence; nothing is kept of them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

from telegram import Message, Update
from telegram.ext import ContextTypes

from deputy.agent.attachments import Attachment
from deputy.bot import secret_paste, texts
from deputy.bot.media_links import MediaLinkError, fetch_recording, recording_link
from deputy.bot.photo_text import PhotoReader
from deputy.bot.secret_gate import worth_a_goal
from deputy.bot.spoken_replies import SPOKEN, wants_spoken_replies
from deputy.bot.services import BotServices
from deputy.core.secret_scan import find_secrets
from deputy.core.secret_scan.pictures import picture_secrets
from deputy.speech import SpeechError, Transcript
from deputy.speech.frames import keyframes

log = logging.getLogger(__name__)

TextTaker = Callable[[Update, str], Awaitable[None]]
GoalStarter = Callable[[Update, str, list[Attachment]], Awaitable[None]]

SPEECH_OFF = "I can't listen to recordings here (speech is turned off). Please type your message."
NO_WORDS = "I couldn't make out any words in that {what}. Please try again, or type your message."
TOO_BIG_TO_FETCH = "That {what} is too big for me to fetch (over 20 MB). Please send a shorter one."
TRANSCRIPT_MAX_SHOWN = 600


def heard(text: str) -> str:
    return f"I heard: “{text}”"


def _recording(message: Message) -> tuple[object, str, bool] | None:
    """The recording in `message`, what to call it, and whether its words are the user's own."""
    forwarded = getattr(message, "forward_origin", None) is not None
    if message.voice is not None:
        return message.voice, "voice note", not forwarded
    if message.video_note is not None:
        return message.video_note, "video note", not forwarded
    if message.audio is not None:
        return message.audio, "audio file", False
    if message.video is not None:
        return message.video, "video", False
    mime = (message.document.mime_type or "") if message.document is not None else ""
    if mime.startswith(("audio/", "video/")):  # a recording sent as a file
        return message.document, "audio file" if mime.startswith("audio/") else "video", False
    return None


class VoiceNotes:
    def __init__(self, services: BotServices, take_text: TextTaker, start_goal: GoalStarter) -> None:
        self._s = services
        self._take_text = take_text
        self._start_goal = start_goal
        self._one_at_a_time = asyncio.Semaphore(1)
        self._photos = PhotoReader()

    async def recording(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        found = _recording(message)
        if found is None:
            return
        item, what, own_words = found
        transcriber = self._s.transcriber
        if transcriber is None:
            await message.reply_text(SPEECH_OFF)
            return
        try:
            length = getattr(item, "duration", 0) or 0  # seconds, or a timedelta in later PTB versions
            transcriber.limits.refuse_length(length.total_seconds() if hasattr(length, "total_seconds")
                                             else float(length), what)
            transcriber.limits.refuse_size(int(getattr(item, "file_size", 0) or 0), what)
        except SpeechError as exc:
            await message.reply_text(str(exc))
            return
        try:
            data = bytes(await (await item.get_file()).download_as_bytearray())
        except Exception as exc:  # noqa: BLE001 - Telegram refuses files over 20 MB; a lost file is told plainly
            log.info("a %s could not be fetched (%s)", what, type(exc).__name__)
            await message.reply_text(TOO_BIG_TO_FETCH.format(what=what) if "too big" in str(exc).lower()
                                     else "I couldn't fetch that recording. Please send it again.")
            return
        transcript = await self._heard(message, data, what)
        if transcript is None:
            return
        if own_words:
            await self._spoken(update, message, transcript, what)
        else:
            await self._material(update, message, transcript, what, data, (message.caption or "").strip())

    async def linked(self, update: Update, text: str) -> bool:
        """A message with a link to a video or audio file: heard and looked at as a sent video is, the
        message being the goal. False (nothing done) when it has no such link or the link is no recording."""
        url = recording_link(text)
        transcriber = self._s.transcriber
        if url is None or transcriber is None:
            return False
        message = update.effective_message
        try:
            fetched = await fetch_recording(url, self._s.egress_allow, transcriber.limits.max_bytes)
        except MediaLinkError as exc:
            await message.reply_text(str(exc))
            return True
        if fetched is None:
            return False  # a page after all: the agent reads it in the browser
        transcript = await self._heard(message, fetched.data, fetched.what)
        if transcript is not None:
            await self._material(update, message, transcript, fetched.what, fetched.data, text, link=fetched.url)
        return True

    async def _heard(self, message: Message, data: bytes, what: str) -> Transcript | None:
        """The recording's transcript; None (the user told why) when it can't be heard or holds no words."""
        try:
            await message.chat.send_action("typing")
        except Exception:  # noqa: BLE001 - the typing sign is a courtesy
            pass
        try:
            async with self._one_at_a_time:
                transcript = await asyncio.to_thread(self._s.transcriber.transcribe, data, what)
        except SpeechError as exc:
            await message.reply_text(str(exc))
            return None
        log.info("a %s of %.0f s was transcribed in %.1f s (%s)", what, transcript.duration, transcript.seconds,
                 transcript.language)
        if not transcript.text:
            await message.reply_text(NO_WORDS.format(what=what))
            return None
        return transcript

    async def _spoken(self, update: Update, message: Message, transcript: Transcript, what: str) -> None:
        """The user's own words: shown back, checked for secrets, then handled as a typed message."""
        text = transcript.text
        scan = find_secrets(text)
        if not scan.found:
            await message.reply_text(heard(texts.shorten(text, TRANSCRIPT_MAX_SHOWN)))
            await self._said(update, text)
            return
        user_id, chat = update.effective_user.id, update.effective_chat
        try:
            deleted = bool(await message.delete())
        except Exception:  # noqa: BLE001 - WhatsApp and old messages refuse: the user is told
            deleted = False
        self._s.audit.append(user_id, "secret_voice_deleted", self._s.clock(), what=scan.label, removed=deleted)
        lines = [secret_paste.deleted_notice(scan.label, deleted, what=what)]
        redacted = scan.redacted()
        goes_on = worth_a_goal(scan.redacted(""))
        lines.append(heard(texts.shorten(redacted, TRANSCRIPT_MAX_SHOWN)) if goes_on
                     else f"Please send the {what} again without it.")
        service = secret_paste.vault_service(scan.kind or "", text)
        if service is not None:
            token = self._s.links.create(user_id, chat.id, service)
            lines.append(secret_paste.vault_offer(service, f"{self._s.connect_url}/connect/{token}"))
        await chat.send_message("\n\n".join(lines))
        if goes_on:
            await self._said(update, redacted)

    async def _said(self, update: Update, text: str) -> None:
        """Handle the heard words as typed; a goal they start is marked as asked by voice (spoken replies)."""
        token = SPOKEN.set(self._s.spoken_replies and wants_spoken_replies(self._s.redis, update.effective_user.id))
        try:
            await self._take_text(update, text)
        finally:
            SPOKEN.reset(token)

    async def _material(self, update: Update, message: Message, transcript: Transcript, what: str,
                        data: bytes, caption: str, link: str | None = None) -> None:
        """Someone else's words: kept as a text file for a new goal, read there as outside content."""
        user_id = update.effective_user.id
        name = f"{what.replace(' ', '-')}-{message.message_id}-transcript.txt"
        scan = find_secrets(transcript.text)
        body = scan.redacted() if scan.found else transcript.text  # a secret heard is never kept, whoever said it
        attachments = [await asyncio.to_thread(self._s.uploads.put, user_id, name, "text/plain", body.encode())]
        pictures = await self._pictures(data) if what == "video" else []
        for n, picture in enumerate(pictures, 1):
            attachments.append(await asyncio.to_thread(self._s.uploads.put, user_id,
                                                       f"video-{message.message_id}-frame-{n}.jpg", "image/jpeg", picture))
        caption = caption or f"Have a look at this {what} and tell me what matters."
        shown = f" and looked at {len(pictures)} of its pictures" if pictures else ""
        where = f" at {link}" if link else ""
        await message.reply_text(f"I listened to the {what}{where} ({round(transcript.duration)} s){shown}, "
                                 f"and will use what it says: “{texts.shorten(body, 200)}”")
        await self._start_goal(update, caption, attachments)

    async def _pictures(self, video: bytes) -> list[bytes]:
        """A few keyframes, each read for secrets as a photo is; one that shows a secret is not kept."""
        kept = []
        for picture in await asyncio.to_thread(keyframes, video):
            text = await self._photos.text(picture)
            if text and picture_secrets(text).found:
                continue
            kept.append(picture)
        return kept
