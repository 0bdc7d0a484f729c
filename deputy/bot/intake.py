"""The goal intake: a text message becomes a stored goal with its first step enqueued, in two round trips.

This is the bot's hot path, so its Redis work is batched and asynchronous (redis.asyncio):
the event loop keeps serving other users' updates while it waits, instead of stalling on
some twenty synchronous round trips per message.

1. `pending`: one Lua script, atomic, in the order the handler asks: a memory the user is
   correcting (taken), else a goal the user is editing (taken), else the goal waiting for
   the user's answer (read); and the user's audit tip, to chain the next entry to.
2. `create`: one MULTI/EXEC: the goal record and the user's goal index, the `goal_created`
   audit entry (appended only if the tip has not moved; appended again if it has), the
   in-flight registration and RQ's job and queue push. All or nothing: a message that is
   acknowledged always has its goal stored and its first step queued. When the entry takes
   the trail past its window, the oldest entries are folded afterwards (two more round trips,
   once every `keep / 10` entries).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis import Redis, RedisError
from redis.connection import SSLConnection

from deputy.agent.goals import Goal, GoalStore, awaiting_key, goal_key
from deputy.core.confidential.keys import public_key_field
from deputy.core.infrastructure.redis_clients import async_client
from deputy.sentinel.stores.audit import DEFAULT_KEEP, DEVELOPMENT_KEY, queue_append, tip_key
from deputy.sentinel.stores.audit_fold import fold_async, fold_due
from deputy.queue.dispatch import RQDispatch

log = logging.getLogger(__name__)

# KEYS: the keys to take (GETDEL) in order, then the awaiting-answer key, then the audit tip.
# Returns {n, value} for the first key taken (1-based), else {0, awaiting goal id, audit tip}.
_PENDING = """
local takes = #KEYS - 2
for i = 1, takes do
  local value = redis.call('GETDEL', KEYS[i])
  if value then return {i, value} end
end
return {0, redis.call('GET', KEYS[takes + 1]) or '', redis.call('GET', KEYS[takes + 2]) or ''}
"""


@dataclass(frozen=True)
class Pending:
    """What the user's message may be for, besides a new goal."""

    taken: str | None  # the key that was taken, if any
    value: str | None  # its value (the memory or goal being edited)
    awaiting: str | None  # the goal waiting for the user's answer (only read when nothing was taken)
    tip: bytes  # the user's audit tip (empty when nothing was taken and the trail is empty)


# A round trip takes well under a millisecond, so a few connections serve every update in
# flight; a handler that finds them all busy waits its turn. Opening a connection costs a
# few milliseconds of CPU (redis-py's handshake), so the pool does not grow with bursts.
MAX_CONNECTIONS = 8
CONNECTION_WAIT = 20.0  # seconds, then the handler fails and the user is told to try again


class LoopRedis:
    """A redis.asyncio client for the running event loop: its connections belong to the loop that opened them."""

    def __init__(self, redis_url: str) -> None:
        self._url = redis_url
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: aioredis.Redis | None = None

    def get(self) -> aioredis.Redis:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # Retries on a fresh connection when Redis restarted under a pooled one (deputy.core.infrastructure.redis_clients).
            self._loop, self._client = loop, async_client(self._url, MAX_CONNECTIONS, CONNECTION_WAIT)
        return self._client


def url_of(redis: Redis) -> str:
    """A URL for the server a synchronous client talks to (when the bot was given a client, not a URL)."""
    pool = redis.connection_pool
    kw = pool.connection_kwargs
    auth = ""
    if kw.get("password") is not None:
        auth = f"{kw.get('username') or ''}:{kw['password']}@"
    if "path" in kw:
        return f"unix://{auth}{kw['path']}?db={kw.get('db', 0)}"
    scheme = "rediss" if issubclass(pool.connection_class, SSLConnection) else "redis"
    return f"{scheme}://{auth}{kw.get('host', '127.0.0.1')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"


class GoalIntake:
    def __init__(self, redis: LoopRedis, dispatch: RQDispatch, audit_key: bytes = DEVELOPMENT_KEY,
                 audit_keep: int = DEFAULT_KEEP) -> None:
        self._redis = redis
        self._dispatch = dispatch
        self._audit_key = audit_key
        self._audit_keep = audit_keep

    async def pending(self, user_id: int, takes: list[str]) -> Pending:
        """Take the first of `takes` that is set; if none is, read the awaited goal and the audit tip."""
        result = await self._redis.get().eval(_PENDING, len(takes) + 2, *takes, awaiting_key(user_id),
                                              tip_key(user_id))
        index = int(result[0])
        if index:
            return Pending(takes[index - 1], result[1].decode(), None, b"")
        return Pending(None, None, result[1].decode() or None, result[2])

    def client(self) -> aioredis.Redis:
        """The asyncio client of the running loop, for other small hot-path work (plans, message floods)."""
        return self._redis.get()

    async def stored(self, goal_id: str) -> bool:
        """Whether a goal with this id exists (another copy of the same message created it)."""
        return bool(await self._redis.get().exists(goal_key(goal_id)))

    async def tip(self, user_id: int) -> bytes:
        return await self._redis.get().get(tip_key(user_id)) or b""

    async def create(self, goal: Goal, tip: bytes, **audit: Any) -> Goal:
        """Store the new goal, audit it (chained to `tip`) and enqueue its first step, in one transaction."""
        client = self._redis.get()
        public = await client.hget(*public_key_field(goal.user_id))  # a confidential user's goal is sealed
        pipe = client.pipeline(transaction=True)
        pipe.multi()  # RQ adds its writes to a pipeline only if it is already in MULTI mode
        saved = GoalStore.queue_create(pipe, goal, public)
        queue_append(pipe, self._audit_key, goal.user_id, tip, "goal_created", goal.created_at, public,
                     goal_id=goal.id, **audit)
        self._dispatch.step(saved.id, saved.step, pipeline=pipe, owner=saved.user_id)
        stored, _, appended, *_ = await pipe.execute()
        if not stored:
            # Ids have 72 random bits, so the id is taken by this very transaction: Redis ran it, the
            # connection dropped before its reply and the client sent it again. All of it is stored.
            return saved
        while not appended:  # a worker appended to this user's trail since `pending` read the tip
            appended = await self._append(goal.user_id, "goal_created", goal.created_at, goal_id=goal.id, **audit)
        if fold_due(int(appended), self._audit_keep):
            await self._fold(goal.user_id)
        return saved

    async def _append(self, user_id: int, kind: str, at: float, /, **detail: Any) -> int:
        """Append an entry chained to the current tip: the trail's length, or 0 if the tip moved meanwhile."""
        client = self._redis.get()
        pipe = client.pipeline(transaction=False)
        public = await client.hget(*public_key_field(user_id))
        queue_append(pipe, self._audit_key, user_id, await self.tip(user_id), kind, at, public, **detail)
        [appended] = await pipe.execute()
        return int(appended)

    async def _fold(self, user_id: int) -> None:
        # The goal is stored and queued by now: a fold that fails is left to a later entry, not the user.
        try:
            await fold_async(self._redis.get(), self._audit_key, user_id, self._audit_keep)
        except RedisError:
            log.warning("could not fold the audit trail of user %s; a later entry will", user_id, exc_info=True)
