"""Trip options by code: free windows around busy days, exact totals, at most three within the budget,
kept for the user who asked and for nobody else."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from redis import Redis

from deputy.connectors.travel.planner import free_windows, option_for, within_budget
from deputy.connectors.travel.trip_store import TripStore


def flight(fid: str, fare: str, seats: int = 5, currency: str = "USD") -> dict:
    return {"flight_id": fid, "number": fid[:5], "origin": "SFO", "destination": "ORD",
            "departs_at": f"2027-03-{fid[-2:]}T09:40", "arrives_at": f"2027-03-{fid[-2:]}T13:50", "fare": fare,
            "currency": currency, "seats_left": seats, "refund_rule": "Flex fare."}


def room(hid: str, total: str, left: int = 1) -> dict:
    return {"hotel_id": hid, "name": hid.title(), "district": "centre", "distance_km": 0.4, "room": "standard",
            "check_in": "2027-03-10", "check_out": "2027-03-13", "total": total, "currency": "USD",
            "cancellation": "Free cancellation.", "rooms_left": left}


def test_windows_go_around_busy_days_and_do_not_overlap() -> None:
    busy = [(date(2027, 3, 3), date(2027, 3, 3)), (date(2027, 3, 9), date(2027, 3, 10))]
    found = free_windows(date(2027, 3, 1), 4, busy, limit=3)
    assert found == [(date(2027, 3, 4), date(2027, 3, 7)), (date(2027, 3, 11), date(2027, 3, 14)),
                     (date(2027, 3, 15), date(2027, 3, 18))]


def test_totals_are_exact_and_only_what_can_be_booked_counts() -> None:
    option = option_for("Chicago", 2, "USD", [flight("SA101-20270310", "189.10"), flight("SA103-20270310", "99", 1)],
                        [flight("SA151-20270313", "200.45")], [room("loop", "495.00"), room("full", "100.00", 0)])
    assert option is not None
    assert option.outbound.flight_id == "SA101-20270310", "one seat left does not carry two travellers"
    assert option.stay.hotel_id == "loop", "a hotel with no room left is not offered"
    assert (option.flights_total, option.total) == (Decimal("779.10"), Decimal("1274.10"))
    assert option_for("Chicago", 1, "EUR", [flight("SA101-20270310", "1")], [flight("SA151-20270313", "1")],
                      [room("loop", "1")]) is None, "fares in another currency are not mixed in"


def test_at_most_three_options_within_the_budget_cheapest_first(redis: Redis) -> None:
    options = [option_for("Chicago", 1, "USD", [flight(f"SA10{n}-20270310", str(100 + 50 * n))],
                          [flight("SA151-20270313", "100")], [room("loop", "300")]) for n in range(6)]
    chosen = within_budget([*options, None], Decimal(700))
    assert [o.total for o in chosen] == [Decimal(500), Decimal(550), Decimal(600)]
    store = TripStore(redis)
    store.keep(7, chosen)
    assert store.get(7, chosen[0].id) == chosen[0]
    assert store.get(8, chosen[0].id) is None, "another user's option id finds nothing"
    assert store.erase(7) == 3 and store.get(7, chosen[0].id) is None
