"""Money as a negotiation sees it: an amount in a currency, for a period, and how to compare it.

A counterpart may write in another currency (C$, A$, €, £) or per day or per year; the mandate
is in one currency and one period. `in_mandate` converts at the rate the deployment set
(`Rates`, shown on every card that used it) and scales the period, so the mandate is checked on
the amount the user would really pay or get. Pure: no IO.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from pydantic import BaseModel, Field

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "CAD": "C$", "AUD": "A$"}
# How many of each period fit in a month, the unit bills are negotiated in (a year of 365 days, 52 weeks).
_PER_MONTH = {"day": Decimal(365) / 12, "week": Decimal(52) / 12, "month": Decimal(1), "year": Decimal(1) / 12}
# Paid work is counted in hours worked: a day is 8, a week 40, a year 2080.
_HOURS = {"hour": Decimal(1), "day": Decimal(8), "week": Decimal(40), "month": Decimal(2080) / 12,
          "year": Decimal(2080)}


DEFAULT_USD_PER: dict[str, Decimal] = {
    "USD": Decimal(1), "EUR": Decimal("1.08"), "GBP": Decimal("1.27"), "CAD": Decimal("0.73"), "AUD": Decimal("0.66")}
"""Deputy's own rates, used until the user sets theirs in /settings."""


class Rates(BaseModel):
    """Exchange rates, in US dollars per unit of each currency: Deputy's defaults, and the user's own."""

    usd_per: dict[str, Decimal] = Field(default_factory=lambda: dict(DEFAULT_USD_PER))
    source: str = "Deputy's default rates"
    user_set: frozenset[str] = Field(default=frozenset(), description="The currencies whose rate the user set.")

    @classmethod
    def for_user(cls, theirs: dict[str, Decimal]) -> Rates:
        """Deputy's defaults with the rates the user set in /settings over them (the dollar stays 1)."""
        own = {code.upper(): value for code, value in theirs.items() if code.upper() != "USD" and value > 0}
        return cls(usd_per={**DEFAULT_USD_PER, **own}, user_set=frozenset(own))

    def rate(self, from_currency: str, to_currency: str) -> Decimal | None:
        a, b = self.usd_per.get(from_currency.upper()), self.usd_per.get(to_currency.upper())
        if a is None or b is None:
            return None
        return a / b

    def source_of(self, *currencies: str) -> str:
        """Where the rate between `currencies` comes from, for the card."""
        if any(c.upper() in self.user_set for c in currencies):
            return "your /settings"
        return f"{self.source}; set your own with /settings rate"


def money(amount: Decimal, currency: str, per: str | None = None) -> str:
    shown = f"{amount.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):,.2f}".removesuffix(".00")
    symbol = SYMBOLS.get(currency.upper())
    text = f"{symbol}{shown}" if symbol else f"{shown} {currency.upper()}"
    return f"{text}/{per}" if per else text


def convert(amount: Decimal, currency: str, per: str | None, to_currency: str, to_per: str | None,
            rates: Rates) -> Decimal | None:
    """`amount` in `to_currency` per `to_per`; None when no rate is known or a one-off meets a recurring price."""
    rate = rates.rate(currency, to_currency)
    if rate is None:
        return None
    value = amount * rate
    if (per is None) != (to_per is None):
        return None
    if per is not None and to_per is not None and per != to_per:
        table = _HOURS if "hour" in (per, to_per) else _PER_MONTH
        if per not in table or to_per not in table:
            return None
        value = value * table[to_per] / table[per] if table is _HOURS else value * table[per] / table[to_per]
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def rate_line(currency: str, to_currency: str, rates: Rates) -> str | None:
    """“C$1 = $0.7300 USD (rate from your rate in /settings)” for a card; None for the same currency."""
    if currency.upper() == to_currency.upper():
        return None
    rate = rates.rate(currency, to_currency)
    if rate is None:
        return f"no rate known for {currency} to {to_currency}"
    return f"{money(Decimal(1), currency)} = {SYMBOLS.get(to_currency.upper(), '')}{rate:.4f} {to_currency.upper()}" \
           f" (rate from {rates.source_of(currency, to_currency)})"
