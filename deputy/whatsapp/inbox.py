"""What Meta delivered, recorded in Redis before the webhook answers, and handled after.

Meta waits only briefly for a webhook's 200 and retries with a growing backoff what was not
answered in time, so a slow answer delays the user by minutes. The webhook therefore only
checks the signature and records each message and status here (once: a delivery made again
records nothing new), answers 200, and :class:`InboxWorker` handles the records afterwards:
one user's in the order they came, different users' side by side. A record is acknowledged
once handled; one whose handling failed is tried again (a few times), and a process that
stops mid-way leaves its records to the next one, which takes them over.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
from typing import Any, Awaitable, Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

log = logging.getLogger(__name__)

INBOX_STREAM = "deputy:wa:inbox"
GROUP = "whatsapp"
_SEEN_KEY = "deputy:wa:inbox_seen:{}"
_TRIES_KEY = "deputy:wa:inbox_tries"
SEEN_SECONDS = 7 * 24 * 3600
"""Meta retries a delivery for up to seven days."""
MAX_TRIES = 3
RETRY_IDLE_MS = 5_000
"""A record not acknowledged this long (its handling failed, or its process stopped) is taken over."""
_MAXLEN = 100_000

# Record an item unless its key was seen: one round trip, so a crash cannot mark it seen yet unrecorded.
_RECORD = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'json', ARGV[3])
  return 1
end
return 0
"""

Item = dict[str, Any]
Handler = Callable[[Item], Awaitable[bool]]
"""Handles one item; False: not yet (try again later without counting a failure)."""


class Inbox:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis
        self._record = redis.register_script(_RECORD)

    async def record(self, items: list[tuple[str, Item]]) -> int:
        """Record each (key, item) whose key is new; how many were new. Raises RedisError."""
        new = 0
        for key, item in items:
            new += int(await self._record(keys=[_SEEN_KEY.format(key), INBOX_STREAM],
                                          args=[SEEN_SECONDS, _MAXLEN, json.dumps(item)]))
        return new


class InboxWorker:
    def __init__(self, redis: aioredis.Redis, handle: Handler, consumer: str | None = None) -> None:
        self._redis = redis
        self._handle = handle
        self._consumer = consumer or f"{socket.gethostname()}-{os.getpid()}"
        self._chains: dict[str, asyncio.Task] = {}  # user -> the task handling their latest record
        self._inflight: set[bytes] = set()  # records being handled here (not to be taken over again)

    async def run(self) -> None:
        """Handle records as they come, forever (without waiting for one user's slow handling to
        read the next records); survives Redis outages."""
        while True:
            try:
                await self.drain(block_ms=1000, wait=False)
            except asyncio.CancelledError:
                raise
            except RedisError as exc:
                log.warning("whatsapp inbox: Redis unavailable (%s); retrying in 2 s", exc)
                await asyncio.sleep(2)

    async def drain(self, block_ms: int | None = None, wait: bool = True) -> int:
        """Take over stale records, read new ones and start handling them; how many were started
        (`wait`: and handled)."""
        await self._ensure_group()
        _next, stale, *_ = await self._redis.xautoclaim(INBOX_STREAM, GROUP, self._consumer,
                                                        min_idle_time=RETRY_IDLE_MS, start_id="0-0", count=50)
        batch = await self._redis.xreadgroup(GROUP, self._consumer, {INBOX_STREAM: ">"}, count=50, block=block_ms)
        entries = [*(e for e in stale if e[1]), *(e for _stream, found in batch or [] for e in found)]
        tasks = [self._dispatch(entry_id, fields) for entry_id, fields in entries if entry_id not in self._inflight]
        if tasks and wait:
            await asyncio.gather(*tasks)
        return len(tasks)

    async def settle(self) -> None:
        """Handle until nothing new comes and nothing waits (tests; a clean stop)."""
        while await self.drain():
            pass

    def _dispatch(self, entry_id: bytes, fields: dict[bytes, bytes]) -> asyncio.Task:
        try:
            item = json.loads(fields[b"json"])
        except (KeyError, ValueError):
            item = {}
        user = str(item.get("user") or "")
        before = self._chains.get(user)
        task = asyncio.create_task(self._after(before, entry_id, item))
        self._chains[user] = task
        self._inflight.add(entry_id)

        def finished(done: asyncio.Task) -> None:
            self._inflight.discard(entry_id)
            if self._chains.get(user) is done:
                del self._chains[user]

        task.add_done_callback(finished)
        return task

    async def stop(self) -> None:
        """Let what is being handled finish (a record cut off now would be taken over later anyway)."""
        running = list(self._chains.values())
        if running:
            await asyncio.gather(*running, return_exceptions=True)

    async def _after(self, before: asyncio.Task | None, entry_id: bytes, item: Item) -> None:
        if before is not None:
            await asyncio.gather(before, return_exceptions=True)  # the same user's earlier record first
        try:
            done = await self._handle(item) if item else True
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - one record that fails must not stop the others
            log.exception("whatsapp inbox: could not handle a %s", item.get("kind", "record"))
            tries = int(await self._redis.hincrby(_TRIES_KEY, entry_id, 1))
            if tries < MAX_TRIES:
                return  # left pending: taken over again after a pause
            log.error("whatsapp inbox: gave up on a %s after %d tries", item.get("kind", "record"), tries)
            done = True
        if done:
            pipe = self._redis.pipeline(transaction=False)
            pipe.xack(INBOX_STREAM, GROUP, entry_id)
            pipe.xdel(INBOX_STREAM, entry_id)
            pipe.hdel(_TRIES_KEY, entry_id)
            try:
                await pipe.execute()
            except RedisError as exc:  # taken over later; the claims make a second handling a no-op
                log.warning("whatsapp inbox: could not acknowledge a record (%s)", exc)

    async def _ensure_group(self) -> None:
        try:
            await self._redis.xgroup_create(INBOX_STREAM, GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
