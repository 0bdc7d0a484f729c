"""The second sandbox shop, Corner Market: some of the same items as the Sandbox Shop,
at other prices, with a shipping fee but faster delivery, so "the cheapest delivered by
Friday" is a real comparison. Same API and pages as `deputy.sandbox.shop`."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from aiohttp import web

from deputy.sandbox import shop

SITE = "Corner Market"
SHIPPING_FEE = Decimal("4.99")
DELIVERY_DAYS = 2


def seed_market(market: shop.Shop) -> None:
    for values in [
        ("usb-c-cable-2m", "USB-C cable 2 m, braided", "Electronics", "7.49", 25, "100 W, USB 2.0 data."),
        ("usb-c-cable-1m", "USB-C cable 1 m", "Electronics", "6.49", 10, "60 W charging cable."),
        ("espresso-beans-1kg", "Espresso beans, 1 kg bag", "Grocery", "19.90", 15, "Dark roast, whole beans."),
        ("gel-pens-10", "Gel pens, 10 colours", "Stationery", "5.25", 50, "0.7 mm."),
        ("oat-milk-6", "Oat milk, 6 × 1 l", "Grocery", "13.80", 30, "Barista edition."),
    ]:
        product_id, name, category, price, stock, description = values
        market.products[product_id] = shop.Product(product_id, name, category, Decimal(price), stock, description)


def create_app(**options: Any) -> web.Application:
    return shop.create_app(site=SITE, shipping_fee=SHIPPING_FEE, delivery_days=DELIVERY_DAYS, stock=seed_market,
                           **options)
