"""What the WhatsApp surface keeps in Redis: message ids, card texts, the 24-hour window.

Telegram numbers messages per chat and the handlers name them by those numbers; WhatsApp
names them ``wamid.…``. Each message the bot sends gets a per-chat number and its text, so
a button pressed under it can be traced to its card, and an edit can say only what changed.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from deputy.core.accounts.surfaces import (
    WA_BACKLOG_KEY,
    WA_BACKLOG_TRIES_KEY,
    WA_DEFERRED_KEY,
    WA_FAILED_KEY,
    WA_MISSED_KEY,
    WA_LAST_IN_KEY,
    WA_MESSAGE_SEQ_KEY,
    WA_REFUSED_KEY,
    WA_TEXT_KEY,
    WA_TOLD_KEY,
    WA_WAMID_KEY,
)
from deputy.whatsapp.inbound import Card

WINDOW_SECONDS = 24 * 3600
"""WhatsApp's customer-service window: free-form messages only within a day of the user's last one."""
_KEEP = 30 * 24 * 3600

_UPDATE_SEQ = "deputy:wa:update_seq"
_MESSAGE_SEQ, _TEXT, _WAMID = WA_MESSAGE_SEQ_KEY, WA_TEXT_KEY, WA_WAMID_KEY
_LAST_IN, _TOLD, _DEFERRED = WA_LAST_IN_KEY, WA_TOLD_KEY, WA_DEFERRED_KEY
_BACKLOG_DUE = "deputy:wa:backlog_due"  # wa_id -> when its backlog may be tried again
_BACKLOG_LOCK = "deputy:wa:backlog_lock:{}"  # wa_id -> the process sending its backlog now
_LOCK_SECONDS = 120
MAX_MISSED = 10
"""At most this many undelivered texts are kept per user (the newest)."""


class SurfaceStore:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis

    async def next_update_id(self) -> int:
        return int(await self.redis.incr(_UPDATE_SEQ))

    async def next_message_id(self, chat_id: int) -> int:
        return int(await self.redis.incr(_MESSAGE_SEQ.format(chat_id)))

    async def remember(self, chat_id: int, message_id: int, text: str, wamids: list[str]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(_TEXT.format(chat_id, message_id), text, ex=_KEEP)
        for wamid in wamids:
            pipe.set(_WAMID.format(wamid), f"{chat_id}:{message_id}", ex=_KEEP)
        await pipe.execute()

    async def text_of(self, chat_id: int, message_id: int) -> str | None:
        raw = await self.redis.get(_TEXT.format(chat_id, message_id))
        return raw.decode() if raw is not None else None

    async def chat_of(self, wamid: str) -> tuple[int, int] | None:
        """(account, message number) of a message the bot sent."""
        raw = await self.redis.get(_WAMID.format(wamid))
        if raw is None:
            return None
        chat_id, _, number = raw.decode().partition(":")
        return int(chat_id), int(number)

    async def first_refusal(self, chat_id: int, message_id: int) -> bool:
        """True once per message (its parts may each be refused, and callbacks come again)."""
        return bool(await self.redis.set(WA_REFUSED_KEY.format(chat_id, message_id), 1, nx=True, ex=_KEEP))

    async def window_closed(self, wa_id: str) -> None:
        await self.redis.delete(_LAST_IN.format(wa_id))

    async def card(self, wamid: str | None) -> Card | None:
        """The bot message a button press answers (WhatsApp gives its wamid as the press's context)."""
        raw = await self.redis.get(_WAMID.format(wamid)) if wamid else None
        if raw is None:
            return None
        chat_id, _, number = raw.decode().partition(":")
        return Card(int(number), await self.text_of(int(chat_id), int(number)) or "")

    async def wrote(self, wa_id: str, now: float) -> None:
        await self.redis.set(_LAST_IN.format(wa_id), f"{now:.3f}", ex=_KEEP)

    async def window_open(self, wa_id: str, now: float) -> bool:
        raw = await self.redis.get(_LAST_IN.format(wa_id))
        return raw is not None and now - float(raw) < WINDOW_SECONDS

    async def first_contact(self, wa_id: str) -> bool:
        """True exactly once per number."""
        return bool(await self.redis.set(_TOLD.format(wa_id), 1, nx=True))

    async def defer(self, wa_id: str, payload: dict[str, Any]) -> None:
        key = _DEFERRED.format(wa_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.rpush(key, json.dumps(payload))
        pipe.expire(key, _KEEP)
        await pipe.execute()

    async def take_deferred(self, wa_id: str) -> list[dict[str, Any]]:
        key = _DEFERRED.format(wa_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.lrange(key, 0, -1)
        pipe.delete(key)
        raw, _ = await pipe.execute()
        return [json.loads(item) for item in raw]

    async def remember_wamid(self, chat_id: int, message_id: int, wamid: str) -> None:
        """A part of message `message_id` sent later (it waited for a rate limit): presses under it find it."""
        await self.redis.set(_WAMID.format(wamid), f"{chat_id}:{message_id}", ex=_KEEP)

    async def first_failure(self, chat_id: int, message_id: int) -> bool:
        """True once per message whose delivery WhatsApp reported failed (each part may fail, callbacks repeat)."""
        return bool(await self.redis.set(WA_FAILED_KEY.format(chat_id, message_id), 1, nx=True, ex=_KEEP))

    # Texts WhatsApp could not deliver, said again when the user next writes.

    async def missed(self, wa_id: str, text: str) -> None:
        key = WA_MISSED_KEY.format(wa_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.rpush(key, text)
        pipe.ltrim(key, -MAX_MISSED, -1)
        pipe.expire(key, _KEEP)
        await pipe.execute()

    async def take_missed(self, wa_id: str) -> list[str]:
        key = WA_MISSED_KEY.format(wa_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.lrange(key, 0, -1)
        pipe.delete(key)
        raw, _ = await pipe.execute()
        return [item.decode() for item in raw]

    # The backlog: parts of messages that wait out a rate limit, in the order they were meant to go.

    async def backlogged(self, wa_id: str) -> bool:
        return bool(await self.redis.exists(WA_BACKLOG_KEY.format(wa_id)))

    async def queue(self, wa_id: str, payloads: list[dict[str, Any]], card: tuple[int, int] | None,
                    due: float) -> None:
        """Behind whatever already waits; tried at `due` unless a try is planned already."""
        key = WA_BACKLOG_KEY.format(wa_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.rpush(key, *(json.dumps({"payload": p, "card": list(card) if card else None}) for p in payloads))
        pipe.expire(key, _KEEP)
        pipe.zadd(_BACKLOG_DUE, {wa_id: due}, nx=True)
        await pipe.execute()

    async def due_backlogs(self, now: float, limit: int = 50) -> list[str]:
        return [m.decode() for m in await self.redis.zrangebyscore(_BACKLOG_DUE, "-inf", now, start=0, num=limit)]

    async def lock_backlog(self, wa_id: str, owner: str) -> bool:
        return bool(await self.redis.set(_BACKLOG_LOCK.format(wa_id), owner, nx=True, ex=_LOCK_SECONDS))

    async def unlock_backlog(self, wa_id: str, owner: str) -> None:
        if await self.redis.get(_BACKLOG_LOCK.format(wa_id)) == owner.encode():
            await self.redis.delete(_BACKLOG_LOCK.format(wa_id))

    async def backlog_head(self, wa_id: str) -> tuple[dict[str, Any], tuple[int, int] | None] | None:
        raw = await self.redis.lindex(WA_BACKLOG_KEY.format(wa_id), 0)
        if raw is None:
            return None
        item = json.loads(raw)
        return item["payload"], (tuple(item["card"]) if item.get("card") else None)  # type: ignore[return-value]

    async def backlog_sent(self, wa_id: str) -> None:
        """The head went out: the next part is tried at once, and the refusals in a row start again."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.lpop(WA_BACKLOG_KEY.format(wa_id))
        pipe.delete(WA_BACKLOG_TRIES_KEY.format(wa_id))
        await pipe.execute()

    async def backlog_refused(self, wa_id: str) -> None:
        """The head was refused for good (not a rate limit): it is dropped, the rest goes on."""
        await self.redis.lpop(WA_BACKLOG_KEY.format(wa_id))

    async def backlog_throttled(self, wa_id: str, delay_for: Any, now: float) -> float:
        """Refused again for a rate limit: the next try after a longer wait; when that is."""
        tries = int(await self.redis.incr(WA_BACKLOG_TRIES_KEY.format(wa_id)))
        await self.redis.expire(WA_BACKLOG_TRIES_KEY.format(wa_id), _KEEP)
        due = now + float(delay_for(tries))
        await self.redis.zadd(_BACKLOG_DUE, {wa_id: due})
        return due

    async def backlog_emptied(self, wa_id: str) -> None:
        await self.redis.zrem(_BACKLOG_DUE, wa_id)
        if await self.backlogged(wa_id):  # a message queued just now, after the last part went
            await self.redis.zadd(_BACKLOG_DUE, {wa_id: 0})
