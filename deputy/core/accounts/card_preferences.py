"""Which card the user wants to pay with: a default, and a choice per merchant.

Stored as credential handles (`cred:card/...`), never numbers; the bot writes them from
/connections, the executor reads them when it picks the card for a purchase.
"""

from __future__ import annotations

from redis import Redis

_PREFS = "deputy:cardprefs:{}"
_OFFER = "deputy:cardprefs:{}:offer:{}"
DEFAULT = "default"
OFFER_TTL = 7 * 24 * 3600


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

    def offer(self, user_id: int, merchant: str, handle: str, offer_id: str) -> None:
        """Keep a "pay this shop with this card from now on" choice for a button to confirm."""
        self._redis.set(_OFFER.format(user_id, offer_id), f"{merchant}|{handle}", ex=OFFER_TTL)

    def accept(self, user_id: int, offer_id: str) -> tuple[str, str] | None:
        """The (merchant, handle) the user chose with that button, now their choice there."""
        raw = self._redis.getdel(_OFFER.format(user_id, offer_id))
        if raw is None:
            return None
        merchant, handle = (raw.decode() if isinstance(raw, bytes) else raw).split("|", 1)
        self.set_for_merchant(user_id, merchant, handle)
        return merchant, handle

    def erase(self, user_id: int) -> int:
        keys = [_PREFS.format(user_id), *self._redis.scan_iter(_OFFER.format(user_id, "*"))]
        return int(self._redis.delete(*keys))
