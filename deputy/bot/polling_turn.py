"""Poll only in one's turn: the poller lease (`deputy.bot.poller_lease`) in front of getUpdates.

:class:`TurnGatedRequest` is PTB's getUpdates transport; before each getUpdates it awaits
:meth:`PollingTurn.wait`, which returns at once while this process holds the lease. A process
that does not hold it waits there, its Updater blocked in the request: it logs once that
another bot process is polling and that it takes over when that one stops, and tries again
every second. Once it has the lease, `on_taken` runs before the first poll (the durable queue
replays what a dead poller received and never handled), and a keeper task renews the lease
every third of its lifetime.

- A graceful stop releases the lease after the application handled what it fetched
  (:meth:`PollingTurn.close`, from post_stop): the waiting process polls within a second.
- A killed process stops renewing: the lease lapses and a waiting process takes over within
  `LEASE_MS` (5 s) and a second.
- If another process holds the lease now (this one stalled longer than the lease, or Redis lost
  the key and the other took it first), this one has lost it: `on_lost` runs (what it fetched and
  has not begun to handle is the new poller's, which replayed it) and its next getUpdates waits.
- A handler about to start after the lease's lifetime went by without a renewal (the process
  stalled) asks Redis first (:meth:`PollingTurn.confirm`), so a stalled process does not handle
  what the process that took over is handling.
- Redis unreachable: the holder polls on, as a lone bot must keep answering users ("I can't reach
  my storage right now") rather than fall silent; nobody can take the lease meanwhile.

A getUpdates with no long poll (timeout 0: the Updater confirming its last batch on the way
out) is answered empty, unsent, by a process that does not hold the lease, so a waiting
process that is stopped leaves at once and never terminates the poller's long poll.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from typing import Any

from redis.exceptions import RedisError
from telegram.request import BaseRequest, RequestData

from deputy.bot.poller_lease import PollerLease, Renewal

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0
"""How often a waiting process tries to take the lease."""
_NO_UPDATES = b'{"ok":true,"result":[]}'


class PollingTurn:
    """This process's side of the poller lease (attach it once the bot's id is known)."""

    def __init__(self, retry_seconds: float = RETRY_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self._lease: PollerLease | None = None
        self._on_taken: Callable[[bool], Awaitable[None]] | None = None
        self._on_lost: Callable[[], None] | None = None
        self._retry = retry_seconds
        self._clock = clock
        self._holding = False
        self._valid_until = 0.0  # this process's clock: the lease cannot have lapsed before
        self._unreachable = False
        self._told_waiting = False
        self._renewal: asyncio.Future[None] | None = None
        self._keeper: asyncio.Task[None] | None = None

    def attach(self, lease: PollerLease, on_taken: Callable[[bool], Awaitable[None]],
               on_lost: Callable[[], None]) -> None:
        """`on_taken(retaken)` runs each time the lease becomes this process's (`retaken`: it had lapsed
        while this process held it); `on_lost` when another process took it."""
        self._lease, self._on_taken, self._on_lost = lease, on_taken, on_lost

    @property
    def lease(self) -> PollerLease | None:
        return self._lease

    @property
    def holding(self) -> bool:
        return self._holding

    async def wait(self) -> None:
        """Return once this process holds the lease (at once while it does)."""
        if await self.confirm():
            return
        lease = self._attached()
        while True:
            began = self._clock()
            try:
                holder = await lease.take()
            except RedisError as exc:
                if not self._unreachable:
                    log.warning("cannot reach Redis to take the poller lease (%s); trying every second", exc)
                self._unreachable = True
                await asyncio.sleep(self._retry)
                continue
            self._unreachable = False
            if holder is None:
                break
            if not self._told_waiting:
                log.warning("another bot process (%s) is polling Telegram for this bot; this one waits and "
                            "takes over when that one stops", holder)
                self._told_waiting = True
            await asyncio.sleep(self._retry)
        if self._told_waiting:
            log.warning("the other bot process stopped polling; this one polls now")
            self._told_waiting = False
        await self._taken(began, retaken=False)
        if self._keeper is None or self._keeper.done():
            self._keeper = asyncio.create_task(self._keep(), name="poller lease")

    async def confirm(self) -> bool:
        """True while the lease is ours: at once within its lifetime, else once Redis says so."""
        if not self._holding:
            return False
        if self._unreachable or self._clock() < self._valid_until:
            return True
        await self._renew()  # stalled past the lease's lifetime: another process may have it now
        return self._holding

    def lost(self) -> None:
        """Another process holds the lease now: stop polling; what was fetched and not begun is theirs."""
        if not self._holding:
            return
        self._holding = False
        log.warning("another bot process took over polling Telegram for this bot; this one stops polling and "
                    "waits for its turn")
        if self._on_lost is not None:
            self._on_lost()

    async def close(self) -> None:
        """Stop renewing and hand the lease over (after the application handled what it fetched)."""
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.gather(self._keeper, return_exceptions=True)
            self._keeper = None
        if self._holding and self._lease is not None:
            self._holding = False
            try:
                await self._lease.release()
            except RedisError as exc:  # it lapses on its own within LEASE_MS
                log.warning("could not release the poller lease: %s", exc)

    def _attached(self) -> PollerLease:
        if self._lease is None:
            raise RuntimeError("the polling turn is used before it was attached")
        return self._lease

    def _held_from(self, began: float) -> None:
        # Counted from before the command was sent: Redis's expiry cannot come sooner.
        self._holding = True
        self._valid_until = began + self._attached().lease_ms / 1000

    async def _taken(self, began: float, retaken: bool) -> None:
        self._held_from(began)
        if self._on_taken is None:
            return
        try:
            await self._on_taken(retaken)
        except RedisError as exc:
            # Nothing polled yet: the next getUpdates takes the lease (ours still) and replays again.
            log.warning("cannot reach Redis to replay what was left before polling (%s); trying again", exc)
            self._holding = False

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self._attached().lease_ms / 1000 / 3)
            if self._holding:
                try:
                    await self._renew()
                except Exception:  # noqa: BLE001 - a bug here must not stop the renewals
                    log.exception("poller lease: unexpected error while renewing")

    async def _renew(self) -> None:
        # One renewal at a time: the keeper and a handler that found the lifetime gone share it.
        if self._renewal is None or self._renewal.done():
            self._renewal = asyncio.ensure_future(self._renew_once())
        await asyncio.shield(self._renewal)

    async def _renew_once(self) -> None:
        began = self._clock()
        try:
            renewal = await self._attached().renew()
        except RedisError as exc:
            if not self._unreachable:
                log.warning("cannot reach Redis to renew the poller lease (%s); polling on meanwhile", exc)
            self._unreachable = True
            return
        if self._unreachable:
            log.info("Redis answers again; the poller lease is renewed")
            self._unreachable = False
        if renewal is Renewal.lost:
            self.lost()
        elif renewal is Renewal.retaken:
            log.info("the poller lease had lapsed and nobody held it; this process holds it again")
            await self._taken(began, retaken=True)
        else:
            self._held_from(began)


class TurnGatedRequest(BaseRequest):
    """PTB's getUpdates transport: each getUpdates waits for this process's turn to poll."""

    def __init__(self, inner: BaseRequest, turn: PollingTurn,
                 before_poll: Callable[[], Awaitable[None]] | None = None) -> None:
        """`before_poll` runs before each getUpdates is sent: the one that confirms the last batch."""
        self._inner = inner
        self._turn = turn
        self._before_poll = before_poll

    @property
    def read_timeout(self) -> float | None:
        return self._inner.read_timeout

    async def initialize(self) -> None:
        await self._inner.initialize()

    async def shutdown(self) -> None:
        await self._inner.shutdown()

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         *timeouts: Any, **named_timeouts: Any) -> tuple[int, bytes]:
        if url.rstrip("/").rsplit("/", 1)[-1].lower() == "getupdates":
            if not self._turn.holding and not _long_poll(request_data):
                return 200, _NO_UPDATES
            await self._turn.wait()
            if self._before_poll is not None:
                await self._before_poll()
        return await self._inner.do_request(url, method, request_data, *timeouts, **named_timeouts)


def _long_poll(request_data: RequestData | None) -> bool:
    timeout = request_data.parameters.get("timeout") if request_data is not None else None
    return isinstance(timeout, (int, float)) and timeout > 0
