"""Trip options by code: free windows from the calendar, the cheapest fitting flights and room
for each, totals in exact decimals, at most three within the budget. No model arithmetic."""

from __future__ import annotations

import secrets
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Iterable

from pydantic import BaseModel

MAX_OPTIONS = 3
HORIZON_DAYS = 60


class Leg(BaseModel):
    flight_id: str
    number: str
    origin: str
    destination: str
    departs_at: str
    arrives_at: str
    fare: Decimal
    refund_rule: str


class Stay(BaseModel):
    hotel_id: str
    name: str
    district: str
    distance_km: float
    room: str
    check_in: date
    check_out: date
    total: Decimal
    cancellation: str


class TripOption(BaseModel):
    id: str
    destination: str
    travellers: int
    outbound: Leg
    inbound: Leg
    stay: Stay
    flights_total: Decimal
    total: Decimal
    currency: str

    @property
    def start(self) -> date:
        return date.fromisoformat(self.outbound.departs_at[:10])

    @property
    def end(self) -> date:
        return date.fromisoformat(self.inbound.arrives_at[:10])

    def lines(self) -> list[str]:
        """The option as the user reads it (on the plan and on the approval card), written by code."""
        out, back, stay = self.outbound, self.inbound, self.stay
        who = f" for {self.travellers}" if self.travellers > 1 else ""
        return [
            f"{self.destination}, {self.start:%a %d %b} – {self.end:%a %d %b %Y}{who}: "
            f"{self.total:.2f} {self.currency} in all",
            f"✈️ {out.number} {out.origin}→{out.destination} {_when(out.departs_at)}, arrives {_when(out.arrives_at)}",
            f"✈️ {back.number} {back.origin}→{back.destination} {_when(back.departs_at)}, "
            f"arrives {_when(back.arrives_at)}",
            f"   flights {self.flights_total:.2f} {self.currency}. {out.refund_rule}",
            f"🏨 {stay.name} ({stay.district}, {stay.distance_km:g} km from the centre), {stay.room} room, "
            f"{(stay.check_out - stay.check_in).days} nights {stay.check_in:%d %b}–{stay.check_out:%d %b}: "
            f"{stay.total:.2f} {self.currency}. {stay.cancellation}",
        ]


def _when(iso: str) -> str:
    return f"{iso[8:10]}/{iso[5:7]} {iso[11:16]}"


def free_windows(today: date, days: int, busy: Iterable[tuple[date, date]], not_before: date | None = None,
                 limit: int = 4) -> list[tuple[date, date]]:
    """Up to `limit` non-overlapping runs of `days` days with nothing busy in the calendar,
    earliest first, from tomorrow (or `not_before`) within the next two months."""
    taken = {first + timedelta(days=n) for first, last in busy for n in range((last - first).days + 1)}
    day = max(today + timedelta(days=1), not_before or today)
    found: list[tuple[date, date]] = []
    while day <= today + timedelta(days=HORIZON_DAYS) and len(found) < limit:
        span = [day + timedelta(days=n) for n in range(days)]
        if taken.isdisjoint(span):
            found.append((span[0], span[-1]))
            day = span[-1] + timedelta(days=1)
        else:
            day += timedelta(days=1)
    return found


def _leg(offer: dict[str, Any]) -> Leg:
    return Leg(**{k: offer[k] for k in Leg.model_fields})


def option_for(destination: str, travellers: int, currency: str, outbound: list[dict[str, Any]],
               inbound: list[dict[str, Any]], stays: list[dict[str, Any]]) -> TripOption | None:
    """The cheapest trip from these offers (flights and rooms in `currency`, seats and rooms left), or None."""
    def cheapest(offers: list[dict[str, Any]], price: str, enough: str, need: int) -> dict[str, Any] | None:
        fitting = [o for o in offers if o.get("currency") == currency and int(o.get(enough, 0)) >= need]
        return min(fitting, key=lambda o: Decimal(o[price]), default=None)

    out = cheapest(outbound, "fare", "seats_left", travellers)
    back = cheapest(inbound, "fare", "seats_left", travellers)
    room = cheapest(stays, "total", "rooms_left", 1)
    if out is None or back is None or room is None:
        return None
    stay = Stay(**{k: room[k] for k in Stay.model_fields})
    flights = (Decimal(out["fare"]) + Decimal(back["fare"])) * travellers
    return TripOption(id="TRIP-" + secrets.token_hex(4).upper(), destination=destination, travellers=travellers,
                      outbound=_leg(out), inbound=_leg(back), stay=stay, flights_total=flights,
                      total=flights + stay.total, currency=currency)


def within_budget(options: Iterable[TripOption | None], budget: Decimal) -> list[TripOption]:
    """At most three options at or under the budget, cheapest first."""
    return sorted((o for o in options if o is not None and o.total <= budget), key=lambda o: o.total)[:MAX_OPTIONS]
