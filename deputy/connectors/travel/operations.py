"""The trip operations as the model and the guard see them.

`plan_trip` is a read: code searches the calendar, the airline and the hotels and answers
with at most three options within the budget. `book_trip` spends the option's total, fixed
by code when it was planned; the executor books the flights and the room, each paid with
its own single-use token, and adds the trip to the calendar.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from deputy.connectors.catalog import Operation
from deputy.core.records.effects import EffectClass, OperationSpec, RiskTag

TRAVEL_SERVICES = ("flights", "hotels")
"""The services a trip is planned and booked with (OpenAPI services of these names)."""


class PlanTripArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    destination: str = Field(min_length=2, max_length=60, description="City, e.g. Chicago.")
    days: int = Field(ge=2, le=15, description="Length of the trip in days, travel days included.")
    budget: Decimal = Field(gt=0, le=100000, description="Most the whole trip may cost.")
    currency: str = Field(default="USD", pattern=r"^[A-Z]{3}$")
    origin: str = Field(default="SFO", min_length=2, max_length=60, description="Where the trip starts.")
    earliest_departure: str | None = Field(default=None, pattern=r"^\d{1,2}:\d{2}$",
                                           description="No flight before this time, HH:MM (\"not before 9am\").")
    near_centre: bool = Field(default=False, description="Only hotels near the city centre.")
    not_before: date | None = Field(default=None, description="Earliest day to leave, YYYY-MM-DD.")
    travellers: int = Field(default=1, ge=1, le=6)


class BookTripArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    option: str = Field(pattern=r"^TRIP-[A-Z0-9]{6,12}$", description="The option's id as plan_trip gave it.")
    total: Decimal = Field(gt=0, description="The option's total exactly as plan_trip gave it.")
    currency: str = Field(pattern=r"^[A-Z]{3}$")


class BookFlightArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    flight_id: str = Field(pattern=r"^[A-Z0-9]{2,8}-\d{8}$", description="The flight's id, e.g. SA301-20270310.")
    fare: Decimal = Field(gt=0, description="The fare the airline showed for it.")
    currency: str = Field(pattern=r"^[A-Z]{3}$")


# A booking hands the traveller's details (name, date of birth, passport) to the airline or hotel:
# personal data leaving the user, which the guard weighs as sharing.
_SHARES = frozenset({RiskTag.share})

PLAN_TRIP = Operation(
    spec=OperationSpec(connector="travel", operation="plan_trip", effect=EffectClass.read,
                       description="Plan a trip: find dates free in the user's calendar, flights and a hotel, "
                                   "and up to three options within the budget with totals."),
    arguments=PlanTripArgs,
    targets=lambda args: ["the airline", "the hotel site"],
    result_origin=lambda args: "the airline's and the hotels' offers",
)

BOOK_TRIP = Operation(
    spec=OperationSpec(connector="travel", operation="book_trip", effect=EffectClass.spend,
                       description="Book one trip option from plan_trip: its flights and hotel, paid, and put on "
                                   "the calendar.", tags=_SHARES),
    arguments=BookTripArgs,
    targets=lambda args: ["the airline", "the hotel site"],
    amount=lambda args: (args.total, args.currency),
)

BOOK_FLIGHT = Operation(
    spec=OperationSpec(connector="travel", operation="book_flight", effect=EffectClass.spend,
                       description="Book one flight for the user at the fare shown (e.g. when a fare watch fired); "
                                   "the traveller's details are filled in by Deputy.", tags=_SHARES),
    arguments=BookFlightArgs,
    targets=lambda args: ["the airline"],
    amount=lambda args: (args.fare, args.currency),
)

TRAVEL_OPERATIONS = (PLAN_TRIP, BOOK_TRIP, BOOK_FLIGHT)
