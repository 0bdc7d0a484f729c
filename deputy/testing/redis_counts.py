"""Counting the Redis commands a piece of work issues, on a private redis-server.

Three figures, because they answer different questions:

- ``sent``: the commands clients sent to Redis (MONITOR, less what scripts ran). A Lua
  script is one command however much it does; a MULTI/EXEC is its queued commands plus two.
- ``executed``: every command Redis ran, those inside scripts and transactions one by one
  (INFO commandstats): the work Redis did.
- ``round_trips``: requests this process wrote to Redis and waited on (redis-py's sends,
  sync and asyncio): a pipeline or a transaction is one, a script is one, a NOSCRIPT
  answer followed by the script's source is two.

Only work on a server nobody else uses is counted right: MONITOR and commandstats see
every client. The counter's own commands (INFO, MONITOR, the closing ECHO) are left out.
"""

from __future__ import annotations

import uuid
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import redis.asyncio.connection as async_connection
import redis.connection as sync_connection
from redis import Redis

_OWN = {"info", "monitor"}  # the counter's own commands, never the work's


@dataclass
class Counted:
    sent: int = 0
    executed: int = 0
    round_trips: int = 0
    commands: Counter = field(default_factory=Counter)  # command name -> times sent (script internals left out)
    executed_commands: Counter = field(default_factory=Counter)  # command name -> times run, scripts' included


def command_stats(redis: Redis) -> Counter:
    """Calls per command since the server started (or since CONFIG RESETSTAT)."""
    stats = redis.info("commandstats")
    return Counter({name.removeprefix("cmdstat_").split("|")[0]: int(value["calls"]) for name, value in stats.items()})


@contextmanager
def counting_round_trips() -> Iterator[list[int]]:
    """Counts the requests this process sends to any Redis (in `[0]` of the yielded list) while open."""
    sent = [0]
    sync_send = sync_connection.AbstractConnection.send_packed_command
    async_send = async_connection.AbstractConnection.send_packed_command

    def send(self, command, check_health=True):  # type: ignore[no-untyped-def]
        sent[0] += 1
        return sync_send(self, command, check_health)

    async def asend(self, command, check_health=True):  # type: ignore[no-untyped-def]
        sent[0] += 1
        return await async_send(self, command, check_health)

    sync_connection.AbstractConnection.send_packed_command = send  # type: ignore[method-assign]
    async_connection.AbstractConnection.send_packed_command = asend  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        sync_connection.AbstractConnection.send_packed_command = sync_send  # type: ignore[method-assign]
        async_connection.AbstractConnection.send_packed_command = async_send  # type: ignore[method-assign]


@contextmanager
def counting_commands(url: str, round_trips: bool = True) -> Iterator[Counted]:
    """Counts what Redis at `url` is asked and runs while the block runs; read the result after it."""
    counted = Counted()
    admin = Redis.from_url(url)
    monitor_client = Redis.from_url(url)
    admin.ping()  # its connection opened now, not in the middle of the count
    try:
        with monitor_client.monitor() as monitor:
            before = command_stats(admin)
            if round_trips:
                with counting_round_trips() as trips:
                    yield counted
                counted.round_trips = trips[0]
            else:
                yield counted
            marker = f"count-end-{uuid.uuid4().hex}"
            admin.echo(marker)
            after = command_stats(admin)
            while True:
                seen = monitor.next_command()
                if marker in seen["command"]:
                    break
                name = seen["command"].split(" ", 1)[0].lower()
                if name in _OWN:
                    continue
                if seen["client_type"] != "lua":
                    counted.commands[name] += 1
        counted.sent = sum(counted.commands.values())
        ran = after - before
        ran["echo"] -= 1  # the marker
        for name in _OWN:
            ran.pop(name, None)
        counted.executed_commands = +ran
        counted.executed = sum(counted.executed_commands.values())
    finally:
        monitor_client.close()
        admin.close()
