"""One visit to an MCP server: connect (or start it), do one thing, disconnect.

Why a fresh session per visit rather than a pool: the executor is a forking RQ worker, so
each action runs in a child process that exits afterwards; a pooled session (a background
event-loop thread owning open sessions) would live for a single job anyway, and would not
survive `fork` if opened in the parent. Per visit, a crashed or hung server never poisons
the next call, every call sees the server's current tool list (so a changed tool is
caught), and no server process outlives the job. The cost, measured on this machine with
the demo server: a visit to a local Python stdio server takes 1-1.7 s (starting the
interpreter dominates) against about 2 ms for a call on an open session; a visit to a
streamable HTTP server takes about 30 ms against about 7 ms.
Should the executor move to an in-process worker or asyncio, a pool keyed by (user,
server) with one owner task per session slots in behind `Visitor` without changing callers.

Each visit runs in its own event loop (`asyncio.run`), on a helper thread when the caller
already runs one, and is bounded by the server's `timeout` from start to finish.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import tempfile
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack
from typing import Any, TextIO, TypeVar

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from deputy.core.records.effects import ConnectorError
from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.errors import VisitLog, translate
from deputy.connectors.mcp.text import one_line

T = TypeVar("T")
HttpClientFactory = Callable[[dict[str, str], float], httpx2.AsyncClient]
"""Builds the HTTP client for a visit from its headers and timeout (tests and egress hooks)."""

CLIENT_INFO = Implementation(name="deputy", version="0.1")
_STDERR_TAIL = 500


@functools.cache
def tls_context() -> ssl.SSLContext:
    # Building one costs tens of milliseconds: once per process, not once per visit.
    return ssl.create_default_context()


def default_http_client(headers: dict[str, str], timeout: float) -> httpx2.AsyncClient:
    """An HTTP client for one visit: the system's CAs, no proxy or .netrc from the environment."""
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(timeout), trust_env=False, verify=tls_context())


class Visitor:
    """Runs `work(client)` against one server in a fresh session; failures become ConnectorErrors."""

    def __init__(self, http_client_factory: HttpClientFactory = default_http_client) -> None:
        self._http_client_factory = http_client_factory

    def visit(self, config: McpServerConfig, secret: str | None, work: Callable[[Client], Awaitable[T]]) -> T:
        """Connect to `config` (with `secret` as token or environment), run `work`, disconnect."""
        log = VisitLog()
        failure: ConnectorError
        try:
            return _run(lambda: self._visit(config, secret, work, log))
        except ConnectorError:
            raise
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - no library exception may escape
            failure = translate(exc, config, log, secret)
        # Raised outside the except block: the library exception's frames hold the secret.
        raise failure

    async def _visit(
        self, config: McpServerConfig, secret: str | None, work: Callable[[Client], Awaitable[T]], log: VisitLog
    ) -> T:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr:
            async with AsyncExitStack() as stack:
                return await self._session(stack, config, secret, work, log, stderr)

    async def _session(
        self,
        stack: AsyncExitStack,
        config: McpServerConfig,
        secret: str | None,
        work: Callable[[Client], Awaitable[T]],
        log: VisitLog,
        stderr: TextIO,
    ) -> T:
        try:
            with anyio.fail_after(config.timeout):
                transport = await self._transport(stack, config, secret, log, stderr)
                client = Client(
                    transport,
                    read_timeout_seconds=config.timeout,
                    client_info=CLIENT_INFO,
                    cache=None,
                    message_handler=_note_faults(log),
                )
                async with client:
                    log.started = True
                    return await work(client)
        except BaseException:
            log.stderr_tail = _tail(stderr)
            raise

    async def _transport(
        self, stack: AsyncExitStack, config: McpServerConfig, secret: str | None, log: VisitLog, stderr: TextIO
    ) -> Any:
        if config.transport == "stdio":
            env = dict(config.env)
            if config.secret_env and secret:
                env[config.secret_env] = secret
                log.sent_secret = True
            params = StdioServerParameters(command=config.command or "", args=config.args, env=env, cwd=config.cwd)
            return stdio_client(params, errlog=stderr)
        headers = {}
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
            log.sent_secret = True
        http = await stack.enter_async_context(self._http_client_factory(headers, config.timeout))

        async def record(response: httpx2.Response) -> None:
            log.statuses.append(response.status_code)

        http.event_hooks["response"].append(record)
        return streamable_http_client(config.url or "", http_client=http)


def _note_faults(log: VisitLog) -> Callable[[Any], Awaitable[None]]:
    # Lenient on purpose: a server that prints one stray line (a banner) and then speaks
    # MCP still works; if the visit then fails, the stray output explains why.
    async def handle(message: Any) -> None:
        if isinstance(message, Exception):
            log.faults.append(f"{type(message).__name__}: {one_line(str(message), 200)}")

    return handle


def _run(make: Callable[[], Awaitable[T]]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())  # type: ignore[arg-type]
    # The caller runs an event loop in this thread (an async test, an async worker):
    # asyncio.run refuses to nest, so the visit gets a thread of its own.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-visit") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()  # type: ignore[arg-type]


def _tail(stream: TextIO) -> str:
    try:
        stream.seek(0)
        return one_line(stream.read()[-_STDERR_TAIL * 4 :], _STDERR_TAIL)
    except (OSError, ValueError):
        return ""
