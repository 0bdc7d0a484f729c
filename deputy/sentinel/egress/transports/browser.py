"""The egress guard inside Chromium: Playwright handlers that review every request and socket.

Install both on a browser context before any page opens:

    await context.route("**/*", playwright_route_handler(review))
    await context.route_web_socket("**/*", playwright_websocket_handler(review))

Each request a page makes (navigations, frames, images, scripts, fetch/XHR, form posts)
is reviewed by the pure core; requests that are denied or need the user are aborted with
`blockedbyclient` (a browser cannot wait days for a human, so "ask" is reported through
`on_decision` for the executor to turn into an approval card), allowed ones continue.
WebSockets are reviewed when they open (as the http(s) URL they upgrade from) and every
message the page sends is reviewed as a request body, so a socket to an allowed host
cannot carry the user's data out unseen.

Time-of-check/time-of-use: the handlers resolve the host themselves, but Chromium then
does its own DNS lookup when it connects, so a rebinding DNS server that answers
differently the second time is *not* stopped here (the httpx transports pin the address;
a browser cannot be pinned from a route handler). Closing that window needs Chromium's
traffic to go through a pinning proxy; until then, run the browser where the network
itself has no route to private services.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from deputy.sentinel.egress.policy import EgressDecision, Initiator, OutboundRequest, Reviewer
from deputy.sentinel.egress.transports.http_client import AsyncResolver, DecisionHook, async_system_resolver, resolve
from deputy.sentinel.egress.url import UrlProblem, parse_destination
from deputy.sentinel.policy import Risk, Verdict

log = logging.getLogger(__name__)

RouteHandler = Callable[..., Awaitable[None]]
_POLICY_VIOLATION = 1008
"""WebSocket close code for "policy violation"."""


def playwright_route_handler(
    review: Reviewer,
    *,
    connector: str = "web",
    resolver: AsyncResolver = async_system_resolver,
    on_decision: DecisionHook | None = None,
) -> RouteHandler:
    """A `BrowserContext.route` handler that aborts every request the egress policy does not allow."""

    async def handle(route: Any, request: Any = None) -> None:
        request = request if request is not None else route.request
        try:
            outbound = OutboundRequest(
                method=request.method,
                url=request.url,
                headers=dict(request.headers),
                body=request.post_data_buffer,
                connector=connector,
                initiated_by=_initiator(request),
            )
        except Exception:
            log.exception("egress: unreadable browser request; aborting it")
            await route.abort("blockedbyclient")
            return
        outbound, decision, code = await _review(outbound, review, resolver, on_decision)
        if decision.verdict is Verdict.allow:
            await route.continue_()
        else:
            await route.abort(code)

    return handle


def playwright_websocket_handler(
    review: Reviewer,
    *,
    connector: str = "web",
    resolver: AsyncResolver = async_system_resolver,
    on_decision: DecisionHook | None = None,
) -> Callable[[Any], Awaitable[None]]:
    """A `BrowserContext.route_web_socket` handler: sockets and every page message are reviewed."""

    async def handle(socket: Any) -> None:
        opening = OutboundRequest(
            url=_as_http(socket.url), connector=connector, initiated_by="subresource", headers={"Upgrade": "websocket"}
        )
        opening, decision, _ = await _review(opening, review, resolver, on_decision)
        if decision.verdict is not Verdict.allow:
            await socket.close(code=_POLICY_VIOLATION, reason="Blocked by Deputy's egress policy")
            return
        server = socket.connect_to_server()

        async def from_page(message: str | bytes) -> None:
            checked = opening.model_copy(update={"method": "SEND", "body": message})
            _, verdict, _ = await _review(checked, review, None, on_decision)
            if verdict.verdict is Verdict.allow:
                server.send(message)
            else:
                await socket.close(code=_POLICY_VIOLATION, reason="Blocked by Deputy's egress policy")
                await server.close(code=_POLICY_VIOLATION, reason="Blocked by Deputy's egress policy")

        socket.on_message(from_page)

    return handle


async def _review(
    outbound: OutboundRequest, review: Reviewer, resolver: AsyncResolver | None, on_decision: DecisionHook | None
) -> tuple[OutboundRequest, EgressDecision, str]:
    """Resolve (unless `resolver` is None: addresses already known), review, report; fail closed."""
    code = "blockedbyclient"
    try:
        if resolver is not None:
            outbound = outbound.model_copy(update={"resolved_ips": await _addresses(outbound.url, resolver)})
        decision = review(outbound)
        if decision.verdict is Verdict.allow and not outbound.resolved_ips and _is_web(outbound.url):
            host = parse_destination(outbound.url).host
            code = "namenotresolved"
            decision = EgressDecision(
                verdict=Verdict.deny, reasons=[f"Deputy could not find the site {host}."], risk=Risk.low, host=host
            )
    except Exception:
        # Fail closed: a request the guard could not review does not leave.
        log.exception("egress review failed; stopping the request")
        decision = EgressDecision(
            verdict=Verdict.deny, reasons=["Deputy could not review this request, so it stopped it."], risk=Risk.high
        )
    if on_decision is not None:
        on_decision(outbound, decision)
    return outbound, decision, code


async def _addresses(url: str, resolver: AsyncResolver) -> list[str]:
    try:
        destination = parse_destination(url)
    except UrlProblem:
        return []  # not http(s) or unreadable: the core denies it without DNS
    if destination.ip is not None:
        return [str(destination.ip)]
    try:
        return await resolve(resolver, destination.host, destination.port)
    except (OSError, UnicodeError, ValueError):
        return []


def _is_web(url: str) -> bool:
    try:
        parse_destination(url)
    except UrlProblem:
        return False
    return True


def _as_http(url: str) -> str:
    # A WebSocket starts as an HTTP request to the same place; review it as that request.
    for socket_scheme, web_scheme in (("ws:", "http:"), ("wss:", "https:")):
        if url[: len(socket_scheme)].lower() == socket_scheme:
            return web_scheme + url[len(socket_scheme) :]
    return url


def _initiator(request: Any) -> Initiator:
    if not request.is_navigation_request():
        return "subresource"
    return "form_submit" if request.method.upper() == "POST" else "navigation"
