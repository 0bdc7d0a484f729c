"""Receipts: what each purchase cost, where, paid with which token, kept with its goal.

Written by the executor when a paid action succeeds; listed with the goal and included in
/export. A receipt holds the order as the shop confirmed it, never a card number.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel
from redis import Redis

from deputy.core.confidential import ConfidentialKeys, confidential_keys

_USER = "deputy:receipts:{}"
MAX_RECEIPTS = 1000


class Receipt(BaseModel):
    schema_version: int = 1
    goal_id: str
    action_id: str
    merchant: str
    order_id: str = ""
    total: Decimal
    currency: str
    items: list[str] = []
    card: str = ""
    """The card's nickname, never its number."""
    token: str = ""
    paid_at: float

    def line(self) -> str:
        items = ", ".join(self.items) or "your order"
        order = f" (order {self.order_id})" if self.order_id else ""
        return f"🧾 {self.total} {self.currency} at {self.merchant}{order} for {items}"


class ReceiptStore:
    """A confidential user's receipts are sealed to their key."""

    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)

    def add(self, user_id: int, receipt: Receipt) -> None:
        key = _USER.format(user_id)
        self._redis.rpush(key, self._keys.seal_text(user_id, receipt.model_dump_json()))
        self._redis.ltrim(key, -MAX_RECEIPTS, -1)

    def list(self, user_id: int, goal_id: str | None = None) -> list[Receipt]:
        opened = self._keys.opener(user_id)
        found = [Receipt.model_validate_json(opened(raw)) for raw in self._redis.lrange(_USER.format(user_id), 0, -1)]
        return [r for r in found if goal_id is None or r.goal_id == goal_id]

    def reseal(self, user_id: int) -> int:
        """Seal the user's receipts (confidential mode was just turned on); returns how many."""
        receipts = self.list(user_id)
        self.erase(user_id)
        for receipt in receipts:
            self.add(user_id, receipt)
        return len(receipts)

    def erase(self, user_id: int) -> int:
        return int(self._redis.delete(_USER.format(user_id)))
