"""Purchases waiting on the user's card, by item, so a cheaper listing of the same item can be offered.

When the executor shows a checkout card it knows what is in the cart (`deputy.executor.cart_lines`);
it notes each item here (the item's id, its price on the card, the goal and the action). The
suggestion round reads every shop's listings anyway, once for everyone: when one lists a noted item
for less than the card says, while that card is still waiting, the user gets one message offering
the change (Edit / Keep); nothing changes unless they say so. Decided by code from the records:
no model call. A round with no card waiting costs one set read. A confidential user's cart is not
noted (it would sit here unsealed), so they get no such offer.
"""

from __future__ import annotations

import time
from decimal import Decimal, InvalidOperation
from typing import Callable, Iterator

from pydantic import BaseModel
from redis import Redis

from deputy.agent.suggestions.listings import GOODS, Listing
from deputy.core.confidential import confidential_keys
from deputy.core.records.outbox import Button, OutboxMessage

PENDING = "deputy:pending_buys"
"""`<user id>:<item id>` for each item a user's card waits to buy (the details live in the user's namespace,
erased with the user; a member whose details are gone is dropped at the next round)."""
_ITEM = "deputy:user:{}:pending_buy:{}"
_OFFERED = "deputy:user:{}:cheaper_offered:{}:{}"
KEEP = 7 * 86400


class PendingBuy(BaseModel):
    user_id: int
    chat_id: int
    goal_id: str
    action_id: str
    item: str
    unit_price: str
    currency: str = "USD"
    service: str = ""


class PendingBuys:
    def __init__(self, redis: Redis, clock: Callable[[], float] = time.time) -> None:
        self._redis = redis
        self._clock = clock

    def note(self, buys: list[PendingBuy]) -> None:
        """The items of a checkout card just shown (none for a confidential user)."""
        if not buys or confidential_keys(self._redis).enabled(buys[0].user_id):
            return
        pipe = self._redis.pipeline(transaction=False)
        for buy in buys:
            key = _ITEM.format(buy.user_id, buy.item)
            pipe.sadd(PENDING, f"{buy.user_id}:{buy.item}")
            pipe.hset(key, buy.action_id, buy.model_dump_json())
            pipe.expire(key, KEEP)
        pipe.execute()

    def cheaper(self, listings: list[Listing], waiting: Callable[[str], bool]) -> Iterator[tuple[PendingBuy, Listing]]:
        """(the waiting purchase, the listing) for each item listed for less than its card says, once each."""
        members = {m.decode() if isinstance(m, bytes) else m for m in self._redis.smembers(PENDING)}
        if not members:
            return
        items = {member.partition(":")[2] for member in members}
        listed: dict[str, list[Listing]] = {}
        for listing in listings:
            item = listing.id.split(":", 1)[-1]
            if listing.service in GOODS and item in items and _amount(listing.price) is not None:
                listed.setdefault(item, []).append(listing)
        for member in members:
            user, _, item = member.partition(":")
            key = _ITEM.format(user, item)
            entries = self._redis.hgetall(key)
            if not entries:
                self._redis.srem(PENDING, member)
                continue
            for action_id, raw in entries.items():
                buy = PendingBuy.model_validate_json(raw)
                if not waiting(buy.action_id):
                    self._redis.hdel(key, action_id)  # answered or expired: nothing to offer
                    continue
                paid = _amount(buy.unit_price)
                for listing in sorted(listed.get(item, []), key=lambda found: _amount(found.price) or 0):
                    price = _amount(listing.price)
                    if paid is None or price is None or price >= paid \
                            or listing.currency.upper() != buy.currency.upper():
                        continue
                    if self._redis.set(_OFFERED.format(buy.user_id, buy.action_id, listing.id), 1, nx=True, ex=KEEP):
                        yield buy, listing
                    break  # the cheapest only, once


def offer_message(buy: PendingBuy, listing: Listing, goal_text: str) -> OutboxMessage:
    """The offer: where the same item is cheaper, and that the user decides (Edit / Keep)."""
    where = f" at {listing.place}" if listing.place else ""
    shipping = " (before any shipping)" if listing.service != buy.service else ""
    name = goal_text[:80] + ("…" if len(goal_text) > 80 else "")
    return OutboxMessage(
        chat_id=buy.chat_id, goal_id=buy.goal_id, proactive=True, dedupe_key=f"cheaper:{buy.action_id}:{listing.id}",
        text=(f"💡 “{name}”: {listing.title} is {listing.price} {listing.currency}{where}{shipping}, less than the "
              f"{buy.unit_price} {buy.currency} each on the card waiting for you. To buy it there instead, press "
              "Edit and say so; press Keep and I go on as it is."),
        buttons=[[Button(text="Edit", sign=f"ge:{buy.goal_id}"), Button(text="Keep", sign=f"gk:{buy.goal_id}")]])


def _amount(text: str | None) -> Decimal | None:
    try:
        return Decimal(str(text)) if text is not None else None
    except InvalidOperation:
        return None


__all__ = ["PENDING", "PendingBuy", "PendingBuys", "offer_message"]
