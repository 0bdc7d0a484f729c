"""One user's browser profile: how Chromium is launched for it, and the open session.

Each user gets `launch_persistent_context` on `<data_dir>/users/<user_id>/browser`: cookies
and logins persist for that user and no one else, since every profile is its own Chromium
process and directory. Downloads are refused, service workers blocked (their requests
would bypass routing), WebRTC is disabled (its UDP traffic bypasses both routing and the
proxy), and all traffic passes the user's own `PageGuard`: the route handler for every
request a page makes, the WebSocket handler for sockets, and the reviewing proxy
(`connectors.web.proxy`) for every connection Chromium opens, redirect hops included.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from playwright.async_api import BrowserContext, Page, Playwright
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, ConfigDict, Field

from connectors.base import ConnectorError, ConnectorUnavailable
from connectors.web.guard import PageGuard
from connectors.web.proxy import EgressProxy
from sentinel.egress_http import AsyncResolver

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
        self.proxy: EgressProxy | None = None
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
                # One tab per user keeps memory bounded; a tab that won't close is tried again next time.
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    await asyncio.wait_for(extra.close(), 5)
        else:
            self._page = await self.context.new_page()
        self._page.set_default_timeout(self.navigation_timeout_ms)
        return self._page

    async def close(self) -> None:
        """Close the profile's browser and its proxy (cookies stay on disk)."""
        self.closed = True
        try:
            await self.context.close()
        except PlaywrightError:
            pass  # already gone: a crashed browser has nothing left to close
        if self.proxy is not None:
            await self.proxy.close()


async def open_session(
    playwright: Playwright, config: BrowserConfig, user_id: int, resolver: AsyncResolver, clock: Callable[[], float]
) -> UserSession:
    """Launch the user's profile with its guard and proxy; `ConnectorUnavailable` if Chromium won't start."""
    profile = config.profile_dir(user_id)
    profile.mkdir(parents=True, exist_ok=True, mode=0o700)
    guard = PageGuard(resolver)
    proxy = EgressProxy(guard.review_connection)
    address = await proxy.start()
    try:
        context = await playwright.chromium.launch_persistent_context(
            profile,
            executable_path=config.executable_path,
            headless=True,
            chromium_sandbox=False,
            args=[*CHROMIUM_ARGS, *config.extra_args],
            accept_downloads=False,
            service_workers="block",
            viewport={"width": config.viewport_width, "height": config.viewport_height},
            permissions=[],
            # Every connection, redirect hops and loopback included, goes through the reviewing proxy.
            proxy={"server": address, "bypass": "<-loopback>", "username": proxy.username, "password": proxy.password},
        )
    except PlaywrightError as exc:
        failure = _launch_failure(str(exc))
        await proxy.close()
        raise failure from None
    await context.add_init_script(_NO_WEBRTC)
    context.on("request", guard.note_page_request)
    await context.route("**/*", guard.route)
    await context.route_web_socket("**/*", guard.websocket)
    session = UserSession(user_id, context, guard, clock)
    session.proxy = proxy
    session.navigation_timeout_ms = config.navigation_timeout * 1000
    session.content_wait_ms = config.content_wait * 1000
    return session


def _launch_failure(message: str) -> ConnectorError:
    if "ProcessSingleton" in message or "profile" in message.lower() and "in use" in message.lower():
        return ConnectorUnavailable(
            "Your browser profile is in use by another Deputy worker right now; try again in a moment.",
            detail=message[:500],
        )
    if "Executable doesn't exist" in message or "ENOENT" in message:
        return ConnectorUnavailable(
            "The web browser isn't installed on this server, so I can't open pages.", detail=message[:500]
        )
    return ConnectorUnavailable("The web browser failed to start.", detail=message[:500])
