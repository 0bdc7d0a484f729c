"""The sandbox shop's records: products, carts, orders, and what a buyer sends to fill a cart and pay."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from deputy.sandbox.webapp_common import money

SITE = "Sandbox Shop"
CURRENCY = "USD"
MAX_PER_ITEM = 20
CART_COOKIE = "cart"


@dataclass
class Product:
    id: str
    name: str
    category: str
    price: Decimal
    stock: int
    description: str

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "category": self.category, "price": money(self.price),
                "currency": CURRENCY, "stock": self.stock, "description": self.description}


@dataclass
class Cart:
    id: str
    items: dict[str, int] = field(default_factory=dict)
    status: str = "open"


@dataclass
class Order:
    id: str
    lines: list[dict[str, Any]]
    total: Decimal
    payment_token: str
    name: str
    shipping_address: str
    created_at: datetime
    payment_ref: str | None = None
    """The payment network's transaction, when a network took the payment (refunds go to it)."""
    status: str = "paid"
    refunded: Decimal = Decimal(0)

    def public(self) -> dict[str, Any]:
        return {"order_id": self.id, "items": self.lines, "total": money(self.total), "currency": CURRENCY,
                "payment_token": self.payment_token, "name": self.name, "shipping_address": self.shipping_address,
                "created_at": self.created_at.isoformat(timespec="minutes"), "status": self.status}


class ItemRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    product_id: str = Field(max_length=64)
    quantity: int = Field(default=1, ge=1, le=MAX_PER_ITEM)


class CheckoutRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    payment_token: str = Field(max_length=80, description="A single-use payment token id, ptok_...")
    amount: Decimal = Field(ge=0, description="The cart's total, as shown by the cart.")
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    name: str = Field(min_length=1, max_length=100)
    shipping_address: str = Field(min_length=5, max_length=300)
