"""Sentinel's egress policy inside one user's browser, plus the browser's own rules.

Three doors, one decision (`_decide`): every request a page makes (navigations, frames,
scripts, images, fetch/XHR, form posts) through `route`, installed with
`context.route("**/*", ...)`; WebSockets through `websocket` (Sentinel's handler, which
also reviews each message); and every connection Chromium opens, redirect hops included,
through `review_connection`, called by the reviewing proxy (`deputy.connectors.web.proxy`).
Besides the policy, three rules of our own apply:

- Between operations nothing leaves: a page left open cannot phone home while Deputy is
  not using it (there is no review for it to pass).
- A form is only sent by `submit_form`/`submit_sensitive_form`: any other non-GET page
  navigation is stopped, and during a submit the first page navigation must go to the
  origin of the action URL the guard reviewed and the user may have approved, so a page
  script cannot redirect the submission elsewhere.
- A password filled from the vault may only travel to its own sites (checked with
  Sentinel's leak detection, whatever the operation's review said).

Everything not allowed is stopped and recorded in `blocked`, so the operation can tell the
agent what was stopped and why.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError

from deputy.sentinel.egress.policy import EgressContext, EgressDecision, OutboundRequest, Reviewer, SecretValue
from deputy.sentinel.egress.transports.browser import playwright_route_handler, playwright_websocket_handler
from deputy.sentinel.egress.checks import Findings, check_data
from deputy.sentinel.egress.transports.http_client import AsyncResolver, async_system_resolver, resolve
from deputy.sentinel.egress.url import UrlProblem, parse_destination
from deputy.sentinel.policy import Risk, Verdict

log = logging.getLogger(__name__)

_MAIN_FRAME: ContextVar[bool] = ContextVar("deputy_web_main_frame", default=False)


@dataclass(frozen=True)
class Blocked:
    """One request the guard stopped, and the decision that stopped it."""

    url: str
    decision: EgressDecision
    navigation: bool
    """A page or frame navigation (as opposed to an image, script or API call)."""
    main_frame: bool = False
    """A navigation of the tab itself (not of a frame inside it)."""
    proxied: bool = False
    """Stopped by the proxy (a redirect hop or a connection the route handler never saw)."""

    @property
    def host(self) -> str:
        return self.decision.host or _host(self.url) or self.url[:100]


def origin_of(url: str) -> str | None:
    """`scheme://host:port` of an http(s) URL, None for anything else."""
    try:
        destination = parse_destination(url)
    except UrlProblem:
        return None
    return f"{destination.scheme}://{destination.host}:{destination.port}"


class PageGuard:
    """The egress state of one browser context; `begin`/`end` bracket each operation."""

    def __init__(self, resolver: AsyncResolver = async_system_resolver) -> None:
        self.blocked: list[Blocked] = []
        self._page_hosts: set[str] = set()
        self._review: Reviewer | None = None
        self._submit_origin: str | None = None
        self._secrets: list[SecretValue] = []
        self._resolver = resolver
        self._handler = playwright_route_handler(self._decide, resolver=resolver, on_decision=self._record)
        self.websocket = playwright_websocket_handler(self._decide, resolver=resolver, on_decision=self._record)
        """The `BrowserContext.route_web_socket` handler: sockets and every message the page sends are reviewed."""

    def begin(self, review: Reviewer) -> None:
        self._review = review
        self.blocked = []
        self._page_hosts = set()
        self._submit_origin = None

    def note_page_request(self, request: Any) -> None:
        """The context's `request` event: remembers which hosts pages asked for, redirect hops included."""
        host = _host(request.url)
        if host:
            self._page_hosts.add(host)

    def reportable(self) -> list[Blocked]:
        """What the guard stopped on the pages' behalf. Chromium's own background traffic (which the
        proxy stops too, e.g. autofill lookups) is left out: the page did not ask for it."""
        return [b for b in self.blocked if not b.proxied or b.host in self._page_hosts]

    def end(self) -> None:
        self._review = None
        self._submit_origin = None

    def expect_submit(self, action_url: str) -> None:
        """Let exactly one page navigation (the form submission) go, and only to `action_url`'s origin."""
        self._submit_origin = origin_of(action_url)

    def protect_secret(self, secret: SecretValue) -> None:
        """From now on, requests carrying `secret` to other hosts than its domains are denied."""
        if all(s.value != secret.value for s in self._secrets):
            self._secrets.append(secret)

    async def route(self, route: Any, request: Any) -> None:
        """The `BrowserContext.route` handler."""
        navigation = request.is_navigation_request()
        main_frame = navigation and _is_main_frame(request)
        refusal = self._gate(request, main_frame)
        if refusal is not None:
            decision = EgressDecision(verdict=Verdict.deny, reasons=[refusal], risk=Risk.high, host=_host(request.url))
            self.blocked.append(Blocked(request.url, decision, navigation, main_frame))
            await route.abort("blockedbyclient")
            return
        # Read back by `_record`, which the handler calls from within this same task.
        _MAIN_FRAME.set(main_frame)
        await self._handler(route, request)

    async def review_connection(
        self, method: str, url: str, headers: list[tuple[str, str]]
    ) -> tuple[EgressDecision, list[str]]:
        """Review one connection the proxy is asked to open; the decision and the addresses reviewed."""
        addresses: list[str] = []
        try:
            addresses = await _addresses(url, self._resolver)
            outbound = OutboundRequest(
                method="GET" if method == "CONNECT" else method,
                url=url,
                headers=headers,
                connector="web",
                initiated_by="subresource",
                resolved_ips=addresses,
            )
            decision = self._decide(outbound)
            if decision.verdict is Verdict.allow and not addresses:
                host = _host(url)
                decision = EgressDecision(
                    verdict=Verdict.deny, reasons=[f"Deputy could not find the site {host}."], risk=Risk.low, host=host
                )
        except Exception:
            log.exception("egress: the proxy could not review a connection; refusing it")
            decision = EgressDecision(
                verdict=Verdict.deny,
                risk=Risk.high,
                reasons=["Deputy could not review this request, so it stopped it."],
            )
        if decision.verdict is not Verdict.allow:
            self.blocked.append(Blocked(url, decision, navigation=False, proxied=True))
        return decision, addresses

    def _gate(self, request: Any, main_frame: bool) -> str | None:
        if not request.is_navigation_request():
            return None
        if request.redirected_from is None and main_frame and self._submit_origin is not None:
            expected, self._submit_origin = self._submit_origin, None
            if origin_of(request.url) != expected:
                return (
                    f"The form tried to go to {_host(request.url)} instead of the address that was reviewed "
                    f"({expected}), so I stopped it."
                )
            return None
        if request.method.upper() != "GET" and request.redirected_from is None:
            return "The page tried to send a form by itself; forms are only sent with submit_form, so I stopped it."
        return None

    def _decide(self, outbound: OutboundRequest) -> EgressDecision:
        if self._review is None:
            return EgressDecision(
                verdict=Verdict.deny,
                reasons=["The page tried to load something while Deputy was not using it."],
                risk=Risk.medium,
            )
        decision = self._review(outbound)
        if decision.verdict is Verdict.allow and self._secrets:
            leaks = _secret_leaks(outbound, self._secrets)
            if leaks:
                return EgressDecision(verdict=Verdict.deny, reasons=leaks, risk=Risk.high, host=decision.host)
        return decision

    def _record(self, outbound: OutboundRequest, decision: EgressDecision) -> None:
        if decision.verdict is not Verdict.allow:
            navigation = outbound.initiated_by in ("navigation", "form_submit")
            self.blocked.append(Blocked(outbound.url, decision, navigation, navigation and _MAIN_FRAME.get()))


def _secret_leaks(outbound: OutboundRequest, secrets: list[SecretValue]) -> list[str]:
    try:
        destination = parse_destination(outbound.url)
    except UrlProblem:
        return []
    findings = Findings()
    check_data(destination, outbound.headers, outbound.body, EgressContext(secrets=secrets), findings)
    return findings.denials


def _is_main_frame(request: Any) -> bool:
    try:
        return request.frame.parent_frame is None
    except PlaywrightError:  # a request without a frame (a worker's): never the page itself
        return False


def _host(url: str) -> str | None:
    try:
        return parse_destination(url).host
    except UrlProblem:
        return None


async def _addresses(url: str, resolver: AsyncResolver) -> list[str]:
    try:
        destination = parse_destination(url)
    except UrlProblem:
        return []
    if destination.ip is not None:
        return [str(destination.ip)]
    try:
        return await resolve(resolver, destination.host, destination.port)
    except (OSError, UnicodeError, ValueError):
        return []
