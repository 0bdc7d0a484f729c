"""httpx failures as plain `ConnectorError`s, so no library exception reaches the agent."""

from __future__ import annotations

import ssl

import httpx

from deputy.core.records.effects import ConnectorError, ConnectorRejected, ConnectorUnavailable
from deputy.sentinel.egress.transports.http_client import HostNotFound

HTTP_FAILURES: tuple[type[BaseException], ...] = (
    httpx.HTTPError,
    httpx.InvalidURL,
    httpx.StreamError,
    ssl.SSLError,
    OSError,
    UnicodeError,
)
"""What `describe_failure` knows how to explain."""


def describe_failure(exc: BaseException, host: str) -> ConnectorError:
    """A plain-sentence `ConnectorError` for an httpx (or socket) failure talking to `host`."""
    host = _failing_host(exc) or host
    detail = type(exc).__name__
    if isinstance(exc, HostNotFound):
        return ConnectorRejected(f"I couldn't find the site {host}. Check the address.", detail=detail)
    if isinstance(exc, httpx.TimeoutException):
        return ConnectorUnavailable(f"{host} took too long to answer.", detail=detail)
    if _caused_by_tls(exc):
        return ConnectorRejected(
            f"The secure connection to {host} failed: its certificate could not be verified.", detail=f"{detail}: {exc}"
        )
    if isinstance(exc, httpx.ConnectError):
        return ConnectorUnavailable(f"I couldn't connect to {host}; the site may be down.", detail=f"{detail}: {exc}")
    if isinstance(exc, httpx.TooManyRedirects):
        return ConnectorRejected(f"{host} redirected too many times, so I stopped following it.", detail=detail)
    if isinstance(exc, UnicodeError):
        return ConnectorRejected("The request has characters that cannot be sent in a web address or header.")
    if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return ConnectorRejected("That is not a web address I can fetch; it must start with http:// or https://.")
    if isinstance(exc, httpx.DecodingError):
        return ConnectorRejected(f"{host} sent content that could not be decompressed.", detail=detail)
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.NetworkError)):
        return ConnectorUnavailable(f"The connection to {host} broke before its answer was complete.", detail=detail)
    return ConnectorUnavailable(f"The request to {host} failed.", detail=detail)


def _failing_host(exc: BaseException) -> str | None:
    # After redirects the failing hop may be another host than the one first asked for.
    try:
        return exc.request.url.host or None  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):
        return None


def _caused_by_tls(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
