"""The egress guard for connections Deputy opens itself: mail (IMAP, SMTP), CalDAV and MCP.

`EndpointGuard.check` resolves a server's name (resolver injected, so tests can simulate
DNS rebinding and names that lead to private addresses), reviews every address with the
pure `review_endpoint`, and raises `EgressBlocked` with a plain sentence when one is not
allowed. `EndpointGuard.connect` then opens the socket to one of *the checked addresses*,
never looking the name up again: a DNS server that answers a public address to the check
and a private one to the connection (rebinding) gets nowhere. The caller keeps the host
name for TLS (SNI and certificate checks) and protocol greetings, so pinning changes only
which IP the TCP connection goes to.

Connect-time checks (the connect page, `/connect mcp`) and call-time checks (the executor,
each time a connector opens a connection) use the same guard.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from ipaddress import ip_address
from urllib.parse import urlsplit

from deputy.core.records.effects import ConnectorRejected, ConnectorUnavailable
from deputy.sentinel.egress.policy import EgressDecision, EgressPolicy
from deputy.sentinel.egress.endpoint import endpoint_text, refusal_message, review_endpoint
from deputy.sentinel.egress.transports.http_client import EgressBlocked, Resolver, system_resolver
from deputy.sentinel.egress.url import DEFAULT_PORTS
from deputy.sentinel.policy import Verdict

SocketOpener = Callable[[str, int, "float | None"], socket.socket]
"""Opens a TCP connection to (host, port) with a timeout: what the mail clients call to connect."""
DenialHook = Callable[[str, int, list[str], EgressDecision], None]


class EndpointNotFound(ConnectorUnavailable):
    """DNS had no address for the server (it may be a typo, or DNS may be down)."""


class BadServerAddress(ConnectorRejected):
    """The configured server address cannot be read at all."""


@dataclass(frozen=True)
class EndpointGuard:
    """Checks and pins the connections of one connector (`imap`, `smtp`, `calendar`, `mcp`)."""

    policy: EgressPolicy
    connector: str
    resolver: Resolver = system_resolver
    on_denial: DenialHook | None = field(default=None, compare=False)

    def for_connector(self, connector: str) -> EndpointGuard:
        """The same policy and resolver for another connector."""
        return replace(self, connector=connector)

    def opening(self, *endpoints: tuple[str, int]) -> EndpointGuard:
        """This guard with `host:port` endpoints opened (the operator's own configured servers)."""
        extra = [endpoint_text(host.lower(), port) for host, port in endpoints if host]
        policy = self.policy.model_copy(
            update={"allow_private_networks": [*self.policy.allow_private_networks, *extra]}
        )
        return replace(self, policy=policy)

    def check(self, host: str, port: int) -> list[str]:
        """The addresses of `host` that Deputy may connect to on `port`; raise a ConnectorError if none.

        `EgressBlocked` (a ConnectorError) when the policy refuses any of them, with a plain
        sentence saying what is wrong and what to do; `EndpointNotFound` when DNS has none.
        """
        host = host.strip()
        literal = _literal(host)
        try:
            addresses = [literal] if literal else list(dict.fromkeys(self.resolver(host, port)))
        except (OSError, UnicodeError, ValueError):
            addresses = []  # reviewed anyway: a forbidden name is reported as forbidden, not as missing
        decision = review_endpoint(host, port, addresses, self.connector, self.policy)
        if decision.verdict is not Verdict.allow:
            if self.on_denial is not None:
                self.on_denial(host, port, addresses, decision)
            raise EgressBlocked(refusal_message(host, addresses, decision), decision=decision)
        if not addresses:
            raise EndpointNotFound(
                f"I couldn't find the server {host}; check its name (or try again if the network is down)."
            )
        return addresses

    def check_url(self, url: str) -> list[str]:
        """`check` for the host and port of an http(s) URL."""
        host, port = url_endpoint(url)
        return self.check(host, port)

    def connect(self, host: str, port: int, timeout: float | None = None) -> socket.socket:
        """A TCP socket to one of the checked addresses of `host` (never a second lookup)."""
        failure: OSError | None = None
        for address in self.check(host, port):
            try:
                return socket.create_connection((address, port), timeout)
            except OSError as exc:
                failure = exc
        assert failure is not None
        raise failure


def url_endpoint(url: str) -> tuple[str, int]:
    """(host, port) of an http(s) URL, with the scheme's default port; `BadServerAddress` if unreadable."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        port = None
        parts = None
    if parts is None or not parts.hostname or port is None:
        raise BadServerAddress("That server address isn't a valid http:// or https:// address; check it.")
    return parts.hostname, port


def plain_guard(policy: EgressPolicy, connector: str, resolver: Resolver = system_resolver) -> EndpointGuard:
    """An `EndpointGuard` without a denial hook (tests, one-off checks)."""
    return EndpointGuard(policy=policy, connector=connector, resolver=resolver)


def _literal(host: str) -> str | None:
    try:
        return str(ip_address(host.strip("[]")))
    except ValueError:
        return None


__all__ = [
    "BadServerAddress",
    "EgressBlocked",
    "EndpointGuard",
    "EndpointNotFound",
    "SocketOpener",
    "plain_guard",
    "url_endpoint",
]
