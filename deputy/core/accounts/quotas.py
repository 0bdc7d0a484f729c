"""Plans enforced: may this user start a goal, go on using the model, make a background check?

`Quotas` puts together the plans file (`PlanBook`), each user's plan and suspension
(`Accounts`), their time zone (their days are their own) and the atomic counters
(`QuotaStore`). It answers with a `Refusal` (which limit, when it resets) or None, and
says once per period when a user comes near a limit (`NEAR`, four fifths of it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis import Redis

from deputy.core.accounts.accounts import Accounts
from deputy.core.accounts.plans import Plan, PlanBook
from deputy.core.accounts.quota_periods import Periods, periods
from deputy.core.accounts.quota_store import Ask, QuotaStore, keys, parse_taken, queue_add, take_args
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore

NEAR = 0.8


@dataclass(frozen=True)
class Refusal:
    plan: str  # the plan's title
    counter: str  # goals, checks, tokens, tokens:<model>, active_goals, suspended, or a capability
    period: str  # day, month, held (at once), plan (not included), suspended
    limit: int
    resets: float | None  # when the period starts again (None: when something ends, or never by itself)


@dataclass(frozen=True)
class Near:
    counter: str
    period: str
    used: int
    limit: int
    resets: float


@dataclass(frozen=True)
class Started:
    refusal: Refusal | None
    near: list[Near]
    zone: str = "UTC"  # the user's time zone, for the words about resets


@dataclass(frozen=True)
class GoalPlace:
    """A new goal's place in its user's plan, ready to be taken by the take script (`keys`, `args`)."""

    user_id: int
    plan: Plan
    span: Periods
    asks: list[Ask]
    refusal: Refusal | None  # refused without asking Redis: the operator suspended the user
    keys: list[str]
    args: list[Any]


@dataclass(frozen=True)
class Usage:
    plan: Plan
    suspended: bool
    periods: Periods
    used: dict[str, dict[str, int]]
    held: int


def token_counters(model: str | None) -> list[str]:
    return ["tokens", f"tokens:{model}"] if model else ["tokens"]


class Quotas:
    def __init__(self, redis: Redis, book: PlanBook) -> None:
        self.book = book
        self.accounts = Accounts(redis)
        self.store = QuotaStore(redis)
        self._settings = UserSettingsStore(redis)

    def plan_of(self, user_id: int) -> Plan:
        return self.book.get(self.accounts.get(user_id).plan)

    def zone_of(self, user_id: int) -> str | None:
        """The user's time zone, for the words about when a limit resets."""
        return self._settings.get(user_id).timezone

    def periods_of(self, user_id: int, now: float) -> Periods:
        return periods(now, self._settings.clock_settings(user_id).timezone)

    # -- goals ------------------------------------------------------------------------------

    def _goal_asks(self, plan: Plan) -> list[Ask]:
        return [Ask("goals", 1, plan.day.goals, plan.month.goals)]

    def start_goal(self, user_id: int, goal_id: str, now: float) -> Started:
        """Count a new goal (and hold its place among those in progress), or refuse it: one atomic step."""
        account = self.accounts.get(user_id)
        plan = self.book.get(account.plan)
        span = self.periods_of(user_id, now)
        if account.suspended:
            return Started(Refusal(plan.title, "suspended", "suspended", 0, None), [], span.zone)
        asks = self._goal_asks(plan)
        taken = self.store.take(user_id, span, asks, goal_id, plan.active_goals, now)
        return self._started(user_id, plan, span, asks, taken)

    def goal_place(self, user_id: int, goal_id: str, raw_account: dict, raw_settings: bytes | None,
                   now: float) -> GoalPlace:
        """The new goal's place in the plan, from the account hash and settings the caller read
        (the bot's intake reads them with everything else a message needs, in one round trip)."""
        account = Accounts.parse(user_id, raw_account)
        plan = self.book.get(account.plan)
        zone = UserSettings.model_validate_json(raw_settings).timezone if raw_settings else None
        span = periods(now, zone)
        asks = self._goal_asks(plan)
        refusal = Refusal(plan.title, "suspended", "suspended", 0, None) if account.suspended else None
        return GoalPlace(user_id, plan, span, asks, refusal, keys(user_id, span),
                         take_args(asks, goal_id, plan.active_goals, now))

    def place_taken(self, place: GoalPlace, raw: list[Any]) -> Started:
        """What the take script answered for `place`: refused, or taken with the limits now near."""
        taken = parse_taken(place.asks, raw)
        if not taken.ok:
            return Started(self._refusal(place.plan, place.span, taken.refused, taken.period), [], place.span.zone)
        return Started(None, self._near(place.plan, place.span, taken.used), place.span.zone)

    @staticmethod
    async def afirst_notices(client: Any, place: GoalPlace, near: list[Near]) -> list[Near]:
        """The near limits not told yet this period (marked told), on an asyncio client."""
        store = QuotaStore(client)
        return [n for n in near if await store.afirst_notice(place.user_id, place.span, n.period, n.counter)]

    def _started(self, user_id: int, plan: Plan, span: Periods, asks: list[Ask], taken: Any) -> Started:
        if not taken.ok:
            return Started(self._refusal(plan, span, taken.refused, taken.period), [], span.zone)
        self.accounts.seen(user_id)
        near = [n for n in self._near(plan, span, taken.used) if self.store.first_notice(user_id, span, n.period,
                                                                                          n.counter)]
        return Started(None, near, span.zone)

    # -- model tokens -----------------------------------------------------------------------

    def count_tokens(self, user_id: int, model: str | None, tokens: int, now: float) -> None:
        """Tokens a model call used (counted after the call: what it really cost)."""
        if tokens > 0:
            self.store.add(user_id, self.periods_of(user_id, now), {c: tokens for c in token_counters(model)})

    def over_tokens(self, user_id: int, now: float) -> tuple[Refusal | None, list[Near]]:
        """Has this user used up a token limit (or been suspended)? Also: limits newly near, to say once."""
        account = self.accounts.get(user_id)
        plan = self.book.get(account.plan)
        if account.suspended:
            return Refusal(plan.title, "suspended", "suspended", 0, None), []
        span = self.periods_of(user_id, now)
        used = self.store.used(user_id, span)
        for period in ("day", "month"):
            for counter in plan.window(period).counters():
                limit = plan.window(period).limit(counter)
                if counter.startswith("tokens") and limit is not None and used[period].get(counter, 0) >= limit:
                    return self._refusal(plan, span, counter, period), []
        flat = {(c, p): v for p, counts in used.items() for c, v in counts.items() if c.startswith("tokens")}
        near = [n for n in self._near(plan, span, flat) if self.store.first_notice(user_id, span, n.period, n.counter)]
        return None, near

    # -- background checks ------------------------------------------------------------------

    def take_check(self, user_id: int, now: float) -> Refusal | None:
        plan = self.plan_of(user_id)
        span = self.periods_of(user_id, now)
        taken = self.store.take(user_id, span, [Ask("checks", 1, plan.day.checks, plan.month.checks)], now=now)
        return None if taken.ok else self._refusal(plan, span, taken.refused, taken.period)

    # -- what a plan includes ----------------------------------------------------------------

    def capability_refusal(self, user_id: int, capability: str) -> Refusal | None:
        plan = self.plan_of(user_id)
        return None if plan.includes(capability) else Refusal(plan.title, capability, "plan", 0, None)

    def held_refusal(self, user_id: int, what: str, have: int) -> Refusal | None:
        """Adding one more of `what` (services, files, memories) when the user already has `have`."""
        plan = self.plan_of(user_id)
        limit = plan.held_limit(what)
        return None if limit is None or have < limit else Refusal(plan.title, what, "held", limit, None)

    # -- reporting ---------------------------------------------------------------------------

    def usage(self, user_id: int, now: float) -> Usage:
        account = self.accounts.get(user_id)
        span = self.periods_of(user_id, now)
        return Usage(self.book.get(account.plan), account.suspended, span, self.store.used(user_id, span),
                     self.store.held(user_id, span, now))

    def _refusal(self, plan: Plan, span: Periods, counter: str | None, period: str | None) -> Refusal:
        counter, period = counter or "goals", period or "day"
        if period == "held":
            return Refusal(plan.title, counter, period, plan.held_limit(counter) or 0, None)
        return Refusal(plan.title, counter, period, plan.window(period).limit(counter) or 0, span.resets(period))

    def _near(self, plan: Plan, span: Periods, used: dict[tuple[str, str], int]) -> list[Near]:
        near = []
        for (counter, period), value in used.items():
            limit = plan.window(period).limit(counter)
            if limit and NEAR * limit <= value <= limit:
                near.append(Near(counter, period, value, limit, span.resets(period)))
        return near


def queue_tokens(pipe: Any, user_id: int, model: str | None, tokens: int, now: float,
                 settings: bytes | None) -> None:
    """Queue a model call's tokens on a pipeline (the model gateway's), in the user's own day: `settings` is their
    stored record (`UserSettingsStore.key`), read by the caller with its other reads, None when they have none."""
    if tokens <= 0 or not user_id:
        return
    zone = UserSettings.model_validate_json(settings).timezone if settings else None
    queue_add(pipe, user_id, periods(now, zone), {c: tokens for c in token_counters(model)})
