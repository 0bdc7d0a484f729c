"""One model endpoint's capacity: calls beyond it wait in the gateway, taking turns between users.

A llama-server with one slot answers one call at a time and queues the rest itself, first
come, with the client's timeout already running: sending it five hundred calls turns the
wait for a slot into timeouts, retries and abandoned requests that still cost it CPU. So
the gateway sends at most `capacity` calls at once and keeps the rest here, served round
robin between users (`deputy.gateway.fair_queue`); the model's timeout starts when a call is sent.
A hosted provider's limits fit the same shape: its concurrency is the capacity, its
requests per minute space the calls out, and a 429 pauses every call for Retry-After.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager

from deputy.gateway.fair_queue import FairQueue


class EndpointSlots:
    def __init__(self, capacity: int, requests_per_minute: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if capacity < 1:
            raise ValueError("an endpoint needs at least one slot")
        self.capacity = capacity
        self._interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._clock = clock
        self._busy = 0
        self._queue: FairQueue[Hashable, Hashable] = FairQueue()
        self._waiters: dict[Hashable, asyncio.Future[None]] = {}
        self._resume_at = 0.0  # no call before this (the provider asked us to wait)
        self._next_start = 0.0  # no call before this (requests per minute)

    @property
    def busy(self) -> int:
        return self._busy

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def ahead(self, key: Hashable) -> int | None:
        """Calls that go before the waiting call `key`; None when it is not waiting for a slot."""
        return self._queue.ahead(key) if key in self._queue else None

    def back_off(self, seconds: float) -> None:
        self._resume_at = max(self._resume_at, self._clock() + seconds)

    @asynccontextmanager
    async def turn(self, user: Hashable, key: Hashable) -> AsyncIterator[None]:
        """Hold one of the endpoint's slots (waiting for it fairly) for one call."""
        await self._acquire(user, key)
        try:
            await self._pace()
            yield
        finally:
            self._release()

    async def _acquire(self, user: Hashable, key: Hashable) -> None:
        if self._busy < self.capacity and not self._queue:
            self._busy += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters[key] = waiter
        self._queue.push(user, key)
        try:
            await waiter
        except asyncio.CancelledError:
            # Nobody waits for this call any more. If the slot was granted meanwhile, pass it on.
            if not self._queue.remove(key) and waiter.done() and not waiter.cancelled():
                self._release()
            raise
        finally:
            self._waiters.pop(key, None)

    def _release(self) -> None:
        self._busy -= 1
        while self._busy < self.capacity and (turn := self._queue.pop()) is not None:
            waiter = self._waiters.get(turn[1])
            if waiter is not None and not waiter.done():
                self._busy += 1
                waiter.set_result(None)

    async def _pace(self) -> None:
        while (wait := max(self._resume_at, self._next_start) - self._clock()) > 0:
            await asyncio.sleep(wait)
        if self._interval:
            self._next_start = max(self._clock(), self._next_start) + self._interval
