"""The sandbox airline: scheduled flights, fares that move with the clock, bookings, refunds.

Every route flies the same departures each day. A fare depends on the route, the weekday,
how far ahead the flight is, and a daily move seeded from the flight and today's date, so
the same clock always shows the same fares and tomorrow shows others. A booking holds one
or more flights for one or more passengers, is paid with a single-use payment token
(`ptok_...`) for exactly its total, and can be cancelled under each fare's refund rule
(Flex: in full until a day before departure; Basic: in full within 24 hours of booking).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from deputy.sandbox.flight_pages import document, flight_page_routes
from deputy.sandbox.webapp_common import (
    Clock, IdempotencyCache, PaymentCheck, SiteError, accept_any_token, check_payment_token, json_response,
    local_now, money, parse_date, parse_price, parse_time, serve_app, site_app,
)

SITE = "Sandbox Air"
DAYS_AHEAD = 330
"""How far ahead flights can be searched and booked."""


@dataclass(frozen=True)
class Route:
    origin: str
    destination: str
    base: Decimal
    currency: str
    minutes: int
    departures: tuple[str, ...]
    number: int


# Both ways of each route; times are local at the airport.
_ONE_WAY = [("SFO", "ORD", Decimal(190), "USD", 250, ("06:15", "09:40", "13:05", "18:30"), 100),
            ("SFO", "JFK", Decimal(230), "USD", 330, ("07:00", "11:20", "16:45"), 200),
            ("SFO", "LIS", Decimal(330), "EUR", 690, ("10:10", "17:55"), 300),
            ("ORD", "JFK", Decimal(120), "USD", 135, ("08:00", "15:30"), 400)]
ROUTES = [route for o, d, base, cur, mins, deps, n in _ONE_WAY
          for route in (Route(o, d, base, cur, mins, deps, n), Route(d, o, base, cur, mins, deps, n + 50))]
AIRPORTS = {"SFO": "San Francisco", "ORD": "Chicago O'Hare", "JFK": "New York JFK", "LIS": "Lisbon"}
CITIES = {"san francisco": "SFO", "chicago": "ORD", "new york": "JFK", "lisbon": "LIS"}


def _fraction(*parts: object) -> float:
    """A number in [0, 1) fixed by `parts`: the seeded randomness of the sandbox."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


@dataclass(frozen=True)
class Flight:
    id: str
    number: str
    route: Route
    departs_at: datetime

    @property
    def arrives_at(self) -> datetime:
        return self.departs_at + timedelta(minutes=self.route.minutes)

    @property
    def fare_class(self) -> str:
        return "Flex" if int(self.number[2:]) % 2 else "Basic"

    @property
    def refund_rule(self) -> str:
        if self.fare_class == "Flex":
            return "Flex fare: refunded in full if cancelled at least 24 hours before departure."
        return "Basic fare: refunded in full if cancelled within 24 hours of booking; no refund after that."

    def fare(self, now: datetime) -> Decimal:
        days = (self.departs_at.date() - now.date()).days
        ahead = Decimal("1.45") if days < 7 else Decimal("1.15") if days < 21 else Decimal(1)
        weekend = Decimal("1.12") if self.departs_at.weekday() in (4, 6) else Decimal(1)
        flex = Decimal("1.18") if self.fare_class == "Flex" else Decimal(1)
        early = Decimal("0.88") if self.departs_at.hour < 8 else Decimal(1)
        move = Decimal(str(round(0.82 + 0.36 * _fraction(self.id, now.date()), 3)))  # today's move, ±18 %
        return (self.route.base * ahead * weekend * flex * early * move).quantize(Decimal(1))


def flights_on(origin: str, destination: str, day: date) -> list[Flight]:
    route = next((r for r in ROUTES if (r.origin, r.destination) == (origin, destination)), None)
    if route is None:
        return []
    flights = []
    for n, hhmm in enumerate(route.departures):
        number = f"SA{route.number + 2 * n + (day.toordinal() % 2)}"
        departs = datetime.combine(day, time.fromisoformat(hhmm))
        flights.append(Flight(f"{number}-{day:%Y%m%d}", number, route, departs))
    return flights


def airport(text: str) -> str:
    code = CITIES.get(text.strip().lower(), text.strip().upper())
    if code not in AIRPORTS:
        raise SiteError(404, f"Sandbox Air does not fly to {text!r}; it flies to {', '.join(sorted(AIRPORTS))}.")
    return code


class Passenger(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=2, max_length=100, description="As on the passport.")
    date_of_birth: date | None = None
    passport_number: str | None = Field(default=None, min_length=5, max_length=20, pattern=r"^[A-Z0-9]+$")


class BookingRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    flight_ids: list[str] = Field(min_length=1, max_length=4, description="The flights, e.g. [\"SA101-20270305\"].")
    passengers: list[Passenger] = Field(min_length=1, max_length=6)
    payment_token: str = Field(max_length=80, description="A single-use payment token id, ptok_...")
    amount: Decimal = Field(ge=0, description="The booking's total: every fare times the passengers.")
    currency: str = Field(pattern=r"^[A-Z]{3}$")


@dataclass
class Booking:
    id: str
    flights: list[Flight]
    fares: list[Decimal]
    passengers: list[Passenger]
    total: Decimal
    currency: str
    payment_token: str
    payment_ref: str | None
    created_at: datetime
    status: str = "confirmed"
    refunded: Decimal = Decimal(0)

    def public(self) -> dict[str, Any]:
        return {"booking_id": self.id, "status": self.status, "total": money(self.total), "currency": self.currency,
                "refunded": money(self.refunded), "payment_token": self.payment_token,
                "passengers": [p.name for p in self.passengers],
                "flights": [{**flight_summary(f), "fare": money(fare)} for f, fare in zip(self.flights, self.fares)],
                "booked_at": self.created_at.isoformat(timespec="minutes")}


def flight_summary(flight: Flight) -> dict[str, Any]:
    return {"flight_id": flight.id, "number": flight.number, "origin": flight.route.origin,
            "destination": flight.route.destination, "departs_at": flight.departs_at.isoformat(timespec="minutes"),
            "arrives_at": flight.arrives_at.isoformat(timespec="minutes"), "fare_class": flight.fare_class,
            "refund_rule": flight.refund_rule}


@dataclass
class Airline:
    clock: Clock
    check_payment: PaymentCheck = accept_any_token
    bookings: dict[str, Booking] = field(default_factory=dict)
    sold: dict[str, int] = field(default_factory=dict)
    idempotency: IdempotencyCache = field(default_factory=IdempotencyCache)

    def seats_left(self, flight: Flight) -> int:
        return 2 + int(8 * _fraction("seats", flight.id)) - self.sold.get(flight.id, 0)

    def offer(self, flight: Flight) -> dict[str, Any]:
        return {**flight_summary(flight), "fare": money(flight.fare(self.clock())), "currency": flight.route.currency,
                "seats_left": max(self.seats_left(flight), 0)}

    def flight(self, flight_id: str) -> Flight:
        number, _, day = flight_id.partition("-")
        try:
            when = datetime.strptime(day, "%Y%m%d").date()
        except ValueError:
            raise SiteError(404, f"There is no flight {flight_id!r}.") from None
        found = next((f for route in ROUTES for f in flights_on(route.origin, route.destination, when)
                      if f.id == flight_id), None)
        if found is None:
            raise SiteError(404, f"There is no flight {flight_id!r}.")
        return found

    def search(self, origin: str, destination: str, day: date | None, earliest: time | None = None,
               latest: time | None = None, top: Decimal | None = None) -> list[dict[str, Any]]:
        if day is None:
            raise SiteError(400, "Say the day of travel (date=YYYY-MM-DD).")
        today = self.clock().date()
        if not today <= day <= today + timedelta(days=DAYS_AHEAD):
            return []
        now = self.clock()
        return [self.offer(f) for f in flights_on(airport(origin), airport(destination), day)
                if f.departs_at > now and (earliest is None or f.departs_at.time() >= earliest)
                and (latest is None or f.departs_at.time() <= latest)
                and (top is None or f.fare(now) <= top) and self.seats_left(f) > 0]

    def lowest_fares(self, origin: str, destination: str, month: str) -> list[dict[str, Any]]:
        try:
            first = datetime.strptime(month, "%Y-%m").date()
        except ValueError:
            raise SiteError(400, "Give the month as YYYY-MM.") from None
        days, day = [], first
        while day.month == first.month:
            offers = self.search(origin, destination, day)
            if offers:
                cheapest = min(offers, key=lambda o: Decimal(o["fare"]))
                days.append({"date": day.isoformat(), "lowest_fare": cheapest["fare"],
                             "currency": cheapest["currency"], "flight_id": cheapest["flight_id"]})
            day += timedelta(days=1)
        return days

    def book(self, request: BookingRequest) -> Booking:
        check_payment_token(request.payment_token)
        now = self.clock()
        flights = [self.flight(fid) for fid in dict.fromkeys(request.flight_ids)]
        for flight in flights:
            if flight.departs_at <= now:
                raise SiteError(409, f"{flight.number} on {flight.departs_at:%d %b} has already left.")
            if self.seats_left(flight) < len(request.passengers):
                raise SiteError(409, f"{flight.number} on {flight.departs_at:%d %b} has no seats left for "
                                     f"{len(request.passengers)}.")
        currencies = {f.route.currency for f in flights}
        if len(currencies) > 1:
            raise SiteError(422, "Book flights priced in different currencies separately.")
        fares = [f.fare(now) for f in flights]
        total = sum(fares, Decimal(0)) * len(request.passengers)
        currency = currencies.pop()
        if request.amount != total or request.currency != currency:
            raise SiteError(409, f"These flights now cost {money(total)} {currency}, not {money(request.amount)} "
                                 f"{request.currency}.")
        reference = self.check_payment(request.payment_token, total, currency)
        for flight in flights:
            self.sold[flight.id] = self.sold.get(flight.id, 0) + len(request.passengers)
        booking = Booking("B-" + secrets.token_hex(4).upper(), flights, fares, list(request.passengers), total,
                          currency, request.payment_token, reference, now)
        self.bookings[booking.id] = booking
        return booking

    def booking(self, booking_id: str) -> Booking:
        if booking_id not in self.bookings:
            raise SiteError(404, f"There is no booking {booking_id!r}.")
        return self.bookings[booking_id]

    def refund_due(self, booking: Booking) -> Decimal:
        now = self.clock()
        due = Decimal(0)
        for flight, fare in zip(booking.flights, booking.fares):
            if flight.fare_class == "Flex" and now <= flight.departs_at - timedelta(hours=24):
                due += fare
            elif flight.fare_class == "Basic" and now <= booking.created_at + timedelta(hours=24):
                due += fare
        return due * len(booking.passengers)

    def cancel(self, booking: Booking) -> Booking:
        if booking.status != "confirmed":
            raise SiteError(409, f"The booking {booking.id} is already {booking.status}.")
        due = self.refund_due(booking)
        refund = getattr(self.check_payment, "refund", None)
        if due and booking.payment_ref and refund is not None:
            refund(booking.payment_ref, due)
        booking.refunded, booking.status = due, "cancelled"
        for flight in booking.flights:
            self.sold[flight.id] -= len(booking.passengers)
        return booking


AIRLINE = web.AppKey("airline", Airline)


def _api_routes(airline: Airline) -> list[web.RouteDef]:
    async def search(request: web.Request) -> web.Response:
        q = request.query
        return json_response({"flights": airline.search(
            q.get("origin", ""), q.get("destination", ""), parse_date(q.get("date")), parse_time(q.get("earliest")),
            parse_time(q.get("latest")), parse_price(q.get("max_fare"), "maximum fare"))})

    async def fares(request: web.Request) -> web.Response:
        q = request.query
        return json_response({"days": airline.lowest_fares(q.get("origin", ""), q.get("destination", ""),
                                                           q.get("month", ""))})

    async def flight(request: web.Request) -> web.Response:
        return json_response(airline.offer(airline.flight(request.match_info["flight_id"])))

    async def book(request: web.Request) -> web.Response:
        return await airline.idempotency.created(request, BookingRequest, lambda payload: airline.book(payload).public())

    async def bookings(request: web.Request) -> web.Response:
        return json_response({"bookings": [b.public() for b in airline.bookings.values()]})

    async def one(request: web.Request) -> web.Response:
        return json_response(airline.booking(request.match_info["booking_id"]).public())

    async def cancel(request: web.Request) -> web.Response:
        return json_response(airline.cancel(airline.booking(request.match_info["booking_id"])).public())

    return [web.get("/api/flights", search), web.get("/api/fares", fares),
            web.get("/api/flights/{flight_id}", flight), web.post("/api/bookings", book),
            web.get("/api/bookings", bookings), web.get("/api/bookings/{booking_id}", one),
            web.post("/api/bookings/{booking_id}/cancel", cancel)]


def create_app(seed: bool = True, clock: Clock = local_now, api_key: str | None = None, *,
               check_payment: PaymentCheck = accept_any_token) -> web.Application:
    """The airline (`seed` is accepted for symmetry: its schedule is always there);
    `check_payment` sees every payment first, and refunds go back through its `refund`."""
    airline = Airline(clock, check_payment)
    app = site_app(api_key)
    app[AIRLINE] = airline

    async def openapi(request: web.Request) -> web.Response:
        return json_response(document(request, api_key is not None, BookingRequest, Passenger))

    app.add_routes([web.get("/openapi.json", openapi), *_api_routes(airline),
                    *flight_page_routes(airline, BookingRequest)])
    return app


async def serve(host: str = "127.0.0.1", port: int = 8086, **options: Any) -> web.AppRunner:
    """Serve the site in the running event loop; clean up the returned runner to stop."""
    return await serve_app(create_app(**options), host, port)
