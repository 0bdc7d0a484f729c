"""Clients built from a Sentinel address follow a failover; the executor's confirmation waits for a replica."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from deputy.core.infrastructure.redis_clients import async_client, sync_client
from deputy.testing.redis_failover import RedisFailoverSet
from deputy.queue.replication import PROBE_KEY, async_replica_confirmation, replica_confirmation

pytestmark = pytest.mark.slow


@pytest.fixture
def failover(tmp_path: Path) -> Iterator[RedisFailoverSet]:
    servers = RedisFailoverSet(tmp_path / "redis").start()
    yield servers
    servers.stop()


async def blocked_on_the_primary(failover: RedisFailoverSet, count: int) -> None:
    """Return once `count` clients wait in BLPOP on the primary, letting the loop run their calls meanwhile."""
    primary = failover.client(failover.primary())
    while sum(client["cmd"] == "blpop" for client in primary.client_list()) < count:
        await asyncio.sleep(0.05)


def test_both_clients_write_to_the_promoted_replica_after_the_primary_dies(failover: RedisFailoverSet) -> None:
    sync, loop = sync_client(failover.url), asyncio.new_event_loop()
    asynchronous = async_client(failover.url, max_connections=2, timeout=5)
    sync.set("before", "1")
    loop.run_until_complete(asynchronous.set("before-async", "1"))  # pooled connections to the primary

    old = failover.kill_primary()
    sync.set("after", "2")  # waits out the promotion instead of failing
    loop.run_until_complete(asynchronous.set("after-async", "2"))

    promoted = failover.client(failover.primary())
    assert failover.primary() != old
    assert promoted.mget("before", "after", "before-async", "after-async") == [b"1", b"2", b"1", b"2"]
    loop.run_until_complete(asynchronous.aclose())
    loop.close()


def test_a_command_waiting_on_the_primary_when_it_dies_carries_on_on_the_promoted_replica(
    failover: RedisFailoverSet,
) -> None:
    """A worker blocked on its queue, or in the middle of a job, when the primary dies must
    reconnect to the promoted replica, not keep knocking on the dead primary until it gives up."""
    sync, loop = sync_client(failover.url), asyncio.new_event_loop()
    asynchronous = async_client(failover.url, max_connections=2, timeout=5)
    results: dict[str, object] = {}

    def wait_for_job() -> None:
        try:
            results["sync"] = sync.blpop(["jobs"], timeout=15)
        except Exception as exc:  # what a worker would die of
            results["sync"] = exc

    waiter = threading.Thread(target=wait_for_job)
    waiter.start()
    waiting_async = loop.create_task(asynchronous.blpop(["jobs-async"], timeout=15))
    loop.run_until_complete(asyncio.wait_for(blocked_on_the_primary(failover, count=2), 10))

    old = failover.kill_primary()
    promoted = failover.client(failover.wait_for_promotion(old))
    promoted.rpush("jobs", "step")
    promoted.rpush("jobs-async", "step")
    waiter.join(timeout=40)
    assert results["sync"] == (b"jobs", b"step")
    assert tuple(loop.run_until_complete(asyncio.wait_for(waiting_async, 40))) == (b"jobs-async", b"step")
    loop.run_until_complete(asynchronous.aclose())
    loop.close()


def test_the_confirmation_says_whether_a_replica_has_the_writes(failover: RedisFailoverSet) -> None:
    client = sync_client(failover.url)
    confirm = replica_confirmation(client, timeout_ms=300)
    client.set("started", "yes")
    assert confirm() is True
    replica = next(name for name in failover.ports if name != failover.primary())
    assert failover.client(replica).get("started") == b"yes"

    failover.stop_process(replica)
    assert confirm() is False  # said (and logged), not waited on forever


def test_the_asyncio_confirmation_says_whether_a_replica_has_the_writes(failover: RedisFailoverSet) -> None:
    loop = asyncio.new_event_loop()
    client = async_client(failover.url, max_connections=2, timeout=5)
    confirm = async_replica_confirmation(client, timeout_ms=300)
    loop.run_until_complete(client.set("recorded", "yes"))
    assert loop.run_until_complete(confirm()) is True
    assert failover.client(failover.replica()).get("recorded") == b"yes"

    failover.stop_process(failover.replica())
    assert loop.run_until_complete(confirm()) is False
    loop.run_until_complete(client.aclose())
    loop.close()


def test_without_sentinel_the_confirmation_writes_nothing(redis) -> None:
    from redis import Redis

    plain = Redis(connection_pool=redis.connection_pool)
    assert replica_confirmation(plain)() is True
    assert redis.exists(PROBE_KEY) == 0
