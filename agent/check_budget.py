"""How many scheduled checks one user's monitors may make per day (UTC).

Every check counts, whether it wakes the model or only runs a probe, so a monitor set
to check every minute cannot run up unbounded background work. A check over the budget
is skipped, not queued up: the monitor simply looks again at its next time.
"""

from __future__ import annotations

from datetime import datetime, timezone

from redis import Redis

_KEY = "deputy:user:{}:checks:{}"
_NOTICE = "deputy:user:{}:checks-notice:{}"
_TTL = 2 * 24 * 3600


class CheckBudget:
    def __init__(self, redis: Redis, per_day: int) -> None:
        self._redis = redis
        self.per_day = per_day

    def take(self, user_id: int, now: float) -> bool:
        """Count one check for today; False (and nothing counted) when today's budget is used up."""
        key = _KEY.format(user_id, _day(now))
        pipe = self._redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, _TTL)
        used, _ = pipe.execute()
        if int(used) > self.per_day:
            self._redis.decr(key)
            return False
        return True

    def used(self, user_id: int, now: float) -> int:
        raw = self._redis.get(_KEY.format(user_id, _day(now)))
        return int(raw) if raw else 0

    def first_refusal_today(self, user_id: int, now: float) -> bool:
        """True once per user and day: the user is told about the limit once, not at every skipped check."""
        return bool(self._redis.set(_NOTICE.format(user_id, _day(now)), 1, nx=True, ex=_TTL))


def _day(now: float) -> str:
    return datetime.fromtimestamp(now, tz=timezone.utc).strftime("%Y%m%d")
