"""After a purchase in a sandbox shop: order status and tracking, cancellation before the
parcel leaves, and returns refunded to the card through the payment network.

An order is prepared for a day, then shipped with a tracking number, then delivered on
its delivery date. Until it ships it can be cancelled (everything is refunded); once
shipped it can be returned within 30 days (the items are refunded, not the shipping).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Callable

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from deputy.sandbox.webapp_common import SiteError, json_response, money, operation, path_param, read_json

RETURN_DAYS = 30
Refund = Callable[[str, Decimal], Any]
"""(payment network transaction, amount) -> the refund; raises `SiteError` when refused."""


class ReturnRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(min_length=3, max_length=300, description="Why the items go back.")


def tracking(order: Any, now: datetime, delivery_days: int) -> dict[str, Any]:
    """The order's state as the buyer sees it."""
    shipped_at = order.created_at + timedelta(days=1)
    delivered_at = order.created_at + timedelta(days=delivery_days)
    if order.status in ("cancelled", "returned"):
        state = order.status
    elif now >= delivered_at:
        state = "delivered"
    elif now >= shipped_at:
        state = "shipped"
    else:
        state = "preparing"
    number = f"TRK{order.id.removeprefix('O-')}" if state in ("shipped", "delivered", "returned") else None
    return {"order_id": order.id, "status": state, "tracking_number": number,
            "delivery_by": delivered_at.date().isoformat(), "total": money(order.total),
            "refunded": money(getattr(order, "refunded", Decimal(0)))}


def order_routes(shop: Any, refund: Refund | None) -> list[web.RouteDef]:
    def pay_back(order: Any, amount: Decimal) -> None:
        if order.payment_ref and refund is not None:
            refund(order.payment_ref, amount)
        order.refunded = getattr(order, "refunded", Decimal(0)) + amount

    async def track(request: web.Request) -> web.Response:
        order = shop.order(request.match_info["order_id"])
        return json_response(tracking(order, shop.clock(), shop.delivery_days))

    async def cancel(request: web.Request) -> web.Response:
        order = shop.order(request.match_info["order_id"])
        state = tracking(order, shop.clock(), shop.delivery_days)["status"]
        if state != "preparing":
            raise SiteError(409, f"The order is {state}; it can no longer be cancelled. Return it instead.")
        pay_back(order, order.total)
        for line in order.lines:
            shop.products[line["product_id"]].stock += line["quantity"]
        order.status = "cancelled"
        return json_response(tracking(order, shop.clock(), shop.delivery_days))

    async def give_back(request: web.Request) -> web.Response:
        order = shop.order(request.match_info["order_id"])
        await read_json(request, ReturnRequest)
        state = tracking(order, shop.clock(), shop.delivery_days)["status"]
        if state not in ("shipped", "delivered"):
            raise SiteError(409, f"The order is {state}; only a shipped order can be returned.")
        if shop.clock() > order.created_at + timedelta(days=RETURN_DAYS):
            raise SiteError(409, f"Returns are accepted for {RETURN_DAYS} days after the order.")
        pay_back(order, sum((Decimal(line["line_total"]) for line in order.lines), Decimal(0)))
        order.status = "returned"
        return json_response(tracking(order, shop.clock(), shop.delivery_days))

    return [web.get("/api/orders/{order_id}/tracking", track), web.post("/api/orders/{order_id}/cancel", cancel),
            web.post("/api/orders/{order_id}/return", give_back)]


def order_paths() -> dict[str, Any]:
    order_id = path_param("order_id", "e.g. O-1A2B3C4D")
    return {
        "/orders/{order_id}/tracking": {"get": operation(
            "track_order", "An order's status, tracking number and delivery date", ("Tracking", "Tracking"),
            parameters=[order_id])},
        "/orders/{order_id}/cancel": {"post": operation(
            "cancel_order", "Cancel an order that has not shipped yet; the whole amount is refunded to the card",
            ("Tracking", "Tracking"), parameters=[order_id])},
        "/orders/{order_id}/return": {"post": operation(
            "return_order", "Return a shipped order within 30 days; the items are refunded to the card",
            ("Tracking", "Tracking"), parameters=[order_id], body="ReturnRequest")},
    }
