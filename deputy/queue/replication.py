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

`WAIT` counts what the connection it is sent on has written, and pooled commands may
each take another connection, so the confirmation writes a probe key and waits on the
same connection: replication is in order, so a replica that has the probe has every
write acknowledged before it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from redis import Redis
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
        pipe = redis.pipeline(transaction=False)
        pipe.set(PROBE_KEY, b"1", ex=60)
        pipe.wait(1, timeout_ms)
        _, replicas = pipe.execute()
        if not replicas:
            log.warning("no replica confirmed the write within %d ms: a failover now could lose it", timeout_ms)
        return bool(replicas)

    return confirm
