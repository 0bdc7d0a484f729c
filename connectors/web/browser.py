"""One Chromium profile per user, started on demand and closed when idle.

The executor is a synchronous RQ worker, but this module drives Playwright's *async* API
on a private event loop in a background thread, and `BrowserSessions.run` is the sync
door into it. Why not Playwright's sync API: it binds the browser to the thread that
started it and refuses to run where an asyncio loop is already running (an async test, an
asyncio executor later); it cannot close idle browsers on a timer; and Sentinel's route
handler (`sentinel.egress_browser`) is async. One loop thread serves every user, so
a worker keeps one Playwright driver however many profiles are open.

Each user gets `launch_persistent_context` on `<data_dir>/users/<user_id>/browser`: cookies
and logins persist for that user and no one else, since every profile is its own Chromium
process and directory. Downloads are refused, service workers blocked (their requests
would bypass routing), and every request passes `connectors.web.guard.PageGuard`.

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
from pathlib import Path
from typing import TypeVar

from playwright.async_api import BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, ConfigDict, Field

from connectors.base import ConnectorError, ConnectorUnavailable
from connectors.web.guard import PageGuard
from sentinel.egress import Reviewer
from sentinel.egress_http import AsyncResolver, async_system_resolver

log = logging.getLogger(__name__)

T = TypeVar("T")

CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Name lookups for links the page merely shows would tell DNS servers what it contains.
    "--dns-prefetch-disable",
    # WebRTC's STUN/UDP traffic is invisible to request routing; with no proxy it cannot start.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)
# Belt and braces for WebRTC: without the constructors a page cannot open a peer connection.
_NO_WEBRTC = "for (const n of ['RTCPeerConnection','webkitRTCPeerConnection','RTCDataChannel']) { try { delete window[n]; } catch (e) {} }"


class BrowserConfig(BaseModel):
    """Where profiles live and how long the browser may take; read once by the entry point."""

    model_config = ConfigDict(frozen=True)

    data_dir: Path
    executable_path: str = "/usr/bin/chromium"
    extra_args: tuple[str, ...] = ()
    idle_seconds: float = Field(default=300, gt=0)
    """A profile unused this long is closed (its cookies stay on disk)."""
    max_open: int = Field(default=4, ge=1)
    """Most profiles open at once; the least recently used idle one makes room."""
    navigation_timeout: float = Field(default=20, gt=0)
    """Seconds a site may take to start answering (and a click's navigation to finish)."""
    content_wait: float = Field(default=8, gt=0)
    """Seconds to wait for a page to be parsed before reading what has arrived so far."""
    operation_timeout: float = Field(default=60, gt=0)
    viewport_width: int = Field(default=1280, ge=200, le=4000)
    viewport_height: int = Field(default=900, ge=200, le=4000)

    def profile_dir(self, user_id: int) -> Path:
        """`<data_dir>/users/<user_id>/browser`: this user's cookies, storage and logins."""
        return self.data_dir / "users" / str(int(user_id)) / "browser"


class UserSession:
    """One user's open profile: its context, guard and current tab. Used by one operation at a time."""

    def __init__(self, user_id: int, context: BrowserContext, guard: PageGuard, clock: Callable[[], float]) -> None:
        self.user_id = user_id
        self.context = context
        self.guard = guard
        self.lock = asyncio.Lock()
        self.last_used = clock()
        self.navigation_timeout_ms = 20_000.0
        self.content_wait_ms = 8_000.0
        self.incomplete = False
        """The last page loaded was read before it had fully arrived."""
        self.closed = False
        self.requested_url: str | None = None
        """The address last loaded, which the tab may show under another (redirected) URL..."""
        self.landed_url: str | None = None
        """...this one."""
        self._page: Page | None = None
        context.on("close", self._mark_closed)

    def _mark_closed(self, _: object) -> None:
        self.closed = True

    async def page(self) -> Page:
        """The tab operations act on: the newest open one (a link may have opened a new tab)."""
        open_pages = [p for p in self.context.pages if not p.is_closed()]
        if open_pages:
            self._page = open_pages[-1]
            for extra in open_pages[:-1]:
                await extra.close()  # one tab per user keeps memory bounded
        else:
            self._page = await self.context.new_page()
        self._page.set_default_timeout(self.navigation_timeout_ms)
        return self._page


class BrowserSessions:
    """Per-user persistent browser profiles behind a synchronous `run`; see the module docstring."""

    def __init__(
        self,
        config: BrowserConfig,
        *,
        resolver: AsyncResolver = async_system_resolver,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
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
            except asyncio.TimeoutError:
                failure: ConnectorError = ConnectorUnavailable("The page took too long, so I stopped waiting for it.")
            except ConnectorError:
                raise
            except PlaywrightError as exc:
                failure = ConnectorUnavailable("The browser failed while working on this page.", detail=str(exc)[:500])
            finally:
                session.guard.end()
                session.last_used = self._clock()
        finally:
            session.lock.release()
        raise failure

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
        profile = self._config.profile_dir(user_id)
        profile.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        guard = PageGuard(self._resolver)
        try:
            context = await self._playwright.chromium.launch_persistent_context(
                profile,
                executable_path=self._config.executable_path,
                headless=True,
                chromium_sandbox=False,
                args=[*CHROMIUM_ARGS, *self._config.extra_args],
                accept_downloads=False,
                service_workers="block",
                viewport={"width": self._config.viewport_width, "height": self._config.viewport_height},
                permissions=[],
            )
        except PlaywrightError as exc:
            failure = _launch_failure(str(exc))
        else:
            await context.add_init_script(_NO_WEBRTC)
            await context.route("**/*", guard.route)
            await context.route_web_socket("**/*", guard.websocket)
            session = UserSession(user_id, context, guard, self._clock)
            session.navigation_timeout_ms = self._config.navigation_timeout * 1000
            session.content_wait_ms = self._config.content_wait * 1000
            return session
        raise failure

    async def _make_room(self) -> None:
        while len(self._sessions) >= self._config.max_open:
            idle = [s for s in self._sessions.values() if not s.lock.locked()]
            if not idle:
                raise ConnectorUnavailable("The browser is busy with other work right now; try again in a moment.")
            await self._close(min(idle, key=lambda s: s.last_used).user_id)

    async def _close(self, user_id: int) -> None:
        session = self._sessions.pop(user_id, None)
        if session is None:
            return
        session.closed = True
        try:
            await session.context.close()
        except PlaywrightError:
            log.warning("closing the browser profile of user %s failed", user_id)

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


def _launch_failure(message: str) -> ConnectorError:
    if "ProcessSingleton" in message or "profile" in message.lower() and "in use" in message.lower():
        return ConnectorUnavailable(
            "Your browser profile is in use by another Deputy worker right now; try again in a moment.",
            detail=message[:500],
        )
    if "Executable doesn't exist" in message or "ENOENT" in message:
        return ConnectorUnavailable("The web browser isn't installed on this server, so I can't open pages.",
                                    detail=message[:500])
    return ConnectorUnavailable("The web browser failed to start.", detail=message[:500])

