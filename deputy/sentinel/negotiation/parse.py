"""Reading a mandate from the user's own words, by code (never by the model).

“sell my 2017 Civic on the marketplace, target $15,500, at least $14,000, steps of $500,
6 rounds, within 7 days, private: moving to Berlin, fact: mileage = 62,000 miles”
becomes a draft `Mandate` that the user confirms with a tap. What is missing and needed
(the reservation price above all) is listed as a plain question instead of guessed. Given
a `base`, only what the words mention changes (“/negotiate change floor $14,500”).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable

from pydantic import ValidationError

from deputy.sentinel.negotiation.amounts import read_amounts
from deputy.sentinel.negotiation.mandate import Mandate, MandateStatus, Role
from deputy.sentinel.negotiation.walkaway import FORMS, read_conditions

DeadlineReader = Callable[[str], "float | str | None"]
"""The user's words for a deadline (“by Friday”) -> an instant, a question for the user, or None (no time)."""
_DEADLINE = re.compile(r"\b(?:within|by|before|until|till|no later than|in)\s+[^,;\n]{1,40}", re.IGNORECASE)
_WALK = re.compile(r"\bwalk (?:away|off)(?: from it)? (?:if|when|should)\s+(?P<w>(?:[^,;\n]|,(?=\d)|,\s*or\b)+)",
                   re.IGNORECASE)

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


@dataclass
class ParsedMandate:
    mandate: Mandate | None
    problems: list[str] = field(default_factory=list)


def _amount_after(words: str, pattern: str) -> Decimal | None:
    match = re.search(pattern + r"\s*(?:of\s+|is\s+|at\s+|:\s*)?(?P<rest>(?:[^,;\n]|,(?=\d)){0,40})", words, re.IGNORECASE)
    if match is None:
        return None
    amounts = [a.value for a in read_amounts(match.group("rest")).amounts if not a.relative]
    if not amounts:
        bare = re.match(r"\s*(\d[\d,.]*)(\s*k\b)?", match.group("rest"), re.IGNORECASE)
        if bare is None:
            return None
        value = Decimal(bare.group(1).replace(",", ""))
        return value * 1000 if bare.group(2) else value
    return amounts[0]


def _role(words: str) -> Role | None:
    if re.search(r"\bsell(?:ing)?\b", words, re.IGNORECASE):
        return Role.sell
    if re.search(r"\b(?:lower|reduce|get\b.*\bdown|cut|cheaper|bill|retention)\b", words, re.IGNORECASE):
        return Role.reduce
    if re.search(r"\bbuy(?:ing)?\b", words, re.IGNORECASE):
        return Role.buy
    return None


def _subject(words: str, role: Role) -> str:
    verb = {Role.sell: r"sell(?:ing)?", Role.buy: r"buy(?:ing)?", Role.reduce: r"(?:lower|reduce|get|cut)"}[role]
    match = re.search(rf"\b{verb}\s+(?P<s>.+?)(?=,|;|\s+(?:for|on|with|to|down|target|at least|at most|by)\b|$)",
                      words, re.IGNORECASE)
    return (match.group("s").strip() if match else "this")[:200]


def _listed(words: str, label: str) -> list[str]:
    match = re.search(rf"\b{label}s?\s*:\s*(?P<items>[^\n]+?)(?=\s*\b(?:private|facts?|talk to)\s*:|$)", words,
                      re.IGNORECASE)
    if match is None:
        return []
    return [item.strip(" .,") for item in re.split(r";|\|", match.group("items")) if item.strip(" .,")]


def _deadline(words: str, now: float, reader: DeadlineReader | None) -> float | str | None:
    """The first phrase of `words` the reader takes for a time; without a reader, only “within N days”."""
    if reader is None:
        within = re.search(r"\bwithin\s+(\d{1,3})\s+(day|hour|week)s?\b", words, re.IGNORECASE)
        if within is None:
            return None
        seconds = {"hour": 3600, "day": 86400, "week": 7 * 86400}[within.group(2).lower()]
        return now + int(within.group(1)) * seconds
    for match in _DEADLINE.finditer(words):
        phrase = match.group(0).strip()
        # Grow from the shortest reading: “by Friday then” is read as “by Friday”.
        parts = phrase.split()
        for end in range(2, len(parts) + 1):
            found = reader(" ".join(parts[:end]))
            if isinstance(found, float) or (isinstance(found, str) and end == len(parts)):
                longer = [reader(" ".join(parts[:e])) for e in range(end + 1, len(parts) + 1)]
                return next((f for f in reversed(longer) if isinstance(f, float)), found)
    return None


def parse_mandate(words: str, now: float, base: Mandate | None = None, deadline: DeadlineReader | None = None,
                  zone: str | None = None) -> ParsedMandate:
    """The mandate the user's `words` describe (a draft, waiting for their tap), or what is missing.
    `deadline` reads the user's words for a time in their `zone` (the agent's resolver)."""
    role = _role(words) or (base.role if base else None)
    if role is None:
        return ParsedMandate(None, ["Say whether to sell, buy, or lower a bill (“sell my Civic …”)."])
    floor_words = r"\b(?:at least|no less than|not (?:less|lower) than|floor|minimum|lowest|bottom line)"
    ceiling_words = r"\b(?:at most|no more than|not more than|ceiling|maximum|max|highest|up to|under)"
    reservation = _amount_after(words, floor_words if role.sells else ceiling_words)
    target = _amount_after(words, r"\b(?:target|aim for|hoping for|hope for|ideally|goal)")
    opening = _amount_after(words, r"\b(?:listed at|listing(?: price)?|asking|currently|now pay|paying|pay now)")
    step = _amount_after(words, r"\b(?:steps? of|step|concede|concessions? of|at most .{0,12}per round)")
    rounds = re.search(r"\b(\d{1,2})\s+rounds?\b", words, re.IGNORECASE)
    walk = _WALK.findall(words)
    words_left = _WALK.sub(" ", words)  # “won't meet in person” names no deadline
    when = _deadline(words_left, now, deadline)
    per = "month" if re.search(r"/\s*mo(?:nth)?\b|\ba month\b|\bper month\b|\bmonthly\b", words, re.IGNORECASE) \
        else (base.per if base else ("month" if role is Role.reduce else None))
    currency = "EUR" if "€" in words or re.search(r"\beur", words, re.IGNORECASE) else \
        "GBP" if "£" in words else (base.currency if base else "USD")
    values = base.model_dump() if base else {}
    values.update(role=role, per=per, currency=currency)
    if base is None:
        values["subject"] = _subject(words, role)
    for name, value in (("reservation", reservation), ("target", target), ("opening", opening), ("max_step", step)):
        if value is not None:
            values[name] = value
    problems = []
    if values.get("reservation") is None:
        limit = "lowest price (“at least $14,000”)" if role.sells else "highest price (“at most $60 a month”)"
        problems.append(f"Tell me your {limit}: I never go past it and never say it.")
    if problems:
        return ParsedMandate(None, problems)
    values.setdefault("target", values["reservation"])
    if values.get("max_step") is None:
        values["max_step"] = max(Decimal(1), (Decimal(values["target"]) * Decimal("0.03")).quantize(Decimal(1)))
    if rounds:
        values["max_rounds"] = int(rounds.group(1))
    if isinstance(when, str):
        return ParsedMandate(None, [f"About the deadline: {when}"])
    if when is not None:
        values["deadline"] = when
        if zone:
            values["zone"] = zone
    if re.search(r"\b(?:no (?:ai )?disclosure|don'?t (?:say|tell|disclose)[^,;]*\b(?:ai|bot))", words, re.IGNORECASE):
        values["disclosure"] = False
    if re.search(r"\b(?:may|can|allowed to) (?:threaten to |say (?:i'?ll|i will|we'?ll) )?cancel", words,
                 re.IGNORECASE):
        values["may_threaten_cancel"] = True
    if walk:
        conditions = [w.strip(" ,.") for w in walk if w.strip(" ,.")]
        _, unread = read_conditions(conditions, scale=values.get("reservation"))
        if unread:
            return ParsedMandate(None, [
                "I can't check “" + "”, “".join(unread) + "” myself, so I would have to ignore it. Say it as one of: "
                + "; ".join(FORMS) + ". Or leave it out."])
        values["walk_away"] = conditions
    private = _listed(words, "private")
    if private:
        values["private"] = private
    facts = {}
    for item in _listed(words, "fact"):
        topic, _, answer = item.partition("=")
        if answer.strip():
            facts[topic.strip().lower()] = answer.strip()
    if facts:
        values["facts"] = {**values.get("facts", {}), **facts}
    talk = _listed(words, "talk to")
    counterparts = list(values.get("counterparts") or [])
    counterparts += talk + [e.lower() for e in _EMAIL.findall(words)]
    if base is None and role.sells and re.search(r"\bmarketplace|\bmarket\b|\blisting\b", words, re.IGNORECASE):
        counterparts.append("market:*")
    if base is None and role is Role.reduce and re.search(r"\bchat|retention|provider\b", words, re.IGNORECASE):
        counterparts.append("provider:*")
    values["counterparts"] = list(dict.fromkeys(counterparts))
    values["status"] = MandateStatus.draft
    try:
        return ParsedMandate(Mandate.model_validate(values))
    except ValidationError as exc:
        reason = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        return ParsedMandate(None, [reason[:1].upper() + reason[1:] + "."])
