"""How far an outbox message got: the parts Telegram confirmed, kept in Redis.

A message longer than Telegram's limit goes out in parts (after its photo or file, when it
has one). Each time Telegram confirms a part, the entry's progress is written to Redis
(parts confirmed, the last part's message id) before the next part is sent, and it is
deleted together with the entry when the entry is acknowledged. A bot that dies midway
leaves the entry pending and its progress behind; the bot that reclaims the entry resumes
at the first part not confirmed, so the user sees each part once, in order. Within one bot
the same progress carries a retry past a timeout or a 5xx, when Telegram may well have
delivered the part.

Only a part Telegram confirmed in the instant before the bot died, not yet written down, is
sent again. Messages held for quiet hours are not stream entries: their progress is kept in
memory only. The key holds two numbers and no words, and it expires after a week like an
entry's route pin: an entry erased with its user's data leaves nothing of theirs for long.
"""

from __future__ import annotations

import redis.asyncio as aioredis

PROGRESS_KEY = "deputy:outbox:progress:{}"  # stream entry id (":words" for its words-only retry) -> progress
_KEEP_SECONDS = 7 * 24 * 3600


def progress_keys(entry_id: bytes) -> list[str]:
    """Every progress an entry may have left (deleted when it is acknowledged)."""
    entry = entry_id.decode()
    return [PROGRESS_KEY.format(entry), PROGRESS_KEY.format(f"{entry}:words")]


class Progress:
    """How far one message's plan of parts got: its parts from `confirmed` on are still to go."""

    def __init__(self, redis: aioredis.Redis | None = None, key: str | None = None, confirmed: int = 0,
                 last_message_id: int | None = None) -> None:
        self._redis = redis
        self._key = key
        self.confirmed = confirmed
        self.last_message_id = last_message_id

    @classmethod
    async def of(cls, redis: aioredis.Redis, entry_id: bytes, written: bool, words_only: bool = False) -> Progress:
        """The entry's progress: as written down if it may have been (`written`: the entry was tried
        before), else from the first part without asking Redis (an entry read for the first time)."""
        key = progress_keys(entry_id)[1 if words_only else 0]
        raw = await redis.get(key) if written else None
        if raw is None:
            return cls(redis, key)
        confirmed, _, last = raw.decode().partition(" ")
        return cls(redis, key, int(confirmed), int(last) if last else None)

    async def done(self, index: int, message_id: int) -> None:
        """Telegram confirmed part `index` (as message `message_id`)."""
        self.confirmed, self.last_message_id = index + 1, message_id
        if self._redis is not None and self._key is not None:
            await self._redis.set(self._key, f"{self.confirmed} {message_id}", ex=_KEEP_SECONDS)
