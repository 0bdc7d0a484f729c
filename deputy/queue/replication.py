"""Making sure a write reached a replica before something that cannot be undone happens.

Redis replicates asynchronously: a primary acknowledges a write before its replica has
it, and a failover in that moment (about the last second of writes, at worst) promotes a
replica without it. For most of Deputy's state that costs a retry at worst (a step runs
again under the same job id, an answer is asked again). One write is different: the mark
that an action has *started* (`sentinel.action_store.ActionStore.progress`). Lost, the
promoted replica would show the action as not yet begun, and the next job would send the
email again. So behind Sentinel the executor confirms the mark with `WAIT 1` before the
action runs: once a replica has it, a promotion keeps it, and a crash after that point
gives the user an "outcome unknown" card, never a second email.

The bot does the same with each update it fetches from Telegram before it confirms the update
(`deputy.bot.durable_polling`): an update Telegram was told it received must outlive a
promotion, or the message or button press is gone for good.

`WAIT` counts what the connection it is sent on has written, and pooled commands may
each take another connection, so the confirmation writes a probe key and waits on the
same connection: replication is in order, so a replica that has the probe has every
write acknowledged before it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis import Redis
from redis.asyncio.sentinel import SentinelConnectionPool as AsyncSentinelConnectionPool
from redis.sentinel import SentinelConnectionPool

log = logging.getLogger(__name__)

PROBE_KEY = "deputy:replication:probe"
WAIT_MS = 1000  # a replica on the same network acknowledges in a millisecond or two


def replica_confirmation(redis: Redis, timeout_ms: int = WAIT_MS) -> Callable[[], bool]:
    """A call that returns once a replica has every write made before it (True), or after
    `timeout_ms` with none confirmed (False: the replica is down or far behind, logged).
    Without Sentinel there is no promotion to lose a write to, and the call does nothing."""
    if not isinstance(redis.connection_pool, SentinelConnectionPool):
        return lambda: True

    def confirm() -> bool:
        _, replicas = _probe(redis.pipeline(transaction=False), timeout_ms).execute()
        return _confirmed(replicas, timeout_ms)

    return confirm


def async_replica_confirmation(redis: aioredis.Redis, timeout_ms: int = WAIT_MS) -> Callable[[], Awaitable[bool]]:
    """:func:`replica_confirmation` for an asyncio client."""
    if not isinstance(redis.connection_pool, AsyncSentinelConnectionPool):
        async def unreplicated() -> bool:
            return True
        return unreplicated

    async def confirm() -> bool:
        _, replicas = await _probe(redis.pipeline(transaction=False), timeout_ms).execute()
        return _confirmed(replicas, timeout_ms)

    return confirm


def _probe(pipe, timeout_ms: int):  # noqa: ANN001, ANN202 - a sync or an asyncio pipeline
    """The probe written and waited for on one connection (a pipeline keeps to one)."""
    pipe.set(PROBE_KEY, b"1", ex=60)
    pipe.wait(1, timeout_ms)
    return pipe


def _confirmed(replicas: int, timeout_ms: int) -> bool:
    if not replicas:
        log.warning("no replica confirmed the write within %d ms: a failover now could lose it", timeout_ms)
    return bool(replicas)
