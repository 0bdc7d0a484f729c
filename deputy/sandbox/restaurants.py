"""The sandbox restaurant-booking site: search places, see free tables, book and cancel.

Restaurants have a cuisine, an area, opening hours per weekday and tables of given sizes.
Seatings start every 30 minutes until 90 minutes before closing, and a booking holds the
smallest table that fits the party for two hours. The JSON API (under /api/, described at
/openapi.json) and the HTML pages act on the same state; a booking sent twice with the
same `Idempotency-Key` is made once.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from deputy.sandbox.webapp_common import (
    IDEMPOTENCY_PARAM,
    Clock,
    IdempotencyCache,
    SiteError,
    array_of,
    esc,
    json_response,
    local_now,
    model_schema,
    obj,
    openapi_document,
    operation,
    page,
    parse_date,
    parse_int,
    parse_time,
    path_param,
    query,
    select,
    serve_app,
    site_app,
    validated,
)
from deputy.sandbox.webapp_common import (
    field as input_field,
)

SITE = "Sandbox Tables"
SEATING = timedelta(hours=2)
LAST_SEATING = timedelta(minutes=90)
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
Hours = dict[int, list[tuple[time, time]]]


@dataclass
class Restaurant:
    id: str
    name: str
    cuisine: str
    area: str
    address: str
    price_range: str
    description: str
    hours: Hours
    tables: list[int]

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "cuisine": self.cuisine, "area": self.area,
                "price_range": self.price_range}

    def public(self) -> dict[str, Any]:
        hours = {DAYS[d]: ", ".join(f"{a:%H:%M}-{b:%H:%M}" for a, b in self.hours.get(d, [])) or "closed"
                 for d in range(7)}
        return {**self.summary(), "address": self.address, "description": self.description, "opening_hours": hours}


@dataclass
class Booking:
    code: str
    restaurant: Restaurant
    when: datetime
    party_size: int
    name: str
    table: int
    notes: str | None = None
    status: str = "confirmed"

    def public(self) -> dict[str, Any]:
        return {
            "code": self.code, "restaurant_id": self.restaurant.id, "restaurant_name": self.restaurant.name,
            "date": self.when.date().isoformat(), "time": f"{self.when:%H:%M}", "party_size": self.party_size,
            "name": self.name, "status": self.status, "table_seats": self.table, "notes": self.notes,
        }


class BookingRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    restaurant_id: str = Field(max_length=64)
    date: date
    time: time
    party_size: int = Field(ge=1, le=12)
    name: str = Field(min_length=1, max_length=100, description="Name the table is booked under.")
    phone: str | None = Field(default=None, max_length=40)
    email: str | None = Field(default=None, max_length=200)
    notes: str | None = Field(default=None, max_length=500, description="Allergies, high chair, occasion...")


@dataclass
class RestaurantBook:
    """The site's state and rules; the handlers only translate HTTP to these calls."""

    clock: Clock
    restaurants: dict[str, Restaurant] = field(default_factory=dict)
    bookings: dict[str, Booking] = field(default_factory=dict)
    idempotency: IdempotencyCache = field(default_factory=IdempotencyCache)

    def get(self, restaurant_id: str) -> Restaurant:
        if restaurant_id not in self.restaurants:
            raise SiteError(404, f"There is no restaurant {restaurant_id!r}.")
        return self.restaurants[restaurant_id]

    def booking(self, code: str) -> Booking:
        if code.upper() not in self.bookings:
            raise SiteError(404, f"There is no booking with the code {code!r}.")
        return self.bookings[code.upper()]

    def seatings(self, restaurant: Restaurant, day: date) -> list[datetime]:
        times: list[datetime] = []
        for opens, closes in restaurant.hours.get(day.weekday(), []):
            moment, last = datetime.combine(day, opens), datetime.combine(day, closes) - LAST_SEATING
            while moment <= last:
                times.append(moment)
                moment += timedelta(minutes=30)
        return times

    def free_table(self, restaurant: Restaurant, when: datetime, party_size: int) -> int | None:
        free = list(restaurant.tables)
        for b in self.bookings.values():
            if b.restaurant is restaurant and b.status == "confirmed" and abs(b.when - when) < SEATING:
                free.remove(b.table)
        fitting = sorted(t for t in free if t >= party_size)
        return fitting[0] if fitting else None

    def free_times(self, restaurant: Restaurant, day: date, party_size: int) -> list[dict[str, Any]]:
        now = self.clock()
        return [
            {"time": f"{t:%H:%M}", "available": t > now and self.free_table(restaurant, t, party_size) is not None}
            for t in self.seatings(restaurant, day)
        ]

    def search(self, cuisine: str, area: str, text: str, day: date | None, at: time | None, party: int) -> list[dict]:
        found = []
        for r in self.restaurants.values():
            if (cuisine and r.cuisine.lower() != cuisine.lower()) or (area and r.area.lower() != area.lower()):
                continue
            if text and text.lower() not in f"{r.name} {r.description}".lower():
                continue
            entry = r.summary()
            if day is not None:
                free = [s["time"] for s in self.free_times(r, day, party) if s["available"]]
                if at is None:
                    entry["free_times"] = free
                else:
                    wanted = datetime.combine(day, at)
                    entry["available"] = f"{at:%H:%M}" in free
                    entry["alternatives"] = [
                        s for s in free if s != f"{at:%H:%M}"
                        and abs(datetime.combine(day, time.fromisoformat(s)) - wanted) <= SEATING
                    ][:4]
            found.append(entry)
        return found

    def book(self, request: BookingRequest) -> Booking:
        restaurant = self.get(request.restaurant_id)
        when = datetime.combine(request.date, request.time.replace(second=0, microsecond=0, tzinfo=None))
        if when not in self.seatings(restaurant, request.date):
            raise SiteError(422, f"{restaurant.name} has no seating at {when:%H:%M} on {when:%A %d %B}.")
        if when <= self.clock() or when.date() > self.clock().date() + timedelta(days=90):
            raise SiteError(422, "Bookings are taken from now until 90 days ahead.")
        table = self.free_table(restaurant, when, request.party_size)
        if table is None:
            raise SiteError(409, f"{restaurant.name} has no free table for {request.party_size} at {when:%H:%M}.")
        booking = Booking("TB-" + secrets.token_hex(3).upper(), restaurant, when, request.party_size, request.name,
                          table, notes=request.notes)
        self.bookings[booking.code] = booking
        return booking

    def cancel(self, code: str) -> Booking:
        booking = self.booking(code)
        if booking.status == "cancelled":
            raise SiteError(409, f"The booking {booking.code} is already cancelled.")
        booking.status = "cancelled"
        return booking


def _hours(days: str, *spans: str) -> Hours:
    chosen = range(7) if days == "daily" else [DAYS.index(d) for d in days.split(",")]
    return {d: [(time.fromisoformat(s[:5]), time.fromisoformat(s[6:])) for s in spans] for d in chosen}


def seed_restaurants(book: RestaurantBook) -> None:
    """Six places (Italian, Thai, Japanese); Trattoria Roma is full on Friday at 20:00."""
    for place in [
        Restaurant("trattoria-roma", "Trattoria Roma", "Italian", "Old Town", "12 Via Lane", "$$",
                   "Handmade pasta and wood-fired pizza.",
                   _hours("Tue,Wed,Thu,Fri,Sat,Sun", "12:00-14:30", "18:00-23:00"), [2, 2, 4, 4, 6]),
        Restaurant("la-piazza", "La Piazza", "Italian", "Riverside", "3 Quay Street", "$$$",
                   "Seafood risotto on the river terrace.", _hours("Thu,Fri,Sat,Sun", "18:00-22:30"), [2, 4, 4]),
        Restaurant("ban-thai", "Ban Thai", "Thai", "Riverside", "48 Mill Road", "$$",
                   "Northern Thai curries; vegan menu.", _hours("Mon,Tue,Wed,Thu,Fri,Sat", "17:00-22:30"),
                   [2, 4, 4, 8]),
        Restaurant("golden-lotus", "Golden Lotus", "Thai", "Old Town", "7 Market Square", "$",
                   "Street-food classics, quick and cheap.", _hours("daily", "11:30-22:00"), [2, 2, 4]),
        Restaurant("sakura", "Sakura", "Japanese", "Harbour", "1 Pier Walk", "$$$", "Omakase counter and sushi.",
                   _hours("Mon,Wed,Thu,Fri,Sat,Sun", "18:00-23:00"), [2, 2, 2, 4]),
        Restaurant("kiku-ramen", "Kiku Ramen", "Japanese", "Old Town", "22 Bell Lane", "$",
                   "Tonkotsu and miso ramen.", _hours("daily", "12:00-21:30"), [2, 2, 4, 4]),
    ]:
        book.restaurants[place.id] = place
    today = book.clock().date()
    friday = datetime.combine(today + timedelta(days=(4 - today.weekday()) % 7), time(20))
    roma = book.restaurants["trattoria-roma"]
    for i, seats in enumerate(roma.tables):
        book.bookings[f"TB-SEED{i}"] = Booking(f"TB-SEED{i}", roma, friday, seats, f"Regular guest {i + 1}", seats)


BOOK = web.AppKey("restaurant_book", RestaurantBook)


def _party(request: web.Request) -> int:
    return parse_int(request.query.get("party_size"), "party size", 1, 12, 2)


def _search(book: RestaurantBook, request: web.Request) -> list[dict]:
    q = request.query
    return book.search(q.get("cuisine", ""), q.get("area", ""), q.get("q", ""), parse_date(q.get("date")),
                       parse_time(q.get("time")), _party(request))


def _api_routes(book: RestaurantBook) -> list[web.RouteDef]:
    async def search(request: web.Request) -> web.Response:
        return json_response({"restaurants": _search(book, request)})

    async def restaurant(request: web.Request) -> web.Response:
        return json_response(book.get(request.match_info["restaurant_id"]).public())

    async def availability(request: web.Request) -> web.Response:
        r = book.get(request.match_info["restaurant_id"])
        day = parse_date(request.query.get("date")) or book.clock().date()
        slots = book.free_times(r, day, _party(request))
        return json_response({"restaurant_id": r.id, "date": day.isoformat(), "party_size": _party(request),
                              "slots": slots})

    async def create(request: web.Request) -> web.Response:
        return await book.idempotency.created(request, BookingRequest, lambda payload: book.book(payload).public())

    async def listing(request: web.Request) -> web.Response:
        mine = [b.public() for b in book.bookings.values() if not b.code.startswith("TB-SEED")]
        return json_response({"bookings": mine})

    async def one(request: web.Request) -> web.Response:
        return json_response(book.booking(request.match_info["code"]).public())

    async def cancel(request: web.Request) -> web.Response:
        return json_response(book.cancel(request.match_info["code"]).public())

    return [
        web.get("/api/restaurants", search), web.get("/api/restaurants/{restaurant_id}", restaurant),
        web.get("/api/restaurants/{restaurant_id}/availability", availability), web.post("/api/bookings", create),
        web.get("/api/bookings", listing), web.get("/api/bookings/{code}", one),
        web.delete("/api/bookings/{code}", cancel),
    ]


def _html_routes(book: RestaurantBook) -> list[web.RouteDef]:
    def search_form(q: Any) -> str:
        return (
            "<form method='get' action='/search'>"
            + select("Cuisine", "cuisine", ["", *sorted({r.cuisine for r in book.restaurants.values()})],
                     q.get("cuisine", ""))
            + select("Area", "area", ["", *sorted({r.area for r in book.restaurants.values()})], q.get("area", ""))
            + input_field("Date", "date", q.get("date", ""), "date")
            + input_field("Time", "time", q.get("time", ""), "time")
            + input_field("Party size", "party_size", q.get("party_size", "2"), "number", min=1, max=12)
            + "<button type='submit'>Find a table</button></form>"
        )

    async def home(request: web.Request) -> web.Response:
        items = "".join(f"<li><a href='/restaurants/{esc(r.id)}'>{esc(r.name)}</a> ({esc(r.cuisine)}, "
                        f"{esc(r.area)})</li>" for r in book.restaurants.values())
        return page("Find a table", search_form(request.query) + f"<h2>All restaurants</h2><ul>{items}</ul>",
                    site=SITE)

    async def results(request: web.Request) -> web.Response:
        q = request.query
        link = f"?date={esc(q.get('date', ''))}&amp;party_size={esc(q.get('party_size', '2'))}"
        rows = "".join(
            f"<li><a href='/restaurants/{esc(r['id'])}{link}'>{esc(r['name'])}</a> ({esc(r['cuisine'])}, "
            f"{esc(r['area'])}) {_verdict(r)}</li>" for r in _search(book, request)
        )
        return page("Restaurants", search_form(q) + f"<ul>{rows or '<li>Nothing matches.</li>'}</ul>", site=SITE)

    async def details(request: web.Request) -> web.Response:
        r = book.get(request.match_info["restaurant_id"])
        day, party = parse_date(request.query.get("date")) or book.clock().date(), _party(request)
        free = [s["time"] for s in book.free_times(r, day, party) if s["available"]]
        hours = "".join(f"<li>{d}: {esc(h)}</li>" for d, h in r.public()["opening_hours"].items())
        form = (
            f"<form method='post' action='/restaurants/{esc(r.id)}/book'>"
            + input_field("Date", "date", day.isoformat(), "date", required="required")
            + select("Time", "time", free, request.query.get("time", ""))
            + input_field("Party size", "party_size", party, "number", min=1, max=12)
            + input_field("Name", "name", "", required="required") + input_field("Phone", "phone", "", "tel")
            + input_field("Email", "email", "", "email") + input_field("Notes", "notes")
            + "<button type='submit'>Book</button></form>"
        )
        body = (f"<p>{esc(r.cuisine)} · {esc(r.area)} · {esc(r.address)} · {esc(r.price_range)}</p>"
                f"<p>{esc(r.description)}</p><h2>Opening hours</h2><ul>{hours}</ul>"
                f"<h2>Free tables on {day:%A %d %B} for {party}</h2><p>{esc(', '.join(free)) or 'None'}</p>{form}")
        return page(r.name, body, site=SITE)

    async def book_form(request: web.Request) -> web.Response:
        form = {k: v for k, v in (await request.post()).items() if isinstance(v, str) and v.strip()}
        booking = book.book(validated(BookingRequest, {**form, "restaurant_id": request.match_info["restaurant_id"]}))
        raise web.HTTPSeeOther(f"/bookings/{booking.code}")

    async def booking_page(request: web.Request) -> web.Response:
        b = book.booking(request.match_info["code"]).public()
        rows = "".join(f"<dt>{esc(k.replace('_', ' '))}</dt><dd>{esc(v)}</dd>" for k, v in b.items() if v is not None)
        cancel = (f"<form method='post' action='/bookings/{esc(b['code'])}/cancel'>"
                  "<button type='submit'>Cancel this booking</button></form>") if b["status"] == "confirmed" else ""
        return page(f"Booking {b['code']}", f"<dl>{rows}</dl>{cancel}", site=SITE)

    async def cancel_form(request: web.Request) -> web.Response:
        raise web.HTTPSeeOther(f"/bookings/{book.cancel(request.match_info['code']).code}")

    return [
        web.get("/", home), web.get("/search", results), web.get("/restaurants/{restaurant_id}", details),
        web.post("/restaurants/{restaurant_id}/book", book_form), web.get("/bookings/{code}", booking_page),
        web.post("/bookings/{code}/cancel", cancel_form),
    ]


def _verdict(found: dict[str, Any]) -> str:
    if "available" not in found:
        return esc(", ".join(found.get("free_times", [])))
    others = f" (other times: {', '.join(found['alternatives'])})" if found["alternatives"] else ""
    return esc(("table free" if found["available"] else "full at that time") + others)


def _document(request: web.Request, api_key: bool) -> dict[str, Any]:
    rid = path_param("restaurant_id", "The restaurant's id, e.g. trattoria-roma.")
    code = path_param("code", "The booking's confirmation code, e.g. TB-1A2B3C.")
    day = query("date", {"type": "string", "format": "date"}, "Day of the visit, YYYY-MM-DD.")
    party = query("party_size", {"type": "integer", "minimum": 1, "maximum": 12}, "Number of guests (default 2).")
    at = query("time", {"type": "string"}, "Time, HH:MM; with a date, says whether a table is free then.")
    paths = {
        "/restaurants": {"get": operation(
            "search", "Search restaurants by cuisine and area; with a date (and time), shows free tables",
            ("Matching restaurants", "SearchResult"), parameters=[
                query("cuisine", {"type": "string"}, "Italian, Thai, Japanese..."),
                query("area", {"type": "string"}, "Neighbourhood, e.g. Old Town."),
                query("q", {"type": "string"}, "Words in the name or description."), day, at, party])},
        "/restaurants/{restaurant_id}": {"get": operation(
            "get_restaurant", "A restaurant's details and opening hours", ("The restaurant", "Restaurant"),
            parameters=[rid])},
        "/restaurants/{restaurant_id}/availability": {"get": operation(
            "availability", "Seating times on a day and whether a table is free", ("Seatings", "Availability"),
            parameters=[rid, day, party])},
        "/bookings": {
            "post": operation("book", "Book a table; answers with a confirmation code", ("The booking", "Booking"),
                              parameters=[IDEMPOTENCY_PARAM], body="BookingRequest", status="201"),
            "get": operation("list_bookings", "The bookings made on this site", ("Bookings", "BookingList")),
        },
        "/bookings/{code}": {
            "get": operation("get_booking", "One booking by its code", ("The booking", "Booking"), parameters=[code]),
            "delete": operation("cancel_booking", "Cancel a booking", ("The cancelled booking", "Booking"),
                                parameters=[code]),
        },
    }
    words = {k: "string" for k in ("id", "name", "cuisine", "area", "price_range")}
    schemas = {
        "Restaurant": obj(**words, address="string", description="string",
                          opening_hours={"type": "object", "additionalProperties": {"type": "string"}}),
        "SearchResult": obj(restaurants=array_of(obj(
            **words, available="boolean", alternatives=array_of({"type": "string"}),
            free_times=array_of({"type": "string"})))),
        "Availability": obj(restaurant_id="string", date="string", party_size="integer",
                            slots=array_of(obj(time="string", available="boolean"))),
        "BookingRequest": model_schema(
            BookingRequest, date={"type": "string", "format": "date", "description": "YYYY-MM-DD."},
            time={"type": "string", "description": "Seating time, HH:MM (on the hour or half hour)."}),
        "Booking": obj(**{k: "string" for k in ("code", "restaurant_id", "restaurant_name", "date", "time", "name",
                                                "status", "notes")}, party_size="integer", table_seats="integer"),
        "BookingList": obj(bookings=array_of("Booking")),
    }
    return openapi_document(request, f"{SITE} API", "Search restaurants and book tables.", paths, schemas, api_key)


def create_app(seed: bool = True, clock: Clock = local_now, api_key: str | None = None) -> web.Application:
    """The restaurant site; `seed` fills it with the demo restaurants and bookings, and
    `api_key` (when set) is required in the `X-Api-Key` header of every API request."""
    book = RestaurantBook(clock)
    if seed:
        seed_restaurants(book)
    app = site_app(api_key)
    app[BOOK] = book

    async def document(request: web.Request) -> web.Response:
        return json_response(_document(request, api_key is not None))

    app.add_routes([web.get("/openapi.json", document), *_api_routes(book), *_html_routes(book)])
    return app


async def serve(host: str = "127.0.0.1", port: int = 8081, **options: Any) -> web.AppRunner:
    """Serve the site in the running event loop; clean up the returned runner to stop."""
    return await serve_app(create_app(**options), host, port)
