"""How many scheduled checks one user's monitors may make per day (UTC), and what their plan allows.

Every check counts, whether it wakes the model or only runs a probe, so a monitor set
to check every minute cannot run up unbounded background work. A check over the budget
is skipped, not queued up: the monitor simply looks again at its next time.

With plans (`deputy.core.accounts.quotas`), a check also counts against the user's plan (its daily and
monthly checks, in the user's own day); refused there, the check waits until the plan's
period starts again.
"""

from __future__ import annotations

from datetime import datetime, timezone

from redis import Redis

from deputy.core.accounts.quotas import Quotas, Refusal

_KEY = "deputy:user:{}:checks:{}"
_NOTICE = "deputy:user:{}:checks-notice:{}"
_TTL = 2 * 24 * 3600


class CheckBudget:
    def __init__(self, redis: Redis, per_day: int, quotas: Quotas | None = None) -> None:
        self._redis = redis
        self.per_day = per_day
        self._quotas = quotas
        self._refused: dict[int, Refusal] = {}  # the plan's latest refusal, per user

    def take(self, user_id: int, now: float) -> bool:
        """Count one check for today; False (and nothing counted) when today's budget is used up."""
        self._refused.pop(user_id, None)
        if self._quotas is not None:
            refusal = self._quotas.take_check(user_id, now)
            if refusal is not None:
                self._refused[user_id] = refusal
                return False
        key = _KEY.format(user_id, _day(now))
        pipe = self._redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, _TTL)
        used, _ = pipe.execute()
        if int(used) > self.per_day:
            self._redis.decr(key)
            return False
        return True

    def limit_of(self, user_id: int) -> int:
        """The limit the last refused check ran into (the plan's, or the operator's daily one)."""
        refusal = self._refused.get(user_id)
        return refusal.limit if refusal is not None else self.per_day

    def refused_period(self, user_id: int) -> str:
        """"day" or "month": which of the plan's periods the last refused check ran out of."""
        refusal = self._refused.get(user_id)
        return "month" if refusal is not None and refusal.period == "month" else "day"

    def resumes_at(self, user_id: int, now: float) -> float:
        """When checks may go on after a refusal: the plan's reset, else midnight UTC."""
        refusal = self._refused.get(user_id)
        if refusal is not None and refusal.resets is not None:
            return refusal.resets
        return (int(now // 86400) + 1) * 86400.0

    def used(self, user_id: int, now: float) -> int:
        raw = self._redis.get(_KEY.format(user_id, _day(now)))
        return int(raw) if raw else 0

    def first_refusal_today(self, user_id: int, now: float) -> bool:
        """True once per user and day: the user is told about the limit once, not at every skipped check."""
        return bool(self._redis.set(_NOTICE.format(user_id, _day(now)), 1, nx=True, ex=_TTL))


def _day(now: float) -> str:
    return datetime.fromtimestamp(now, tz=timezone.utc).strftime("%Y%m%d")
