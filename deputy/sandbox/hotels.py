"""The sandbox hotels: search by city and dates, rooms with nightly prices, cancellation, booking.

A room's price for a night depends on the hotel, the room, the weekday and a daily move
seeded from today's date, so one clock always shows the same prices. A reservation is
paid with a single-use payment token (`ptok_...`) for exactly its total; cancelling it
refunds the whole amount while the hotel's free cancellation lasts, nothing after.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from deputy.sandbox.webapp_common import (
    IDEMPOTENCY_PARAM, Clock, IdempotencyCache, PaymentCheck, SiteError, accept_any_token, array_of,
    check_payment_token, esc, json_response, local_now, model_schema, money, obj, openapi_document, operation, page,
    parse_date, parse_price, path_param, query, serve_app, site_app,
)

SITE = "Sandbox Stays"
MAX_NIGHTS = 14


@dataclass
class Room:
    kind: str
    base: Decimal
    count: int


@dataclass
class Hotel:
    id: str
    name: str
    city: str
    district: str
    distance_km: float
    description: str
    free_cancel_hours: int | None
    """Free cancellation until this many hours before check-in (at 15:00); None: non-refundable."""
    rooms: list[Room]
    currency: str = "USD"

    @property
    def cancellation(self) -> str:
        if self.free_cancel_hours is None:
            return "Non-refundable: no refund once booked."
        return f"Free cancellation until {self.free_cancel_hours} hours before check-in; no refund after that."

    def room(self, kind: str) -> Room:
        found = next((r for r in self.rooms if r.kind.lower() == kind.lower()), None)
        if found is None:
            raise SiteError(404, f"{self.name} has no {kind!r} room.")
        return found


def _move(*parts: object) -> Decimal:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return Decimal(str(round(0.9 + 0.2 * int.from_bytes(digest[:4], "big") / 2**32, 3)))


def nightly_price(hotel: Hotel, room: Room, night: date, today: date) -> Decimal:
    weekend = Decimal("1.2") if night.weekday() in (4, 5) else Decimal(1)
    return (room.base * weekend * _move(hotel.id, room.kind, night, today)).quantize(Decimal(1))


class ReservationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hotel_id: str = Field(max_length=64)
    room: str = Field(max_length=40, description="The room type, e.g. standard.")
    check_in: date
    check_out: date
    guest_name: str = Field(min_length=2, max_length=100)
    payment_token: str = Field(max_length=80, description="A single-use payment token id, ptok_...")
    amount: Decimal = Field(ge=0, description="The stay's total, as the search showed it.")
    currency: str = Field(pattern=r"^[A-Z]{3}$")


@dataclass
class Reservation:
    id: str
    hotel: Hotel
    room: str
    check_in: date
    check_out: date
    guest_name: str
    total: Decimal
    payment_token: str
    payment_ref: str | None
    created_at: datetime
    status: str = "confirmed"
    refunded: Decimal = Decimal(0)

    def public(self) -> dict[str, Any]:
        return {"reservation_id": self.id, "hotel_id": self.hotel.id, "hotel": self.hotel.name, "room": self.room,
                "check_in": self.check_in.isoformat(), "check_out": self.check_out.isoformat(),
                "guest_name": self.guest_name, "total": money(self.total), "currency": self.hotel.currency,
                "cancellation": self.hotel.cancellation, "status": self.status, "refunded": money(self.refunded),
                "payment_token": self.payment_token}


@dataclass
class Hotels:
    clock: Clock
    check_payment: PaymentCheck = accept_any_token
    hotels: dict[str, Hotel] = field(default_factory=dict)
    reservations: dict[str, Reservation] = field(default_factory=dict)
    idempotency: IdempotencyCache = field(default_factory=IdempotencyCache)

    def hotel(self, hotel_id: str) -> Hotel:
        if hotel_id not in self.hotels:
            raise SiteError(404, f"There is no hotel {hotel_id!r}.")
        return self.hotels[hotel_id]

    def rooms_left(self, hotel: Hotel, room: Room, check_in: date, check_out: date) -> int:
        taken = sum(1 for r in self.reservations.values() if r.hotel is hotel and r.room == room.kind
                    and r.status == "confirmed" and r.check_in < check_out and check_in < r.check_out)
        return room.count - taken

    def quote(self, hotel: Hotel, room: Room, check_in: date, check_out: date) -> dict[str, Any]:
        today = self.clock().date()
        nights = [check_in + timedelta(days=n) for n in range((check_out - check_in).days)]
        prices = [nightly_price(hotel, room, night, today) for night in nights]
        return {"hotel_id": hotel.id, "name": hotel.name, "city": hotel.city, "district": hotel.district,
                "distance_km": hotel.distance_km, "room": room.kind, "check_in": check_in.isoformat(),
                "check_out": check_out.isoformat(), "nights": len(nights), "nightly": [money(p) for p in prices],
                "total": money(sum(prices, Decimal(0))), "currency": hotel.currency,
                "cancellation": hotel.cancellation, "rooms_left": self.rooms_left(hotel, room, check_in, check_out)}

    def _stay(self, check_in: date | None, check_out: date | None) -> tuple[date, date]:
        if check_in is None or check_out is None:
            raise SiteError(400, "Give check_in and check_out as YYYY-MM-DD.")
        if not 1 <= (check_out - check_in).days <= MAX_NIGHTS:
            raise SiteError(422, f"A stay is 1 to {MAX_NIGHTS} nights.")
        if check_in < self.clock().date():
            raise SiteError(422, "Check-in is in the past.")
        return check_in, check_out

    def search(self, city: str, check_in: date | None, check_out: date | None, max_km: float | None = None,
               top: Decimal | None = None) -> list[dict[str, Any]]:
        start, end = self._stay(check_in, check_out)
        offers = [self.quote(h, r, start, end) for h in self.hotels.values() if h.city.lower() == city.strip().lower()
                  and (max_km is None or h.distance_km <= max_km) for r in h.rooms]
        return sorted([o for o in offers if o["rooms_left"] > 0 and (top is None or Decimal(o["total"]) <= top)],
                      key=lambda o: Decimal(o["total"]))

    def reserve(self, request: ReservationRequest) -> Reservation:
        check_payment_token(request.payment_token)
        hotel = self.hotel(request.hotel_id)
        room = hotel.room(request.room)
        start, end = self._stay(request.check_in, request.check_out)
        if self.rooms_left(hotel, room, start, end) <= 0:
            raise SiteError(409, f"{hotel.name} has no {room.kind} room left for those nights.")
        total = Decimal(self.quote(hotel, room, start, end)["total"])
        if request.amount != total or request.currency != hotel.currency:
            raise SiteError(409, f"This stay now costs {money(total)} {hotel.currency}, not {money(request.amount)} "
                                 f"{request.currency}.")
        reference = self.check_payment(request.payment_token, total, hotel.currency)
        found = Reservation("R-" + secrets.token_hex(4).upper(), hotel, room.kind, start, end, request.guest_name,
                            total, request.payment_token, reference, self.clock())
        self.reservations[found.id] = found
        return found

    def reservation(self, reservation_id: str) -> Reservation:
        if reservation_id not in self.reservations:
            raise SiteError(404, f"There is no reservation {reservation_id!r}.")
        return self.reservations[reservation_id]

    def cancel(self, found: Reservation) -> Reservation:
        if found.status != "confirmed":
            raise SiteError(409, f"The reservation {found.id} is already {found.status}.")
        arrival = datetime.combine(found.check_in, datetime.min.time()) + timedelta(hours=15)
        hours = found.hotel.free_cancel_hours
        due = found.total if hours is not None and self.clock() <= arrival - timedelta(hours=hours) else Decimal(0)
        refund = getattr(self.check_payment, "refund", None)
        if due and found.payment_ref and refund is not None:
            refund(found.payment_ref, due)
        found.refunded, found.status = due, "cancelled"
        return found


def seed_hotels(hotels: Hotels) -> None:
    """Three hotels in Chicago (centre, river, airport), two in Lisbon and two in New York."""
    for hotel in [
        Hotel("loop-central", "Loop Central Hotel", "Chicago", "centre", 0.4,
              "Steps from Millennium Park and the river walk.", 48,
              [Room("standard", Decimal(165), 3), Room("deluxe", Decimal(230), 2)]),
        Hotel("river-north-inn", "River North Inn", "Chicago", "centre", 1.6, "A quiet inn north of the river.", 24,
              [Room("standard", Decimal(128), 4)]),
        Hotel("ohare-airport-lodge", "O'Hare Airport Lodge", "Chicago", "airport", 24.0,
              "Free shuttle to the terminals.", None, [Room("standard", Decimal(89), 6)]),
        Hotel("alfama-house", "Alfama House", "Lisbon", "centre", 0.8, "Tiled rooms above the old town.", 72,
              [Room("standard", Decimal(110), 3)], currency="EUR"),
        Hotel("belem-riverside", "Belém Riverside", "Lisbon", "riverside", 6.5, "By the monastery and the river.",
              None, [Room("standard", Decimal(85), 5)], currency="EUR"),
        Hotel("midtown-tower", "Midtown Tower", "New York", "centre", 0.5, "Above Times Square.", 48,
              [Room("standard", Decimal(260), 4)]),
        Hotel("queens-stay", "Queens Stay", "New York", "airport", 14.0, "Near JFK.", None,
              [Room("standard", Decimal(140), 5)]),
    ]:
        hotels.hotels[hotel.id] = hotel


HOTELS = web.AppKey("hotels", Hotels)


def _routes(hotels: Hotels) -> list[web.RouteDef]:
    def _search(request: web.Request) -> list[dict[str, Any]]:
        q = request.query
        km = parse_price(q.get("max_distance_km"), "maximum distance")
        return hotels.search(q.get("city", ""), parse_date(q.get("check_in")), parse_date(q.get("check_out")),
                             float(km) if km is not None else None, parse_price(q.get("max_total"), "maximum total"))

    async def search(request: web.Request) -> web.Response:
        return json_response({"offers": _search(request)})

    async def hotel(request: web.Request) -> web.Response:
        h = hotels.hotel(request.match_info["hotel_id"])
        return json_response({"hotel_id": h.id, "name": h.name, "city": h.city, "district": h.district,
                              "distance_km": h.distance_km, "description": h.description,
                              "cancellation": h.cancellation, "currency": h.currency,
                              "rooms": [{"room": r.kind, "from": money(r.base)} for r in h.rooms]})

    async def reserve(request: web.Request) -> web.Response:
        return await hotels.idempotency.created(request, ReservationRequest, lambda payload: hotels.reserve(payload).public())

    async def listing(request: web.Request) -> web.Response:
        return json_response({"reservations": [r.public() for r in hotels.reservations.values()]})

    async def one(request: web.Request) -> web.Response:
        return json_response(hotels.reservation(request.match_info["reservation_id"]).public())

    async def cancel(request: web.Request) -> web.Response:
        return json_response(hotels.cancel(hotels.reservation(request.match_info["reservation_id"])).public())

    async def home(request: web.Request) -> web.Response:
        q = request.query
        form = ("<form method='get' action='/'><label>City <input name='city' value='" + esc(q.get("city", ""))
                + "'></label><label>Check-in <input type='date' name='check_in' value='" + esc(q.get("check_in", ""))
                + "'></label><label>Check-out <input type='date' name='check_out' value='"
                + esc(q.get("check_out", "")) + "'></label><button type='submit'>Search</button></form>")
        rows = ""
        if q.get("city") and q.get("check_in") and q.get("check_out"):
            rows = "".join(
                f"<li><a href='/hotels/{esc(o['hotel_id'])}'>{esc(o['name'])}</a> ({esc(o['district'])}, "
                f"{o['distance_km']} km from the centre), {esc(o['room'])} room, {o['nights']} nights, "
                f"{esc(o['total'])} {esc(o['currency'])}. {esc(o['cancellation'])}</li>"
                for o in _search(request)) or "<li>Nothing available.</li>"
        return page("Hotels", form + f"<ul>{rows}</ul>", site=SITE)

    async def hotel_page(request: web.Request) -> web.Response:
        h = hotels.hotel(request.match_info["hotel_id"])
        rooms = "".join(f"<li>{esc(r.kind)}: from {money(r.base)} {h.currency} a night</li>" for r in h.rooms)
        body = (f"<p>{esc(h.city)}, {esc(h.district)}, {h.distance_km} km from the centre.</p>"
                f"<p>{esc(h.description)}</p><p>{esc(h.cancellation)}</p><ul>{rooms}</ul>")
        return page(h.name, body, site=SITE)

    return [web.get("/api/hotels", search), web.get("/api/hotels/{hotel_id}", hotel),
            web.post("/api/reservations", reserve), web.get("/api/reservations", listing),
            web.get("/api/reservations/{reservation_id}", one),
            web.post("/api/reservations/{reservation_id}/cancel", cancel),
            web.get("/", home), web.get("/hotels/{hotel_id}", hotel_page)]


def _document(request: web.Request, api_key: bool) -> dict[str, Any]:
    day = {"type": "string", "format": "date"}
    reservation_id = path_param("reservation_id", "e.g. R-1A2B3C4D.")
    offer = {k: "string" for k in ("hotel_id", "name", "city", "district", "room", "check_in", "check_out", "total",
                                   "currency", "cancellation")}
    paths = {
        "/hotels": {"get": operation("search_hotels", "Rooms free in a city for a stay, cheapest first, with totals",
                                     ("Offers", "OfferList"), parameters=[
            query("city", {"type": "string"}, "e.g. Chicago.", required=True),
            query("check_in", day, "YYYY-MM-DD.", required=True), query("check_out", day, "YYYY-MM-DD.", required=True),
            query("max_distance_km", {"type": "number"}, "At most this far from the centre."),
            query("max_total", {"type": "number"}, "The whole stay at most this much.")])},
        "/hotels/{hotel_id}": {"get": operation("get_hotel", "A hotel's description, rooms and cancellation policy",
                                                ("The hotel", "Hotel"), parameters=[
            path_param("hotel_id", "e.g. loop-central.")])},
        "/reservations": {
            "post": operation("reserve_room", "Book a room for a stay, paid with a payment token; amount must equal "
                              "the stay's total", ("The reservation", "Reservation"), parameters=[IDEMPOTENCY_PARAM],
                              body="ReservationRequest", status="201"),
            "get": operation("list_reservations", "Reservations made here", ("Reservations", "ReservationList")),
        },
        "/reservations/{reservation_id}": {"get": operation(
            "get_reservation", "One reservation", ("The reservation", "Reservation"), parameters=[reservation_id])},
        "/reservations/{reservation_id}/cancel": {"post": operation(
            "cancel_reservation", "Cancel a reservation; refunded under the hotel's cancellation policy",
            ("The reservation", "Reservation"), parameters=[reservation_id])},
    }
    schemas = {
        "OfferList": obj(offers=array_of(obj(**offer, distance_km="number", nights="integer", rooms_left="integer",
                                             nightly=array_of({"type": "string"})))),
        "Hotel": obj(hotel_id="string", name="string", city="string", district="string", distance_km="number",
                     description="string", cancellation="string", currency="string",
                     rooms=array_of(obj(room="string", **{"from": "string"}))),
        "ReservationRequest": model_schema(ReservationRequest, amount={"type": "string", "description": "e.g. 495.00"},
                                           check_in=day, check_out=day),
        "Reservation": obj(**{k: "string" for k in (
            "reservation_id", "hotel_id", "hotel", "room", "check_in", "check_out", "guest_name", "total", "currency",
            "cancellation", "status", "refunded", "payment_token")}),
        "ReservationList": obj(reservations=array_of("Reservation")),
    }
    return openapi_document(request, f"{SITE} API", "Find hotel rooms by city and dates, book and cancel them.",
                            paths, schemas, api_key)


def create_app(seed: bool = True, clock: Clock = local_now, api_key: str | None = None, *,
               check_payment: PaymentCheck = accept_any_token) -> web.Application:
    """The hotel site; `check_payment` sees every payment first, and refunds go back through its `refund`."""
    hotels = Hotels(clock, check_payment)
    if seed:
        seed_hotels(hotels)
    app = site_app(api_key)
    app[HOTELS] = hotels

    async def document(request: web.Request) -> web.Response:
        return json_response(_document(request, api_key is not None))

    app.add_routes([web.get("/openapi.json", document), *_routes(hotels)])
    return app


async def serve(host: str = "127.0.0.1", port: int = 8087, **options: Any) -> web.AppRunner:
    """Serve the site in the running event loop; clean up the returned runner to stop."""
    return await serve_app(create_app(**options), host, port)
