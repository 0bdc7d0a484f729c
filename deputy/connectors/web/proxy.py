"""A reviewing, pinning forward proxy between one browser profile and the network.

Why it exists: Playwright's `context.route` sees only the *first* request of a redirect
chain (documented: "the handler will only be called for the first url if the response
is a redirect"), and Chromium resolves host names itself after the route handler
reviewed them. So an allowed page could redirect the browser to a private address, and
a rebinding DNS server could change its answer between review and connection. Chromium
is therefore launched with this proxy (loopback included, `<-loopback>`), and every
connection it opens (each redirect hop, each `CONNECT` tunnel for https and WebSockets)
is reviewed here by the same `PageGuard`, then opened to exactly the addresses that were
reviewed (pinned), never looked up again.

What the proxy sees: for https only the host and port (the tunnel is end-to-end
encrypted), for plain http the full request head. Bodies and headers of first requests
are reviewed by the route handler, which sees them before encryption.

Each browser profile gets its own proxy (its own port or socket and random password), so a
connection is always reviewed with its own user's guard. Plain-http connections are
closed after one exchange ("Connection: close"), so Chromium cannot reuse one reviewed
connection for a request meant for another host.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import secrets
from collections.abc import Awaitable, Callable

from deputy.sentinel.egress.policy import EgressDecision
from deputy.sentinel.egress.url import UrlProblem, parse_destination
from deputy.sentinel.policy import Verdict

log = logging.getLogger(__name__)

ConnectionReview = Callable[[str, str, list[tuple[str, str]]], Awaitable[tuple[EgressDecision, list[str]]]]
"""(method, url, headers) -> the decision and the addresses reviewed for the host."""

_MAX_HEAD = 64 * 1024
_HEAD_TIMEOUT = 30.0
_CONNECT_TIMEOUT = 10.0
_HOP_BY_HOP = {"proxy-authorization", "proxy-connection", "connection", "keep-alive", "te", "trailer", "upgrade"}


class EgressProxy:
    """Serve on 127.0.0.1 (a free port) or a Unix socket; `review` decides every connection.

    Start with `start()` (TCP) or `start_unix(path)` (for a confined browser, which reaches the
    socket through the relay in its sandbox: `deputy.connectors.web.relay`).
    """

    def __init__(self, review: ConnectionReview) -> None:
        self._review = review
        self.username = "deputy"
        self.password = secrets.token_urlsafe(18)
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._unix_path: str | None = None

    async def start(self) -> str:
        """Start listening; returns the proxy's address for Chromium."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=_MAX_HEAD)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def start_unix(self, path: str) -> None:
        """Start listening on the Unix socket `path` (made here; the caller sets who may connect)."""
        self._server = await asyncio.start_unix_server(self._serve, path, limit=_MAX_HEAD)
        self._unix_path = path

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._unix_path is not None:
            # Its socket may sit on a volume shared with the browser host: nothing is left behind there.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._unix_path)
            self._unix_path = None
        for task in list(self._tasks):
            task.cancel()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._exchange(reader, writer)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass  # the browser or the site hung up or sent nonsense: that connection just ends
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT)
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        headers = [
            (name.strip(), value.strip()) for name, _, value in (line.partition(":") for line in lines[1:] if line)
        ]
        if not self._authorised(headers):
            writer.write(
                b'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="deputy"\r\n'
                b"Content-Length: 0\r\nConnection: close\r\n\r\n"
            )
            await writer.drain()
            return
        tunnel = method.upper() == "CONNECT"
        url = _tunnel_url(target) if tunnel else target
        if url is None or not url.lower().startswith(("http://", "https://")):
            await _refuse(writer, 400, "Deputy's proxy only forwards web addresses.")
            return
        forwarded = [(n, v) for n, v in headers if n.lower() not in _HOP_BY_HOP]
        decision, addresses = await self._review(method.upper(), url, forwarded)
        if decision.verdict is not Verdict.allow:
            await _refuse(writer, 403, "Blocked by Deputy's network guard. " + " ".join(decision.reasons))
            return
        port = parse_destination(url).port
        upstream = await _connect(addresses, port)
        if upstream is None:
            await _refuse(writer, 502, "Deputy could not connect to the site.", unreachable=True)
            return
        up_reader, up_writer = upstream
        try:
            if tunnel:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await writer.drain()
            else:
                up_writer.write(_origin_form_head(method, url, version, forwarded))
                await up_writer.drain()
            await _pipe_both(reader, writer, up_reader, up_writer, rewrite_response=not tunnel)
        finally:
            up_writer.close()

    def _authorised(self, headers: list[tuple[str, str]]) -> bool:
        expected = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        given = [v for n, v in headers if n.lower() == "proxy-authorization"]
        return bool(given) and secrets.compare_digest(given[0].encode(), f"Basic {expected}".encode())


def _tunnel_url(authority: str) -> str | None:
    """`host:443` -> `https://host:443/`; any other port is reviewed as http, since the scheme is hidden."""
    host, _, port = authority.rpartition(":")
    if not host or not port.isdigit():
        return None
    scheme = "https" if port == "443" else "http"
    try:
        parse_destination(f"{scheme}://{authority}/")
    except UrlProblem:
        return None
    return f"{scheme}://{authority}/"


def _origin_form_head(method: str, url: str, version: str, headers: list[tuple[str, str]]) -> bytes:
    destination = parse_destination(url)
    path = destination.path or "/"
    if destination.query:
        path += "?" + destination.query
    lines = [f"{method} {path} {version}", *(f"{n}: {v}" for n, v in headers), "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1")


async def _connect(addresses: list[str], port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    for address in addresses:
        with contextlib.suppress(OSError, asyncio.TimeoutError):
            return await asyncio.wait_for(asyncio.open_connection(address, port), _CONNECT_TIMEOUT)
    return None


UNREACHABLE_HEADER = "x-deputy-unreachable"
"""Set on the proxy's own answer when the site could not be connected to (it is down)."""


async def _refuse(writer: asyncio.StreamWriter, status: int, text: str, *, unreachable: bool = False) -> None:
    body = text.encode("utf-8", "replace")
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    marker = f"{UNREACHABLE_HEADER}: 1\r\n" if unreachable else ""
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n{marker}\r\n".encode()
        + body
    )
    await writer.drain()


async def _pipe_both(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
    *,
    rewrite_response: bool,
) -> None:
    async def downstream() -> None:
        if rewrite_response:
            # Tell the browser this connection ends with the response, so it never sends the
            # next request (maybe for another host) down a connection reviewed for this one.
            head = await up_reader.readuntil(b"\r\n\r\n")
            writer.write(_closing_head(head))
        await _copy(up_reader, writer)

    upward, downward = asyncio.ensure_future(_copy(reader, up_writer)), asyncio.ensure_future(downstream())
    tasks = [upward, downward]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if upward in done and not downward.done():
            # The browser finished sending; the answer may still be on its way.
            await asyncio.wait([downward], timeout=_HEAD_TIMEOUT)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _closing_head(head: bytes) -> bytes:
    lines = head.decode("latin-1").split("\r\n")
    kept = [
        line
        for line in lines[1:]
        if line and line.partition(":")[0].strip().lower() not in ("connection", "keep-alive", "proxy-connection")
    ]
    return "\r\n".join([lines[0], *kept, "Connection: close", "", ""]).encode("latin-1")


async def _copy(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, asyncio.IncompleteReadError):
        while data := await source.read(65536):
            target.write(data)
            await target.drain()
    with contextlib.suppress(OSError, RuntimeError):
        if target.can_write_eof():
            target.write_eof()
