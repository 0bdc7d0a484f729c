"""A browser worker started by the browser host, driven over its Unix socket instead of a child's pipe.

With `DEPUTY_BROWSER_HOST_SOCKET` set, the executor forks nothing to browse: it asks the browser
host (`deputy browser-host`, `deputy.connectors.web.host`), a process of its own holding no key,
to start the user's confined worker, and drives it over that connection with the very messages
it would write to a child's standard input (`deputy.connectors.web.host_protocol`).

The reviewing proxy stays here, in the executor, beside the user's guard: it listens on a socket
the executor makes beside the host's (on the volume the two share), named in the request. The
host hands that socket to the worker's uid and binds it into the worker, so the worker's
Chromium reaches the network through this executor's review and nothing else.

If the host dies (or the worker behind it), the connection closes and every call in flight fails
at once, exactly as when a child worker dies: the session is dead, and a step that had already
sent a form ends as "outcome unknown" (`deputy.connectors.web.browser`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api._generated import Playwright as AsyncPlaywright

from deputy.connectors.web.host_protocol import (
    OpenWorker,
    ProtocolError,
    WorkerRefused,
    frame,
    parse_answer,
    read_frame,
)
from deputy.connectors.web.worker import BrowserWorker, WorkerClient, _WorkerTransport

GREETING_TIMEOUT = 30.0


class HostRefused(Exception):
    """The host would not start a worker; `unconfinable` when it cannot build the sandbox."""

    def __init__(self, reason: str, *, unconfinable: bool = False) -> None:
        super().__init__(reason)
        self.unconfinable = unconfinable


class _HostChannel:
    """The host connection in the shape `PipeTransport` expects of a worker process: `stdout` to read,
    `stdin` to write, `communicate()` once reading ends, and `returncode` (None while it serves)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, pid: int) -> None:
        self.stdout, self.stdin, self.pid = reader, writer, pid
        self.returncode: int | None = None

    async def communicate(self) -> tuple[bytes, bytes]:
        # Reading ended: the host or its worker is gone, or this side hung up.
        self.kill()
        return b"", b""

    def kill(self) -> None:
        if self.returncode is None:
            self.returncode = -9
        self.stdin.transport.abort()


class _HostTransport(_WorkerTransport):
    def __init__(self, loop: asyncio.AbstractEventLoop, host_socket: Path, request: OpenWorker) -> None:
        super().__init__(loop, [])
        self._host_socket = host_socket
        self._request = request
        self.launcher = ""

    async def connect(self) -> None:
        self._stopped_future = asyncio.Future()
        try:
            reader, writer = await asyncio.open_unix_connection(str(self._host_socket), limit=32768)
            try:
                writer.write(frame(self._request))
                answer = parse_answer(await asyncio.wait_for(read_frame(reader), GREETING_TIMEOUT))
            except BaseException:
                writer.transport.abort()
                raise
            if isinstance(answer, WorkerRefused):
                writer.transport.abort()
                raise HostRefused(answer.refused, unconfinable=answer.unconfinable)
        except (OSError, ProtocolError, TimeoutError, HostRefused) as exc:
            self.on_error_future.set_exception(exc)
            raise
        self.launcher = answer.launcher
        self._proc = _HostChannel(reader, writer, answer.worker_pid)  # type: ignore[assignment]
        self._output = writer  # type: ignore[assignment]


async def start_hosted_worker(host_socket: Path, user_id: int, proxy_socket: Path) -> BrowserWorker:
    """A keyless worker for `user_id`'s browser, started by the host listening on `host_socket`, whose Chromium
    will use the proxy listening on `proxy_socket` (beside it). Raises `HostRefused` or `OSError`."""
    transport = _HostTransport(asyncio.get_running_loop(), host_socket,
                               OpenWorker(user_id=user_id, proxy_socket=proxy_socket.name))
    client = WorkerClient(transport)
    impl = await client._playwright
    return BrowserWorker(client, AsyncPlaywright(impl), launcher=transport.launcher)

