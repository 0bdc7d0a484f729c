"""Travel: a trip planned by code from the calendar, the airline and the hotels, and booked on one approval."""

from deputy.connectors.travel.operations import BOOK_FLIGHT, BOOK_TRIP, PLAN_TRIP, TRAVEL_OPERATIONS

__all__ = ["BOOK_FLIGHT", "BOOK_TRIP", "PLAN_TRIP", "TRAVEL_OPERATIONS"]
