"""What is in the cart: read from the shop before a checkout card, and again before paying.

A checkout of a shop's cart (an operation `<shop>_checkout` with a `cart_id`) names the
cart, not what is in it, so the card would show only a total. The executor reads the cart's
lines through the same shop's `<shop>_get_cart` operation (a read, with the user's own
connection), shows them on the card, keeps what the card showed, and signs them into the
cart mandate. Just before paying it reads the cart again: if the lines changed since the
user saw them, nothing is paid.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from deputy.agent.suggestions.pending_buys import PendingBuy, PendingBuys
from deputy.core.records.actions import Action
from deputy.core.confidential import confidential_keys
from deputy.core.records.effects import ConnectorError, EffectClass, OperationResult

Runner = Callable[[Action, str], "str | OperationResult"]
MAX_LINES = 20
_SHOWN = "deputy:cartlines:{}"
_TTL = 7 * 24 * 3600


def _reader(action: Action) -> tuple[str, str] | None:
    """(the read operation, the cart id) for a cart checkout; None for anything else."""
    if action.effect is not EffectClass.spend or not action.operation.endswith("checkout"):
        return None
    cart = action.arguments.get("cart_id")
    if not isinstance(cart, str) or not cart:
        return None
    return action.operation[: -len("checkout")] + "get_cart", cart


def lines_of(summary: str) -> list[str] | None:
    """The cart's lines ("2 × USB-C cable 1m, 8.99 USD each") from a shop's answer, None if unreadable."""
    start = summary.find("{")
    try:
        body: Any = json.loads(summary[start:]) if start >= 0 else None
    except ValueError:
        return None
    items = body.get("items") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return None
    currency = str(body.get("currency", ""))[:3]
    lines = []
    for item in items[:MAX_LINES]:
        if not isinstance(item, dict):
            continue
        name = " ".join(str(item.get("name") or item.get("product_id") or "item").split())[:80]
        price = f", {str(item['unit_price'])[:12]} {currency} each".rstrip() if item.get("unit_price") else ""
        lines.append(f"{str(item.get('quantity', 1))[:4]} × {name}{price}")
    return lines


def items_of(summary: str) -> list[tuple[str, str, str]]:
    """(product id, unit price, currency) of each cart item the shop's answer names plainly."""
    start = summary.find("{")
    try:
        body: Any = json.loads(summary[start:]) if start >= 0 else None
    except ValueError:
        return []
    items = body.get("items") if isinstance(body, dict) else None
    currency = str(body.get("currency", "USD"))[:3] if isinstance(body, dict) else "USD"
    found = []
    for item in (items if isinstance(items, list) else [])[:MAX_LINES]:
        if isinstance(item, dict) and isinstance(item.get("product_id"), str) and item.get("unit_price"):
            found.append((item["product_id"][:80], str(item["unit_price"])[:12], currency))
    return found


def _bare(line: str) -> str:
    """A line without its price: "1 × USB-C cable"."""
    head, sep, tail = line.rpartition(", ")
    return head if sep and tail.endswith(" each") else line


class CartLines:
    def __init__(self, redis, runners: Mapping[str, Runner]) -> None:
        self._redis = redis
        self._runners = runners

    def read(self, action: Action) -> list[str] | None:
        """The cart's lines as its shop lists them now; None when this is not a cart checkout
        or the shop has no way to read its cart."""
        summary = self._cart(action)
        return lines_of(summary) if summary is not None else None

    def _cart(self, action: Action) -> str | None:
        found = _reader(action)
        if found is None:
            return None
        operation, cart = found
        runner = self._runners.get(f"{action.connector}.{operation}")
        if runner is None:
            return None
        read = action.model_copy(update={
            "operation": operation, "effect": EffectClass.read, "arguments": {"cart_id": cart}, "tags": [],
            "amount": None, "currency": None})
        try:
            answer = runner(read, f"cart:{action.id}")
        except ConnectorError:
            return None
        return answer.summary if isinstance(answer, OperationResult) else answer

    def card_note(self, action: Action) -> str:
        """The lines for the card, remembered as what the user saw; the items noted as waiting on the card,
        so a cheaper listing of one can be offered (`deputy.agent.suggestions.pending_buys`)."""
        summary = self._cart(action)
        lines = lines_of(summary) if summary is not None else None
        if not lines:
            return ""
        # A confidential user's cart is theirs: kept sealed to their key like the offers they compared.
        sealed = confidential_keys(self._redis).seal_text(action.user_id, json.dumps(lines))
        self._redis.set(_SHOWN.format(action.id), sealed, ex=_TTL)
        PendingBuys(self._redis).note([
            PendingBuy(user_id=action.user_id, chat_id=action.chat_id, goal_id=action.goal_id, action_id=action.id,
                       item=item, unit_price=price, currency=currency, service=action.connector)
            for item, price, currency in items_of(summary or "")])
        return "\n\nIn the cart (as the shop lists it):\n" + "\n".join(f"• {line}" for line in lines)

    def for_payment(self, action: Action) -> list[str] | None:
        """The lines to sign into the mandate; ConnectorError if they changed since the card."""
        lines = self.read(action)
        raw = self._redis.get(_SHOWN.format(action.id))
        seen = json.loads(confidential_keys(self._redis).opener(action.user_id)(raw)) if raw else None
        # A new price is the shop's checkout's to refuse (the total no longer matches); here
        # only what is in the cart, and how many, must be what the user saw.
        if seen is not None and [_bare(line) for line in lines or []] != [_bare(line) for line in seen]:
            now = "; ".join(lines or ["nothing readable"])
            raise ConnectorError(f"The cart changed after you saw it (it now holds: {now}), so nothing was paid.")
        return lines

    def erase(self, action_ids: list[str]) -> int:
        keys = [_SHOWN.format(a) for a in action_ids]
        return int(self._redis.delete(*keys)) if keys else 0
