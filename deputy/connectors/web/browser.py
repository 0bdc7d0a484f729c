"""One Chromium per user, started on demand with the user's stored state, closed when idle.

The executor is a synchronous RQ worker, but this module drives Playwright's *async* API
on a private event loop in a background thread, and `BrowserSessions.run` is the sync
door into it. Why not Playwright's sync API: it binds the browser to the thread that
started it and refuses to run where an asyncio loop is already running (an async test, an
asyncio executor later); it cannot close idle browsers on a timer; and Sentinel's route
handler (`deputy.sentinel.egress.transports.browser`) is async. One loop thread serves every user, so
a worker keeps one Playwright driver however many profiles are open.

Browsers (`deputy.connectors.web.session`) are opened on first use with the user's storage state
from `states` (`deputy.connectors.web.states`), reused while open, closed after `idle_seconds`
unused, and the least recently used idle one makes room when `max_open` are open. One
operation at a time per user.

With `slots` (`deputy.connectors.web.slots`) the cap holds across every executor: each open
browser holds a leased slot in Redis, renewed every second by the reaper below, and a step that
finds none free waits its turn (fairly between users), its user told once through `on_wait`
("Waiting for a browser: 2 ahead of yours."). While anyone waits, every executor closes its
least recently used idle browser to make room, and a browser whose step ends while others wait
is closed once it has been open `turn_seconds`, so users take turns.

After each operation the state is saved back; before each, an open browser whose state is older
than the stored one (another executor ran a step since) is replaced by a fresh one with the
newer state. Without `states` (tests of the connector alone) state lives only as long as the
open browser.

Fork safety: RQ's default worker forks per job. Nothing starts at construction; the loop
thread, driver and browsers start on first use in whichever process uses them, and a
forked child that inherits a started manager starts its own instead of touching the
parent's. With a forking worker each job therefore launches its profile afresh (about
half a second); a non-forking worker (`SimpleWorker`) reuses open profiles across jobs. A forked
child gives its slots back after each operation: its browser ends with the job's process, which
never closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Playwright, async_playwright
from redis.exceptions import RedisError

from deputy.core.records.effects import ConnectorError, ConnectorOutcomeUnknown, ConnectorUnavailable
from deputy.connectors.web.session import BrowserConfig, UserSession, open_session
from deputy.connectors.web.slots import BrowserSlots
from deputy.connectors.web.states import BrowserStates
from deputy.sentinel.egress.policy import Reviewer
from deputy.sentinel.egress.transports.http_client import AsyncResolver, async_system_resolver

log = logging.getLogger(__name__)

T = TypeVar("T")

OnWait = Callable[[int], None]
"""Called once when a step has to wait for a browser, with how many steps are ahead of it."""
SLOT_POLL = 0.25
"""Seconds between a waiting step's looks at the slots (each also renews its place in the queue)."""


class BrowserSessions:
    """Per-user persistent browser profiles behind a synchronous `run`; see the module docstring."""

    def __init__(
        self,
        config: BrowserConfig,
        *,
        states: BrowserStates | None = None,
        slots: BrowserSlots | None = None,
        resolver: AsyncResolver = async_system_resolver,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._states = states
        self._slots = slots
        self._made_in = os.getpid()
        self._resolver = resolver
        self._clock = clock
        self._start_lock = threading.Lock()
        self._owner_pid: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._playwright: Playwright | None = None
        self._sessions: dict[int, UserSession] = {}
        self._opening: dict[int, asyncio.Lock] = {}
        self._reaper: Future[None] | None = None

    def run(
        self, user_id: int, review: Reviewer, work: Callable[[UserSession], Awaitable[T]], on_wait: OnWait | None = None
    ) -> T:
        """Run `work` on the user's session with `review` guarding every request; blocks until done.

        Raises only `ConnectorError`s: a timeout or a browser crash becomes `ConnectorUnavailable`.
        `on_wait` hears once if the step must wait for a browser.
        """
        loop = self._ensure_loop()
        future = asyncio.run_coroutine_threadsafe(self._run(user_id, review, work, on_wait), loop)
        waits = self._config.slot_wait if self._slots is not None else 0
        try:
            return future.result(self._config.operation_timeout + waits + 15)
        except FutureTimeout:
            future.cancel()
        raise ConnectorUnavailable("The browser stopped responding, so I gave up on this page.")

    def open_users(self) -> list[int]:
        """Users whose profile is open right now."""
        return sorted(self._sessions.copy())

    def close(self) -> None:
        """Close every profile and the driver; the next `run` starts afresh."""
        if self._loop is None or self._owner_pid != os.getpid():
            return
        loop = self._loop
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(30)
        except Exception:  # closing is best effort: a hung browser must not hang the worker
            log.exception("closing the browsers failed")
        loop.call_soon_threadsafe(loop.stop)
        self._loop = None

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._start_lock:
            if self._loop is None or self._owner_pid != os.getpid():
                # A forked child inherits the parent's objects but not its thread: start anew.
                self._sessions, self._opening, self._playwright = {}, {}, None
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="deputy-browser", daemon=True).start()
                self._loop, self._owner_pid = loop, os.getpid()
                self._reaper = asyncio.run_coroutine_threadsafe(self._reap_forever(), loop)
            return self._loop

    async def _run(
        self, user_id: int, review: Reviewer, work: Callable[[UserSession], Awaitable[T]], on_wait: OnWait | None
    ) -> T:
        await self._drop_if_stale(user_id)
        session = await self._session(user_id, on_wait)
        while True:
            await session.lock.acquire()
            if not session.dead:
                break
            session.lock.release()  # closed to make room while we waited: open it again
            session = await self._session(user_id, on_wait)
        try:
            if self._slots is not None and session.slot is None:
                # A forked child gave the slot back after its last operation: this one needs it again.
                session.slot, session.slot_since = await self._take_slot(user_id, on_wait), self._clock()
            session.guard.begin(review)
            session.form_sent = False
            try:
                return await asyncio.wait_for(work(session), self._config.operation_timeout)
            except TimeoutError:
                failure: ConnectorError = ConnectorUnavailable("The page took too long, so I stopped waiting for it.")
            except ConnectorError as exc:
                failure = exc
            except PlaywrightError as exc:
                failure = ConnectorUnavailable("The browser failed while working on this page.", detail=str(exc)[:500])
            finally:
                session.guard.end()
                session.last_used = self._clock()
                await self._save(session)
                if os.getpid() != self._made_in:
                    # A forked job's process ends without closing its browser: its slot goes back now.
                    self._release(session)
        finally:
            session.lock.release()
            if self._slots is not None and session.slot is not None:
                # Runs once this step's outcome is settled below (no await before it is returned or raised).
                asyncio.get_running_loop().create_task(self._hand_over(session))
        if session.form_sent and session.dead and not isinstance(failure, ConnectorOutcomeUnknown):
            # The form went out before the browser died, so it may have been taken: the user decides, nobody retries.
            raise ConnectorOutcomeUnknown(
                "The browser stopped right after sending the form, so I can't tell whether it went through.",
                detail=failure.detail,
            ) from None
        raise failure

    async def _drop_if_stale(self, user_id: int) -> None:
        """Close the user's open browser if another executor saved a newer state since it was loaded."""
        session = self._sessions.get(user_id)
        if self._states is None or session is None or session.closed:
            return
        if self._states.version(user_id) != session.state_version:
            async with session.lock:
                if self._states.version(user_id) != session.state_version:
                    await self._close(user_id)

    async def _save(self, session: UserSession) -> None:
        """Store the user's cookies and local storage, so the next step finds them on any executor."""
        if self._states is None or session.closed:
            return
        try:
            state = await asyncio.wait_for(session.context.storage_state(), 15)
        except (PlaywrightError, TimeoutError):
            log.warning("the browser state could not be read after an operation; it was not saved")
            return
        try:
            session.state_version = self._states.save(session.user_id, state)
        except RedisError:
            # The operation itself went through; only the next step may have to sign in again.
            log.warning("the browser state could not be stored in Redis after an operation")

    async def _session(self, user_id: int, on_wait: OnWait | None = None) -> UserSession:
        session = self._sessions.get(user_id)
        if session is not None and not session.dead:
            return session
        opening = self._opening.setdefault(user_id, asyncio.Lock())
        async with opening:
            session = self._sessions.get(user_id)
            if session is not None and not session.dead:
                return session
            stale = self._sessions.pop(user_id, None)
            if stale is not None:
                await self._close_session(stale)  # a crashed browser's proxy and directory go too
            slot = await self._take_slot(user_id, on_wait) if self._slots is not None else await self._make_room()
            try:
                session = await self._launch(user_id)
            except BaseException:
                if slot is not None and self._slots is not None:
                    self._slots.release(slot)
                raise
            session.slot, session.slot_since = slot, self._clock()
            self._sessions[user_id] = session
            return session

    async def _take_slot(self, user_id: int, on_wait: OnWait | None) -> str:
        """A slot under the cap for a browser of `user_id`'s, waiting for its turn (told once) if none is free."""
        assert self._slots is not None
        slots = self._slots
        try:
            ticket = slots.ticket(user_id)
        except RedisError as exc:
            raise _no_slots(exc) from None
        deadline = self._clock() + self._config.slot_wait
        told = False
        try:
            while (ahead := slots.try_take(ticket)) is not None:
                if await self._close_idle():
                    continue  # one of ours made room: look again at once
                if not told and on_wait is not None:
                    told = True
                    try:
                        on_wait(ahead)
                    except Exception:  # the notice is a courtesy: the step goes on without it
                        log.exception("the user could not be told that their step waits for a browser")
                if self._clock() >= deadline:
                    raise ConnectorUnavailable(
                        "Every browser is busy with other users' steps, so I couldn't open the page; "
                        "try again in a few minutes."
                    )
                await asyncio.sleep(SLOT_POLL)
        except BaseException as exc:
            with contextlib.suppress(RedisError):
                slots.leave(ticket)
            if isinstance(exc, RedisError):
                raise _no_slots(exc) from None
            raise
        return ticket

    async def _hand_over(self, session: UserSession) -> None:
        """Close a browser whose step just ended if others wait and its turn is over: the next in line gets
        its slot, not this user's next step (which opens a fresh one with the same stored state in its turn)."""
        if self._clock() - session.slot_since < self._config.turn_seconds:
            return
        try:
            needed = self._slots is not None and self._slots.shortfall() > 0
        except RedisError:
            return
        if needed and not session.lock.locked() and self._sessions.get(session.user_id) is session:
            await self._close(session.user_id)

    async def _close_idle(self) -> bool:
        """Close this process's least recently used idle browser, if it has one (someone waits for its slot)."""
        idle = [s for s in self._sessions.values() if not s.lock.locked()]
        if not idle:
            return False
        await self._close(min(idle, key=lambda s: s.last_used).user_id)
        return True

    def _release(self, session: UserSession) -> None:
        if session.slot is not None and self._slots is not None:
            slot, session.slot = session.slot, None
            try:
                self._slots.release(slot)
            except RedisError:
                log.warning("a browser slot could not be given back; it frees when its lease ends")

    async def _close_session(self, session: UserSession) -> None:
        self._release(session)
        await session.close()

    async def _launch(self, user_id: int) -> UserSession:
        # A browser host always starts a worker; without one, `worker` says where the driver runs.
        separate = self._config.confined and (self._config.worker == "separate" or self._config.host_socket is not None)
        if self._playwright is None and not separate:
            self._playwright = await async_playwright().start()
        version, state = self._states.load(user_id) if self._states is not None else (0, None)
        # With a worker per browser, the driver is the worker's, never this process's.
        driver = None if separate else self._playwright
        session = await open_session(driver, self._config, user_id, self._resolver, self._clock, state)
        session.state_version = version
        return session

    async def _make_room(self) -> None:
        """Without slots in Redis: the cap in this process alone, where an idle browser makes room or the step fails."""
        while len(self._sessions) >= self._config.max_open:
            idle = [s for s in self._sessions.values() if not s.lock.locked()]
            if not idle:
                raise ConnectorUnavailable("The browser is busy with other work right now; try again in a moment.")
            await self._close(min(idle, key=lambda s: s.last_used).user_id)

    async def _close(self, user_id: int) -> None:
        session = self._sessions.pop(user_id, None)
        if session is not None:
            await self._close_session(session)

    async def _reap_forever(self) -> None:
        """Close idle browsers; with slots, also renew their leases and make room for anyone waiting."""
        interval = min(self._config.idle_seconds / 2, 30.0 if self._slots is None else 1.0)
        while True:
            await asyncio.sleep(interval)
            if self._slots is not None:
                try:
                    self._slots.renew(s.slot for s in list(self._sessions.values()) if s.slot is not None)
                    if self._slots.shortfall():
                        await self._close_idle()
                except RedisError:
                    log.warning("the browser slots could not be renewed in Redis; trying again in a moment")
            deadline = self._clock() - self._config.idle_seconds
            for session in list(self._sessions.values()):
                if session.last_used <= deadline and not session.lock.locked():
                    await self._close(session.user_id)

    async def _shutdown(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        for user_id in list(self._sessions):
            await self._close(user_id)
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None


def _no_slots(exc: RedisError) -> ConnectorUnavailable:
    return ConnectorUnavailable("The browser could not be started right now.", detail=f"browser slots: {exc}"[:300])
