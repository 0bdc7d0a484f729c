"""The egress guard for httpx2 clients: the HTTP client of the MCP SDK's streamable HTTP transport.

The MCP SDK talks HTTP through `httpx2` (a separate package from the `httpx` that
`deputy.sentinel.egress.transports.http_client` guards), and takes the client it should use from the caller. The
client Deputy gives it has `AsyncGuardedTransport2`, which checks every request the SDK
sends (each redirect hop is a request of its own) with the `EndpointGuard` and then
connects only to the checked addresses: its connection pool's network backend looks up
the pinned addresses instead of DNS, so a name that rebinds to a private address between
the check and the connection gets nowhere. TLS still verifies the host name.

Like `deputy.sentinel.egress.transports.pinning`, this builds the httpcore2 pool that `AsyncHTTPTransport`
builds, with its own backend: the one place that depends on httpx2's internals (`_pool`),
covered by tests that would fail if it broke.
"""

from __future__ import annotations

import ssl

import anyio.to_thread
import httpcore2
import httpx2

from deputy.sentinel.egress.transports.http_client import EgressBlocked, _same_host
from deputy.sentinel.egress.transports.pinning import async_pinned_backend, pinned, pinned_pool
from deputy.sentinel.egress.transports.sockets import EndpointGuard
from deputy.sentinel.egress.url import DEFAULT_PORTS


class AsyncGuardedTransport2(httpx2.AsyncHTTPTransport):
    """An `httpx2.AsyncHTTPTransport` (no proxy, HTTP/1.1) that checks and pins every request."""

    def __init__(self, guard: EndpointGuard, *, verify: ssl.SSLContext | bool = True) -> None:
        context = verify if isinstance(verify, ssl.SSLContext) else httpx2.create_ssl_context(verify=verify)
        super().__init__(verify=context, trust_env=False)
        limits = httpx2.Limits(max_connections=20, max_keepalive_connections=10)
        self._pool = pinned_pool(httpcore2.AsyncConnectionPool, async_pinned_backend(httpcore2)(), context, limits)
        self._guard = guard

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        host = request.url.raw_host.decode("ascii").lower()
        port = request.url.port or DEFAULT_PORTS.get(request.url.scheme, 443)
        # DNS may block: off the event loop, like httpx2's own lookups.
        addresses = await anyio.to_thread.run_sync(self._guard.check, host, port)
        if not _same_host(str(request.url), host):
            # A parser differential: the guard checked one host, httpx2 would connect to another.
            raise EgressBlocked(f"Deputy could not tell for certain where the address for {host} leads, so it stopped.")
        with pinned(host, port, addresses):
            return await super().handle_async_request(request)


def guarded_client(
    guard: EndpointGuard, *, headers: dict[str, str], timeout: float, verify: ssl.SSLContext | bool = True
) -> httpx2.AsyncClient:
    """An httpx2 client whose every request passes the egress guard (no proxy or .netrc from the environment)."""
    return httpx2.AsyncClient(
        headers=headers, timeout=httpx2.Timeout(timeout), trust_env=False,
        transport=AsyncGuardedTransport2(guard, verify=verify),
    )
