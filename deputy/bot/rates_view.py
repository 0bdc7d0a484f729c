"""Exchange rates in /settings: the rates the negotiation guard uses to compare an offer in another
currency with the user's mandate, shown and set per user.

`/settings rate EUR 1.10` says one euro is worth $1.10; `/settings rate EUR default` goes back to
Deputy's own rate. Rates are US dollars for one unit, the form in which the guard keeps them
(`deputy.sentinel.negotiation.money.Rates`); any pair (C$ against €) goes through the dollar.
Every card that converted an amount states the rate it used and where it came from.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from deputy.core.accounts.user_settings import MAX_RATES, RATE_MAX, RATE_MIN, UserSettings
from deputy.sentinel.negotiation.money import DEFAULT_USD_PER, SYMBOLS

RATE_USAGE = ("Set an exchange rate with /settings rate EUR 1.10 (US dollars for one euro), "
              "or go back to mine with /settings rate EUR default.")


def rates_lines(settings: UserSettings) -> str:
    """“Exchange rates for negotiations (US$ for one unit): €1 = $1.08 (mine), …”."""
    shown = []
    for code in sorted({*DEFAULT_USD_PER, *settings.usd_per} - {"USD"}):
        rate = settings.usd_per.get(code, DEFAULT_USD_PER.get(code))
        whose = "yours" if code in settings.usd_per else "mine"
        unit = f"{SYMBOLS[code]}1" if code in SYMBOLS else f"1 {code}"
        shown.append(f"{unit} = ${_plain(rate)} ({whose})")
    return "Exchange rates for negotiations: " + ", ".join(shown)


def set_rate(settings: UserSettings, words: str) -> tuple[UserSettings | None, str]:
    """The settings with the rate `words` gives (“EUR 1.10”, “EUR default”), and what to tell the user;
    None and a polite reason when the words can't be used (nothing changes then)."""
    parts = words.replace("=", " ").split()
    if len(parts) != 2:
        return None, "I need a currency and a rate. " + RATE_USAGE
    code, value = parts[0].upper().strip("$"), parts[1].strip().lstrip("$").replace(",", "")
    if not re.fullmatch(r"[A-Z]{3}", code):
        return None, f"“{parts[0][:12]}” isn't a currency code I know; use three letters such as EUR, GBP or CAD. " \
                     + RATE_USAGE
    if code == "USD":
        return None, "Rates are in US dollars, so the dollar is always 1. " + RATE_USAGE
    rates = dict(settings.usd_per)
    if value.lower() in ("default", "reset", "off"):
        rates.pop(code, None)
        told = f"{code} is back to my rate" + (f" (${_plain(DEFAULT_USD_PER[code])})." if code in DEFAULT_USD_PER
                                                else "; I have none for it, so offers in it go to you.")
    else:
        try:
            rate = Decimal(value)
        except InvalidOperation:
            return None, f"“{parts[1][:20]}” isn't a number. " + RATE_USAGE
        if not rate.is_finite() or not RATE_MIN <= rate <= RATE_MAX:
            return None, f"{parts[1][:20]} US dollars for one {code} can't be right; give a positive rate such as 1.10. " \
                         + RATE_USAGE
        if code not in rates and len(rates) >= MAX_RATES:
            return None, f"You have {MAX_RATES} rates already; set one back to default first."
        rates[code] = rate.normalize() if rate == rate.to_integral() else rate
        told = f"From now on I count 1 {code} as ${_plain(rate)} when I compare an offer with your mandate."
    return settings.model_copy(update={"usd_per": rates}), told


def _plain(rate: Decimal) -> str:
    text = f"{rate:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
