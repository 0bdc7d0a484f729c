"""A payment card's expiry as people type it ("12/29"), read the same way everywhere."""

from __future__ import annotations

from datetime import datetime, timezone


def parse_expiry(text: str) -> tuple[int, int] | None:
    """(year, month) of "MM/YY", "MM/YYYY" or "YYYY-MM"; None when it is none of those."""
    text = (text or "").strip().replace(" ", "")
    try:
        if "-" in text:
            year, month = (int(p) for p in text.split("-", 1))
        else:
            month, year = (int(p) for p in text.split("/", 1))
            year += 2000 if year < 100 else 0
    except ValueError:
        return None
    return (year, month) if 1 <= month <= 12 and 2000 <= year <= 2100 else None


def months_left(expiry: tuple[int, int], now: float) -> int:
    """0 in the card's last month, 1 the month before, negative once it has expired
    (a card is good through the last day of its expiry month)."""
    today = datetime.fromtimestamp(now, timezone.utc)
    return (expiry[0] - today.year) * 12 + expiry[1] - today.month


def reminder_at(expiry: tuple[int, int]) -> float:
    """When to tell the user: 09:00 UTC on the first day of the card's last month, a month
    before it stops working."""
    return datetime(expiry[0], expiry[1], 1, 9, 0, tzinfo=timezone.utc).timestamp()
