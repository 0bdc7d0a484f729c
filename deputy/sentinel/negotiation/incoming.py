"""A counterpart's message read into an offer by code: what they would really be paid or charge.

`parse_offer(text, mandate, rates)` finds every amount they wrote and what each one is: the
price; a fee, shipping or tax to add to it; a hold or a deposit (a condition, not the price); a
teaser price and the regular one after it; a number about something else (what a friend paid,
what another seller asks). The price and its fees are summed into a total, converted into the
mandate's currency and period (`money.convert`, at the rate shown on the card) and kept with
its conditions (deposit, hold, payment method, meeting, shipping). Whatever cannot be read
with confidence (a bare "14", "13-9", arithmetic, two prices that disagree, an unknown currency)
makes the offer uncertain: it goes to the user with the words quoted, never to the model as a
number. Pure: no IO.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

from pydantic import BaseModel, Field

from deputy.core.records.deputy_notes import looks_like_note
from deputy.sentinel.negotiation.amounts import normalise, numeral_value, words_value
from deputy.sentinel.negotiation.mandate import Mandate
from deputy.sentinel.negotiation.money import Rates, convert, money, rate_line


class ParsedOffer(BaseModel):
    """One offer of theirs as code read it. `total_in_mandate` is what the mandate is checked on."""

    id: str = ""
    quote: str = Field(default="", max_length=300)
    price: Decimal | None = None
    currency: str = "USD"
    period: str | None = Field(default=None, description="day, week, month or year; None for a one-off price.")
    fees: list[tuple[str, Decimal]] = Field(default_factory=list)
    teaser: Decimal | None = None
    teaser_months: int | None = None
    term_months: int | None = None
    total: Decimal | None = Field(default=None, description="Price plus fees (the regular price after a teaser).")
    average: Decimal | None = Field(default=None, description="Over the contract term, teaser included.")
    total_in_mandate: Decimal | None = None
    conditions: list[str] = Field(default_factory=list)
    doubts: list[str] = Field(default_factory=list)
    rate_note: str | None = None

    @property
    def certain(self) -> bool:
        return self.total_in_mandate is not None and not self.doubts

    def deal_lines(self, mandate: Mandate) -> list[str]:
        """The deal as parsed, for the acceptance card: total, currency, period, conditions."""
        if self.price is None:
            return ["No price could be read from their message."]
        per = self.period
        lines = [f"Price: {money(self.price, self.currency, per)}"]
        lines += [f"+ {label}: {money(v, self.currency)}" for label, v in self.fees]
        if self.teaser is not None:
            lines.append(f"Teaser: {money(self.teaser, self.currency, per)} for {self.teaser_months or '?'} months, "
                         f"then {money(self.price, self.currency, per)}")
        if self.total is not None:
            lines.append(f"Total: {money(self.total, self.currency, per)}")
        if self.average is not None:
            lines.append(f"Average over {self.term_months} months: {money(self.average, self.currency, per)}")
        if self.rate_note:
            lines.append("Converted: " + self.rate_note)
        if self.total_in_mandate is not None:
            lines.append(f"In your mandate's terms: {mandate.money(self.total_in_mandate)}")
        if self.conditions:
            lines.append("Conditions: " + "; ".join(self.conditions))
        if self.doubts:
            lines.append("Not sure: " + "; ".join(self.doubts))
        return lines


_CUR_BEFORE = (r"(?P<cur>C\$|CA\$|CAD\s?\$?|A\$|AU\$|AUD\s?\$?|US\$|USD\s?\$?|\$|€|EUR\s?|£|GBP\s?|"
               r"(?:NZ|HK|S)\$|CHF\s?|JPY\s?|¥|₹|INR\s?|MXN\s?)")
_CUR_AFTER = (r"(?P<after>\s*(?:CAD|AUD|USD|EUR|GBP|CHF|JPY|INR|MXN|euros?|pounds?|dollars?|bucks|€|"
              r"canadian(?: dollars)?|australian(?: dollars)?)\b|\s*€)")
_NUM = r"(?P<num>\d{1,3}(?:(?:,\d{3})+|(?:\.\d{3})+(?!\d)|(?:[ \u00a0\u202f]\d{3})+)(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d{1,2})?(?!\d))"
_SHORT = r"(?P<short>\s*(?:k|K|grand|thousand|thou|G'?s|gs|G)\b)?"
_PER = (r"(?P<per>\s*(?:/\s*|a\s+|per\s+|each\s+|every\s+)(?P<unit>hour|hr|h|day|d|week|wk|w|month|mo|m|year|yr|y|annum)\b|"
        r"\s*(?P<ly>hourly|daily|weekly|monthly|yearly|annually)\b)?")
_MONEY = re.compile(rf"(?:{_CUR_BEFORE}\s*)?(?<![\w.,]){_NUM}{_SHORT}(?:{_CUR_AFTER})?{_PER}", re.IGNORECASE)
_CODES = {"C$": "CAD", "CA$": "CAD", "CAD": "CAD", "CAD$": "CAD", "AUD$": "AUD", "USD$": "USD", "A$": "AUD", "AU$": "AUD", "AUD": "AUD", "US$": "USD",
          "USD": "USD", "$": None, "€": "EUR", "EUR": "EUR", "EUROS": "EUR", "EURO": "EUR", "£": "GBP", "GBP": "GBP",
          "POUNDS": "GBP", "POUND": "GBP", "DOLLARS": None, "DOLLAR": None, "BUCKS": None, "CANADIAN": "CAD",
          "CANADIAN DOLLARS": "CAD", "AUSTRALIAN": "AUD", "AUSTRALIAN DOLLARS": "AUD"}
_UNIT = {"h": "hour", "hr": "hour", "hour": "hour", "hourly": "hour", "d": "day", "day": "day", "daily": "day", "w": "week", "wk": "week", "week": "week", "weekly": "week",
         "m": "month", "mo": "month", "month": "month", "monthly": "month", "y": "year", "yr": "year", "year": "year",
         "annum": "year", "yearly": "year", "annually": "year"}

_FEE = re.compile(r"(?:\+|\bplus\b|\band\b)?\s*(?:(?:an?|the)\s+)?(?P<label>(?:shipping|delivery|postage|handling|"
                  r"admin(?:istration)?|service|processing|setup|set-up|activation|installation|install|equipment|"
                  r"router|modem|platform|convenience|documentation|doc|dealer|listing|transfer|booking|"
                  r"regulatory|broadcast|network)?\s*(?:fees?|charges?|costs?|tax(?:es)?|shipping|delivery|postage))",
                  re.IGNORECASE)
_FEE_NEAR = re.compile(r"\b(?:fees?|charges?|surcharge|shipping|delivery|postage|handling|tax(?:es)?|vat)\b",
                       re.IGNORECASE)
_HOLD = re.compile(r"\b(?:hold|holding|deposit|down ?payment|refundable|reserve|reservation|upfront|up front|"
                   r"in advance|escrow)\b", re.IGNORECASE)
_TEASER = re.compile(r"\b(?:first\s+(?P<months>\d{1,2}|\w+)\s+months?|intro(?:ductory)?|promo(?:tional)?|teaser|"
                     r"for\s+(?:the\s+)?(?P<months2>\d{1,2}|\w+)\s+months?|(?:the\s+)?first\s+year|limited time)\b",
                     re.IGNORECASE)
_THEN = re.compile(r"\b(?:then|after(?:wards| that)?|thereafter|going up to|rising to|reverts? to|regular(?:ly)?|"
                   r"standard(?: rate)?|normal(?:ly)?)\b", re.IGNORECASE)
_TERM = re.compile(r"\b(?P<n>\d{1,2}|twelve|eighteen|twenty-four|thirty-six)[\s-]*months?\s+(?:contract|term|"
                   r"commitment|agreement|plan|deal)|\b(?P<y>\d|one|two|three)[\s-]*years?\s+(?:contract|term|"
                   r"commitment|agreement)", re.IGNORECASE)
_DECOY = re.compile(r"\b(?:friend|neighbou?r|cousin|brother|sister|other (?:one|seller|buyer|car|listing|offer)|"
                    r"another (?:seller|buyer|dealer|one)|dealer|kbb|blue book|edmunds|carvana|carmax|listed|"
                    r"you(?:'re| are)? asking|your (?:price|asking|ask|listing)|you wanted|you said|originally|"
                    r"new (?:it|one) (?:was|costs?)|retail|msrp|competitor|(?:verizon|comcast|at&t|t-mobile) "
                    r"(?:offers|charges)|last (?:year|month)|used to|sold (?:his|hers?|theirs|mine|one) for|"
                    r"paid|got (?:his|hers?|one|theirs)|saw (?:one|another)|similar ones?)\b", re.IGNORECASE)
_ARITHMETIC = re.compile(r"(?P<a>[$€£]?\s*\d[\d,.]*\s*k?)\s*(?P<op>[/*x×÷+\-])\s*(?P<b>[$€£]?\s*\d[\d,.]*)\b"
                         r"(?!\s*(?:k|grand))|\b(?P<w>half|a third|a quarter|twice|double|triple)\s+(?:of\s+)?[$€£]?\d|"
                         r"\b(?:plus|minus)\s+[$€£]?\d[\d,.]*\s*(?:%|percent)|\b(?:current|existing|now)\b[^.]{0,20}"
                         r"(?:plus|minus|\+|-)\s*\d|\b(?:before|excluding|excl\.?|not including|plus)\s+(?:the\s+)?"
                         r"(?:tax(?:es)?|fees|vat)\b",
                         re.IGNORECASE)
_BARE_PAIR = re.compile(r"(?<![\w.,$€£])(?P<a>\d{1,2})\s*[-–.]\s*(?P<b>\d{1,2})(?![\w.,%]|\s*(?:days?|weeks?|months?|"
                        r"years?|hours?|pm|am|miles?|people))", re.IGNORECASE)
_WORDS = re.compile(r"\b(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a)"
                    r"(?:[\s-]+(?:and\s+)?(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
                    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
                    r"eighty|ninety|hundred|thousand|grand))*)(?=\s*(?:dollars?|bucks|thousand|grand|k\b|a month|per|"
                    r"/|for it|flat|cash|even|euros?|pounds?)|[.!,]?\s*$)", re.IGNORECASE)
_MEETING = re.compile(r"\b(?:meet|pick(?:\s*it)?\s*up|collect|come by|test drive|in person|viewing|inspect)\w*",
                      re.IGNORECASE)
_SHIP = re.compile(r"\b(?:ship(?:ped|ping)?|deliver(?:y|ed)?|courier|freight|transport(?:er)?)\b", re.IGNORECASE)
_METHOD = re.compile(r"\b(?:cash(?:ier'?s?)?\s*che(?:que|ck)|certified check|money order|wire(?:d| transfer)?|zelle|"
                     r"venmo|paypal|cash ?app|crypto|bitcoin|btc|usdt|gift ?cards?|western union|moneygram|cash|"
                     r"bank transfer|e-?transfer|check|cheque|(?:payment |pay(?:ing)? (?:via|through|with) )?link)\b",
                     re.IGNORECASE)


def _currency(raw: str) -> tuple[str | None, bool]:
    """(ISO code or None for a plain dollar sign or word, whether it is a currency Deputy knows)."""
    key = re.sub(r"\s+", " ", raw.strip().upper())
    if not key:
        return None, True
    if key in _CODES:
        return _CODES[key], True
    squeezed = key.replace(" ", "").rstrip("$") if key not in ("$",) else key
    if squeezed in _CODES:
        return _CODES[squeezed], True
    return key, False


class _Mention(BaseModel):
    start: int
    end: int
    value: Decimal
    currency: str | None
    period: str | None
    text: str
    kind: str = "price"
    label: str = ""


def _window(text: str, mention: "_Mention", others: list["_Mention"]) -> tuple[str, str]:
    """The words between this amount and its neighbours (or the sentence's ends): what they say is about it."""
    start = max([m.end for m in others if m.end <= mention.start] + [0])
    end = min([m.start for m in others if m.start >= mention.end] + [len(text)])
    left = re.split(r"[.!?;\n]\s|,\s", text[max(start, mention.start - 60):mention.start])[-1]
    right = re.split(r"[.!?;\n](?:\s|$)|,\s", text[mention.end:min(end, mention.end + 60)])[0]
    return left, right


def _mentions(text: str, mandate: Mandate, rates: Rates) -> tuple[list[_Mention], list[str]]:
    found: list[_Mention] = []
    doubts: list[str] = []
    pairs: list[tuple[int, int]] = []
    for match in _BARE_PAIR.finditer(text):
        doubts.append(f"“{match.group(0).strip()}” could be a price written short")
        pairs.append(match.span())
    for match in _MONEY.finditer(text):
        value = numeral_value(match.group("num"))
        if value is None:
            continue
        short = (match.group("short") or "").strip()
        if short:
            value *= 1000
        currency, known = _currency(match.group("cur") or match.group("after") or "")
        if not known and currency not in rates.usd_per:  # a code the user gave a rate for in /settings
            doubts.append(f"“{match.group(0).strip()}” is in a currency I have no rate for")
        unit = match.group("unit") or match.group("ly")
        period = _UNIT.get(unit.lower()) if unit else None
        explicit = bool(match.group("cur") or match.group("after") or short)
        after = text[match.end("num"):match.end("num") + 25]
        if not explicit and re.match(r"\s*(?:%|percent|days?|weeks?|months?|years?|hours?|mins?|miles?|mi\b|km|"
                                     r"owners?|people|keys?|doors?|seats?|times?|rounds?|am\b|pm\b|st\b|nd\b|rd\b|"
                                     r"th\b|x\b|mbps|gb|mpg|hp)", after, re.IGNORECASE):
            continue
        if not explicit and re.fullmatch(r"(?:19|20)\d{2}", match.group("num")):
            continue
        if not explicit and re.match(r"\s*:\s*\d", after):
            continue
        if any(a <= match.start() < b for a, b in pairs):
            continue
        if not explicit and period is None:
            # A bare number: the price written in full is read; one a person could take for the price
            # written short ("14" for $14,000, "58" on a $60 bill without "a month") is a doubt.
            if not (mandate.reservation / 5 <= value <= mandate.reservation * 5 and len(match.group("num")) >= 4
                    or mandate.per and mandate.reservation / 5 <= value <= mandate.reservation * 5
                    and re.search(r"\b(?:do|at|for|offer|price|is|be|make it|how about|pay|take)\s*$",
                                  text[max(0, match.start() - 20):match.start()], re.IGNORECASE)):
                # A price written short ("14" for $14,000, "1.2" for $1,200) or in full but bare.
                plausible = any(mandate.reservation / 5 <= value * scale <= mandate.reservation * 5
                                for scale in (1, 1000))
                status = re.search(r"\bHTTP\s*$", text[max(0, match.start() - 6):match.start()]) or \
                    re.match(r"\s+(?:OK|Created|Accepted)\b", text[match.end():])
                if plausible and not status:
                    doubts.append(f"“{match.group(0).strip()}” has no currency: is it a price?")
                continue
        found.append(_Mention(start=match.start(), end=match.end(), value=value, currency=currency, period=period,
                              text=match.group(0).strip()))
    taken = [(m.start, m.end) for m in found]
    for match in _WORDS.finditer(text):
        if any(a <= match.start() < b for a, b in taken):
            continue
        value = words_value(match.group(0))
        if value is None or value < 5:
            continue
        after = text[match.end():match.end() + 20]
        if re.match(r"\s*(?:k\b|grand)", after, re.IGNORECASE) and value < 1000:
            value *= 1000
        if value < mandate.reservation / 20:
            doubts.append(f"“{match.group(0).strip()}” could be an amount I can't size")
            continue
        found.append(_Mention(start=match.start(), end=match.end(), value=value, currency=None, period=None,
                              text=match.group(0).strip()))
        taken.append((match.start(), match.end()))
    for match in _ARITHMETIC.finditer(text):
        if match.group("op") and match.group("op") in "-" and not re.search(r"\s", match.group(0)):
            continue
        doubts.append(f"“{match.group(0).strip()}” is arithmetic, not a price")
    return found, doubts


def _classify(text: str, mention: _Mention, others: list[_Mention]) -> None:
    left, right = _window(text, mention, others)
    near = left[-30:] + " @ " + right[:30]
    fee = _FEE_NEAR.search(right[:25]) or re.search(r"(?:\+|\bplus\b)\s*$", left) and _FEE_NEAR.search(right[:40]) \
        or re.search(r"\b(?:fees?|shipping|delivery|tax)\s*(?:of|is|are|:)?\s*$", left, re.IGNORECASE)
    if fee:
        label = _FEE.search(near)
        mention.kind, mention.label = "fee", (label.group("label").strip() if label else "fee").lower()
        return
    if _HOLD.search(left[-30:]) or _HOLD.search(right[:25]):
        mention.kind = "hold"
        return
    if _DECOY.search(left) or _DECOY.search(right[:25]):
        mention.kind = "decoy"
        return
    if re.search(r"\b(?:off|less|discount|cheaper|more|up|down|lower|higher|knock)\b", right[:12], re.IGNORECASE) \
            or re.search(r"\b(?:knock|take|come down|go down|drop|discount of|shave)\s+(?:off\s+)?(?:another\s+)?$",
                         left, re.IGNORECASE):
        mention.kind = "relative"
        return
    if _TEASER.search(right[:40]) or _TEASER.search(left[-25:]) and not _THEN.search(left[-25:]):
        mention.kind = "teaser"
        return
    if _THEN.search(left[-25:]):
        mention.kind = "regular"


def parse_offer(text: str, mandate: Mandate, rates: Rates | None = None) -> ParsedOffer | None:
    """Their offer in `text`, as code reads it; None when the message names no amount and nothing that
    could be one."""
    rates = rates or Rates()
    plain = normalise(text)
    mentions, doubts = _mentions(plain, mandate, rates)
    if not mentions and not doubts:
        return None
    for mention in mentions:
        _classify(plain, mention, mentions)
    offer = ParsedOffer(quote=text.strip()[:300], conditions=_conditions(plain, mentions, mandate))
    if looks_like_note(plain):
        doubts.append("the message imitates a note from Deputy or the system")
    prices = [m for m in mentions if m.kind in ("price", "regular")]
    teasers = [m for m in mentions if m.kind == "teaser"]
    if not prices and teasers:
        prices, teasers = teasers, []
        doubts.append("only an introductory price is named, not what it costs after")
    relative = [m for m in mentions if m.kind == "relative"]
    if relative:
        doubts.append(f"“{relative[0].text}” is a move from a price, not a price")
    added = [m for m in mentions if m.kind == "price" and re.search(r"(?:\+|\bplus)\s*$", plain[:m.start])]
    if added and len(prices) > 1:
        doubts.append(f"“{added[0].text}” is added to another amount")
    values = {(m.value, m.currency, m.period) for m in prices}
    if len(values) > 1:
        regular = [m for m in prices if m.kind == "regular"]
        if len({(m.value, m.currency, m.period) for m in regular}) == 1:
            prices = regular[:1]
        else:
            doubts.append("they name more than one price: " + ", ".join(f"“{m.text}”" for m in prices[:3]))
    offer.doubts = list(dict.fromkeys(doubts))
    if not prices:
        return offer
    price = prices[-1]
    currency = price.currency or mandate.currency
    offer.price, offer.currency = price.value, currency
    offer.period = price.period or (mandate.per if _per_context(plain, mandate) else None)
    if price.period is None and mandate.per and offer.period is None:
        offer.period = mandate.per  # a bill's price with no period named is taken as the bill's period
    for m in mentions:
        if m.kind == "fee":
            if m.currency and m.currency != currency:
                offer.doubts.append(f"the {m.label} is in another currency than the price")
            if m.period and m.period != offer.period:
                offer.doubts.append(f"the {m.label} is for another period than the price")
            offer.fees.append((m.label, m.value))
        if m.kind == "hold":
            offer.conditions.append(f"a hold or deposit of {money(m.value, m.currency or currency)}")
    if teasers:
        offer.teaser = teasers[0].value
        offer.teaser_months = _teaser_months(plain)
    offer.total = price.value + sum((v for _, v in offer.fees), Decimal(0))
    offer.term_months = _term_months(plain)
    if offer.teaser is not None and offer.term_months and offer.teaser_months:
        months = min(offer.teaser_months, offer.term_months)
        fees = sum((v for _, v in offer.fees), Decimal(0))
        offer.average = ((offer.teaser + fees) * months + offer.total * (offer.term_months - months)) \
            / offer.term_months
        offer.average = offer.average.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    # Checked the way that is worse for the user: a buyer's fees are not the seller's money; a bill is what is
    # paid after the teaser (or on average over the term, if that is more).
    checked = offer.price if mandate.role.sells else max(offer.total, offer.average or offer.total)
    converted = convert(checked, currency, offer.period, mandate.currency, mandate.per, rates)
    if converted is None:
        offer.doubts.append(f"{money(checked, currency, offer.period)} can't be put in your mandate's terms "
                            f"({mandate.money(mandate.reservation).split('/')[0][0]}…{'/' + mandate.per if mandate.per else ''})")
    offer.total_in_mandate = converted
    offer.rate_note = rate_line(currency, mandate.currency, rates)
    if price.currency is None and mandate.currency != "USD" and "$" in price.text:
        offer.doubts.append("a “$” price in a negotiation in " + mandate.currency)
    return offer


def _per_context(text: str, mandate: Mandate) -> bool:
    return bool(mandate.per and re.search(r"\b(?:monthly|a month|per month|/mo)", text, re.IGNORECASE))


def _teaser_months(text: str) -> int | None:
    match = _TEASER.search(text)
    if match is None:
        return None
    if re.search(r"first year", match.group(0), re.IGNORECASE):
        return 12
    raw = match.group("months") or match.group("months2")
    if raw is None:
        return None
    return int(raw) if raw.isdigit() else (int(words_value(raw)) if words_value(raw) else None)


def _term_months(text: str) -> int | None:
    match = _TERM.search(text)
    if match is None:
        return None
    if match.group("n"):
        raw = match.group("n")
        return int(raw) if raw.isdigit() else int(words_value(raw) or 0) or None
    raw = match.group("y")
    return 12 * (int(raw) if raw.isdigit() else int(words_value(raw) or 0)) or None


def _conditions(text: str, mentions: list[_Mention], mandate: Mandate) -> list[str]:
    found = []
    method = _METHOD.search(text)
    if method:
        found.append(f"payment by {method.group(0).lower()}")
    if _SHIP.search(text):
        found.append("shipping or delivery")
    if _MEETING.search(text):
        found.append("meeting: " + _MEETING.search(text).group(0).lower())
    if _HOLD.search(text) and not any(m.kind == "hold" for m in mentions):
        found.append("a deposit or hold")
    return found
