"""A user's quota counters in Redis, checked and counted atomically (one Lua script).

Per user and period (the user's local day and month, `deputy.core.accounts.quota_periods`) one hash
holds the counters: `goals`, `checks`, `tokens` (all models) and `tokens:<model>`. The
goals a user has in progress are a sorted set of goal ids; the script drops those that have
finished (or were erased) whenever their number matters, so a goal that ends by any path
frees its place without every ending having to remember to say so.

`/delete_me` erases the counters with everything else (`erase_user_quotas`): a user who
erases all they had starts a fresh day; an operator's suspension is kept.

`take` checks every counter it is given against both periods' limits and the
in-progress limit, and only if all fit increments them all: two goals racing for the
last unit cannot both get it. The bot's goal intake runs it inside the script that stores
the goal (`deputy.bot.intake_scripts`), so the place and the goal come together; where a
place is taken on its own before the goal is stored, a place whose goal is missing is kept
for a grace minute (the goal is on its way) and only then taken for erased. `add` counts
usage that has already happened (tokens the model used): it is never refused, only
counted, and the next `take` or `over` sees it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from redis import Redis

from deputy.core.infrastructure import step_reads
from deputy.core.records.erasure import Owned, delete_keys
from deputy.core.accounts.quota_periods import Periods

DAY_TTL = 3 * 24 * 3600  # a day's counters outlive the day, whatever the zone
MONTH_TTL = 63 * 24 * 3600
_COUNTERS = "deputy:quota:{}:{}:{}"  # user, period, period key
_ACTIVE = "deputy:quota:{}:active"  # sorted set: goal id -> when its place was taken
_NEAR = "deputy:quota:{}:near:{}:{}:{}"  # user, period, period key, counter
GOAL_PREFIX = "deputy:goal:"
CREATE_GRACE = 60.0  # seconds a place is held for a goal that is not stored yet

PRUNE_ABOVE = 64  # goals in progress kept before finished ones are dropped although no limit is near

# KEYS: day hash, month hash, active set.
# ARGV: n, then n x (field, amount, day limit, month limit) with -1 for none,
#       then the goal id to hold ('' for none), the in-progress limit (-1: none), goal key prefix, ttls,
#       now, and how long a place may wait for its goal to be stored.
# Returns {1, day used, month used, ... per counter, in progress} or {0, field, period, used}.
# Finished goals are dropped from the active set only when their count matters (reporting, a new
# goal that would not fit, a set grown past PRUNE_ABOVE): dropping reads every goal's record.
# The goal intake embeds this script in its own (deputy.bot.intake_scripts): keep it a body over KEYS and ARGV.
TAKE_SCRIPT = f"""
local n = tonumber(ARGV[1])
local base = 2 + 4 * n
local goal, held_limit, prefix = ARGV[base], tonumber(ARGV[base + 1]), ARGV[base + 2]
local day_ttl, month_ttl = tonumber(ARGV[base + 3]), tonumber(ARGV[base + 4])
local now, grace = tonumber(ARGV[base + 5]), tonumber(ARGV[base + 6])
local held = redis.call('ZCARD', KEYS[3])
local holding = goal ~= '' and redis.call('ZSCORE', KEYS[3], goal) ~= false
local needs_place = goal ~= '' and held_limit >= 0 and not holding
if goal == '' or (needs_place and held + 1 > held_limit) or held > {PRUNE_ABOVE} then
  local finished = {{done = true, failed = true, cancelled = true}}
  local members = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')
  for i = 1, #members, 2 do
    local id, since = members[i], tonumber(members[i + 1])
    local raw = redis.call('GET', prefix .. id)
    -- A goal not stored yet is being created (its place is taken just before); one long gone was erased.
    local ended = (not raw) and since < now - grace
    if raw then
      local ok, record = pcall(cjson.decode, raw)
      ended = ok and finished[record['status']] == true
    end
    if ended then redis.call('ZREM', KEYS[3], id) end
  end
  held = redis.call('ZCARD', KEYS[3])
  holding = goal ~= '' and redis.call('ZSCORE', KEYS[3], goal) ~= false
  needs_place = goal ~= '' and held_limit >= 0 and not holding
end
if needs_place and held + 1 > held_limit then
  return {{0, 'active_goals', 'held', held}}
end
for i = 0, n - 1 do
  local f, amount = ARGV[2 + 4 * i], tonumber(ARGV[3 + 4 * i])
  local limits = {{tonumber(ARGV[4 + 4 * i]), tonumber(ARGV[5 + 4 * i])}}
  for k, period in ipairs({{'day', 'month'}}) do
    local used = tonumber(redis.call('HGET', KEYS[k], f) or '0')
    if limits[k] >= 0 and used + amount > limits[k] then return {{0, f, period, used}} end
  end
end
local out = {{1}}
local ttls = {{day_ttl, month_ttl}}
for i = 0, n - 1 do
  local f, amount = ARGV[2 + 4 * i], tonumber(ARGV[3 + 4 * i])
  for k = 1, 2 do
    local used = redis.call('HINCRBY', KEYS[k], f, amount)
    -- Every writer of these hashes sets their expiry as it creates them: a counter just made is in a
    -- new hash (expiry set here) or in one whose expiry is set already.
    if used == amount then redis.call('EXPIRE', KEYS[k], ttls[k]) end
    table.insert(out, used)
  end
end
if goal ~= '' and not holding then
  redis.call('ZADD', KEYS[3], 'NX', now, goal)
  held = held + 1
end
table.insert(out, held)
return out
"""


@dataclass(frozen=True)
class Ask:
    """One counter to take: how much, and its limit per period (None: no limit)."""

    counter: str
    amount: int
    day: int | None
    month: int | None


@dataclass(frozen=True)
class Taken:
    ok: bool
    used: dict[tuple[str, str], int] = field(default_factory=dict)  # (counter, period) -> used after taking
    held: int = 0
    refused: str | None = None  # the counter over its limit ("active_goals" for the in-progress limit)
    period: str | None = None  # "day", "month" or "held"


def keys(user_id: int, periods: Periods) -> list[str]:
    return [_COUNTERS.format(user_id, "day", periods.day), _COUNTERS.format(user_id, "month", periods.month),
            _ACTIVE.format(user_id)]


def take_args(asks: list[Ask], goal_id: str | None, held_limit: int | None, now: float) -> list[Any]:
    """The take script's ARGV (with `keys` for its KEYS)."""
    args: list[Any] = [len(asks)]
    for ask in asks:
        args += [ask.counter, ask.amount, -1 if ask.day is None else ask.day, -1 if ask.month is None else ask.month]
    return [*args, goal_id or "", -1 if held_limit is None else held_limit, GOAL_PREFIX, DAY_TTL, MONTH_TTL, now, CREATE_GRACE]


def parse_taken(asks: list[Ask], raw: list[Any]) -> Taken:
    """The take script's reply."""
    values = [v.decode() if isinstance(v, bytes) else v for v in raw]
    if int(values[0]) == 0:
        return Taken(False, refused=str(values[1]), period=str(values[2]))
    used: dict[tuple[str, str], int] = {}
    for i, ask in enumerate(asks):
        used[(ask.counter, "day")], used[(ask.counter, "month")] = int(values[1 + 2 * i]), int(values[2 + 2 * i])
    return Taken(True, used, held=int(values[-1]))


class QuotaStore:
    """The counters over a synchronous or an asyncio Redis client (`aadd` for the latter)."""

    def __init__(self, redis: Any) -> None:
        self._redis = redis

    def take(self, user_id: int, periods: Periods, asks: list[Ask], goal_id: str | None = None,
             held_limit: int | None = None, now: float | None = None) -> Taken:
        args = take_args(asks, goal_id, held_limit, _now(now))
        _forget_counters(user_id, periods)
        raw = self._redis.eval(TAKE_SCRIPT, 3, *keys(user_id, periods), *args)
        return parse_taken(asks, raw)

    def add(self, user_id: int, periods: Periods, amounts: dict[str, int]) -> None:
        """Count usage that already happened (never refused)."""
        queue_add(self._redis.pipeline(transaction=True), user_id, periods, amounts).execute()

    async def aadd(self, user_id: int, periods: Periods, amounts: dict[str, int]) -> None:
        await queue_add(self._redis.pipeline(transaction=True), user_id, periods, amounts).execute()

    def used(self, user_id: int, periods: Periods) -> dict[str, dict[str, int]]:
        """Every counter of the day and the month: {"day": {...}, "month": {...}}."""
        day_key, month_key, _ = keys(user_id, periods)

        def read() -> list:
            pipe = self._redis.pipeline(transaction=False)
            pipe.hgetall(day_key)
            pipe.hgetall(month_key)
            return pipe.execute()

        day, month = step_reads.read_many([("HGETALL", day_key), ("HGETALL", month_key)], read)
        return {"day": _ints(day), "month": _ints(month)}

    def held(self, user_id: int, periods: Periods, now: float | None = None) -> int:
        """Goals in progress (finished ones dropped first)."""
        return self.take(user_id, periods, [], now=now).held

    def release(self, user_id: int, goal_id: str) -> None:
        self._redis.zrem(_ACTIVE.format(user_id), goal_id)

    def first_notice(self, user_id: int, periods: Periods, period: str, counter: str) -> bool:
        """True once per counter and period: a user is told they are near a limit once, not at every step."""
        key = _NEAR.format(user_id, period, periods.key(period), counter)
        return bool(self._redis.set(key, 1, nx=True, ex=MONTH_TTL if period == "month" else DAY_TTL))

    async def afirst_notice(self, user_id: int, periods: Periods, period: str, counter: str) -> bool:
        key = _NEAR.format(user_id, period, periods.key(period), counter)
        return bool(await self._redis.set(key, 1, nx=True, ex=MONTH_TTL if period == "month" else DAY_TTL))


def queue_add(pipe: Any, user_id: int, periods: Periods, amounts: dict[str, int]) -> Any:
    """Queue the increments on a (sync or asyncio) pipeline, to share a round trip with other writes."""
    day_key, month_key, _ = keys(user_id, periods)
    _forget_counters(user_id, periods)
    for counter, amount in amounts.items():
        if amount:
            pipe.hincrby(day_key, counter, amount)
            pipe.hincrby(month_key, counter, amount)
    pipe.expire(day_key, DAY_TTL)
    pipe.expire(month_key, MONTH_TTL)
    return pipe


def _forget_counters(user_id: int, periods: Periods) -> None:
    """The counters change: a step that read them reads them again (`step_reads`)."""
    for key in keys(user_id, periods)[:2]:
        step_reads.forget(key)


def _now(now: float | None) -> float:
    return time.time() if now is None else now


def _ints(raw: dict) -> dict[str, int]:
    return {(k.decode() if isinstance(k, bytes) else k): int(v) for k, v in raw.items()}


def erase_user_quotas(redis: Redis, owned: Owned) -> int:
    """`/delete_me`: the user's counters and near-limit marks go with everything else.

    A user who erases everything and starts again starts a fresh day and month; an
    operator's suspension is kept (`deputy.core.accounts.accounts.erase_user_account_traces`).
    """
    return delete_keys(redis, redis.scan_iter(f"deputy:quota:{owned.user_id}:*"))
