"""Which card the user wants to pay with: a default, and a choice per merchant.

Stored as credential handles (`cred:card/...`), never numbers; the bot writes them from
/connections, the executor reads them when it picks the card for a purchase.
"""

from __future__ import annotations

from redis import Redis

_PREFS = "deputy:cardprefs:{}"
DEFAULT = "default"


class CardPreferences:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def get(self, user_id: int) -> dict[str, str]:
        raw = self._redis.hgetall(_PREFS.format(user_id))
        return {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
                for k, v in raw.items()}

    def default(self, user_id: int) -> str | None:
        return self.get(user_id).get(DEFAULT)

    def set_default(self, user_id: int, handle: str) -> None:
        self._redis.hset(_PREFS.format(user_id), DEFAULT, handle)

    def set_for_merchant(self, user_id: int, merchant: str, handle: str) -> None:
        self._redis.hset(_PREFS.format(user_id), "merchant:" + merchant.lower(), handle)

    def erase(self, user_id: int) -> int:
        return int(self._redis.delete(_PREFS.format(user_id)))
