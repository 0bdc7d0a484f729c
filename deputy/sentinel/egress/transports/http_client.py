"""The egress guard as httpx transports: every request, and every redirect hop, is reviewed.

httpx sends each request (redirects included, since the client follows them by calling
the transport again) through `handle_request`, so wrapping the transport is enough to
see all traffic of a client. Per request the transport resolves the host (resolver
injected), asks the pure `review_request` core, and then:

- deny: raises `EgressBlocked` with the plain reasons;
- ask: raises `EgressNeedsApproval` carrying the decision, for the executor's approval card;
- allow: forwards to the inner transport *pinned* to the reviewed addresses.

Pinning (see `deputy.sentinel.egress.transports.pinning`) is how the DNS time-of-check/time-of-use window is
closed: the default inner transport connects to the addresses that were reviewed and
never looks the name up again. A caller that injects its own `inner` transport gives that
up: then a rebinding DNS server could answer differently to the inner transport's own
lookup, and only the injected transport's behaviour decides what happens.
"""

from __future__ import annotations

import inspect
import socket
from collections.abc import Awaitable, Callable, Sequence
from ipaddress import ip_address

import anyio
import httpx

from deputy.core.records.effects import ConnectorError
from deputy.sentinel.egress.policy import EgressDecision, Initiator, OutboundRequest, Reviewer
from deputy.sentinel.egress.transports.pinning import (
    AsyncPinnedHTTPTransport,
    PinnedHTTPTransport,
    pinned,
)
from deputy.sentinel.egress.url import DEFAULT_PORTS, UrlProblem, parse_destination
from deputy.sentinel.policy import Verdict

Resolver = Callable[[str, int], Sequence[str]]
AsyncResolver = Callable[[str, int], Awaitable[Sequence[str]] | Sequence[str]]
DecisionHook = Callable[[OutboundRequest, EgressDecision], None]
"""Told of every decision (for the audit log); the request may hold credentials, so log its decision, not it."""


class EgressBlocked(ConnectorError):
    """Sentinel's egress policy refused the request; the message says why, plainly."""

    def __init__(self, user_message: str, *, decision: EgressDecision | None = None) -> None:
        super().__init__(user_message)
        self.decision = decision


class EgressNeedsApproval(ConnectorError):
    """The request may only go out once the user approves it; `decision` says what to ask."""

    def __init__(self, user_message: str, *, decision: EgressDecision) -> None:
        super().__init__(user_message)
        self.decision = decision


class HostNotFound(httpx.ConnectError):
    """DNS had no address for the host."""


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the operating system's resolver gives for `host`."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def async_system_resolver(host: str, port: int) -> list[str]:
    """`system_resolver` without blocking the event loop."""
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class GuardedTransport(httpx.BaseTransport):
    """Reviews every request with `review` before `inner` (by default a pinned transport) sends it."""

    def __init__(
        self,
        review: Reviewer,
        *,
        connector: str,
        initiated_by: Initiator = "api_call",
        inner: httpx.BaseTransport | None = None,
        resolver: Resolver = system_resolver,
        on_decision: DecisionHook | None = None,
    ) -> None:
        self._review = review
        self._connector = connector
        self._initiated_by: Initiator = initiated_by
        self._inner = inner if inner is not None else PinnedHTTPTransport()
        self._resolver = resolver
        self._on_decision = on_decision

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        host, port = _origin(request)
        try:
            addresses = _literal(host) or list(self._resolver(host, port))
        except (OSError, UnicodeError, ValueError):
            addresses = []  # DNS failed: reviewed anyway, so a forbidden name is reported as forbidden
        outbound = _outbound(request, request.read(), addresses, self._connector, self._initiated_by)
        decision = self._review(outbound)
        if self._on_decision is not None:
            self._on_decision(outbound, decision)
        _enforce(decision, request, host, addresses)
        with pinned(host, port, addresses):
            return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


class AsyncGuardedTransport(httpx.AsyncBaseTransport):
    """The asyncio twin of `GuardedTransport`; the resolver may be sync or async."""

    def __init__(
        self,
        review: Reviewer,
        *,
        connector: str,
        initiated_by: Initiator = "api_call",
        inner: httpx.AsyncBaseTransport | None = None,
        resolver: AsyncResolver = async_system_resolver,
        on_decision: DecisionHook | None = None,
    ) -> None:
        self._review = review
        self._connector = connector
        self._initiated_by: Initiator = initiated_by
        self._inner = inner if inner is not None else AsyncPinnedHTTPTransport()
        self._resolver = resolver
        self._on_decision = on_decision

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host, port = _origin(request)
        try:
            addresses = _literal(host) or await resolve(self._resolver, host, port)
        except (OSError, UnicodeError, ValueError):
            addresses = []  # DNS failed: reviewed anyway, so a forbidden name is reported as forbidden
        outbound = _outbound(request, await request.aread(), addresses, self._connector, self._initiated_by)
        decision = self._review(outbound)
        if self._on_decision is not None:
            self._on_decision(outbound, decision)
        _enforce(decision, request, host, addresses)
        with pinned(host, port, addresses):
            return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


async def resolve(resolver: AsyncResolver, host: str, port: int) -> list[str]:
    """Call a sync or async resolver and return its addresses as a list."""
    result = resolver(host, port)
    if inspect.isawaitable(result):
        result = await result
    return list(result)


def _origin(request: httpx.Request) -> tuple[str, int]:
    # The names httpcore will connect to: the pin must use exactly these.
    host = request.url.raw_host.decode("ascii").lower()
    return host, request.url.port or DEFAULT_PORTS.get(request.url.scheme, 443)


def _literal(host: str) -> list[str]:
    try:
        return [str(ip_address(host))]
    except ValueError:
        return []


def _outbound(
    request: httpx.Request, body: bytes, addresses: list[str], connector: str, initiated_by: Initiator
) -> OutboundRequest:
    return OutboundRequest(
        method=request.method,
        url=str(request.url),
        headers=[(name.decode("latin-1"), value.decode("latin-1")) for name, value in request.headers.raw],
        body=body or None,
        connector=connector,
        initiated_by=initiated_by,
        resolved_ips=addresses,
    )


def _enforce(decision: EgressDecision, request: httpx.Request, host: str, addresses: list[str]) -> None:
    """Raise unless the decision allows the request, DNS found the host, and guard and httpx agree on it."""
    shown = decision.host or host
    target = f"a request to {shown}" if shown else "a request"
    if decision.verdict is Verdict.deny:
        raise EgressBlocked(f"Deputy blocked {target}. " + " ".join(decision.reasons), decision=decision)
    if decision.verdict is Verdict.ask:
        raise EgressNeedsApproval(
            f"Deputy needs your approval before sending {target}. " + " ".join(decision.reasons), decision=decision
        )
    if not addresses:
        # Reviewed first, so a name the policy forbids is reported as forbidden, not as missing.
        raise HostNotFound(f"No address found for {host}.", request=request)
    if not _same_host(str(request.url), host):
        # A parser differential: the guard reviewed one host, httpx would connect to another.
        raise EgressBlocked(f"Deputy could not tell for certain where the address for {host} leads, so it stopped.")


def _same_host(url: str, host: str) -> bool:
    try:
        destination = parse_destination(url)
    except UrlProblem:
        return False
    if destination.ip is not None:
        literal = _literal(host)
        return bool(literal) and ip_address(literal[0]) == destination.ip
    return destination.host == host.rstrip(".")
