"""Listings the connected services offer (the sandbox tickets, restaurants, both shops and the
marketplace), as one shape:
what it is, where, when, how much, and the words its meaning is read from.

Listings are public catalogues, the same for every user: a suggestion round reads each service
once, not once per user. What a listing says is outside content; it is shown to the user on a
card and becomes a goal only when the user taps Book (and that goal's actions meet the guard).
"""

from __future__ import annotations

from datetime import datetime
import logging
from typing import Any, Callable

import httpx
from pydantic import BaseModel

from deputy.core.records.effects import ConnectorError

from deputy.agent.time.local_time import moment_words


log = logging.getLogger(__name__)
GOODS = ("shop", "market", "marketplace")
"""Services whose listings are things to buy (one tap buys one), not seats or tables."""


class Listing(BaseModel):
    id: str
    service: str
    title: str
    place: str = ""
    starts_at: float | None = None
    price: str | None = None
    currency: str = "USD"
    available: int | None = None
    about: str = ""

    def meaning_text(self) -> str:
        """The words matched against interests."""
        return " ".join(p for p in (self.title, self.about, self.place) if p)

    def card_line(self, zone: str, seats: int = 2) -> str:
        """`The Blue Notes Quartet at The Blue Room on Fri 11 Dec 21:00 CET, 2 seats at 28.00 USD`."""
        line = self.title + (f" at {self.place}" if self.place else "")
        if self.starts_at is not None:
            line += f" on {moment_words(self.starts_at, zone)}"
        if self.price is not None:
            if self.service == "tickets":
                line += f", {seats} seats at {self.price} {self.currency}"
            elif self.service in GOODS:
                line += f", {self.price} {self.currency}"
            else:
                line += f", {self.price}"
        return line


def ticket_listings(events: list[dict[str, Any]]) -> list[Listing]:
    return [Listing(id=f"tickets:{e['id']}", service="tickets", title=str(e["title"]), place=str(e.get("venue", "")),
                    starts_at=datetime.fromisoformat(e["starts_at"]).timestamp() if e.get("starts_at") else None,
                    price=e.get("price_from"), currency=e.get("currency", "USD"), available=e.get("seats_available"),
                    about=f"{e.get('kind', '')} {e.get('description', '')}".strip())
            for e in events if e.get("seats_available", 1)]


def restaurant_listings(places: list[dict[str, Any]]) -> list[Listing]:
    return [Listing(id=f"restaurants:{r['id']}", service="restaurants", title=str(r["name"]), place=str(r.get("area", "")),
                    price=r.get("price_range"), about=f"{r.get('cuisine', '')} restaurant {r.get('description', '')}")
            for r in places]


def product_listings(service: str, site: str) -> Callable[[list[dict[str, Any]]], list[Listing]]:
    """A shop's products (`/api/products`): in stock only; the shop's name is the place."""
    def parse(products: list[dict[str, Any]]) -> list[Listing]:
        return [Listing(id=f"{service}:{p['id']}", service=service, title=str(p["name"]), place=site,
                        price=p.get("price"), currency=p.get("currency", "USD"), available=p.get("stock"),
                        about=f"{p.get('category', '')} {p.get('description', '')}".strip())
                for p in products if p.get("stock", 1)]
    return parse


def marketplace_listings(items: list[dict[str, Any]]) -> list[Listing]:
    """What sellers list on the marketplace (`/api/listings`)."""
    return [Listing(id=f"marketplace:{i['id']}", service="marketplace", title=str(i["title"]), place="the marketplace",
                    price=i.get("price"), currency=i.get("currency", "USD"), about=str(i.get("description", "")))
            for i in items]


READERS: dict[str, tuple[str, Callable[[list[dict[str, Any]]], list[Listing]]]] = {
    "tickets": ("/api/events", ticket_listings),
    "restaurants": ("/api/restaurants", restaurant_listings),
    "shop": ("/api/products", product_listings("shop", "the Sandbox Shop")),
    "market": ("/api/products", product_listings("market", "Corner Market")),
    "marketplace": ("/api/listings", marketplace_listings),
}
"""Each service's listing path and how its answer becomes listings."""


def read_listings(client: httpx.Client, urls: dict[str, str]) -> list[Listing]:
    """Every listing of the services at `urls` (service name -> base URL); a service that fails is skipped."""
    found: list[Listing] = []
    for service, base in urls.items():
        path, parse = READERS.get(service, (None, None))
        if path is None or parse is None:
            continue
        try:
            response = client.get(base.rstrip("/") + path, timeout=10)
            response.raise_for_status()
            body = response.json()
        except (httpx.HTTPError, ValueError, ConnectorError) as failure:  # the egress guard's refusal included
            log.warning("listings of %s not read: %s", service, failure)
            continue
        found += parse(_rows(body))
    return found


def _rows(body: Any) -> list[dict[str, Any]]:
    if isinstance(body, list):
        return body
    for key in ("results", "events", "restaurants", "products", "listings"):
        if isinstance(body, dict) and isinstance(body.get(key), list):
            return body[key]
    return []


__all__ = ["GOODS", "READERS", "Listing", "marketplace_listings", "product_listings", "read_listings", "restaurant_listings", "ticket_listings"]
