"""The sandbox ticket shop: concerts and plays with seats, holds that expire, and orders.

Buying is two steps, as on real ticket sites: hold seats (they are kept for
`hold_minutes`, then released), then buy the hold with a payment token (`ptok_...`),
stating the amount and currency the hold costs, so a buyer can never pay more than the
total it agreed to. Holds and orders may carry an `Idempotency-Key`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, model_validator

from deputy.sandbox.webapp_common import (
    IDEMPOTENCY_PARAM,
    Clock,
    IdempotencyCache,
    PaymentCheck,
    SiteError,
    accept_any_token,
    array_of,
    check_payment_token,
    esc,
    json_response,
    local_now,
    model_schema,
    money,
    obj,
    openapi_document,
    operation,
    page,
    parse_date,
    parse_price,
    path_param,
    query,
    read_json,
    serve_app,
    site_app,
    validated,
)
from deputy.sandbox.webapp_common import (
    field as input_field,
)

SITE = "Sandbox Tickets"
MAX_SEATS = 8


@dataclass
class Section:
    name: str
    price: Decimal
    rows: str
    seats_per_row: int

    def seats(self) -> list[str]:
        return [f"{row}{n}" for row in self.rows for n in range(1, self.seats_per_row + 1)]


@dataclass
class Event:
    id: str
    title: str
    kind: str
    venue: str
    starts_at: datetime
    description: str
    sections: list[Section]
    currency: str = "USD"
    sold: set[str] = field(default_factory=set)

    def section_of(self, seat: str) -> Section | None:
        return next((s for s in self.sections if seat in s.seats()), None)


@dataclass
class Hold:
    id: str
    event: Event
    seats: list[str]
    total: Decimal
    expires_at: datetime
    status: str = "held"

    def public(self, now: datetime) -> dict[str, Any]:
        status = "expired" if self.status == "held" and now >= self.expires_at else self.status
        return {"hold_id": self.id, "event_id": self.event.id, "event_title": self.event.title, "seats": self.seats,
                "total": money(self.total), "currency": self.event.currency,
                "expires_at": self.expires_at.isoformat(timespec="minutes"), "status": status}


@dataclass
class Order:
    id: str
    hold: Hold
    payment_token: str
    name: str
    created_at: datetime

    def public(self) -> dict[str, Any]:
        event = self.hold.event
        return {"order_id": self.id, "event_id": event.id, "event_title": event.title, "venue": event.venue,
                "starts_at": event.starts_at.isoformat(timespec="minutes"), "seats": self.hold.seats,
                "total": money(self.hold.total), "currency": event.currency, "name": self.name,
                "payment_token": self.payment_token, "status": "paid"}


class HoldRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    event_id: str = Field(max_length=64)
    seats: list[str] | None = Field(default=None, min_length=1, max_length=MAX_SEATS,
                                    description="Exact seats, e.g. [\"B4\", \"B5\"]; or give section and quantity.")
    section: str | None = Field(default=None, max_length=40, description="Pick the best free seats in this section.")
    quantity: int | None = Field(default=None, ge=1, le=MAX_SEATS)

    @model_validator(mode="after")
    def _seats_or_section(self) -> HoldRequest:
        if (self.seats is None) == (self.section is None or self.quantity is None):
            raise ValueError("give either seats, or a section and a quantity")
        return self


class BuyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hold_id: str = Field(max_length=64)
    payment_token: str = Field(max_length=80, description="A single-use payment token id, ptok_...")
    amount: Decimal = Field(ge=0, description="The hold's total, as shown by the hold.")
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    name: str = Field(min_length=1, max_length=100, description="Name on the tickets.")
    email: str | None = Field(default=None, max_length=200, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass
class BoxOffice:
    """The site's state and rules."""

    clock: Clock
    hold_minutes: int = 10
    check_payment: PaymentCheck = accept_any_token
    events: dict[str, Event] = field(default_factory=dict)
    holds: dict[str, Hold] = field(default_factory=dict)
    orders: dict[str, Order] = field(default_factory=dict)
    idempotency: IdempotencyCache = field(default_factory=IdempotencyCache)

    def event(self, event_id: str) -> Event:
        if event_id not in self.events:
            raise SiteError(404, f"There is no event {event_id!r}.")
        return self.events[event_id]

    def hold(self, hold_id: str) -> Hold:
        if hold_id not in self.holds:
            raise SiteError(404, f"There is no hold {hold_id!r}.")
        return self.holds[hold_id]

    def order(self, order_id: str) -> Order:
        if order_id not in self.orders:
            raise SiteError(404, f"There is no order {order_id!r}.")
        return self.orders[order_id]

    def free_seats(self, event: Event) -> list[str]:
        now = self.clock()
        held = {s for h in self.holds.values() if h.event is event and h.status == "held" and now < h.expires_at
                for s in h.seats}
        return [s for section in event.sections for s in section.seats() if s not in event.sold and s not in held]

    def summary(self, event: Event) -> dict[str, Any]:
        return {"id": event.id, "title": event.title, "kind": event.kind, "venue": event.venue,
                "starts_at": event.starts_at.isoformat(timespec="minutes"),
                "price_from": money(min(s.price for s in event.sections)), "currency": event.currency,
                "seats_available": len(self.free_seats(event))}

    def details(self, event: Event) -> dict[str, Any]:
        free = set(self.free_seats(event))
        sections = [{"name": s.name, "price": money(s.price), "available": len(free & set(s.seats()))}
                    for s in event.sections]
        return {**self.summary(event), "description": event.description, "sections": sections}

    def search(self, text: str, kind: str, start: datetime | None, end: datetime | None, top: Decimal | None):
        return [
            self.summary(e) for e in sorted(self.events.values(), key=lambda e: e.starts_at)
            if (not text or text.lower() in f"{e.title} {e.venue} {e.description}".lower())
            and (not kind or e.kind == kind.lower()) and (start is None or e.starts_at >= start)
            and (end is None or e.starts_at < end) and (top is None or min(s.price for s in e.sections) <= top)
        ]

    def place_hold(self, request: HoldRequest) -> Hold:
        event = self.event(request.event_id)
        free = self.free_seats(event)
        if request.seats is not None:
            seats = [s.upper() for s in dict.fromkeys(request.seats)]
            taken = [s for s in seats if s not in free]
            if taken:
                unknown = [s for s in taken if event.section_of(s) is None]
                raise SiteError(404 if unknown else 409, f"Not available: {', '.join(taken)}.")
        else:
            section = next((s for s in event.sections if s.name.lower() == (request.section or "").lower()), None)
            if section is None:
                raise SiteError(404, f"{event.title} has no section {request.section!r}.")
            seats = [s for s in section.seats() if s in free][: request.quantity]
            if len(seats) < (request.quantity or 0):
                raise SiteError(409, f"Only {len(seats)} seats are left in {section.name}.")
        total = sum((event.section_of(s).price for s in seats), Decimal(0))  # type: ignore[union-attr]
        hold = Hold("H-" + secrets.token_hex(4).upper(), event, seats, total,
                    self.clock() + timedelta(minutes=self.hold_minutes))
        self.holds[hold.id] = hold
        return hold

    def buy(self, request: BuyRequest) -> Order:
        hold = self.hold(request.hold_id)
        check_payment_token(request.payment_token)
        if hold.status != "held" or self.clock() >= hold.expires_at:
            raise SiteError(409, f"The hold {hold.id} has {'been bought' if hold.status == 'bought' else 'expired'}.")
        if request.currency != hold.event.currency or request.amount != hold.total:
            raise SiteError(409, f"The hold costs {money(hold.total)} {hold.event.currency}, "
                                 f"not {money(request.amount)} {request.currency}.")
        self.check_payment(request.payment_token, hold.total, hold.event.currency)
        hold.status = "bought"
        hold.event.sold.update(hold.seats)
        order = Order("T-" + secrets.token_hex(4).upper(), hold, request.payment_token, request.name, self.clock())
        self.orders[order.id] = order
        return order


def _at(day: datetime, weekday: int, hour: int, minute: int = 0, weeks: int = 0) -> datetime:
    return datetime.combine(day.date() + timedelta(days=(weekday - day.weekday()) % 7 + 7 * weeks), time(hour, minute))


def seed_events(office: BoxOffice) -> None:
    """A jazz night on Friday, Hamlet on Saturday, a symphony and a comedy night."""
    now = office.clock()
    for event in [
        Event("jazz-blue-notes", "The Blue Notes Quartet: Late Night Jazz", "concert", "The Blue Room",
              _at(now, 4, 21), "Standards and originals from the city's favourite quartet.",
              [Section("Tables", Decimal(45), "ABC", 8), Section("Bar", Decimal(28), "DE", 10)],
              sold={f"A{n}" for n in range(1, 9)}),
        Event("hamlet", "Hamlet", "theatre", "Royal Court Theatre", _at(now, 5, 19, 30),
              "Shakespeare's tragedy in a new production, 3 hours with one interval.",
              [Section("Stalls", Decimal(65), "ABCDEFGH", 14), Section("Circle", Decimal(40), "JKLM", 12)],
              sold={f"{r}{n}" for r in "ABC" for n in range(1, 15)} | {"J1", "J2"}),
        Event("symphony-new-world", "City Symphony: Dvořák's New World", "concert", "Concert Hall",
              _at(now, 6, 18, weeks=1), "Dvořák's Ninth and Elgar's Cello Concerto.",
              [Section("Stalls", Decimal(55), "ABCDEF", 16), Section("Balcony", Decimal(30), "PQR", 12)]),
        Event("comedy-night", "Open Mic Comedy Night", "comedy", "The Laughing Cellar", _at(now, 3, 20),
              "New comedians, five minutes each.", [Section("General", Decimal(15), "ABCD", 10)]),
    ]:
        office.events[event.id] = event


OFFICE = web.AppKey("box_office", BoxOffice)


def _search(office: BoxOffice, request: web.Request) -> list[dict[str, Any]]:
    q = request.query
    start, end = parse_date(q.get("date_from")), parse_date(q.get("date_to"))
    return office.search(q.get("q", ""), q.get("kind", ""), start and datetime.combine(start, time()),
                         end and datetime.combine(end, time()) + timedelta(days=1), parse_price(q.get("max_price"),
                                                                                                 "maximum price"))


async def _idempotent(office: BoxOffice, request: web.Request, model: type[BaseModel], act) -> web.Response:
    payload = await read_json(request, model)
    key, fingerprint = request.headers.get("Idempotency-Key"), payload.model_dump(mode="json")
    replayed = office.idempotency.replay(key, fingerprint)
    if replayed is not None:
        return json_response(replayed)
    answer = act(payload)
    office.idempotency.remember(key, fingerprint, answer)
    return json_response(answer, status=201)


def _api_routes(office: BoxOffice) -> list[web.RouteDef]:
    async def search(request: web.Request) -> web.Response:
        return json_response({"events": _search(office, request)})

    async def event(request: web.Request) -> web.Response:
        return json_response(office.details(office.event(request.match_info["event_id"])))

    async def seats(request: web.Request) -> web.Response:
        e = office.event(request.match_info["event_id"])
        wanted = request.query.get("section", "").lower()
        free = [{"seat": s, "section": e.section_of(s).name, "price": money(e.section_of(s).price)}  # type: ignore
                for s in office.free_seats(e)]
        return json_response({"event_id": e.id, "currency": e.currency,
                              "seats": [f for f in free if not wanted or f["section"].lower() == wanted]})

    async def hold(request: web.Request) -> web.Response:
        return await _idempotent(office, request, HoldRequest, lambda p: office.place_hold(p).public(office.clock()))

    async def get_hold(request: web.Request) -> web.Response:
        return json_response(office.hold(request.match_info["hold_id"]).public(office.clock()))

    async def release(request: web.Request) -> web.Response:
        found = office.hold(request.match_info["hold_id"])
        if found.status == "held":
            found.status = "released"
        return json_response(found.public(office.clock()))

    async def buy(request: web.Request) -> web.Response:
        return await _idempotent(office, request, BuyRequest, lambda p: office.buy(p).public())

    async def orders(request: web.Request) -> web.Response:
        return json_response({"orders": [o.public() for o in office.orders.values()]})

    async def order(request: web.Request) -> web.Response:
        return json_response(office.order(request.match_info["order_id"]).public())

    return [
        web.get("/api/events", search), web.get("/api/events/{event_id}", event),
        web.get("/api/events/{event_id}/seats", seats), web.post("/api/holds", hold),
        web.get("/api/holds/{hold_id}", get_hold), web.delete("/api/holds/{hold_id}", release),
        web.post("/api/orders", buy), web.get("/api/orders", orders), web.get("/api/orders/{order_id}", order),
    ]


def _html_routes(office: BoxOffice) -> list[web.RouteDef]:
    async def home(request: web.Request) -> web.Response:
        q = request.query
        form = ("<form method='get' action='/'>" + input_field("Search", "q", q.get("q", ""))
                + input_field("From", "date_from", q.get("date_from", ""), "date")
                + input_field("To", "date_to", q.get("date_to", ""), "date") + "<button type='submit'>Search</button>"
                "</form>")
        rows = "".join(f"<li><a href='/events/{esc(e['id'])}'>{esc(e['title'])}</a>, {esc(e['venue'])}, "
                       f"{esc(e['starts_at'].replace('T', ' '))}, from {esc(e['price_from'])} {esc(e['currency'])}</li>"
                       for e in _search(office, request))
        return page("What's on", form + f"<ul>{rows or '<li>Nothing matches.</li>'}</ul>", site=SITE)

    async def event(request: web.Request) -> web.Response:
        e = office.event(request.match_info["event_id"])
        free = set(office.free_seats(e))
        groups = "".join(
            f"<fieldset><legend>{esc(s.name)}: {money(s.price)} {e.currency}</legend>"
            + "".join(f"<label><input type='checkbox' name='seats' value='{x}'> {x}</label>"
                      for x in s.seats() if x in free) + "</fieldset>" for s in e.sections)
        body = (f"<p>{esc(e.venue)}, {e.starts_at:%A %d %B %H:%M}</p><p>{esc(e.description)}</p>"
                f"<form method='post' action='/events/{esc(e.id)}/hold'>{groups}"
                "<button type='submit'>Hold these seats</button></form>")
        return page(e.title, body, site=SITE)

    async def hold_form(request: web.Request) -> web.Response:
        seats = [v for v in (await request.post()).getall("seats", []) if isinstance(v, str)]
        found = office.place_hold(validated(HoldRequest, {"event_id": request.match_info["event_id"],
                                                           "seats": seats or None}))
        raise web.HTTPSeeOther(f"/holds/{found.id}")

    async def hold_page(request: web.Request) -> web.Response:
        h = office.hold(request.match_info["hold_id"]).public(office.clock())
        form = (f"<form method='post' action='/holds/{esc(h['hold_id'])}/buy'>"
                f"<input type='hidden' name='amount' value='{esc(h['total'])}'>"
                f"<input type='hidden' name='currency' value='{esc(h['currency'])}'>"
                + input_field("Name on the tickets", "name", "", required="required")
                + input_field("Email", "email", "", "email")
                + input_field("Payment token", "payment_token", "", required="required", placeholder="ptok_...")
                + f"<button type='submit'>Pay {esc(h['total'])} {esc(h['currency'])}</button></form>")
        body = (f"<p>{esc(h['event_title'])}: seats {esc(', '.join(h['seats']))}, total {esc(h['total'])} "
                f"{esc(h['currency'])}. Held until {esc(h['expires_at'].replace('T', ' '))} ({esc(h['status'])}).</p>")
        return page(f"Hold {h['hold_id']}", body + (form if h["status"] == "held" else ""), site=SITE)

    async def buy_form(request: web.Request) -> web.Response:
        form = {k: v for k, v in (await request.post()).items() if isinstance(v, str) and v.strip()}
        placed = office.buy(validated(BuyRequest, {**form, "hold_id": request.match_info["hold_id"]}))
        raise web.HTTPSeeOther(f"/orders/{placed.id}")

    async def order_page(request: web.Request) -> web.Response:
        o = office.order(request.match_info["order_id"]).public()
        rows = "".join(f"<dt>{esc(k.replace('_', ' '))}</dt><dd>{esc(v)}</dd>" for k, v in o.items())
        return page(f"Order {o['order_id']}", f"<p>Enjoy the show!</p><dl>{rows}</dl>", site=SITE)

    return [
        web.get("/", home), web.get("/events/{event_id}", event), web.post("/events/{event_id}/hold", hold_form),
        web.get("/holds/{hold_id}", hold_page), web.post("/holds/{hold_id}/buy", buy_form),
        web.get("/orders/{order_id}", order_page),
    ]


def _document(request: web.Request, api_key: bool, hold_minutes: int) -> dict[str, Any]:
    event_id = path_param("event_id", "The event's id, e.g. hamlet.")
    hold_id = path_param("hold_id", "The hold's id, e.g. H-1A2B3C4D.")
    day = {"type": "string", "format": "date"}
    paths = {
        "/events": {"get": operation("search_events", "Search concerts, plays and shows", ("Events", "EventList"),
                                     parameters=[
            query("q", {"type": "string"}, "Words in the title, venue or description."),
            query("kind", {"type": "string", "enum": ["concert", "theatre", "comedy"]}, "Kind of event."),
            query("date_from", day, "First day, YYYY-MM-DD."), query("date_to", day, "Last day, YYYY-MM-DD."),
            query("max_price", {"type": "number", "minimum": 0}, "Cheapest seat at most this much.")])},
        "/events/{event_id}": {"get": operation("get_event", "An event's details, sections and prices",
                                                ("The event", "EventDetails"), parameters=[event_id])},
        "/events/{event_id}/seats": {"get": operation(
            "free_seats", "The free seats of an event, with prices", ("Free seats", "SeatList"), parameters=[
                event_id, query("section", {"type": "string"}, "Only this section.")])},
        "/holds": {"post": operation(
            "hold_seats", f"Hold seats for {hold_minutes} minutes before buying them", ("The hold", "Hold"),
            parameters=[IDEMPOTENCY_PARAM], body="HoldRequest", status="201")},
        "/holds/{hold_id}": {
            "get": operation("get_hold", "A hold and whether it is still valid", ("The hold", "Hold"),
                             parameters=[hold_id]),
            "delete": operation("release_hold", "Give held seats back", ("The released hold", "Hold"),
                                parameters=[hold_id]),
        },
        "/orders": {
            "post": operation("buy_hold", "Buy held seats with a payment token; amount must equal the hold's total",
                              ("The order", "Order"), parameters=[IDEMPOTENCY_PARAM], body="BuyRequest",
                              status="201"),
            "get": operation("list_orders", "Tickets bought on this site", ("Orders", "OrderList")),
        },
        "/orders/{order_id}": {"get": operation("get_order", "One order", ("The order", "Order"), parameters=[
            path_param("order_id", "The order's id, e.g. T-1A2B3C4D.")])},
    }
    event = {"id": "string", "title": "string", "kind": "string", "venue": "string", "starts_at": "string",
             "price_from": "string", "currency": "string", "seats_available": "integer"}
    seats = array_of({"type": "string"})
    schemas = {
        "EventList": obj(events=array_of(obj(**event))),
        "EventDetails": obj(**event, description="string", sections=array_of(obj(
            name="string", price="string", available="integer"))),
        "SeatList": obj(event_id="string", currency="string",
                        seats=array_of(obj(seat="string", section="string", price="string"))),
        "HoldRequest": model_schema(HoldRequest),
        "Hold": obj(hold_id="string", event_id="string", event_title="string", seats=seats, total="string",
                    currency="string", expires_at="string", status="string"),
        "BuyRequest": model_schema(BuyRequest, amount={"type": "string", "description": "The hold's total, e.g. 90.00"},
                                   email={"type": "string", "format": "email"}),
        "Order": obj(**{k: "string" for k in ("order_id", "event_id", "event_title", "venue", "starts_at", "total",
                                              "currency", "name", "payment_token", "status")}, seats=seats),
        "OrderList": obj(orders=array_of("Order")),
    }
    return openapi_document(request, f"{SITE} API", "Find events, hold seats and buy them.", paths, schemas, api_key)


def create_app(seed: bool = True, clock: Clock = local_now, api_key: str | None = None, *, hold_minutes: int = 10,
               check_payment: PaymentCheck = accept_any_token) -> web.Application:
    """The ticket site; holds last `hold_minutes`; `check_payment` sees every payment first."""
    office = BoxOffice(clock, hold_minutes, check_payment)
    if seed:
        seed_events(office)
    app = site_app(api_key)
    app[OFFICE] = office

    async def document(request: web.Request) -> web.Response:
        return json_response(_document(request, api_key is not None, hold_minutes))

    app.add_routes([web.get("/openapi.json", document), *_api_routes(office), *_html_routes(office)])
    return app


async def serve(host: str = "127.0.0.1", port: int = 8082, **options: Any) -> web.AppRunner:
    """Serve the site in the running event loop; clean up the returned runner to stop."""
    return await serve_app(create_app(**options), host, port)
