"""Connecting only to the addresses the guard reviewed, closing the DNS rebinding window.

If the guard resolves `evil.test` to a public address, approves it, and the HTTP client
then resolves the name again, a rebinding DNS server can answer 127.0.0.1 the second
time (time of check vs time of use). So the guarded transports put the reviewed
addresses in a context variable for the duration of the request, and the network
backend here connects to those addresses and nothing else: no second lookup happens.
A connection the transport did not review (no pin for its host and port) is refused.

httpx offers no public hook for a network backend, so `PinnedHTTPTransport` builds the
same httpcore pool `httpx.HTTPTransport` builds, with this backend; it is the one place
that depends on httpx internals (`_pool`), covered by tests that would fail if it broke.
The backends are written once for httpcore and for httpcore2 (the MCP SDK's copy of it,
with the same interface): `pinned_backend(core)` and `async_pinned_backend(core)`.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import ModuleType
from typing import Any

import httpcore
import httpx

_DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)
_NO_UNIX_SOCKETS = "Unix sockets are not reachable through the egress guard."
_PINS: ContextVar[dict[tuple[str, int], tuple[str, ...]] | None] = ContextVar("deputy_egress_pins", default=None)


@contextmanager
def pinned(host: str, port: int, addresses: Iterable[str]) -> Iterator[None]:
    """Within this block, connections to (host, port) may only go to `addresses`."""
    pins = dict(_PINS.get() or {})
    pins[(host.lower(), port)] = tuple(addresses)
    token = _PINS.set(pins)
    try:
        yield
    finally:
        _PINS.reset(token)


def reviewed_addresses(host: str, port: int) -> tuple[str, ...]:
    """The reviewed addresses for (host, port) in this context; empty when there are none."""
    return (_PINS.get() or {}).get((host.lower(), port), ())


def pinned_addresses(host: str, port: int, core: ModuleType = httpcore) -> tuple[str, ...]:
    """The reviewed addresses for (host, port); raise `core.ConnectError` if there are none."""
    addresses = (_PINS.get() or {}).get((host.lower(), port))
    if not addresses:
        raise core.ConnectError(f"Connection to {host}:{port} was not reviewed by the egress guard.")
    return addresses


@functools.cache
def pinned_backend(core: ModuleType = httpcore) -> type:
    """The network backend class of `core` (httpcore, or its twin httpcore2) that connects only to pins."""

    class PinnedBackend(core.NetworkBackend):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            self._inner = core.SyncBackend()

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> Any:
            failure: Exception | None = None
            for address in pinned_addresses(host, port, core):
                try:
                    return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
                except (core.ConnectError, core.ConnectTimeout) as exc:
                    failure = exc
            assert failure is not None
            raise failure

        def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
            raise core.ConnectError(_NO_UNIX_SOCKETS)

        def sleep(self, seconds: float) -> None:
            self._inner.sleep(seconds)

    return PinnedBackend


@functools.cache
def async_pinned_backend(core: ModuleType = httpcore) -> type:
    """The asyncio twin of `pinned_backend`, for httpx and for httpx2 (the MCP SDK's client)."""

    class AsyncPinnedBackend(core.AsyncNetworkBackend):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            self._inner = core.AnyIOBackend()

        async def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> Any:
            failure: Exception | None = None
            for address in pinned_addresses(host, port, core):
                try:
                    return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
                except (core.ConnectError, core.ConnectTimeout) as exc:
                    failure = exc
            assert failure is not None
            raise failure

        async def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
            raise core.ConnectError(_NO_UNIX_SOCKETS)

        async def sleep(self, seconds: float) -> None:
            await self._inner.sleep(seconds)

    return AsyncPinnedBackend


def _ssl_context(verify: ssl.SSLContext | bool) -> ssl.SSLContext:
    return verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify=verify)


def pinned_pool(pool_class: type, backend: Any, context: ssl.SSLContext, limits: Any, retries: int = 0) -> Any:
    """The connection pool an httpx (or httpx2) transport builds, with the pinned `backend` instead of DNS."""
    return pool_class(
        ssl_context=context,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        retries=retries,
        network_backend=backend,
    )


class PinnedHTTPTransport(httpx.HTTPTransport):
    """An `httpx.HTTPTransport` (no proxy, HTTP/1.1) that connects only to pinned addresses."""

    def __init__(
        self, *, verify: ssl.SSLContext | bool = True, limits: httpx.Limits = _DEFAULT_LIMITS, retries: int = 0
    ) -> None:
        context = _ssl_context(verify)
        super().__init__(verify=context, trust_env=False, limits=limits, retries=retries)
        self._pool = pinned_pool(httpcore.ConnectionPool, pinned_backend()(), context, limits, retries)


class AsyncPinnedHTTPTransport(httpx.AsyncHTTPTransport):
    """The asyncio twin of `PinnedHTTPTransport`."""

    def __init__(
        self, *, verify: ssl.SSLContext | bool = True, limits: httpx.Limits = _DEFAULT_LIMITS, retries: int = 0
    ) -> None:
        context = _ssl_context(verify)
        super().__init__(verify=context, trust_env=False, limits=limits, retries=retries)
        self._pool = pinned_pool(httpcore.AsyncConnectionPool, async_pinned_backend()(), context, limits, retries)
