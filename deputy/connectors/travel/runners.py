"""The trip operations as executor runners: planning by code, and booking both halves or neither.

`plan_trip` reads the user's busy days, asks the airline and the hotels (through their imported
OpenAPI operations, so every request passes the egress guard), and keeps the options it offers
for the user who asked. `book_trip` books the option's flights, then its room, each paid with a
single-use token minted for exactly its own total at its own merchant. If the room fails, the
flights are cancelled under their refund rule and the user is told exactly what stays booked and
what it cost; only when both are booked does it add the trip to the calendar.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Mapping

from deputy.connectors.travel.operations import BookFlightArgs, BookTripArgs, PlanTripArgs
from deputy.connectors.travel.planner import TripOption, free_windows, option_for, within_budget
from deputy.connectors.travel.trip_store import TripStore
from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorError, EffectClass, OperationResult

Runner = Callable[[Action, str], "str | OperationResult"]
Busy = Callable[[int, date, date], list[tuple[date, date]]]
"""(user, first day, last day) -> the busy spans in the user's calendar, as days."""
Paying = Callable[[Action, str], Action]
"""Mints a single-use token for a booking's exact total and merchant and puts it in its arguments."""
Receipt = Callable[[Action, str], None]
PAYMENT = "<payment_token>"
CENTRE_KM = 2


def answer_of(result: str | OperationResult) -> dict[str, Any]:
    summary = result.summary if isinstance(result, OperationResult) else result
    start = summary.find("{")
    try:
        body = json.loads(summary[start:]) if start >= 0 else {}
    except ValueError:
        body = {}
    return body if isinstance(body, dict) else {}


class TravelRunners:
    def __init__(self, api: Mapping[str, Runner], merchants: Mapping[str, str], store: TripStore, busy: Busy,
                 add_event: Runner | None, pay: Paying, receipt: Receipt,
                 travellers: Callable[[int, int], list[dict[str, Any]]], today: Callable[[], date]) -> None:
        """`travellers`: (user, how many) -> each person's details for the airline, or ConnectorError."""
        self._api, self._merchants, self._store, self._busy = api, merchants, store, busy
        self._add_event, self._pay, self._receipt = add_event, pay, receipt
        self._travellers, self._today = travellers, today

    def runners(self) -> dict[str, Runner]:
        return {"travel.plan_trip": self.plan, "travel.book_trip": self.book, "travel.book_flight": self.book_flight}

    def _call(self, action: Action, tool: str, key: str, **arguments: Any) -> dict[str, Any]:
        runner = self._api.get(f"openapi.{tool}")
        if runner is None:
            raise ConnectorError("Travel needs the airline and the hotels connected, and they are not on this Deputy.")
        read = action.model_copy(update={"connector": "openapi", "operation": tool, "arguments": arguments,
                                         "effect": EffectClass.read, "amount": None, "currency": None, "tags": []})
        return answer_of(runner(read, key))

    def plan(self, action: Action, idempotency_key: str) -> OperationResult:
        args = PlanTripArgs.model_validate(action.arguments)
        today = self._today()
        horizon = today + timedelta(days=61)
        windows = free_windows(today, args.days, self._busy(action.user_id, today, horizon), args.not_before)
        options = []
        for first, last in windows:
            times = {"earliest": args.earliest_departure} if args.earliest_departure else {}
            out = self._call(action, "flights_search_flights", idempotency_key, origin=args.origin,
                             destination=args.destination, date=first.isoformat(), **times)
            back = self._call(action, "flights_search_flights", idempotency_key, origin=args.destination,
                              destination=args.origin, date=last.isoformat(), **times)
            near = {"max_distance_km": CENTRE_KM} if args.near_centre else {}
            stays = self._call(action, "hotels_search_hotels", idempotency_key, city=args.destination,
                               check_in=first.isoformat(), check_out=last.isoformat(), **near)
            options.append(option_for(args.destination.title(), args.travellers, args.currency,
                                      out.get("flights", []), back.get("flights", []), stays.get("offers", [])))
        chosen = within_budget(options, args.budget)
        origin = "the airline's and the hotels' offers"
        if not chosen:
            seen = [o for o in options if o is not None]
            cheapest = min((o.total for o in seen), default=None)
            why = (f"the cheapest was {cheapest:.2f} {args.currency}" if cheapest is not None
                   else "no flights and rooms were available on those dates")
            return OperationResult(summary=f"No trip to {args.destination} fits {args.budget:.2f} {args.currency} "
                                           f"on the {len(windows)} free windows of your calendar ({why}).",
                                   untrusted_origin=origin)
        self._store.keep(action.user_id, chosen)
        parts = [f"{len(chosen)} option(s) within {args.budget:.2f} {args.currency}, on dates free in your "
                 "calendar (totals computed by Deputy):"]
        for n, option in enumerate(chosen, 1):
            lines = option.lines()
            parts.append(f"\nOption {n} (book_trip option={option.id} total={option.total:.2f} "
                         f"currency={option.currency}): " + "\n".join(lines))
        if args.travellers > 1:
            parts.append(self._details_missing(action.user_id, args.travellers))
        return OperationResult(summary="\n".join(parts).rstrip(), untrusted_origin=origin)

    def _details_missing(self, user_id: int, count: int) -> str:
        """Said with the options, so the user can add a companion before the card rather than after."""
        try:
            self._travellers(user_id, count)
        except ConnectorError as missing:
            return "\nBefore booking: " + missing.user_message.removesuffix(" Nothing was booked or paid.")
        return ""

    def book(self, action: Action, idempotency_key: str) -> OperationResult:
        args = BookTripArgs.model_validate(action.arguments)
        option = self._store.get(action.user_id, args.option)
        if option is None:
            raise ConnectorError("That trip option is no longer held; ask me to plan the trip again. Nothing was "
                                 "booked or paid.")
        if (args.total, args.currency) != (option.total, option.currency):
            raise ConnectorError(f"That option costs {option.total:.2f} {option.currency}, not {args.total:.2f} "
                                 f"{args.currency}; nothing was booked or paid.")
        flights = self._book_flights(action, idempotency_key, option)
        try:
            stay = self._book_stay(action, idempotency_key, option)
        except ConnectorError as failure:
            raise ConnectorError(self._undo_flights(action, idempotency_key, option, flights, failure)) from None
        added = self._calendar(action, idempotency_key, option)
        summary = (f"Trip booked: flights {flights['booking_id']} ({option.flights_total:.2f} {option.currency}) and "
                   f"{option.stay.name} reservation {stay['reservation_id']} ({option.stay.total:.2f} "
                   f"{option.currency}); {option.total:.2f} {option.currency} in all. {added}\n"
                   + "\n".join(option.lines()))
        return OperationResult(summary=summary)

    def book_flight(self, action: Action, idempotency_key: str) -> OperationResult:
        """One flight at the fare the card showed (a fare watch's find): refused if the fare moved since."""
        args = BookFlightArgs.model_validate(action.arguments)
        now = self._call(action, "flights_get_flight", f"{idempotency_key}:fare", flight_id=args.flight_id)
        if (now.get("fare"), now.get("currency")) != (f"{args.fare:.2f}", args.currency):
            raise ConnectorError(f"The fare of {args.flight_id} is now {now.get('fare')} {now.get('currency')}, not "
                                 f"{args.fare:.2f} {args.currency}; nothing was booked or paid.")
        body = {"flight_ids": [args.flight_id], "passengers": self._travellers(action.user_id, 1),
                "amount": f"{args.fare:.2f}", "currency": args.currency}
        booked = self._run(self._paid(action, idempotency_key, "flights", "flights_book_flights", args.fare, body),
                           f"{idempotency_key}:flights")
        leg = (booked.get("flights") or [{}])[0]
        return OperationResult(summary=f"Flight booked: {leg.get('number', args.flight_id)} {leg.get('origin', '')}→"
                                       f"{leg.get('destination', '')} {leg.get('departs_at', '')}, booking "
                                       f"{booked.get('booking_id', '')}, {args.fare:.2f} {args.currency}. "
                                       f"{leg.get('refund_rule', '')}")

    def _paid(self, action: Action, key: str, leg: str, tool: str, amount: Decimal, body: dict[str, Any]) -> Action:
        merchant = self._merchants.get(leg)
        if merchant is None:
            raise ConnectorError(f"The {leg} service is not connected on this Deputy; nothing was booked.")
        booking = action.model_copy(update={
            "id": f"{action.id}-{leg}", "connector": "openapi", "operation": tool, "targets": [merchant],
            "amount": amount, "currency": action.currency, "arguments": {"body": {**body, "payment_token": PAYMENT}}})
        return self._pay(booking, f"{key}:{leg}")

    def _run(self, booking: Action, key: str) -> dict[str, Any]:
        runner = self._api.get(f"openapi.{booking.operation}")
        if runner is None:
            raise ConnectorError("Travel needs the airline and the hotels connected, and they are not on this Deputy.")
        result = runner(booking, key)
        self._receipt(booking, result.summary if isinstance(result, OperationResult) else result)
        return answer_of(result)

    def _book_flights(self, action: Action, key: str, option: TripOption) -> dict[str, Any]:
        body = {"flight_ids": [option.outbound.flight_id, option.inbound.flight_id],
                "passengers": self._travellers(action.user_id, option.travellers),
                "amount": f"{option.flights_total:.2f}",
                "currency": option.currency}
        booking = self._paid(action, key, "flights", "flights_book_flights", option.flights_total, body)
        try:
            return self._run(booking, f"{key}:flights")
        except ConnectorError as exc:
            raise ConnectorError(f"The flights could not be booked: {exc.user_message} Nothing was booked or "
                                 "paid.") from None

    def _book_stay(self, action: Action, key: str, option: TripOption) -> dict[str, Any]:
        stay = option.stay
        body = {"hotel_id": stay.hotel_id, "room": stay.room, "check_in": stay.check_in.isoformat(),
                "check_out": stay.check_out.isoformat(), "guest_name": self._travellers(action.user_id, 1)[0]["name"],
                "amount": f"{stay.total:.2f}", "currency": option.currency}
        return self._run(self._paid(action, key, "hotels", "hotels_reserve_room", stay.total, body), f"{key}:hotels")

    def _undo_flights(self, action: Action, key: str, option: TripOption, flights: dict[str, Any],
                      failure: ConnectorError) -> str:
        """What the user must hear when the room failed after the flights were booked and paid."""
        booking = str(flights.get("booking_id", ""))
        head = f"The hotel could not be booked: {failure.user_message}"
        try:
            cancelled = self._call(action, "flights_cancel_booking", f"{key}:cancel", booking_id=booking)
        except ConnectorError as exc:
            return (f"{head} The flights stay BOOKED (booking {booking}, {option.flights_total:.2f} "
                    f"{option.currency} paid) because cancelling them failed: {exc.user_message} The trip is not "
                    "complete.")
        refunded = str(cancelled.get("refunded", "0.00"))
        kept = option.flights_total - _decimal(refunded)
        cost = (f"{refunded} {option.currency} refunded to your card" + (
            f"; {kept:.2f} {option.currency} was not refundable under the fare rule" if kept > 0 else ""))
        return (f"{head} So the flights (booking {booking}, {option.flights_total:.2f} {option.currency}) were "
                f"cancelled: {cost}. Nothing of this trip is booked.")

    def _calendar(self, action: Action, key: str, option: TripOption) -> str:
        if self._add_event is None:
            return "Your calendar is not connected, so the trip is not on it."
        out, back, stay = option.outbound, option.inbound, option.stay
        events = [(f"Flight {out.number} {out.origin}→{out.destination}", out.departs_at, out.arrives_at),
                  (f"{stay.name} ({option.destination})", stay.check_in.isoformat(), stay.check_out.isoformat()),
                  (f"Flight {back.number} {back.origin}→{back.destination}", back.departs_at, back.arrives_at)]
        try:
            for n, (title, start, end) in enumerate(events):
                event = action.model_copy(update={
                    "connector": "calendar", "operation": "create_event", "effect": EffectClass.write,
                    "amount": None, "currency": None, "arguments": {"title": title, "start": start, "end": end}})
                self._add_event(event, f"{key}:event:{n}")
        except ConnectorError as exc:
            return f"The bookings stand, but the calendar events could not all be added: {exc.user_message}"
        return "The flights and the stay are on your calendar."


def _decimal(text: str) -> Decimal:
    try:
        return Decimal(text)
    except InvalidOperation:
        return Decimal(0)
