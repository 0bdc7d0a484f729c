"""The egress guard, wired into the connectors that open their own connections.

IMAP, SMTP, CalDAV and MCP-over-HTTP do not go through the guarded httpx client of the
OpenAPI connectors, so each gets the `EndpointGuard` in the shape its library takes: a
socket opener for imaplib/smtplib, a niquests adapter for caldav, an httpx2 transport
for the MCP SDK. The operator's own configured servers (DEPUTY_SMTP_HOST, DEPUTY_IMAP_HOST,
DEPUTY_CALDAV_URL) count as opened: the operator chose them, so a private address there
is intended; every server a *user* typed in must be public unless DEPUTY_EGRESS_ALLOW
opens it.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable
from typing import Any

from deputy.core.records.effects import ConnectorError
from deputy.connectors.calendar.client import CalDavAccount, open_davclient
from deputy.connectors.mcp.session import Visitor, tls_context
from deputy.settings import Settings
from deputy.sentinel.egress.policy import EgressDecision, EgressPolicy
from deputy.sentinel.egress.transports.http_client import Resolver, system_resolver
from deputy.sentinel.egress.transports.httpx2_client import guarded_client
from deputy.sentinel.egress.transports.niquests_client import guard_session
from deputy.sentinel.egress.transports.sockets import EndpointGuard, url_endpoint

log = logging.getLogger(__name__)


def log_denial(host: str, port: int, addresses: list[str], decision: EgressDecision) -> None:
    """Tell the operator's log where a connection was refused and why (no credential is ever here)."""
    log.warning("egress: refused a connection to %s:%s (%s): %s", host, port, ", ".join(addresses) or "no address",
                " ".join(decision.reasons))


def operator_endpoints(settings: Settings) -> list[tuple[str, int]]:
    """The servers the operator configured as everyone's default mail and calendar."""
    endpoints = []
    if settings.smtp_host:
        endpoints.append((settings.smtp_host, settings.smtp_port))
    if settings.imap_host:
        endpoints.append((settings.imap_host, settings.imap_port))
    if settings.caldav_url:
        try:
            endpoints.append(url_endpoint(settings.caldav_url))
        except ConnectorError:
            pass  # an unreadable URL is reported when the calendar is used
    return endpoints


def endpoint_guard(settings: Settings, resolver: Resolver = system_resolver) -> EndpointGuard:
    """The guard for servers users connect (connect page, `/connect mcp`) and for the executor's
    connections, with the operator's own servers opened."""
    policy = EgressPolicy(allow_private_networks=settings.egress_allow())
    guard = EndpointGuard(policy, "mail", resolver, on_denial=log_denial)
    return guard.opening(*operator_endpoints(settings))


def caldav_connect(guard: EndpointGuard) -> Callable[[CalDavAccount], Any]:
    """A `connect` for `CalendarRunners`: every CalDAV request (and redirect hop) is checked and pinned."""
    calendar = guard.for_connector("calendar")

    def connect(account: CalDavAccount) -> Any:
        return open_davclient(account, prepare_session=lambda session: guard_session(session, calendar))

    return connect


def mcp_visitor(guard: EndpointGuard, verify: Callable[[], ssl.SSLContext] = tls_context) -> Visitor:
    """A `Visitor` whose HTTP visits go through the guard (stdio servers are local processes)."""
    mcp = guard.for_connector("mcp")
    return Visitor(lambda headers, timeout: guarded_client(mcp, headers=headers, timeout=timeout, verify=verify()))
