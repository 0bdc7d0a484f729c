"""Reading a mandate from the user's words: every limit they typed, nothing they didn't."""

from __future__ import annotations

from decimal import Decimal

from deputy.sentinel.negotiation.mandate import MandateStatus, Role
from deputy.sentinel.negotiation.parse import parse_mandate


def test_a_car_sale_with_every_limit() -> None:
    parsed = parse_mandate(
        "sell my 2017 Civic on the marketplace, listed at $16,500, target $15,500, at least $14,000, steps of $500, "
        "6 rounds, within 7 days, walk away if they want it shipped, no AI disclosure, private: moving to Berlin; "
        "my address, fact: mileage = 62,000 miles", now=1000.0)
    m = parsed.mandate
    assert m is not None and m.status is MandateStatus.draft
    assert (m.role, m.subject, m.opening, m.target, m.reservation, m.max_step, m.max_rounds) == (
        Role.sell, "my 2017 Civic", Decimal(16500), Decimal(15500), Decimal(14000), Decimal(500), 6)
    assert m.deadline == 1000.0 + 7 * 86400 and not m.disclosure
    assert m.private == ["moving to Berlin", "my address"] and m.facts == {"mileage": "62,000 miles"}
    assert m.walk_away == ["they want it shipped"] and m.counterparts == ["market:*"]


def test_a_bill_with_a_ceiling_and_a_cancel_threat() -> None:
    m = parse_mandate("lower my internet bill with retention@fibrelink.example, currently $80 a month, target $45, "
                      "at most $60, steps of $5, may threaten to cancel", now=0).mandate
    assert m is not None and m.role is Role.reduce and m.per == "month"
    assert (m.reservation, m.target, m.opening, m.max_step) == (Decimal(60), Decimal(45), Decimal(80), Decimal(5))
    assert m.may_threaten_cancel and "retention@fibrelink.example" in m.counterparts and m.disclosure


def test_what_is_missing_or_contradictory_is_said_plainly() -> None:
    assert "lowest price" in parse_mandate("sell my bike", 0).problems[0]
    assert "cannot be above the target" in parse_mandate("sell my bike, at least 300, target 200", 0).problems[0]
