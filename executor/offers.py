"""Shopping around: the offers the agent looked at in a goal, compared on the purchase card.

Every product search a shop answers (`<shop>_search_products`) is remembered for the
goal: seller, item, price, shipping, delivery date. When a purchase in that goal asks for
approval, the card lists those offers by delivered price (price + shipping), so the user
sees what was compared and which one they are paying for, whatever the agent claims.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal, InvalidOperation
from typing import Any

from redis import Redis

from core.actions import Action
from core.confidential import confidential_keys

_OFFERS = "deputy:offers:{}"
TTL_SECONDS = 30 * 24 * 3600
MAX_LINES = 6


def _body(summary: str) -> Any:
    start = summary.find("{")
    try:
        return json.loads(summary[start:]) if start >= 0 else None
    except ValueError:
        return None


def record_offers(redis: Redis, action: Action, summary: str) -> int:
    """Remember the offers in a product search's answer; returns how many."""
    if not action.operation.endswith("search_products"):
        return 0
    body = _body(summary)
    products = body.get("products") if isinstance(body, dict) else None
    if not isinstance(products, list):
        return 0
    key = _OFFERS.format(action.goal_id)
    keys = confidential_keys(redis)
    kept = 0
    for product in products[:20]:
        try:
            offer = {"seller": str(product["seller"])[:60], "item": str(product["name"])[:80],
                     "price": str(Decimal(str(product["price"]))), "shipping": str(Decimal(str(product["shipping"]))),
                     "currency": str(product.get("currency", ""))[:3], "delivery_by": str(product["delivery_by"])[:10],
                     "stock": int(product.get("stock", 1))}
        except (KeyError, TypeError, ValueError, InvalidOperation):
            continue
        field = f"{offer['seller']}|{product.get('id', offer['item'])}"
        if keys.public_key(action.user_id) is not None:  # a confidential user: what they looked at is theirs
            field = hashlib.sha256(f"{action.goal_id}|{field}".encode()).hexdigest()[:24]
        redis.hset(key, field, keys.seal_text(action.user_id, json.dumps(offer)))
        kept += 1
    redis.expire(key, TTL_SECONDS)
    return kept


def comparison(redis: Redis, goal_id: str, user_id: int) -> str:
    """The compared offers, cheapest delivered first; "" when fewer than two sellers were asked."""
    opened = confidential_keys(redis).opener(user_id)
    offers = [json.loads(opened(raw)) for raw in redis.hvals(_OFFERS.format(goal_id))]
    offers = [o for o in offers if o.get("stock", 1) > 0]
    if len({o["seller"] for o in offers}) < 2:
        return ""
    for offer in offers:
        offer["delivered"] = Decimal(offer["price"]) + Decimal(offer["shipping"])
    offers.sort(key=lambda o: (o["delivered"], o["delivery_by"]))
    lines = [f"• {o['seller']}: {o['item']} {o['price']} + {o['shipping']} shipping = {o['delivered']} "
             f"{o['currency']}, delivered by {o['delivery_by']}" for o in offers[:MAX_LINES]]
    more = f"\n(and {len(offers) - MAX_LINES} more)" if len(offers) > MAX_LINES else ""
    return "\n\nOffers compared (cheapest delivered first):\n" + "\n".join(lines) + more


def erase_goal_offers(redis: Redis, goal_ids: tuple[str, ...]) -> int:
    keys = [_OFFERS.format(goal_id) for goal_id in goal_ids]
    return int(redis.delete(*keys)) if keys else 0
