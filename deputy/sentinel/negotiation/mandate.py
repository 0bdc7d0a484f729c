"""The mandate: what the user allowed a negotiation to do, and where it stands.

A mandate is set by the user in the chat, confirmed with a button and stored with the goal
by code (`deputy.sentinel.stores.mandates`); nothing the model writes can set or widen it. The
reservation price (the floor when selling, the ceiling when buying or lowering a bill) and
anything listed as private never leave Deputy: `deputy.sentinel.negotiation.review` checks every
outgoing message for them in code.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from enum import Enum
from fnmatch import fnmatchcase
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, model_validator

from deputy.sentinel.negotiation.leaks import redact
from deputy.sentinel.negotiation.walkaway import Condition, read_conditions


class Role(str, Enum):
    sell = "sell"
    buy = "buy"
    reduce = "reduce"

    @property
    def sells(self) -> bool:
        """Selling wants more; buying and lowering a bill want less."""
        return self is Role.sell


class MandateStatus(str, Enum):
    draft = "draft"  # proposed, not yet confirmed by the user's tap: nothing may be sent under it
    active = "active"
    paused = "paused"
    stopped = "stopped"


class Mandate(BaseModel):
    subject: str = Field(max_length=200, description="What is negotiated: “my 2017 Honda Civic”, “my internet bill”.")
    role: Role
    currency: str = "USD"
    per: str | None = Field(default=None, description="“month” for a bill: the amounts are per month.")
    target: Decimal = Field(description="What the user hopes for.")
    reservation: Decimal = Field(description="The floor (sell) or ceiling (buy, reduce). Never revealed.")
    opening: Decimal | None = Field(default=None, description="The listing price, or the bill as it is now.")
    max_step: Decimal = Field(description="The largest concession from one offer to the next.")
    max_rounds: int = Field(default=6, ge=1, le=50, description="Offers to one counterpart before asking the user.")
    deadline: float | None = Field(default=None, description="Epoch seconds; no offer after it.")
    zone: str = Field(default="UTC", max_length=64, description="The user's time zone, to show the deadline in.")
    walk_away: list[str] = Field(default_factory=list, description="When to stop, in the user's words.")
    disclosure: bool = Field(default=True, description="Say it is an AI acting for the user, in the first message.")
    principal: str = Field(default="the owner", max_length=80, description="Whom the agent says it acts for.")
    facts: dict[str, str] = Field(default_factory=dict, description="What it may tell: topic -> answer.")
    private: list[str] = Field(default_factory=list, description="Never said to anyone, like the reservation price.")
    counterparts: list[str] = Field(default_factory=list, description="Whom it may talk to (patterns: market:*).")
    may_threaten_cancel: bool = Field(default=False, description="Lowering a bill: may it say it will cancel?")
    status: MandateStatus = MandateStatus.draft

    @model_validator(mode="after")
    def _consistent(self) -> "Mandate":
        if self.max_step <= 0:
            raise ValueError("the largest concession must be more than zero")
        if self.role.sells and self.reservation > self.target:
            raise ValueError("when selling, the lowest price cannot be above the target")
        if not self.role.sells and self.reservation < self.target:
            raise ValueError("when buying or lowering a bill, the highest price cannot be below the target")
        return self

    @property
    def conditions(self) -> list[Condition]:
        """The walk-away conditions read from the user's words (checked by `review_offer`)."""
        return read_conditions(self.walk_away, scale=self.reservation)[0]

    @property
    def unread_conditions(self) -> list[str]:
        """Walk-away words that fit no condition code can check: the user is asked instead."""
        return read_conditions(self.walk_away, scale=self.reservation)[1]

    def deadline_words(self) -> str | None:
        """“Fri 4 Dec 23:59 CET”: the deadline in the user's zone, as the cards show it."""
        if self.deadline is None:
            return None
        try:
            zone = ZoneInfo(self.zone)
        except (ZoneInfoNotFoundError, ValueError):
            zone = ZoneInfo("UTC")
        moment = datetime.fromtimestamp(self.deadline, tz=timezone.utc).astimezone(zone)
        return f"{moment:%a} {moment.day} {moment:%b %H:%M} {moment.tzname()}"

    def past_reservation(self, amount: Decimal) -> bool:
        """An offer of `amount` would be worse for the user than their reservation price (or equal to it,
        which would say it)."""
        return amount <= self.reservation if self.role.sells else amount >= self.reservation

    def concession(self, before: Decimal, after: Decimal) -> Decimal:
        """How much moving from `before` to `after` gives away (negative: a move the user's way)."""
        return before - after if self.role.sells else after - before

    def allows_counterpart(self, target: str) -> bool:
        wanted = target.strip().lower()
        return any(fnmatchcase(wanted, pattern.strip().lower()) for pattern in self.counterparts)

    def money(self, amount: Decimal) -> str:
        shown = f"{amount:,.2f}".removesuffix(".00")
        symbol = {"USD": "$", "EUR": "€", "GBP": "£"}.get(self.currency.upper())
        text = f"{symbol}{shown}" if symbol else f"{shown} {self.currency}"
        return f"{text}/{self.per}" if self.per else text

    def summary(self, reveal_reservation: bool = True) -> str:
        """One short paragraph for the user's cards and /activity (the user may see their own floor)."""
        verb = {Role.sell: "Selling", Role.buy: "Buying", Role.reduce: "Lowering"}[self.role]
        limit = "floor" if self.role.sells else "ceiling"
        parts = [f"{verb} {self.subject}: target {self.money(self.target)}"]
        if reveal_reservation:
            parts.append(f"{limit} {self.money(self.reservation)} (never said)")
        parts.append(f"steps of at most {self.money(self.max_step)}, {self.max_rounds} rounds each")
        if self.deadline is not None:
            parts.append(f"until {self.deadline_words()}")
        parts.append("talks to " + ", ".join(self.counterparts) if self.counterparts
                     else "asks you before writing to anyone")
        parts.append("says it is an AI acting for you" if self.disclosure else "no AI disclosure")
        if self.may_threaten_cancel:
            parts.append("may say you would cancel")
        if self.walk_away:
            parts.append("walks away if " + "; ".join(self.walk_away))
        if self.status is not MandateStatus.active:
            parts.append(self.status.value.upper())
        return "; ".join(parts) + "."

    def audit_summary(self) -> str:
        """The summary for the audit trail: no limit and nothing private, in any form (a walk-away condition
        may name the limit)."""
        return redact(self.summary(reveal_reservation=False), self.reservation, self.private)
