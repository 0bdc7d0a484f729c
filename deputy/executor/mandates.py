"""The cart mandate: what the user saw on the purchase card when they tapped Approve,
signed by the executor and bound to the payment token.

The issuer keeps the mandate with the token and authorises only a charge that matches
it: the same merchant, exactly the same total, the same currency. The key is given to
the executor alone (`DEPUTY_MANDATE_KEY`, shared with the issuer as the agent's key);
it is never in Redis, so a changed approval record cannot produce a valid mandate.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from deputy.core.records.actions import Action

MANDATE_VERSION = 1


def merchant_origin(target: str) -> str:
    """The merchant a purchase pays: the checkout URL's origin (scheme, host and port),
    so two shops on one host are two merchants; a bare name is kept as it is."""
    parts = urlsplit(target.strip())
    if parts.scheme in ("http", "https") and parts.hostname:
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{parts.hostname.lower()}{port}"
    return target.strip().lower()


def _find(arguments: Any, names: tuple[str, ...]) -> Any:
    if isinstance(arguments, dict):
        for key, value in arguments.items():
            if key in names and isinstance(value, (str, int, list)):
                return value
        for value in arguments.values():
            found = _find(value, names)
            if found is not None:
                return found
    return None


def mandate_terms(action: Action, merchant: str, card_text: str, approval_id: str | None, now: float,
                  limit: Decimal | None = None, cart_lines: list[str] | None = None) -> dict[str, Any]:
    """The signed terms: merchant, total, currency, shipping, the cart and items the action
    names, and a digest of the card the user approved (its exact words). A purchase a
    spending rule let through carries the rule's `limit` instead of a card: the token is
    minted for that limit and the charge must still equal the total. `cart_lines` are the
    cart's lines as the shop listed them on the card, for a checkout that names only a cart."""
    assert action.amount is not None and action.currency
    items = _find(action.arguments, ("items", "lines"))
    if items is None and cart_lines:
        items = cart_lines
    terms = {
        "version": MANDATE_VERSION,
        "merchant": merchant,
        "operation": f"{action.connector}.{action.operation}",
        "total": str(Decimal(action.amount).normalize()),
        "currency": action.currency.upper(),
        "shipping": str(_find(action.arguments, ("shipping_address", "address", "shipping")) or ""),
        "cart": str(_find(action.arguments, ("cart_id", "cart", "hold_id")) or ""),
        "items": json.dumps(items, sort_keys=True) if items is not None else "",
        "approval": approval_id or "",
        "approved_by": "user" if card_text else "rule",
        "seen_sha256": hashlib.sha256(card_text.encode()).hexdigest() if card_text else "",
        "signed_at": int(now),
    }
    if limit is not None:
        terms["approved_by"], terms["limit"] = "rule", str(Decimal(limit).normalize())
    return terms


def canonical(terms: dict[str, Any]) -> bytes:
    return json.dumps(terms, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class MandateSigner:
    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("a mandate key needs at least 16 bytes")
        self._key = key

    def sign(self, terms: dict[str, Any]) -> str:
        return hmac.new(self._key, canonical(terms), hashlib.sha256).hexdigest()

    def verify(self, terms: dict[str, Any], signature: str) -> bool:
        return hmac.compare_digest(signature, self.sign(terms))
