"""Kill the bot in the window between recording a fetched update and confirming it.

The bot's long poll fetches an update, writes it to Redis, and only its *next* getUpdates
confirms it to Telegram. To land a SIGKILL in between, Redis is paused (SIGSTOP) before
the user texts: the bot fetches the message and sends the write, which waits, unread, in
Redis's socket. Once those bytes are there the bot is killed and Redis resumed: Redis
reads and runs the write of a client that is gone, and the update is recorded but never
confirmed. The restarted bot finds it in Redis *and* is handed it again by Telegram.

How many bytes wait in Redis's sockets from the bot's connections is read from
/proc/net/tcp (Linux), so the kill waits on an event, not on a guess of how long to wait.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from deputy.testing.stack import DeputyStack, RedisServer, wait_for

# The bot's record of one update is its whole JSON (a few hundred bytes); its other commands
# (a blocking read of the outbox, a health check) are a few dozen bytes each.
RECORD_BYTES = 300


def _socket_inodes(pids: list[int]) -> set[str]:
    inodes = set()
    for pid in pids:
        try:
            links = [os.readlink(entry) for entry in Path(f"/proc/{pid}/fd").iterdir()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        inodes |= {link[len("socket:["):-1] for link in links if link.startswith("socket:[")}
    return inodes


def _tcp_rows() -> list[tuple[int, int, int, str]]:
    """(local port, remote port, bytes received and not yet read, inode) of every IPv4 socket."""
    rows = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, queues, inode = fields[1], fields[2], fields[4], fields[9]
        rows.append((int(local.split(":")[1], 16), int(remote.split(":")[1], 16),
                     int(queues.split(":")[1], 16), inode))
    return rows


def unread_at_redis(redis_port: int, pids: list[int]) -> int:
    """Bytes the processes `pids` sent to Redis that Redis has not read yet."""
    rows = _tcp_rows()
    inodes = _socket_inodes(pids)
    ours = {local for local, remote, _, inode in rows if inode in inodes and remote == redis_port}
    return sum(unread for local, remote, unread, _ in rows if local == redis_port and remote in ours)


def kill_bot_between_write_and_confirm(stack: DeputyStack, redis_server: RedisServer,
                                       send: Callable[[], object], bot: str = "bot") -> bool:
    """Text with `send` while Redis is paused, SIGKILL the bot once its record of the update
    waits in Redis, resume Redis, start the bot again. True if the update was recorded that way."""
    redis_server.pause()
    try:
        before = unread_at_redis(redis_server.port, stack.pids(bot))
        send()
        try:
            wait_for(lambda: unread_at_redis(redis_server.port, stack.pids(bot)) >= before + RECORD_BYTES,
                     timeout=8, interval=0.01, what="the bot's record of the update to reach Redis")
            caught = True
        except TimeoutError:
            caught = False
        stack.kill(bot)
    finally:
        redis_server.resume()
    recorded = False
    with redis_server.client() as redis:
        try:
            recorded = caught and bool(wait_for(
                lambda: any(redis.hlen(key) for key in redis.scan_iter("deputy:polling:*:received")), timeout=10))
        except TimeoutError:
            pass
    stack.restart(bot)
    return recorded
