"""Drains the outbox stream into Telegram: cards, progress and results from the workers.

A consumer group lets several bot processes share the stream; an entry is acknowledged
only after Telegram accepted it, and entries left pending by a dead bot are reclaimed.
`dedupe_key`s make a message that a retried step produced twice arrive once, and a message
in parts resumes at the first part Telegram did not confirm, in this bot or the next one
(`deputy.bot.outbox_progress`).

Each chat's messages go out one after another, in the order they were written; different
chats' messages go out side by side (`ChatTurns`). So when Telegram tells the bot to wait
before writing to one chat again ("retry after", a 429), only that chat's messages wait:
the rest of the outbox keeps flowing past them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile
from telegram.error import (
    BadRequest,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from deputy.bot.buttons import ButtonSigner
from deputy.bot.chat_rate_limiter import retry_seconds
from deputy.bot.chat_turns import ChatTurns
from deputy.bot.goal_links import links_in_text, with_goal_link
from deputy.bot.outbox_progress import Progress, progress_keys
from deputy.bot.spoken_replies import send_spoken
from deputy.bot.telegram_access import TelegramAccess
from deputy.bot.texts import MAX_MESSAGE_CHARS
from deputy.core.confidential import Locked
from deputy.core.confidential.keys import open_with, public_key_field, unlocked_key_name
from deputy.core.confidential.sealing import is_sealed, seal
from deputy.core.records.outbox import (
    MESSAGE_GOAL_TTL,
    MESSAGE_REF_KEY,
    OUTBOX_HELD,
    OUTBOX_STREAM,
    SENT_KEY,
    Button,
    OutboxMessage,
    message_goal_key,
)
from deputy.core.accounts.surfaces import Surface, pin_route, surface_of
from deputy.core.records.text_parts import split_text as text_parts
from deputy.core.accounts.user_settings import UserSettings

log = logging.getLogger(__name__)

GROUP = "bot"
_KEEP_SECONDS = 30 * 24 * 3600
_RECLAIM_IDLE_MS = 30_000
MAX_CAPTION_CHARS = 1024
"""Telegram's limit for a photo's caption; the rest of a longer text follows as messages."""
LOCKED_RETRY_SECONDS = 300
"""How often news held for a confidential user who is locked is tried again."""
PHOTO_GONE = "(The picture for this message is no longer available.)"
FILE_GONE = "(The file {} is no longer available here; ask me to send it again.)"
TOKEN_RETRY_SECONDS = (5, 15, 60)
"""How long the outbox waits before trying again while Telegram refuses the token (then every minute)."""
_EDIT_GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")
MAX_IN_FLIGHT = 1000
"""Entries read from the stream and not yet delivered, at most (a few megabytes): beyond it the
outbox reads on only as deliveries finish. Only a chat with this many messages waiting for
Telegram to take them could hold the other chats up."""


def split_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> list[str]:
    """Telegram's limit is per message: long texts go out in parts, split at line breaks."""
    return text_parts(text, limit)


class OutboxConsumer:
    def __init__(
        self, redis: aioredis.Redis, bot: Bot, signer: ButtonSigner | None = None, consumer: str | None = None,
        surface: Surface = "telegram", access: TelegramAccess | None = None, web_url: str = "",
        spoken_replies: bool = False,
    ) -> None:
        self._spoken_replies = spoken_replies  # a `spoken` message also goes as a voice note
        self._redis = redis
        self._web_url = web_url  # where goals' pages are (`goal_link` messages link to them); empty: none
        self._access = access or TelegramAccess()
        self._bot = bot
        self._signer = signer
        self._consumer = consumer or f"{socket.gethostname()}-{os.getpid()}"
        # Each chat app reads the whole stream in its own group and delivers only its users' messages.
        self._surface = surface
        self._group = GROUP if surface == "telegram" else surface
        self.turns = ChatTurns()
        self._deliveries: set[asyncio.Task] = set()
        self._entries: set[bytes] = set()  # stream entries being delivered by this process

    async def run(self) -> None:
        """Deliver forever; survives Redis and Telegram outages."""
        try:
            while True:
                try:
                    await self._ensure_group()
                    await self._reclaim()
                    while True:
                        room = await self._room()
                        batch = await self._redis.xreadgroup(self._group, self._consumer, {OUTBOX_STREAM: ">"},
                                                             count=min(50, room), block=2000)
                        for _stream, entries in batch or []:
                            for entry_id, fields in entries:
                                self._start(entry_id, fields)
                        if not batch:
                            await self._reclaim()
                        await self._release_held()
                except asyncio.CancelledError:
                    raise
                except RedisError as exc:
                    log.warning("outbox: Redis unavailable (%s); retrying in 2 s", exc)
                    await asyncio.sleep(2)
                except Exception:  # noqa: BLE001 - a bug must not silence every chat: log it and go on
                    log.exception("outbox: unexpected error; carrying on in 2 s")
                    await asyncio.sleep(2)
        finally:
            for task in list(self._deliveries):
                task.cancel()
            await asyncio.gather(*self._deliveries, return_exceptions=True)

    async def settled(self) -> None:
        """Return once every delivery started so far has finished (for tests and orderly stops)."""
        while self._deliveries:
            await asyncio.wait(list(self._deliveries))

    async def _room(self) -> int:
        """How many more entries may be read now (waiting for deliveries to finish if none)."""
        while len(self._deliveries) >= MAX_IN_FLIGHT:
            await asyncio.wait(list(self._deliveries), return_when=asyncio.FIRST_COMPLETED)
        return MAX_IN_FLIGHT - len(self._deliveries)

    def _start(self, entry_id: bytes, fields: dict[bytes, bytes], reclaimed: bool = False) -> None:
        """Deliver the entry in its chat's turn, without waiting for it (nor for any other chat);
        `reclaimed`: tried before, by a bot that may have sent some of its parts."""
        if entry_id in self._entries:  # reclaimed from ourselves while it waits for its chat's turn
            return
        self._entries.add(entry_id)
        self._spawn(self._handle(entry_id, fields, reclaimed), lambda: self._entries.discard(entry_id))

    def _spawn(self, delivery: Awaitable[None], then: Callable[[], None] = lambda: None) -> None:
        # Created in the order the entries were read, and each enters its chat's line before its
        # first pause: so each chat's messages are delivered in that order.
        task = asyncio.ensure_future(delivery)
        self._deliveries.add(task)

        def finished(done: asyncio.Task) -> None:
            self._deliveries.discard(done)
            then()
            if done.cancelled():
                return
            error = done.exception()
            if isinstance(error, RedisError):  # the entry stays pending: reclaimed once Redis is back
                log.warning("outbox: Redis unavailable during a delivery (%s); it will be tried again", error)
            elif error is not None:
                log.error("outbox: unexpected error in a delivery; it will be tried again", exc_info=error)

        task.add_done_callback(finished)

    async def _ensure_group(self) -> None:
        try:
            await self._redis.xgroup_create(OUTBOX_STREAM, self._group, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def _reclaim(self) -> None:
        _next, entries, *_ = await self._redis.xautoclaim(
            OUTBOX_STREAM, self._group, self._consumer, min_idle_time=_RECLAIM_IDLE_MS, start_id="0-0", count=50
        )
        for entry_id, fields in entries:
            if fields:
                self._start(entry_id, fields, reclaimed=True)

    async def _handle(self, entry_id: bytes, fields: dict[bytes, bytes], reclaimed: bool = False) -> None:
        try:
            message = OutboxMessage.model_validate_json(fields[b"json"])
        except (KeyError, ValueError):
            log.error("outbox: dropping malformed entry %s", entry_id)
            await self._redis.xack(OUTBOX_STREAM, self._group, entry_id)
            return
        async with self.turns.turn(message.chat_id):
            await self._handle_in_turn(entry_id, message, reclaimed)

    async def _handle_in_turn(self, entry_id: bytes, message: OutboxMessage, reclaimed: bool) -> None:
        if await pin_route(self._redis, entry_id.decode(), message.chat_id) != self._surface:
            # The other app's consumer delivers (and deletes) it.
            await self._redis.xack(OUTBOX_STREAM, self._group, entry_id)
            return
        if message.proactive and await self._hold(entry_id, message):
            await self._acknowledge(entry_id)
            return
        try:
            await self._send(message, await Progress.of(self._redis, entry_id, written=reclaimed))
        except (asyncio.CancelledError, RedisError):
            raise
        except Exception:  # noqa: BLE001 - one message that cannot be built must not hold up the rest
            log.exception("outbox: could not deliver entry %s as it is; sending its words alone", entry_id)
            await self._send_words_only(message, await Progress.of(self._redis, entry_id, reclaimed, words_only=True))
        await self._acknowledge(entry_id)

    async def _acknowledge(self, entry_id: bytes) -> None:
        """Done with the entry: delivered messages do not linger in Redis (the chat has them now)."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.xack(OUTBOX_STREAM, self._group, entry_id)
        pipe.xdel(OUTBOX_STREAM, entry_id)
        pipe.delete(*progress_keys(entry_id))
        await pipe.execute()

    async def _hold(self, entry_id: bytes, message: OutboxMessage) -> bool:
        """Keep unprompted news for the end of the user's quiet hours; True if held."""
        raw = await self._redis.get(f"deputy:settings:{message.chat_id}")
        settings = UserSettings.model_validate_json(raw) if raw else UserSettings()
        until = settings.quiet_until(time.time())
        if until is None:
            return False
        held = message.model_copy(update={"proactive": False}).model_dump_json()
        public = await self._redis.hget(*public_key_field(message.chat_id))
        if public is not None:  # a confidential user's news waits sealed to their key
            held = json.dumps({"chat_id": message.chat_id, "sealed": seal(public, held.encode())})
        await self._redis.zadd(OUTBOX_HELD, {f"{entry_id.decode()}|{held}": until})
        return True

    async def _release_held(self) -> None:
        due = await self._redis.zrangebyscore(OUTBOX_HELD, "-inf", time.time(), start=0, num=50)
        for member in due:
            raw = member.split(b"|", 1)[1]
            # A held message is an OutboxMessage, or a confidential user's sealed envelope; both name the chat.
            if await surface_of(self._redis, int(json.loads(raw)["chat_id"])) != self._surface:
                continue
            if await self._redis.zrem(OUTBOX_HELD, member):  # only one bot process sends it
                try:
                    message = await self._opened(raw)
                except Locked:  # the user locked meanwhile: their news waits for the unlock
                    await self._redis.zadd(OUTBOX_HELD, {member: time.time() + LOCKED_RETRY_SECONDS})
                    continue
                self._spawn(self._send_in_turn(message))

    async def _send_in_turn(self, message: OutboxMessage) -> None:
        async with self.turns.turn(message.chat_id):
            await self._send(message)

    async def _opened(self, raw: bytes) -> OutboxMessage:
        if b'"sealed"' not in raw:
            return OutboxMessage.model_validate_json(raw)
        envelope = json.loads(raw)
        if "sealed" not in envelope:
            return OutboxMessage.model_validate_json(raw)
        user_id = int(envelope["chat_id"])
        held = await self._redis.get(unlocked_key_name(user_id))
        return OutboxMessage.model_validate_json(open_with(user_id, held, envelope["sealed"]))

    async def _send(self, message: OutboxMessage, progress: Progress | None = None) -> None:
        progress = progress or Progress()  # kept across the retries below: confirmed parts are not sent twice
        refusals = 0
        while True:
            try:
                await self.deliver(message, progress)
                self._access.accepted()
                break
            except InvalidToken:
                # Every call fails alike: the message stays (unacknowledged) until the token works.
                self._access.refused()
                await asyncio.sleep(TOKEN_RETRY_SECONDS[min(refusals, len(TOKEN_RETRY_SECONDS) - 1)])
                refusals += 1
            except RetryAfter as exc:
                # Only this chat's turn waits: the other chats' deliveries go on meanwhile.
                await asyncio.sleep(retry_seconds(exc))
            except BadRequest as exc:
                linked = with_goal_link(message, self._web_url)
                if "url" in str(exc).lower() and linked != links_in_text(linked):  # a link button refused
                    message = links_in_text(linked)
                    continue
                log.warning("outbox: message for chat %s not deliverable: %s", message.chat_id, exc)
                break
            except Forbidden as exc:
                # The user blocked the bot or the chat is gone: retrying cannot help.
                log.warning("outbox: message for chat %s not deliverable: %s", message.chat_id, exc)
                break
            except NetworkError as exc:
                log.warning("outbox: Telegram unreachable (%s); retrying in 2 s", exc)
                await asyncio.sleep(2)
            except TelegramError as exc:
                log.error("outbox: giving up on a message for chat %s: %s", message.chat_id, exc)
                break

    async def _send_words_only(self, message: OutboxMessage, progress: Progress | None = None) -> None:
        """The message's text with no buttons or picture: what the user must not miss, whatever broke."""
        try:
            words = links_in_text(with_goal_link(message, self._web_url))
            await self._send(words.model_copy(update={"buttons": [], "photo": None, "edit_ref": None}), progress)
        except (asyncio.CancelledError, RedisError):
            raise
        except Exception:  # noqa: BLE001 - dropped, logged, and the next message goes out
            log.exception("outbox: dropping entry for chat %s that cannot be delivered", message.chat_id)

    def _data(self, button: Button, chat_id: int) -> str:
        if button.sign is None:
            return button.data
        if self._signer is None:
            raise ValueError("this bot cannot sign buttons")
        kind, _, ident = button.sign.partition(":")
        # Private chats: the chat id is the user id, the only person who may press.
        return self._signer.data(kind, ident, chat_id)

    async def deliver(self, message: OutboxMessage, progress: Progress | None = None) -> None:
        """Send the message (its parts from the first not yet confirmed in `progress`)."""
        progress = progress or Progress()
        if message.dedupe_key and await self._redis.exists(SENT_KEY.format(message.dedupe_key)):
            return
        if message.delete_ref:
            await self._take_back(message.chat_id, message.delete_ref)
            return
        message = with_goal_link(message, self._web_url)
        markup = (
            InlineKeyboardMarkup(
                [[InlineKeyboardButton(b.text, url=b.url) if b.url else
                  InlineKeyboardButton(b.text, callback_data=self._data(b, message.chat_id)) for b in row]
                 for row in message.buttons]
            )
            if message.buttons
            else None
        )
        if message.photo:
            await self._deliver_photo(message, markup, progress)
        elif message.edit_ref and await self._edited(message, markup):
            pass
        else:
            await self._send_parts(message, split_text(message.text), markup, progress)
            if message.edit_ref and progress.last_message_id is not None:
                # The message stands in for one that could not be edited: later edits go to it.
                await self._redis.set(MESSAGE_REF_KEY.format(message.edit_ref), progress.last_message_id,
                                      ex=_KEEP_SECONDS)
            if message.spoken and self._spoken_replies:
                await send_spoken(self._bot, message.chat_id, message.text)
        if message.dedupe_key:
            await self._redis.set(SENT_KEY.format(message.dedupe_key), 1, ex=_KEEP_SECONDS)
        if message.photo:
            await self._redis.delete(message.photo)  # the chat has it now

    async def _take_back(self, chat_id: int, ref: str) -> None:
        """Delete the message remembered under `ref` (a notice whose moment has passed). Nothing to do if
        none was sent; a message already gone, too old, or in a chat that cannot delete (WhatsApp) stays."""
        message_id = await self._redis.get(MESSAGE_REF_KEY.format(ref))
        if message_id is None:
            return
        try:
            await self._bot.delete_message(chat_id, int(message_id))
        except BadRequest as exc:
            log.info("outbox: the notice in chat %s was not taken back (%s)", chat_id, exc)
        await self._redis.delete(MESSAGE_REF_KEY.format(ref))

    async def _edited(self, message: OutboxMessage, markup: InlineKeyboardMarkup | None) -> bool:
        """Edit the message named `edit_ref`; False if there is none to edit (it was never recorded,
        or the user deleted it): then the text goes out as a new message, so a card is still shown."""
        message_id = await self._redis.get(MESSAGE_REF_KEY.format(message.edit_ref))
        if message_id is None:
            log.info("outbox: no message to edit for chat %s; sending it as a new one", message.chat_id)
            return False
        try:
            await self._bot.edit_message_text(
                message.text[:MAX_MESSAGE_CHARS], chat_id=message.chat_id, message_id=int(message_id),
                reply_markup=markup,
            )
        except BadRequest as exc:
            if not any(gone in str(exc).lower() for gone in _EDIT_GONE):
                raise
            log.info("outbox: the message to edit in chat %s is gone (%s); sending it as a new one",
                     message.chat_id, exc)
            return False
        if message.ref:  # the edited message now also answers to a new name (a card that became another)
            await self._redis.set(MESSAGE_REF_KEY.format(message.ref), int(message_id), ex=_KEEP_SECONDS)
        return True

    async def _send_parts(self, message: OutboxMessage, parts: list[str], markup: InlineKeyboardMarkup | None,
                          progress: Progress, first: int = 0) -> None:
        """The text parts (numbered from `first` in the plan), the buttons on the last; a part
        already confirmed is skipped, and the message is remembered under `ref` once all went."""
        for index, part in enumerate(parts, first):
            if index < progress.confirmed:
                continue
            last = index == first + len(parts) - 1
            sent = await self._bot.send_message(message.chat_id, part, reply_markup=markup if last else None)
            await self._note_goal(message, sent.message_id)
            await progress.done(index, sent.message_id)
        if message.ref and progress.last_message_id is not None:
            await self._redis.set(MESSAGE_REF_KEY.format(message.ref), progress.last_message_id, ex=_KEEP_SECONDS)

    async def _note_goal(self, message: OutboxMessage, message_id: int) -> None:
        """Remember which goal a sent message is about: the user's reply to it follows up that goal."""
        if message.goal_id is not None:
            await self._redis.set(message_goal_key(message.chat_id, message_id), message.goal_id, ex=MESSAGE_GOAL_TTL)

    async def _deliver_photo(self, message: OutboxMessage, markup: InlineKeyboardMarkup | None,
                             progress: Progress) -> None:
        """The image as a photo with the text as caption; a long text continues in messages after it."""
        image = await self._redis.get(message.photo or "")
        if image is not None and is_sealed(image):  # a confidential user's screenshot
            try:
                image = open_with(message.chat_id, await self._redis.get(unlocked_key_name(message.chat_id)),
                                  image.decode())
            except Locked:  # locked since it was taken: the words go out, the picture is not shown
                image = None
        if image is None:
            # Expired or erased: the words still matter, so they go out without the picture.
            gone = FILE_GONE.format(message.document_name) if message.document_name else PHOTO_GONE
            parts = split_text(f"{message.text}\n\n{gone}".strip())
            caption, rest = "", parts
        else:
            caption, rest = _caption_split(message.text)
        if image is not None and progress.confirmed == 0 and message.document_name:  # a file, part 0 of the plan
            sent = await self._bot.send_document(
                message.chat_id, document=InputFile(image, filename=message.document_name),
                caption=caption or None, reply_markup=None if rest else markup,
            )
            await self._note_goal(message, sent.message_id)
            await progress.done(0, sent.message_id)
        elif image is not None and progress.confirmed == 0:  # the photo is part 0 of the plan
            sent = await self._bot.send_photo(
                message.chat_id, photo=image, caption=caption or None, reply_markup=None if rest else markup
            )
            await self._note_goal(message, sent.message_id)
            await progress.done(0, sent.message_id)
        await self._send_parts(message, rest, markup, progress, first=1 if image is not None else 0)


def _caption_split(text: str) -> tuple[str, list[str]]:
    """The caption (at most Telegram's limit, cut at a line break when possible) and the messages after it."""
    if len(text) <= MAX_CAPTION_CHARS:
        return text, []
    cut = text.rfind("\n", 0, MAX_CAPTION_CHARS)
    cut = cut if cut > MAX_CAPTION_CHARS // 2 else MAX_CAPTION_CHARS
    return text[:cut], split_text(text[cut:].lstrip("\n"))
