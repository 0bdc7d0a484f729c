"""One user's browser: how Chromium is launched for it, and the open session.

Each user gets their own Chromium process with one fresh context, loaded with the user's
storage state (cookies, local storage) from Redis (`deputy.connectors.web.states`) and saved back
after every operation, so logins follow the user to whichever executor runs the next step
and nothing of it is written to this machine's disk. Downloads are refused, service workers blocked (their requests
would bypass routing), WebRTC is disabled (its UDP traffic bypasses both routing and the
proxy), and all traffic passes the user's own `PageGuard`: the route handler for every
request a page makes, the WebSocket handler for sockets, and the reviewing proxy
(`deputy.connectors.web.proxy`) for every connection Chromium opens, redirect hops included.

Chromium runs confined (`deputy.connectors.web.launcher`): its own sandbox on, inside a
bubblewrap sandbox as an unprivileged uid, with no network but its proxy's socket. Only an
operator switching `confined` off runs it as Deputy's own user, with no sandbox of either kind.
Its driver runs in a keyless worker per browser (`deputy.connectors.web.worker`), started by this
process or, with `BrowserConfig.host_socket`, by the browser host (`deputy.connectors.web.hosted_worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Browser, BrowserContext, Page, Playwright
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, ConfigDict, Field

from deputy.core.records.effects import ConnectorError, ConnectorUnavailable
from deputy.connectors.web.confinement import INSTALL_HINT, RELAY_PORT, BrowserBox, confinement_problem
from deputy.connectors.web.guard import PageGuard
from deputy.connectors.web.host_protocol import new_proxy_socket_name
from deputy.connectors.web.hosted_worker import HostRefused, start_hosted_worker
from deputy.connectors.web.proxy import EgressProxy
from deputy.connectors.web.worker import BrowserWorker, start_worker
from deputy.sentinel.egress.transports.http_client import AsyncResolver

CHROMIUM_ARGS = (
    "--headless",
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
    """How the browser is launched and how long it may take; read once by the entry point."""

    model_config = ConfigDict(frozen=True)

    executable_path: str = "/usr/bin/chromium"
    confined: bool = True
    """Run Chromium in bubblewrap with its own sandbox on; off only where user namespaces are unavailable."""
    bwrap_path: str = "/usr/bin/bwrap"
    worker: Literal["separate", "inline"] = "separate"
    """Where Playwright's driver runs for a confined browser: a keyless worker of its own per user
    (`deputy.connectors.web.worker`), or inside this process. Unconfined browsers always run inline."""
    host_socket: str | None = None
    """The browser host's Unix socket (`deputy.connectors.web.host`): set, each confined browser's worker is
    started by that process, not as a child of this one, and the reviewing proxy listens beside it."""
    extra_args: tuple[str, ...] = ()
    idle_seconds: float = Field(default=300, gt=0)
    """A browser unused this long is closed (its state stays in Redis)."""
    max_open: int = Field(default=4, ge=1)
    """Most browsers open at once: on the whole deployment when the manager has slots in Redis
    (`deputy.connectors.web.slots`), else in this process. An idle one makes room; a step that finds
    none waits its turn."""
    slot_wait: float = Field(default=90, gt=0)
    """Seconds a step waits for a browser before it gives up (with slots in Redis)."""
    turn_seconds: float = Field(default=20, ge=0)
    """While others wait, a browser open at least this long is closed when its step ends, so its slot
    goes to the next in line (a shorter turn is fairer, and costs more launches)."""
    navigation_timeout: float = Field(default=20, gt=0)
    """Seconds a site may take to start answering (and a click's navigation to finish)."""
    content_wait: float = Field(default=8, gt=0)
    """Seconds to wait for a page to be parsed before reading what has arrived so far."""
    operation_timeout: float = Field(default=60, gt=0)
    viewport_width: int = Field(default=1280, ge=200, le=4000)
    viewport_height: int = Field(default=900, ge=200, le=4000)


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
        self.browser: Browser | None = None
        self.box: BrowserBox | None = None
        """The confined browser's launcher and proxy socket (None when it runs unconfined)."""
        self.worker: BrowserWorker | None = None
        """The keyless process driving this browser (None when the driver is this process's own)."""
        self.slot: str | None = None
        """The ticket of the slot this browser holds under the cap (None: no slot, or not capped)."""
        self.slot_since = self.last_used
        """When it got its slot (by the manager's clock): its turn is measured from there."""
        self.form_sent = False
        """The current operation has sent a form: were the browser to die now, its outcome is unknown."""
        self.state_version = 0
        """The version of the stored state this context holds (loaded or last saved)."""
        self.requested_url: str | None = None
        """The address last loaded, which the tab may show under another (redirected) URL..."""
        self.landed_url: str | None = None
        """...this one."""
        self._page: Page | None = None
        context.on("close", self._mark_closed)

    def _mark_closed(self, _: object) -> None:
        self.closed = True

    @property
    def dead(self) -> bool:
        """The browser is gone (closed, crashed, or its worker ended)."""
        return self.closed or (self.worker is not None and not self.worker.running)

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
        """Close the user's browser and its proxy (the state was saved after the last operation)."""
        self.closed = True
        for closing in (self.context, self.browser):
            try:
                if closing is not None:
                    await closing.close()
            except PlaywrightError:
                pass  # already gone: a crashed browser has nothing left to close
        if self.worker is not None:
            await self.worker.stop()
        if self.proxy is not None:
            await self.proxy.close()
        if self.box is not None:
            self.box.remove()


async def open_session(
    playwright: Playwright | None,
    config: BrowserConfig,
    user_id: int,
    resolver: AsyncResolver,
    clock: Callable[[], float],
    state: dict[str, Any] | None = None,
) -> UserSession:
    """Launch the user's browser with `state` loaded, its guard and proxy; `ConnectorUnavailable` if Chromium won't start.

    `playwright` drives it inline; with None (needs a confined browser) a keyless worker of its own does,
    started by this process or, with `config.host_socket`, by the browser host.
    """
    guard = PageGuard(resolver)
    proxy = EgressProxy(guard.review_connection)
    box: BrowserBox | None = None
    browser: Browser | None = None
    worker: BrowserWorker | None = None
    try:
        if config.confined and config.host_socket is not None:
            worker = await _hosted_worker(config, user_id, proxy)
            playwright = worker.playwright
            launch = {
                "executable_path": worker.launcher,
                "chromium_sandbox": True,
                "env": {"PATH": "/usr/bin:/bin"},
                "args": [*CHROMIUM_ARGS, *config.extra_args],
            }
            address = f"http://127.0.0.1:{RELAY_PORT}"
        elif config.confined:
            box = await _confined_box(config, user_id, for_worker=playwright is None)
            await proxy.start_unix(str(box.socket))
            box.admit_sandbox()
            if playwright is None:
                worker = await _start_worker(box, config)
                playwright = worker.playwright
            launch: dict[str, Any] = {
                "executable_path": str(box.launcher),
                "chromium_sandbox": True,
                # The launcher builds the sandbox's environment from nothing; this is only its own.
                "env": {"PATH": "/usr/bin:/bin"},
                "args": [*CHROMIUM_ARGS, *config.extra_args],
            }
            address = box.proxy_server
        else:
            if playwright is None:
                raise ConnectorUnavailable("The web browser failed to start.",
                                           detail="a browser worker needs the confined browser")
            address = await proxy.start()
            launch = {
                "executable_path": config.executable_path,
                "chromium_sandbox": False,
                "args": [*CHROMIUM_ARGS, "--no-sandbox", *config.extra_args],
            }
        # One Chromium process per user, as the profiles were: one user's pages never share
        # a process (or a proxy) with another's.
        browser = await playwright.chromium.launch(
            headless=True,
            # Every connection, redirect hops and loopback included, goes through the reviewing proxy.
            proxy={"server": address, "bypass": "<-loopback>", "username": proxy.username, "password": proxy.password},
            **launch,
        )
        context = await browser.new_context(
            storage_state=state,
            accept_downloads=False,
            service_workers="block",
            viewport={"width": config.viewport_width, "height": config.viewport_height},
            permissions=[],
        )
    except (PlaywrightError, ConnectorError) as exc:
        failure = exc if isinstance(exc, ConnectorError) else _launch_failure(str(exc))
        if browser is not None:
            with contextlib.suppress(PlaywrightError):
                await browser.close()
        if worker is not None:
            await worker.stop()
        await proxy.close()
        if box is not None:
            box.remove()
        raise failure from None
    await context.add_init_script(_NO_WEBRTC)
    context.on("request", guard.note_page_request)
    await context.route("**/*", guard.route)
    await context.route_web_socket("**/*", guard.websocket)
    session = UserSession(user_id, context, guard, clock)
    session.proxy = proxy
    session.browser = browser
    session.box = box
    session.worker = worker
    session.navigation_timeout_ms = config.navigation_timeout * 1000
    session.content_wait_ms = config.content_wait * 1000
    return session


async def _hosted_worker(config: BrowserConfig, user_id: int, proxy: EgressProxy) -> BrowserWorker:
    """A worker started by the browser host, whose browser's way out is `proxy`, served here on a socket beside
    the host's (the host hands it to the worker); `ConnectorUnavailable` when the host cannot give one."""
    assert config.host_socket is not None
    host_socket = Path(config.host_socket)
    proxy_socket = host_socket.parent / new_proxy_socket_name()
    try:
        await proxy.start_unix(str(proxy_socket))
        proxy_socket.chmod(0o600)
        return await start_hosted_worker(host_socket, user_id, proxy_socket)
    except HostRefused as exc:
        if exc.unconfinable:
            raise ConnectorUnavailable("The web browser can't be started safely on this server, so I can't open pages.",
                                       detail=f"browser host: {exc}"[:800]) from None
        raise ConnectorUnavailable("The web browser failed to start.", detail=f"browser host: {exc}"[:800]) from None
    except Exception as exc:  # no host listening (stopped, restarting), or it hung up: the step may be tried again
        raise ConnectorUnavailable("The web browser failed to start.",
                                   detail=f"browser host at {host_socket}: {exc}"[:800]) from None


async def _start_worker(box: BrowserBox, config: BrowserConfig) -> BrowserWorker:
    try:
        return await start_worker(box.directory, Path(config.bwrap_path), box.uid)
    except Exception as exc:  # the driver did not start: bwrap's or the pipe's complaint says why
        raise ConnectorUnavailable("The web browser failed to start.", detail=f"browser worker: {exc}"[:800]) from None


async def _confined_box(config: BrowserConfig, user_id: int, *, for_worker: bool = False) -> BrowserBox:
    """A private directory for a confined browser; `ConnectorUnavailable` if it cannot be confined here."""
    problem = await asyncio.to_thread(confinement_problem, Path(config.bwrap_path))
    if problem is not None:
        raise ConnectorUnavailable(
            "The web browser can't be started safely on this server, so I can't open pages.",
            detail=f"{INSTALL_HINT} ({problem}.)",
        )
    return await asyncio.to_thread(BrowserBox, config.executable_path, Path(config.bwrap_path), for_worker=for_worker,
                                   user_id=user_id)


def _launch_failure(message: str) -> ConnectorError:
    if "Executable doesn't exist" in message or "ENOENT" in message:
        return ConnectorUnavailable(
            "The web browser isn't installed on this server, so I can't open pages.", detail=message[:500]
        )
    if "No usable sandbox" in message:
        return ConnectorUnavailable(
            "The web browser can't be started safely on this server, so I can't open pages.",
            detail=f"Chromium's own sandbox could not start inside bubblewrap. {INSTALL_HINT} {message[:400]}",
        )
    # Playwright's message starts with the whole command line; the launcher's or bwrap's own
    # complaint, at its end, is what tells the operator what to fix.
    said = [
        line[line.index(marker) :]
        for line in message.splitlines()
        for marker in ("deputy browser launcher:", "bwrap:")
        if marker in line
    ]
    detail = " ".join([*dict.fromkeys(said), message])[:800]
    return ConnectorUnavailable("The web browser failed to start.", detail=detail)
