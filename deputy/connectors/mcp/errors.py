"""Whatever went wrong on a visit to an MCP server, as one plain `ConnectorError`.

The SDK reports failures in many shapes: `MCPError` codes, httpx2 exceptions, pydantic
validation errors for answers that are not MCP, timeouts, and all of them wrapped in
exception groups by its task groups. `translate` looks at every leaf and picks the one
sentence the user should read; the rest goes to `detail`, scrubbed of the secret.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
)
from pydantic import ValidationError

from deputy.core.records.effects import (
    ConnectorAuthError,
    ConnectorError,
    ConnectorRejected,
    ConnectorUnavailable,
)
from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.text import one_line
from deputy.vault import Scrubber


@dataclass
class VisitLog:
    """What one visit observed besides exceptions: HTTP statuses, a local server's stderr."""

    statuses: list[int] = field(default_factory=list)
    sent_secret: bool = False
    started: bool = False
    """Whether the MCP session was established (the handshake completed)."""
    stderr_tail: str = ""
    faults: list[str] = field(default_factory=list)
    """Transport-level faults the session skipped over (lines that were not MCP)."""


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (possibly nested) exception groups, cancellations last."""
    if isinstance(exc, BaseExceptionGroup):
        found = [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    else:
        found = [exc]
    return sorted(found, key=lambda e: isinstance(e, asyncio.CancelledError))


def translate(exc: BaseException, config: McpServerConfig, log: VisitLog, secret: str | None) -> ConnectorError:
    """One `ConnectorError` for `exc`, with a plain message that never holds the secret."""
    found = leaves(exc)
    for leaf in found:
        if isinstance(leaf, ConnectorError):
            return leaf
    detail = "; ".join(f"{type(e).__name__}: {one_line(str(e), 200)}" for e in found[:5])
    if log.faults:
        detail += " | skipped: " + "; ".join(log.faults[:3])
    if log.stderr_tail:
        detail += f" | server stderr: {log.stderr_tail}"
    error = _classify(found, config, log)
    if secret:  # a server may echo what it was sent, in any encoding
        scrubber = Scrubber([secret])
        error = type(error)(scrubber.scrub(error.user_message))
        detail = scrubber.scrub(detail)
    error.detail = detail
    return error


def _classify(found: list[BaseException], config: McpServerConfig, log: VisitLog) -> ConnectorError:
    name, timeout = config.name, f"{config.timeout:g}"
    refused = [s for s in log.statuses if s in (401, 403)]
    if refused:
        if log.sent_secret:
            return ConnectorAuthError(f"The MCP server {name} refused its token (HTTP {refused[0]}); update it.")
        return ConnectorAuthError(f"The MCP server {name} asks for a token, and none is stored for it.")
    leaf = found[0]
    if log.faults and (isinstance(leaf, TimeoutError) or _code(leaf) in (REQUEST_TIMEOUT, CONNECTION_CLOSED)):
        # The server did talk, just not MCP: that, not the wait, is what went wrong.
        return ConnectorUnavailable(f"The MCP server {name} answered with something that isn't valid MCP.")
    if isinstance(leaf, (TimeoutError, httpx2.TimeoutException)) or _code(leaf) == REQUEST_TIMEOUT:
        return ConnectorUnavailable(f"The MCP server {name} didn't answer within {timeout} seconds.")
    if isinstance(leaf, OSError) and config.transport == "stdio" and not log.started:
        return ConnectorError(f"I couldn't start the MCP server {name} ({config.command}); check how it is set up.")
    if isinstance(leaf, httpx2.ConnectError) or (isinstance(leaf, OSError) and not log.started):
        return ConnectorUnavailable(f"I couldn't reach the MCP server {name}; it may be down.")
    if any(s >= 500 for s in log.statuses):
        return ConnectorUnavailable(
            f"The MCP server {name} had a problem of its own (an HTTP {max(log.statuses)} error)."
        )
    if 404 in log.statuses and not log.started:
        return ConnectorError(f"There is no MCP server at the address set up for {name}.")
    if any(400 <= s < 500 for s in log.statuses):
        return ConnectorRejected(f"The MCP server {name} refused the request (HTTP {max(log.statuses)}).")
    if isinstance(leaf, MCPError):
        return _from_mcp_error(leaf, name)
    if isinstance(leaf, (httpx2.TransportError, OSError, EOFError)):
        return ConnectorUnavailable(f"The connection to the MCP server {name} broke off.")
    if isinstance(leaf, (ValidationError, ValueError, RuntimeError, TypeError, KeyError)):
        return ConnectorUnavailable(f"The MCP server {name} answered with something that isn't valid MCP.")
    return ConnectorUnavailable(f"Something went wrong talking to the MCP server {name}.")


def _from_mcp_error(error: MCPError, name: str) -> ConnectorError:
    message = one_line(str(error.message), 200)
    # PARSE_ERROR and "Unexpected content type" are the SDK's words for an answer that
    # was not MCP at all (an HTML page, broken JSON), not a refusal by a real server.
    if error.code == PARSE_ERROR or str(error.message).startswith("Unexpected content type"):
        return ConnectorUnavailable(f"The MCP server {name} answered with something that isn't valid MCP.")
    if error.code == CONNECTION_CLOSED:
        return ConnectorUnavailable(f"The MCP server {name} stopped or closed the connection.")
    if error.code == INTERNAL_ERROR:
        return ConnectorUnavailable(f"The MCP server {name} had an internal error: {message}")
    if error.code == METHOD_NOT_FOUND:
        return ConnectorRejected(f"The MCP server {name} doesn't support that: {message}")
    if error.code == INVALID_PARAMS:
        return ConnectorRejected(f"The MCP server {name} refused the arguments: {message}")
    return ConnectorRejected(f"The MCP server {name} refused the request: {message}")


def _code(error: BaseException) -> int | None:
    return error.code if isinstance(error, MCPError) else None
