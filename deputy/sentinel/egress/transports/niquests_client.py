"""The egress guard for niquests sessions (the `caldav` library's HTTP client), redirects included.

niquests sends every request, and every redirect hop it follows, through the adapter
mounted for the URL's scheme, so `GuardedAdapter.send` sees all of a session's traffic:
it checks the request's host and port with the `EndpointGuard` (refusing private and
metadata addresses unless the operator opened them) and pins the checked addresses for
the duration of the send. The adapter's DNS resolver (`_PinnedResolver`, niquests'
documented extension point) answers only with those pinned addresses and refuses any
host it was not told about, so the connection goes to exactly the checked IP while TLS
still sees the host name (SNI, certificate check) and HTTP keeps its Host header.
"""

from __future__ import annotations

import socket
from ipaddress import ip_address
from typing import Any

import niquests
from niquests.packages.urllib3.contrib.resolver import BaseResolver
from niquests.packages.urllib3.contrib.resolver.protocols import ProtocolResolver

from deputy.sentinel.egress.transports.pinning import pinned, reviewed_addresses
from deputy.sentinel.egress.transports.sockets import EndpointGuard, url_endpoint


class _PinnedResolver(BaseResolver):
    """Resolves a host only to the addresses the guard pinned for it in this context."""

    protocol = ProtocolResolver.MANUAL
    implementation = "deputy-pinned"

    def __init__(self, *patterns: str, **kwargs: Any) -> None:
        super().__init__(None, None)

    def recycle(self) -> BaseResolver:
        return self

    def close(self) -> None:
        pass  # holds nothing

    def is_available(self) -> bool:
        return True

    def getaddrinfo(
        self,
        host: bytes | str | None,
        port: str | int | None,
        family: socket.AddressFamily,
        type: socket.SocketKind,
        proto: int = 0,
        flags: int = 0,
        *,
        quic_upgrade_via_dns_rr: bool = False,
    ) -> list[tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple[Any, ...]]]:
        name = (host.decode("ascii") if isinstance(host, bytes) else host or "").strip("[]")
        number = int(port or 0)
        records = []
        for text in reviewed_addresses(name, number):
            address = ip_address(text)
            kind = socket.AF_INET6 if address.version == 6 else socket.AF_INET
            if family not in (socket.AF_UNSPEC, kind):
                continue
            target: tuple[Any, ...] = (text, number, 0, 0) if address.version == 6 else (text, number)
            records.append((kind, type or socket.SOCK_STREAM, proto, "", target))
        if not records:
            raise socket.gaierror(f"The connection to {name}:{number} was not checked by the egress guard.")
        return records


class GuardedAdapter(niquests.adapters.HTTPAdapter):
    """An HTTPAdapter that checks every request (each redirect hop too) and connects to the checked IP."""

    def __init__(self, guard: EndpointGuard, **kwargs: Any) -> None:
        self._guard = guard
        # No HTTP/3: QUIC would be a second way out, learnt from the server's Alt-Svc answers.
        super().__init__(resolver=_PinnedResolver(), disable_http3=True, **kwargs)

    def send(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        host, port = url_endpoint(str(request.url))
        addresses = self._guard.check(host, port)
        with pinned(host.lower(), port, addresses):
            return super().send(request, *args, **kwargs)


def guard_session(session: niquests.Session, guard: EndpointGuard) -> None:
    """Route all of `session`'s http and https traffic through a `GuardedAdapter`."""
    adapter = GuardedAdapter(guard)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
