"""Redis clients that survive a Redis restart or failover: one place builds them all.

redis-py's asyncio pool hands out a pooled connection whose server has gone away (Redis
restarted, a replica promoted) without noticing: the first command on it fails with
"Connection closed by server" although Redis is back, and a pool built with `from_url`
or `BlockingConnectionPool` carries no retry policy at all. The clients built here retry
a command that failed on the connection itself (reset, refused, timed out) a few times
with a short backoff, on a fresh connection each time, so a restart costs a few
milliseconds instead of the user's message. When Redis is really down the retries run
out within about a second and the caller sees the ConnectionError as before (the bot
then answers "I can't reach my storage right now").

Retrying is safe for what Deputy sends: a command that never reached the new server did
nothing, and the one non-idempotent case (a MULTI/EXEC whose reply was lost after the
server ran it) is handled by the caller (see `bot.intake.GoalIntake.create`).

What a client *owns* on the server (consumer groups, loaded scripts) is not restored by
reconnecting: the owners re-create it when Redis answers NOGROUP (`workers.gateway`,
`bot.outbox_consumer`); Lua runs either through EVAL or through redis-py `Script`
objects, which load themselves again on NOSCRIPT.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis import Redis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, TimeoutError
from redis.retry import Retry

RETRIES = 4
_BACKOFF = dict(base=0.05, cap=0.5)  # 0.05, 0.1, 0.2, 0.4 s: under a second before giving up
_ERRORS = [ConnectionError, TimeoutError, ConnectionResetError, BrokenPipeError]


def _async_options() -> dict:
    return {"retry": AsyncRetry(ExponentialBackoff(**_BACKOFF), RETRIES), "retry_on_error": list(_ERRORS)}


def async_pool(url: str, max_connections: int, timeout: float | None) -> aioredis.BlockingConnectionPool:
    """A bounded asyncio pool (a caller waits up to `timeout` for a free connection) that heals after restarts."""
    return aioredis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=timeout,
                                                    **_async_options())


def async_client(url: str, max_connections: int = 32, timeout: float | None = None) -> aioredis.Redis:
    return aioredis.Redis.from_pool(async_pool(url, max_connections, timeout))


PATIENT_RETRIES = 8
_PATIENT_BACKOFF = dict(base=0.1, cap=2.0)  # about 9 s in all: a restart, a replica's promotion


def sync_client(url: str) -> Redis:
    """A synchronous client for workers: it waits out a restart or a failover instead of failing.

    Nobody is waiting on a chat for a worker, and a failed call in the wrong place (RQ's
    bookkeeping while a job runs) stops the whole worker process, so it retries for longer.
    """
    return Redis.from_url(url, retry=Retry(ExponentialBackoff(**_PATIENT_BACKOFF), PATIENT_RETRIES),
                          retry_on_error=list(_ERRORS))
