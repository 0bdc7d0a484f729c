"""The outbox: messages that workers want sent to a chat, drained by the bot.

Workers never talk to Telegram. They append an `OutboxMessage` to a Redis stream; the bot
process sends it (respecting Telegram's rate limits) and acknowledges it. A `dedupe_key`
makes a message that a retried step appends twice reach the user once.
"""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel, Field
from redis import Redis

from deputy.core.confidential import confidential_keys
from deputy.core.records.erasure import Owned, delete_keys

OUTBOX_STREAM = "deputy:outbox"
OUTBOX_HELD = "deputy:outbox:held"
"""Messages held back during a user's quiet hours, scored by when they may go."""
SENT_KEY = "deputy:sent:{}"
"""Marks a `dedupe_key` as delivered, so a message appended twice reaches the user once."""
MESSAGE_REF_KEY = "deputy:msgref:{}"
"""The chat message id remembered under a message's `ref`, for later edits."""
MESSAGE_GOAL_KEY = "deputy:user:{}:message_goal:{}"
"""The goal a message sent to a chat (chat id, message id) was about: a reply to it follows up that goal.
Private chats: the chat id is the user's id, so the user's erasure takes these with the rest."""
MESSAGE_GOAL_TTL = 30 * 24 * 3600
# The stream is capped so a bot that is down for days cannot grow Redis without bound.
OUTBOX_MAXLEN = 100_000
PHOTO_KEY = "deputy:photo:{chat_id}:{digest}"
"""Where a photo's bytes wait for the bot (kept out of the stream, which holds only small JSON)."""
PHOTO_TTL = 7 * 24 * 3600
MAX_PHOTO_BYTES = 10 * 1024 * 1024
"""Telegram's limit for a photo."""
MAX_DOCUMENT_BYTES = 50 * 1024 * 1024
"""Telegram's limit for a file a bot sends."""


class Button(BaseModel):
    text: str
    data: str = Field(default="", max_length=64, description="Telegram callback_data: at most 64 bytes.")
    sign: str | None = Field(
        default=None, description="`kind:id` of a bot button; the bot signs it for the chat's user on delivery."
    )
    url: str | None = Field(default=None, description="A link button (no callback data): opens this address.")


class OutboxMessage(BaseModel):
    schema_version: int = 1
    chat_id: int
    text: str
    buttons: list[list[Button]] = Field(default_factory=list)
    dedupe_key: str | None = None
    ref: str | None = Field(default=None, description="Remember the sent message id under this name.")
    edit_ref: str | None = Field(default=None, description="Edit the message remembered under this name instead.")
    delete_ref: str | None = Field(
        default=None, description="Take back the message remembered under this name, where the chat allows "
        "(Telegram; WhatsApp keeps it); the text is not sent.")
    proactive: bool = Field(default=False, description="Unprompted news: held during the user's quiet hours.")
    photo: str | None = Field(
        default=None, description="Redis key of an image to send as a photo; the text becomes its caption."
    )
    document_name: str | None = Field(
        default=None, description="With `photo`: the bytes there go as a file of this name, not as a picture."
    )
    goal_id: str | None = Field(
        default=None, description="The goal the message is about: the user's reply to it follows up that goal."
    )
    spoken: bool = Field(
        default=False,
        description="The user asked by voice: with spoken replies on, the text also goes as a voice note.")
    goal_link: bool = Field(
        default=False, description="With `goal_id`: the bot adds a “See the whole goal” link to the goal's page in "
                                   "the web view, if one is served (`deputy.bot.goal_links`).")


class Outbox:
    """Producer side: append messages for the bot to send."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def put(self, message: OutboxMessage) -> None:
        self._redis.xadd(
            OUTBOX_STREAM, {"json": message.model_dump_json()}, maxlen=OUTBOX_MAXLEN, approximate=True
        )

    def send(self, chat_id: int, text: str, *, dedupe_key: str | None = None, proactive: bool = False,
             goal_id: str | None = None, spoken: bool = False) -> None:
        self.put(OutboxMessage(chat_id=chat_id, text=text, dedupe_key=dedupe_key, proactive=proactive,
                               goal_id=goal_id, spoken=spoken))

    def store_photo(self, chat_id: int, image: bytes, limit: int = MAX_PHOTO_BYTES) -> str:
        """Keep an image (PNG or JPEG) for the bot to send; returns the key for `OutboxMessage.photo`."""
        if len(image) > limit:
            raise ValueError("the image is larger than Telegram accepts for a photo" if limit == MAX_PHOTO_BYTES
                             else "the file is larger than the 50 MB a chat accepts from a bot")
        key = PHOTO_KEY.format(chat_id=int(chat_id), digest=hashlib.sha256(image).hexdigest()[:24])
        # A confidential user's screenshot waits sealed to their key (private chats: the chat is the user).
        self._redis.set(key, confidential_keys(self._redis).seal_bytes(int(chat_id), image), ex=PHOTO_TTL)
        return key

    def send_photo(
        self, chat_id: int, image: bytes, caption: str, *, dedupe_key: str | None = None,
        buttons: list[list[Button]] | None = None,
    ) -> None:
        """Send `image` to the chat as a photo with `caption` (bytes kept aside, the stream entry stays small)."""
        key = self.store_photo(chat_id, image)
        self.put(OutboxMessage(chat_id=chat_id, text=caption, photo=key, dedupe_key=dedupe_key,
                               buttons=buttons or []))


    def send_document(self, chat_id: int, name: str, data: bytes, caption: str, *,
                      dedupe_key: str | None = None) -> None:
        """Send `data` to the chat as a file named `name` (kept aside and sealed like a photo)."""
        key = self.store_photo(chat_id, data, limit=MAX_DOCUMENT_BYTES)
        self.put(OutboxMessage(chat_id=chat_id, text=caption, photo=key, document_name=name, dedupe_key=dedupe_key))


def message_goal_key(chat_id: int, message_id: int) -> str:
    return MESSAGE_GOAL_KEY.format(chat_id, message_id)


def erase_user_messages(redis: Redis, user_id: int) -> int:
    """The user's messages still waiting in the outbox or held for quiet hours; returns how many."""
    doomed = [entry_id for entry_id, fields in redis.xrange(OUTBOX_STREAM) if _chat_of(fields.get(b"json")) == user_id]
    if doomed:
        redis.xdel(OUTBOX_STREAM, *doomed)
    held = [m for m in redis.zrange(OUTBOX_HELD, 0, -1) if _chat_of(m.split(b"|", 1)[-1]) == user_id]
    if held:
        redis.zrem(OUTBOX_HELD, *held)
    return len(doomed) + len(held)


def erase_user_deliveries(redis: Redis, owned: Owned) -> int:
    """The user's photos and the delivery marks named after their goals, approvals and memories.

    Producers name dedupe keys after what a message is about: `<goal id>:...` for a goal's
    messages, `card:<approval id>` and `expired:<approval id>` for approval cards (whose
    ref is `card:<approval id>` too), `memory:<memory id>` for a memory to confirm.
    """
    keys: set[bytes | str] = set(redis.scan_iter(PHOTO_KEY.format(chat_id=owned.user_id, digest="*")))
    for goal_id in owned.goal_ids:
        keys |= set(redis.scan_iter(SENT_KEY.format(f"{goal_id}:*")))
    for approval_id in owned.approval_ids:
        keys |= {SENT_KEY.format(f"card:{approval_id}"), SENT_KEY.format(f"expired:{approval_id}"),
                 MESSAGE_REF_KEY.format(f"card:{approval_id}")}
    keys |= {SENT_KEY.format(f"memory:{memory_id}") for memory_id in owned.memory_ids}
    return delete_keys(redis, keys)


def _chat_of(raw: bytes | None) -> int | None:
    try:
        return int(json.loads(raw)["chat_id"]) if raw else None
    except (ValueError, KeyError, TypeError):
        return None
