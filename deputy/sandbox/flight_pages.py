"""The sandbox airline's HTML pages (search, a flight, a booking) and its OpenAPI document."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from pydantic import BaseModel

from deputy.sandbox.webapp_common import (
    IDEMPOTENCY_PARAM, array_of, esc, model_schema, obj, openapi_document, operation, page, parse_date, path_param,
    query, validated,
)
from deputy.sandbox.webapp_common import field as input_field

SITE = "Sandbox Air"


def flight_page_routes(airline: Any, BookingRequest: type[BaseModel]) -> list[web.RouteDef]:
    async def home(request: web.Request) -> web.Response:
        q = request.query
        form = ("<form method='get' action='/'>" + input_field("From", "origin", q.get("origin", "SFO"))
                + input_field("To", "destination", q.get("destination", "")) + input_field(
                    "Date", "date", q.get("date", ""), "date") + "<button type='submit'>Search flights</button></form>")
        rows = ""
        if q.get("destination") and q.get("date"):
            found = airline.search(q.get("origin", "SFO"), q["destination"], parse_date(q["date"]))
            rows = "".join(
                f"<li><a href='/flights/{esc(f['flight_id'])}'>{esc(f['number'])}</a> {esc(f['origin'])} → "
                f"{esc(f['destination'])}, departs {esc(f['departs_at'].replace('T', ' '))}, arrives "
                f"{esc(f['arrives_at'].replace('T', ' '))}, {esc(f['fare'])} {esc(f['currency'])} "
                f"({esc(f['fare_class'])}, {f['seats_left']} seats left)</li>" for f in found) or "<li>No flights.</li>"
        return page("Flights", form + f"<ul>{rows}</ul>", site=SITE)

    async def flight(request: web.Request) -> web.Response:
        f = airline.offer(airline.flight(request.match_info["flight_id"]))
        form = (f"<form method='post' action='/flights/{esc(f['flight_id'])}/book'>"
                f"<input type='hidden' name='amount' value='{esc(f['fare'])}'>"
                f"<input type='hidden' name='currency' value='{esc(f['currency'])}'>"
                + input_field("Passenger name (as on the passport)", "name", "", required="required")
                + input_field("Date of birth", "date_of_birth", "", "date")
                + input_field("Passport number", "passport_number", "")
                + input_field("Payment token", "payment_token", "", required="required", placeholder="ptok_...")
                + f"<button type='submit'>Pay {esc(f['fare'])} {esc(f['currency'])}</button></form>")
        body = (f"<p>{esc(f['origin'])} → {esc(f['destination'])}, departs {esc(f['departs_at'].replace('T', ' '))}, "
                f"arrives {esc(f['arrives_at'].replace('T', ' '))}.</p><p>Fare {esc(f['fare'])} {esc(f['currency'])}"
                f", {esc(f['fare_class'])}. {esc(f['refund_rule'])} {f['seats_left']} seats left.</p>")
        return page(f"Flight {f['number']}", body + form, site=SITE)

    async def book_form(request: web.Request) -> web.Response:
        form = {k: v for k, v in (await request.post()).items() if isinstance(v, str) and v.strip()}
        passenger = {k: form.pop(k) for k in ("name", "date_of_birth", "passport_number") if k in form}
        booking = airline.book(validated(BookingRequest, {
            **form, "flight_ids": [request.match_info["flight_id"]], "passengers": [passenger]}))
        raise web.HTTPSeeOther(f"/bookings/{booking.id}")

    async def booking(request: web.Request) -> web.Response:
        b = airline.booking(request.match_info["booking_id"]).public()
        legs = "".join(f"<li>{esc(f['number'])} {esc(f['origin'])} → {esc(f['destination'])} "
                       f"{esc(f['departs_at'].replace('T', ' '))}</li>" for f in b["flights"])
        body = (f"<p>Status: {esc(b['status'])}. Total {esc(b['total'])} {esc(b['currency'])}, refunded "
                f"{esc(b['refunded'])}.</p><ul>{legs}</ul><p>Passengers: {esc(', '.join(b['passengers']))}</p>")
        return page(f"Booking {b['booking_id']}", body, site=SITE)

    return [web.get("/", home), web.get("/flights/{flight_id}", flight),
            web.post("/flights/{flight_id}/book", book_form), web.get("/bookings/{booking_id}", booking)]


def document(request: web.Request, api_key: bool, BookingRequest: type[BaseModel],
             Passenger: type[BaseModel]) -> dict[str, Any]:
    """The airline's OpenAPI document; the request models are the airline's own (`deputy.sandbox.flights`)."""
    request_schema = model_schema(BookingRequest, amount={"type": "string", "description": "e.g. 412.00"},
                                  passengers={"type": "array", "minItems": 1, "maxItems": 6,
                                              "items": model_schema(Passenger, date_of_birth={
                                                  "type": "string", "format": "date"})})
    request_schema.pop("$defs", None)
    day = {"type": "string", "format": "date"}
    booking_id = path_param("booking_id", "The booking's id, e.g. B-1A2B3C4D.")
    paths = {
        "/flights": {"get": operation("search_flights", "Flights between two airports on a day, with today's fares",
                                      ("Flights", "FlightList"), parameters=[
            query("origin", {"type": "string"}, "Airport code or city, e.g. SFO.", required=True),
            query("destination", {"type": "string"}, "Airport code or city, e.g. ORD or Chicago.", required=True),
            query("date", day, "Day of departure, YYYY-MM-DD.", required=True),
            query("earliest", {"type": "string"}, "Departing at or after, HH:MM."),
            query("latest", {"type": "string"}, "Departing at or before, HH:MM."),
            query("max_fare", {"type": "number", "minimum": 0}, "Fare at most this much.")])},
        "/fares": {"get": operation("lowest_fares", "The lowest fare of each day of a month on a route",
                                    ("Lowest fares", "FareCalendar"), parameters=[
            query("origin", {"type": "string"}, "Airport code or city.", required=True),
            query("destination", {"type": "string"}, "Airport code or city.", required=True),
            query("month", {"type": "string"}, "YYYY-MM.", required=True)])},
        "/flights/{flight_id}": {"get": operation("get_flight", "A flight, its fare, fare rules and seats left",
                                                  ("The flight", "Flight"), parameters=[
            path_param("flight_id", "e.g. SA101-20270305.")])},
        "/bookings": {
            "post": operation("book_flights", "Book flights for passengers, paid with a payment token; amount "
                              "must equal the fares times the passengers", ("The booking", "Booking"),
                              parameters=[IDEMPOTENCY_PARAM], body="BookingRequest", status="201"),
            "get": operation("list_bookings", "Bookings made on this site", ("Bookings", "BookingList")),
        },
        "/bookings/{booking_id}": {"get": operation("get_booking", "One booking", ("The booking", "Booking"),
                                                    parameters=[booking_id])},
        "/bookings/{booking_id}/cancel": {"post": operation(
            "cancel_booking", "Cancel a booking; each fare is refunded under its rule", ("The booking", "Booking"),
            parameters=[booking_id])},
    }
    leg = {k: "string" for k in ("flight_id", "number", "origin", "destination", "departs_at", "arrives_at",
                                 "fare_class", "refund_rule")}
    schemas = {
        "Flight": obj(**leg, fare="string", currency="string", seats_left="integer"),
        "FlightList": obj(flights=array_of("Flight")),
        "FareCalendar": obj(days=array_of(obj(date="string", lowest_fare="string", currency="string",
                                              flight_id="string"))),
        "BookingRequest": request_schema,
        "Booking": obj(booking_id="string", status="string", total="string", currency="string", refunded="string",
                       payment_token="string", booked_at="string", passengers=array_of({"type": "string"}),
                       flights=array_of(obj(**leg, fare="string"))),
        "BookingList": obj(bookings=array_of("Booking")),
    }
    return openapi_document(request, f"{SITE} API", "Search flights and fares, book and cancel flights.", paths,
                            schemas, api_key)
