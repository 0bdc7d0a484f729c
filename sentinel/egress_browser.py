"""The egress guard inside Chromium: a Playwright route handler that reviews every request.

Install it with `await context.route("**/*", playwright_route_handler(review))`. Each
request the page makes (navigations, frames, images, scripts, fetch/XHR, form posts) is
reviewed by the pure core; blocked and ask-verdict requests are aborted with
`blockedbyclient` (a browser cannot wait days for a human, so "ask" is reported through
`on_decision` for the executor to turn into an approval card), allowed ones continue.

Time-of-check/time-of-use: the handler resolves the host itself, but Chromium then does
its own DNS lookup when it connects, so a rebinding DNS server that answers differently
the second time is *not* stopped here. Closing that window needs Chromium's traffic to
go through a pinning proxy (or `--host-resolver-rules`); until then the browser runs in
a sandbox whose network has no route to private services, and this handler stops every
request whose name or address is private at the time of review. WebSockets are not
routed by `context.route`; the browser context must be created without them or use
`route_web_socket` with the same review.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from sentinel.egress import EgressDecision, Initiator, OutboundRequest, Reviewer
from sentinel.egress_http import (
    AsyncResolver,
    DecisionHook,
    async_system_resolver,
    resolve,
)
from sentinel.egress_url import UrlProblem, parse_destination
from sentinel.policy import Risk, Verdict

log = logging.getLogger(__name__)

RouteHandler = Callable[..., Awaitable[None]]


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
        outbound: OutboundRequest | None = None
        error_code = "blockedbyclient"
        try:
            outbound, host_unknown = await _outbound(request, connector, resolver)
            decision = review(outbound)
            if host_unknown and decision.verdict is Verdict.allow:
                error_code, decision = "namenotresolved", _not_found(outbound.url)
        except Exception:
            # Fail closed: a request the guard could not review does not leave.
            log.exception("egress review failed; aborting the request")
            decision = EgressDecision(
                verdict=Verdict.deny,
                reasons=["Deputy could not review this request, so it stopped it."],
                risk=Risk.high,
            )
        if on_decision is not None and outbound is not None:
            on_decision(outbound, decision)
        if decision.verdict is Verdict.allow:
            await route.continue_()
        else:
            await route.abort(error_code)

    return handle


async def _outbound(request: Any, connector: str, resolver: AsyncResolver) -> tuple[OutboundRequest, bool]:
    """The request as the core sees it, and whether DNS knew no address for its host."""
    url = request.url
    addresses: list[str] = []
    try:
        destination = parse_destination(url)
    except UrlProblem:
        destination = None  # not http(s) or unreadable: the core denies it without DNS
    if destination is not None and destination.ip is not None:
        addresses = [str(destination.ip)]
    elif destination is not None:
        try:
            addresses = await resolve(resolver, destination.host, destination.port)
        except OSError:
            addresses = []
    outbound = OutboundRequest(
        method=request.method,
        url=url,
        headers=dict(request.headers),
        body=request.post_data_buffer,
        connector=connector,
        initiated_by=_initiator(request),
        resolved_ips=addresses,
    )
    return outbound, destination is not None and not addresses


def _initiator(request: Any) -> Initiator:
    if not request.is_navigation_request():
        return "subresource"
    return "form_submit" if request.method.upper() == "POST" else "navigation"


def _not_found(url: str) -> EgressDecision:
    host = parse_destination(url).host
    return EgressDecision(
        verdict=Verdict.deny, reasons=[f"Deputy could not find the site {host}."], risk=Risk.low, host=host
    )
