"""The poller lease across Redis outages (real redis-server, killed and started again, empty).

What a user notices: a lone bot keeps polling while Redis is down, so it can still say "I can't
reach my storage right now" instead of falling silent; once Redis is back (empty: it forgot the
lease), the bot holds the lease again and replays whatever was left, and a bot started meanwhile
still waits for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from deputy.bot.poller_lease import PollerLease
from deputy.bot.polling_turn import PollingTurn
from deputy.core.infrastructure.redis_clients import async_client
from deputy.testing.stack import RedisServer
from tests_support import eventually

BOT = 4242
LEASE_MS = 300  # renewed every 0.1 s: the test waits for renewals, not for seconds


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RedisServer]:
    redis_server = RedisServer(tmp_path / "redis").start()
    try:
        yield redis_server
    finally:
        redis_server.stop()


async def test_the_poller_polls_on_while_redis_is_down_and_holds_the_lease_again_when_redis_is_back(
    server: RedisServer,
) -> None:
    redis = async_client(server.url)
    taken: list[bool] = []
    lost: list[bool] = []

    async def on_taken(retaken: bool) -> None:
        taken.append(retaken)

    clock = Clock()
    turn = PollingTurn(retry_seconds=0.02, clock=clock)
    turn.attach(PollerLease(redis, BOT, "bot-a", lease_ms=LEASE_MS), on_taken, lambda: lost.append(True))
    other = PollerLease(async_client(server.url), BOT, "bot-b", lease_ms=LEASE_MS)
    try:
        await turn.wait()
        assert taken == [False] and await other.take() == "bot-a"

        server.kill()
        clock.now += 60  # long past the lease's lifetime: the poller must ask Redis, which is down
        assert await turn.confirm(), "it polls on"
        await turn.wait()  # and its next getUpdates goes out at once

        server.start()  # empty: the lease is gone
        await eventually(lambda: taken == [False, True], timeout=15)
        assert await other.take() == "bot-a", "a bot started now still waits"
        assert lost == []
    finally:
        await turn.close()
    assert await other.take() is None, "handed over on the way out"
