"""The outbox: messages that workers want sent to a chat, drained by the bot.

Workers never talk to Telegram. They append an `OutboxMessage` to a Redis stream; the bot
process sends it (respecting Telegram's rate limits) and acknowledges it. A `dedupe_key`
makes a message that a retried step appends twice reach the user once.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, Field
from redis import Redis

OUTBOX_STREAM = "deputy:outbox"
# The stream is capped so a bot that is down for days cannot grow Redis without bound.
OUTBOX_MAXLEN = 100_000
PHOTO_KEY = "deputy:photo:{chat_id}:{digest}"
"""Where a photo's bytes wait for the bot (kept out of the stream, which holds only small JSON)."""
PHOTO_TTL = 7 * 24 * 3600
MAX_PHOTO_BYTES = 10 * 1024 * 1024
"""Telegram's limit for a photo."""


class Button(BaseModel):
    text: str
    data: str = Field(default="", max_length=64, description="Telegram callback_data: at most 64 bytes.")
    sign: str | None = Field(
        default=None, description="`kind:id` of a bot button; the bot signs it for the chat's user on delivery."
    )


class OutboxMessage(BaseModel):
    schema_version: int = 1
    chat_id: int
    text: str
    buttons: list[list[Button]] = Field(default_factory=list)
    dedupe_key: str | None = None
    ref: str | None = Field(default=None, description="Remember the sent message id under this name.")
    edit_ref: str | None = Field(default=None, description="Edit the message remembered under this name instead.")
    proactive: bool = Field(default=False, description="Unprompted news: held during the user's quiet hours.")
    photo: str | None = Field(
        default=None, description="Redis key of an image to send as a photo; the text becomes its caption."
    )


class Outbox:
    """Producer side: append messages for the bot to send."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def put(self, message: OutboxMessage) -> None:
        self._redis.xadd(
            OUTBOX_STREAM, {"json": message.model_dump_json()}, maxlen=OUTBOX_MAXLEN, approximate=True
        )

    def send(self, chat_id: int, text: str, *, dedupe_key: str | None = None, proactive: bool = False) -> None:
        self.put(OutboxMessage(chat_id=chat_id, text=text, dedupe_key=dedupe_key, proactive=proactive))

    def store_photo(self, chat_id: int, image: bytes) -> str:
        """Keep an image (PNG or JPEG) for the bot to send; returns the key for `OutboxMessage.photo`."""
        if len(image) > MAX_PHOTO_BYTES:
            raise ValueError("the image is larger than Telegram accepts for a photo")
        key = PHOTO_KEY.format(chat_id=int(chat_id), digest=hashlib.sha256(image).hexdigest()[:24])
        self._redis.set(key, image, ex=PHOTO_TTL)
        return key

    def send_photo(
        self, chat_id: int, image: bytes, caption: str, *, dedupe_key: str | None = None,
        buttons: list[list[Button]] | None = None,
    ) -> None:
        """Send `image` to the chat as a photo with `caption` (bytes kept aside, the stream entry stays small)."""
        key = self.store_photo(chat_id, image)
        self.put(OutboxMessage(chat_id=chat_id, text=caption, photo=key, dedupe_key=dedupe_key,
                               buttons=buttons or []))
