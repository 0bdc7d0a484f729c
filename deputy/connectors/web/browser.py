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
operation at a time per user. After each operation the state is saved back; before each,
an open browser whose state is older than the stored one (another executor ran a step
since) is replaced by a fresh one with the newer state. Without `states` (tests of the
connector alone) state lives only as long as the open browser.

Fork safety: RQ's default worker forks per job. Nothing starts at construction; the loop
thread, driver and browsers start on first use in whichever process uses them, and a
forked child that inherits a started manager starts its own instead of touching the
parent's. With a forking worker each job therefore launches its profile afresh (about
half a second); a non-forking worker (`SimpleWorker`) reuses open profiles across jobs.
"""

from __future__ import annotations

import asyncio
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

from deputy.core.records.effects import ConnectorError, ConnectorUnavailable
from deputy.connectors.web.session import BrowserConfig, UserSession, open_session
from deputy.connectors.web.states import BrowserStates
from deputy.sentinel.egress.policy import Reviewer
from deputy.sentinel.egress.transports.http_client import AsyncResolver, async_system_resolver

log = logging.getLogger(__name__)

T = TypeVar("T")


class BrowserSessions:
    """Per-user persistent browser profiles behind a synchronous `run`; see the module docstring."""

    def __init__(
        self,
        config: BrowserConfig,
        *,
        states: BrowserStates | None = None,
        resolver: AsyncResolver = async_system_resolver,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._states = states
        self._resolver = resolver
        self._clock = clock
        self._start_lock = threading.Lock()
        self._owner_pid: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._playwright: Playwright | None = None
        self._sessions: dict[int, UserSession] = {}
        self._opening: dict[int, asyncio.Lock] = {}
        self._reaper: Future[None] | None = None

    def run(self, user_id: int, review: Reviewer, work: Callable[[UserSession], Awaitable[T]]) -> T:
        """Run `work` on the user's session with `review` guarding every request; blocks until done.

        Raises only `ConnectorError`s: a timeout or a browser crash becomes `ConnectorUnavailable`.
        """
        loop = self._ensure_loop()
        future = asyncio.run_coroutine_threadsafe(self._run(user_id, review, work), loop)
        try:
            return future.result(self._config.operation_timeout + 15)
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

    async def _run(self, user_id: int, review: Reviewer, work: Callable[[UserSession], Awaitable[T]]) -> T:
        await self._drop_if_stale(user_id)
        session = await self._session(user_id)
        while True:
            await session.lock.acquire()
            if not session.closed:
                break
            session.lock.release()  # closed to make room while we waited: open it again
            session = await self._session(user_id)
        try:
            session.guard.begin(review)
            try:
                return await asyncio.wait_for(work(session), self._config.operation_timeout)
            except TimeoutError:
                failure: ConnectorError = ConnectorUnavailable("The page took too long, so I stopped waiting for it.")
            except ConnectorError:
                raise
            except PlaywrightError as exc:
                failure = ConnectorUnavailable("The browser failed while working on this page.", detail=str(exc)[:500])
            finally:
                session.guard.end()
                session.last_used = self._clock()
                await self._save(session)
        finally:
            session.lock.release()
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

    async def _session(self, user_id: int) -> UserSession:
        session = self._sessions.get(user_id)
        if session is not None and not session.closed:
            return session
        opening = self._opening.setdefault(user_id, asyncio.Lock())
        async with opening:
            session = self._sessions.get(user_id)
            if session is not None and not session.closed:
                return session
            self._sessions.pop(user_id, None)
            await self._make_room()
            session = await self._launch(user_id)
            self._sessions[user_id] = session
            return session

    async def _launch(self, user_id: int) -> UserSession:
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        version, state = self._states.load(user_id) if self._states is not None else (0, None)
        session = await open_session(self._playwright, self._config, user_id, self._resolver, self._clock, state)
        session.state_version = version
        return session

    async def _make_room(self) -> None:
        while len(self._sessions) >= self._config.max_open:
            idle = [s for s in self._sessions.values() if not s.lock.locked()]
            if not idle:
                raise ConnectorUnavailable("The browser is busy with other work right now; try again in a moment.")
            await self._close(min(idle, key=lambda s: s.last_used).user_id)

    async def _close(self, user_id: int) -> None:
        session = self._sessions.pop(user_id, None)
        if session is not None:
            await session.close()

    async def _reap_forever(self) -> None:
        interval = min(self._config.idle_seconds / 2, 30.0)
        while True:
            await asyncio.sleep(interval)
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
