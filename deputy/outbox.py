"""The outbox: messages that workers want sent to a chat, drained by the bot.

Workers never talk to Telegram. They append an `OutboxMessage` to a Redis stream; the bot
process sends it (respecting Telegram's rate limits) and acknowledges it. A `dedupe_key`
makes a message that a retried step appends twice reach the user once.
"""

from __future__ import annotations

from pydantic import BaseModel, Field
from redis import Redis

OUTBOX_STREAM = "deputy:outbox"
# The stream is capped so a bot that is down for days cannot grow Redis without bound.
OUTBOX_MAXLEN = 100_000


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
