"""What a user asked Deputy to look out for: their interests, the services it may watch for them,
how often it may suggest something, and the most suggestions a week. Opt-in: nothing is watched
for a user who never set an interest. What the user taught ("not interested", "less like this") is
kept as meaning vectors of the listings they turned down, so similar ones are suppressed.
Keys live in the user's namespace (erased with the user); one set indexes the users who opted in.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, Field
from redis import Redis

SERVICES = ("tickets", "restaurants", "shop", "market", "marketplace")
Every = Literal["daily", "weekly"]
_PREFS = "deputy:user:{}:interests"
_NOTS = "deputy:user:{}:interest_nots"
_LESS = "deputy:user:{}:interest_less"
_SENT = "deputy:user:{}:suggested:{}"
_SUGGESTED = "deputy:user:{}:suggested_ids"
OPTED_IN = "deputy:interests:users"
MAX_INTERESTS = 20
MAX_TAUGHT = 200
DIMENSIONS = 384


class InterestPrefs(BaseModel):
    interests: list[str] = Field(default_factory=list, max_length=MAX_INTERESTS)
    services: list[str] = Field(default_factory=lambda: ["tickets", "restaurants"])
    every: Every = "daily"
    per_week: int = Field(default=3, ge=0, le=20)
    last_at: float = 0.0
    chat_id: int | None = None


class InterestStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def get(self, user_id: int) -> InterestPrefs:
        raw = self._redis.get(_PREFS.format(user_id))
        return InterestPrefs.model_validate_json(raw) if raw else InterestPrefs()

    def save(self, user_id: int, prefs: InterestPrefs) -> None:
        pipe = self._redis.pipeline()
        pipe.set(_PREFS.format(user_id), prefs.model_dump_json())
        if prefs.interests and prefs.per_week > 0:
            pipe.sadd(OPTED_IN, user_id)
        else:
            pipe.srem(OPTED_IN, user_id)
        pipe.execute()

    def opted_in(self) -> list[int]:
        return [int(u) for u in self._redis.sscan_iter(OPTED_IN, count=1000)]

    def teach(self, user_id: int, vector: np.ndarray, strong: bool) -> None:
        """Keep a turned-down listing's meaning: `strong` for "not interested", else "less like this"."""
        key = (_NOTS if strong else _LESS).format(user_id)
        pipe = self._redis.pipeline()
        pipe.rpush(key, np.asarray(vector, dtype=np.float32).tobytes())
        pipe.ltrim(key, -MAX_TAUGHT, -1)
        pipe.execute()

    def taught(self, user_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(not interested, less like this) vectors, one row each."""
        pipe = self._redis.pipeline()
        pipe.lrange(_NOTS.format(user_id), 0, -1)
        pipe.lrange(_LESS.format(user_id), 0, -1)
        nots, less = pipe.execute()
        return _rows(nots), _rows(less)

    def sent_this_week(self, user_id: int, week: str) -> int:
        return int(self._redis.get(_SENT.format(user_id, week)) or 0)

    def count_sent(self, user_id: int, week: str, listing_id: str) -> int:
        pipe = self._redis.pipeline()
        pipe.incr(_SENT.format(user_id, week))
        pipe.expire(_SENT.format(user_id, week), 8 * 86400)
        pipe.sadd(_SUGGESTED.format(user_id), listing_id)
        return int(pipe.execute()[0])

    def already_suggested(self, user_id: int, listing_ids: list[str]) -> set[str]:
        if not listing_ids:
            return set()
        flags = self._redis.smismember(_SUGGESTED.format(user_id), listing_ids)
        return {i for i, flag in zip(listing_ids, flags) if flag}


def _rows(raw: list[bytes]) -> np.ndarray:
    if not raw:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    return np.stack([np.frombuffer(r, dtype=np.float32) for r in raw])


__all__ = ["OPTED_IN", "SERVICES", "InterestPrefs", "InterestStore"]
