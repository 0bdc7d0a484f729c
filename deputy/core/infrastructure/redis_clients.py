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

With a `redis+sentinel://` address (`deputy.core.infrastructure.redis_address`) the clients ask Redis
Sentinel for the primary (redis-py's `Sentinel.master_for`) each time they open a
connection, so a fresh connection after a failover goes to the promoted replica; a
connection still open to a demoted primary answers READONLY, which redis-py turns into
a ConnectionError, retried here like any other. Sentinels take a few seconds to agree
that the primary is gone (`down-after-milliseconds`), so every client behind Sentinel,
the bot's too, waits out a promotion (about ten seconds) before giving up.

Retrying is safe for what Deputy sends: a command that never reached the new server did
nothing, and the one non-idempotent case (a MULTI/EXEC whose reply was lost after the
server ran it) is handled by the caller (see `deputy.bot.intake.GoalIntake.admit`).

What a client *owns* on the server (consumer groups, loaded scripts) is not restored by
reconnecting: the owners re-create it when Redis answers NOGROUP (`deputy.gateway.gateway`,
`deputy.bot.outbox_consumer`); Lua runs through EVAL, redis-py `Script` objects or
`deputy.core.infrastructure.lua_scripts.LuaScript`, which send the script again on NOSCRIPT.
"""

from __future__ import annotations

import redis.asyncio as aioredis
import redis.asyncio.sentinel as aiosentinel
from redis import Redis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import ConnectionError, TimeoutError
from redis.retry import Retry
from redis.sentinel import Sentinel, SentinelManagedConnection

from deputy.core.infrastructure.redis_address import parse_address

RETRIES = 4
_BACKOFF = dict(base=0.05, cap=0.5)  # 0.05, 0.1, 0.2, 0.4 s: under a second before giving up
_ERRORS = [ConnectionError, TimeoutError, ConnectionResetError, BrokenPipeError]
PATIENT_RETRIES = 8
_PATIENT_BACKOFF = dict(base=0.1, cap=2.0)  # about 9 s in all: a restart, a replica's promotion
# Behind Sentinel: 0.25, 0.5, 1, 2, 2, 2, 2 s, about 10 s, waits out a promotion (the
# sentinels' down-after time plus an election: 6 to 8 s with compose.yaml's settings).
SENTINEL_RETRIES = 7
# Workers wait about 30 s: on a loaded machine an election can take a second round, and
# a worker that gives up midway through recording an action's result leaves the user
# an "outcome unknown" card instead of a plain "Done".
PATIENT_SENTINEL_RETRIES = 18
_SENTINEL_BACKOFF = dict(base=0.25, cap=2.0)

# Asking a sentinel must not hang on one that is unreachable: the next one is asked instead.
# Sentinels are reached without a password (the password in the address is the primary's).
# Each lookup asks the sentinels in turn once; the retries above repeat the lookup.
_SENTINEL_OPTIONS = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}
# A primary that stopped answering (a machine gone, not a process) is given up on quickly.
_PRIMARY_OPTIONS = {"socket_connect_timeout": 2.0, "socket_keepalive": True}


class RediscoveringConnection(aiosentinel.SentinelManagedConnection):
    """Asks Sentinel for the primary on every reconnect, not only on the first connect.

    redis-py reconnects a connection that failed (the command being retried, the next
    command on a pooled connection) through `connect_check_health`, which skips Sentinel
    and goes back to the address it had: the dead primary, retried there until the
    retries run out. Looking the primary up there sends the retry to the promoted replica.
    One connection attempt per lookup: the command's own retry policy (its backoff) does
    the retrying, each time with a fresh answer from the sentinels.
    """

    async def connect_check_health(self, check_health: bool = True, retry_socket_connect: bool = True) -> None:
        if not self.is_connected and self.connection_pool.is_master:
            self.host, self.port = await self.connection_pool.get_master_address()
        await super().connect_check_health(check_health=check_health, retry_socket_connect=False)


class RediscoveringSyncConnection(SentinelManagedConnection):
    """`RediscoveringConnection` for the synchronous client (workers, the bot's stores).

    Without it a worker whose connection broke when the primary died kept reconnecting to
    the dead address until RQ gave up and the worker process quit, its job half done.
    """

    def connect_check_health(self, check_health: bool = True, retry_socket_connect: bool = True) -> None:
        if self._sock is None and self.connection_pool.is_master:
            self.host, self.port = self.connection_pool.get_master_address()
        super().connect_check_health(check_health=check_health, retry_socket_connect=False)


class BlockingSentinelPool(aiosentinel.SentinelConnectionPool, aioredis.BlockingConnectionPool):
    """Sentinel's pool that, like `BlockingConnectionPool`, makes a caller wait for a free connection."""


def _async_options(sentinel: bool = False) -> dict:
    backoff, retries = (_SENTINEL_BACKOFF, SENTINEL_RETRIES) if sentinel else (_BACKOFF, RETRIES)
    return {"retry": AsyncRetry(ExponentialBackoff(**backoff), retries), "retry_on_error": list(_ERRORS)}


def _sync_options(sentinel: bool = False, patient: bool = True) -> dict:
    if sentinel:
        backoff, retries = _SENTINEL_BACKOFF, PATIENT_SENTINEL_RETRIES if patient else SENTINEL_RETRIES
    else:
        backoff, retries = _PATIENT_BACKOFF, PATIENT_RETRIES
    return {"retry": Retry(ExponentialBackoff(**backoff), retries), "retry_on_error": list(_ERRORS)}


def async_pool(url: str, max_connections: int, timeout: float | None) -> aioredis.BlockingConnectionPool:
    """A bounded asyncio pool (a caller waits up to `timeout` for a free connection) that heals after restarts."""
    return aioredis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=timeout,
                                                    **_async_options())


def async_client(url: str, max_connections: int = 32, timeout: float | None = None) -> aioredis.Redis:
    address = parse_address(url)
    if address is not None:
        sentinel = aiosentinel.Sentinel(address.sentinels,
                                         sentinel_kwargs={**_SENTINEL_OPTIONS, "retry": AsyncRetry(NoBackoff(), 0)})
        return sentinel.master_for(address.master, redis_class=aioredis.Redis, connection_pool_class=BlockingSentinelPool,
                                   connection_class=RediscoveringConnection,
                                   max_connections=max_connections, timeout=timeout, db=address.db,
                                   password=address.password, **_PRIMARY_OPTIONS, **_async_options(sentinel=True))
    return aioredis.Redis.from_pool(async_pool(url, max_connections, timeout))


def sync_client(url: str, patient: bool = True) -> Redis:
    """A synchronous client for workers: it waits out a restart or a failover instead of failing.

    Nobody is waiting on a chat for a worker, and a failed call in the wrong place (RQ's
    bookkeeping while a job runs) stops the whole worker process, so it retries for longer.
    `patient=False` (the chat-facing processes) keeps redis-py's own short retries for a
    plain URL, and behind Sentinel waits about 10 s for a promotion instead of about 30.
    """
    address = parse_address(url)
    if address is not None:
        sentinel = Sentinel(address.sentinels, sentinel_kwargs={**_SENTINEL_OPTIONS, "retry": Retry(NoBackoff(), 0)})
        return sentinel.master_for(address.master, redis_class=Redis, connection_class=RediscoveringSyncConnection,
                                   db=address.db, password=address.password,
                                   **_PRIMARY_OPTIONS, **_sync_options(sentinel=True, patient=patient))
    return Redis.from_url(url, **_sync_options()) if patient else Redis.from_url(url)



def probe_client(url: str) -> Redis:
    """A client for health checks: no retries and one-second timeouts, so a probe answers quickly."""
    options = {"socket_timeout": 1.0, "socket_connect_timeout": 1.0, "retry": Retry(NoBackoff(), 0)}
    address = parse_address(url)
    if address is not None:
        sentinel = Sentinel(address.sentinels, sentinel_kwargs={**_SENTINEL_OPTIONS, "retry": Retry(NoBackoff(), 0)})
        return sentinel.master_for(address.master, redis_class=Redis, db=address.db, password=address.password,
                                   **options)
    return Redis.from_url(url, **options)
