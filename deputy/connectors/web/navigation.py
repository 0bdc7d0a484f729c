"""Loading pages and waiting for them, with every browser failure turned into a ConnectorError.

Chromium reports failures as `net::ERR_...` codes inside Playwright error messages; each
is translated here into a plain sentence (retryable when the site may come back). A
request the guard stopped shows up as `ERR_BLOCKED_BY_CLIENT`; then the guard's own
record says why, and the agent gets Sentinel's reasons, not a network code.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit, urlunsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request

from deputy.core.records.effects import ConnectorError, ConnectorRejected, ConnectorUnavailable
from deputy.connectors.web.forms import host_of
from deputy.connectors.web.guard import Blocked, PageGuard
from deputy.connectors.web.proxy import UNREACHABLE_HEADER
from deputy.connectors.web.session import UserSession
from deputy.sentinel.egress.transports.http_client import EgressBlocked, EgressNeedsApproval
from deputy.sentinel.policy import Verdict

_UNREACHABLE = {
    "ERR_CONNECTION_REFUSED",
    "ERR_CONNECTION_RESET",
    "ERR_CONNECTION_CLOSED",
    "ERR_CONNECTION_FAILED",
    "ERR_CONNECTION_TIMED_OUT",
    "ERR_TIMED_OUT",
    "ERR_ADDRESS_UNREACHABLE",
    "ERR_INTERNET_DISCONNECTED",
    "ERR_NETWORK_CHANGED",
    "ERR_NETWORK_IO_SUSPENDED",
    "ERR_EMPTY_RESPONSE",
    "ERR_SOCKET_NOT_CONNECTED",
}
_BROKEN_ANSWER = {
    "ERR_INVALID_RESPONSE",
    "ERR_INVALID_HTTP_RESPONSE",
    "ERR_CONTENT_DECODING_FAILED",
    "ERR_INCOMPLETE_CHUNKED_ENCODING",
    "ERR_INVALID_CHUNKED_ENCODING",
    "ERR_CONTENT_LENGTH_MISMATCH",
    "ERR_RESPONSE_HEADERS_TOO_BIG",
    "ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH",
    "ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION",
    "ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_DISPOSITION",
    "ERR_HTTP2_PROTOCOL_ERROR",
    "ERR_UNSAFE_REDIRECT",
}
_CLOSE_TIMEOUT = 5.0
_NAVIGATION_START_WINDOW = 1.5
"""Seconds after a click within which a page navigation must start to be waited for."""


def same_page(url: str, other: str) -> bool:
    """Equal addresses, ignoring the fragment, a missing root slash and the case of scheme and host."""
    return _canonical(url) == _canonical(other)


def _canonical(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


async def goto(session: UserSession, url: str) -> tuple[Page, int | None]:
    """Load `url` in the user's tab; the page and its HTTP status (None when the browser gave none).

    Waits for the document to be parsed, at most `content_wait` seconds: a huge or slow page
    is then read as far as it arrived (`session.incomplete` says so) rather than not at all.
    """
    page = await session.page()
    session.incomplete = False
    try:
        response = await page.goto(url, wait_until="commit")
    except PlaywrightError as exc:
        failure = failure_for(str(exc), url, session.guard)
        await discard(session, page)
        raise failure from None
    session.requested_url, session.landed_url = url, page.url
    refused = refused_by_proxy(session.guard, page.url)
    if refused is not None:
        await discard(session, page)
        raise blocked_error(refused)
    status = response.status if response is not None else None
    if response is not None and status == 502 and UNREACHABLE_HEADER in response.headers:
        await discard(session, page)
        raise ConnectorUnavailable(f"I couldn't connect to {host_of(page.url) or url}; the site may be down.")
    if status in (502, 503, 504):
        raise ConnectorUnavailable(
            f"{host_of(page.url) or url} is not answering properly right now (status {status}); it may be down."
        )
    try:
        await page.wait_for_load_state("domcontentloaded", timeout=session.content_wait_ms)
    except PlaywrightError:
        session.incomplete = True
    else:
        await settle(page)
    return page, status


async def at(session: UserSession, url: str) -> Page:
    """The user's tab showing `url`: the open one when it already does, else freshly loaded."""
    page = await session.page()
    # A redirect shows `url` under another address: still the same page if the tab has not moved since.
    redirected = (
        session.requested_url is not None and same_page(session.requested_url, url) and page.url == session.landed_url
    )
    if same_page(page.url, url) or redirected:
        return page
    page, _ = await goto(session, url)
    return page


async def settle(page: Page, timeout: float = 3.0) -> None:
    """Give the page a moment to finish loading (the load event), without failing if it never does."""
    try:
        await page.wait_for_load_state("load", timeout=timeout * 1000)
    except PlaywrightError:
        pass


async def act_and_follow(session: UserSession, page: Page, act: Callable[[], Awaitable[None]]) -> Page:
    """Run `act` (a click, a submit) and wait for the navigation it starts, in this tab or a new one."""
    main = page.main_frame
    started, finished = asyncio.Event(), asyncio.Event()
    tabs_before = len(session.context.pages)

    def on_request(request: Request) -> None:
        if request.is_navigation_request() and request.frame == main:
            started.set()

    def on_failed(request: Request) -> None:
        if request.is_navigation_request() and request.frame == main:
            finished.set()

    def on_navigated(frame: object) -> None:
        if frame == main:
            finished.set()

    page.on("request", on_request)
    page.on("requestfailed", on_failed)
    page.on("framenavigated", on_navigated)
    failure: ConnectorError | None = None
    try:
        await act()
        try:
            await asyncio.wait_for(started.wait(), _NAVIGATION_START_WINDOW)
        except TimeoutError:
            pass  # no navigation in this tab: a script handled it, or a new tab opened
        else:
            await asyncio.wait_for(finished.wait(), session.navigation_timeout_ms / 1000)
    except TimeoutError:
        failure = ConnectorUnavailable(f"{host_of(page.url) or 'The site'} took too long to answer.")
    except PlaywrightError as exc:
        failure = failure_for(str(exc), page.url, session.guard)
    finally:
        page.remove_listener("request", on_request)
        page.remove_listener("requestfailed", on_failed)
        page.remove_listener("framenavigated", on_navigated)
    if failure is not None:
        await discard(session, page)
        raise failure
    stopped = last_navigation_block(session.guard)
    if len(session.context.pages) > tabs_before:
        page = await session.page()
    stopped = stopped or refused_by_proxy(session.guard, page.url)
    if stopped is not None:
        await discard(session, page)
        raise blocked_error(stopped)
    try:
        await page.wait_for_load_state("domcontentloaded")
    except PlaywrightError as exc:
        raise failure_for(str(exc), page.url, session.guard) from None
    await settle(page)
    if page.url.startswith("chrome-error:"):
        await discard(session, page)
        raise ConnectorUnavailable("The page that followed could not be loaded.")
    return page


async def discard(session: UserSession, page: Page) -> None:
    """Replace a tab left on an error or refusal page with a fresh one.

    Chromium may still be navigating it (to `chrome-error://`) and would interrupt the next
    load. The new tab opens first: closing the last tab of a persistent profile while it is
    loading can hang Playwright, and this way the closed tab is never the last one.
    """
    try:
        await session.context.new_page()
        await asyncio.wait_for(page.close(), _CLOSE_TIMEOUT)
    except (PlaywrightError, TimeoutError):
        pass  # a tab that won't close is left behind; `UserSession.page` closes it later


def last_navigation_block(guard: PageGuard) -> Blocked | None:
    """The latest stopped navigation of the tab itself (a blocked frame leaves the page usable)."""
    navigations = [b for b in guard.blocked if b.main_frame]
    return navigations[-1] if navigations else None


def refused_by_proxy(guard: PageGuard, url: str) -> Blocked | None:
    """The proxy's refusal of the page now in the tab (a redirect hop the route handler never saw)."""
    for blocked in reversed(guard.blocked):
        if blocked.proxied and same_page(blocked.url, url):
            return blocked
    return None


def blocked_error(blocked: Blocked) -> ConnectorError:
    reasons = " ".join(blocked.decision.reasons)
    if blocked.decision.verdict is Verdict.ask:
        return EgressNeedsApproval(
            f"Opening {blocked.host} needs your approval first. {reasons}", decision=blocked.decision
        )
    return EgressBlocked(f"Deputy blocked the page {blocked.host}. {reasons}", decision=blocked.decision)


def failure_for(message: str, url: str, guard: PageGuard) -> ConnectorError:
    """A plain `ConnectorError` for a Playwright failure while loading `url`."""
    host = host_of(url) or "the site"
    found = re.search(r"net::(ERR_[A-Z0-9_]+)", message)
    code = found.group(1) if found else ""
    detail = (code or message.splitlines()[0] if message else "")[:300]
    if code == "ERR_BLOCKED_BY_CLIENT":
        stopped = last_navigation_block(guard)
        if stopped is not None:
            return blocked_error(stopped)
        return EgressBlocked(f"Deputy's network guard blocked {host}.")
    if code == "ERR_TUNNEL_CONNECTION_FAILED":  # the proxy refused an https connection
        refused = [b for b in guard.reportable() if b.proxied]
        if refused:
            return blocked_error(refused[-1])
        return ConnectorUnavailable(f"I couldn't connect to {host}; the site may be down.", detail=detail)
    if code in ("ERR_PROXY_CONNECTION_FAILED", "ERR_PROXY_AUTH_UNSUPPORTED", "ERR_PROXY_AUTH_REQUESTED"):
        return ConnectorUnavailable(
            "The browser lost its connection to Deputy's network guard; try again.", detail=detail
        )
    if "Download is starting" in message:
        return ConnectorRejected(f"{url} is a file to download, not a page; I don't download files.", detail=detail)
    if code == "ERR_NAME_NOT_RESOLVED":
        return ConnectorRejected(f"I couldn't find the site {host}. Check the address.", detail=detail)
    if code in _UNREACHABLE:
        return ConnectorUnavailable(f"I couldn't connect to {host}; the site may be down.", detail=detail)
    if code in _BROKEN_ANSWER:
        return ConnectorUnavailable(f"{host} sent a broken answer that the browser could not read.", detail=detail)
    if code.startswith(("ERR_CERT_", "ERR_SSL_")) or code == "ERR_BAD_SSL_CLIENT_AUTH_CERT":
        return ConnectorRejected(
            f"The secure connection to {host} failed: its certificate could not be verified.", detail=detail
        )
    if code == "ERR_TOO_MANY_REDIRECTS":
        return ConnectorRejected(f"{host} redirected too many times, so I stopped following it.", detail=detail)
    if code in ("ERR_INVALID_URL", "ERR_DISALLOWED_URL_SCHEME", "ERR_UNKNOWN_URL_SCHEME"):
        return ConnectorRejected("That is not a web address I can open.", detail=detail)
    if "Timeout" in message and "exceeded" in message:
        return ConnectorUnavailable(f"{host} took too long to load.", detail=detail)
    if "closed" in message.lower() and ("Target" in message or "Browser" in message):
        return ConnectorUnavailable("The browser closed while loading the page; try again.", detail=detail)
    return ConnectorUnavailable(f"I couldn't load {host}.", detail=detail)
