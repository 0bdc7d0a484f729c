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
    WA_DEFERRED_KEY,
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
