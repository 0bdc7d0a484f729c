"""What the executor and the browser host say to each other before Playwright's protocol starts.

The browser host (`deputy.connectors.web.host`) starts keyless browser workers for executors
that may run in another container. One connection to its Unix socket is one worker: the
executor sends one `OpenWorker` (whose browser, and the name of the reviewing proxy's socket it
made beside the host's own), the host answers one `WorkerOpened` or `WorkerRefused`, and from
then on the connection carries exactly what a worker's standard input and output carry when it
is the executor's child: Playwright's messages, each a little-endian 4-byte length and a JSON
body. The two messages here use the same framing. A connection never names another: there is
nothing to address but its own worker, so no request can reach another user's browser.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import socket
import struct
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_HELLO = 4096
"""The greeting is small; anything longer is not an executor speaking."""
PROXY_SOCKET_PREFIX = "proxy-"
_PROXY_NAME = re.compile(r"^proxy-[A-Za-z0-9_-]{20,64}\.sock$")


class OpenWorker(BaseModel):
    """Start a worker for `user_id`'s browser, whose Chromium reaches the network only through the proxy
    listening on the socket `proxy_socket` (a bare name in the host socket's directory)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: int
    proxy_socket: str = Field(pattern=_PROXY_NAME.pattern)


class WorkerOpened(BaseModel):
    """The worker runs; Playwright's protocol follows on this connection."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    opened: Literal[True] = True
    launcher: str
    """The browser executable Playwright must launch: the launcher in the worker's private directory."""
    worker_pid: int
    """The worker's process as the host sees it (setpriv or bwrap), for inspection and logs."""


class WorkerRefused(BaseModel):
    """No worker: why, in words an operator can act on. `unconfinable`: the host cannot build the sandbox."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    refused: str
    unconfinable: bool = False


class ProtocolError(Exception):
    """The other side did not speak this protocol (or hung up before it finished)."""


def new_proxy_socket_name() -> str:
    """An unguessable name for a browser's proxy socket beside the host's."""
    return f"{PROXY_SOCKET_PREFIX}{secrets.token_urlsafe(24)}.sock"


def is_proxy_socket_name(name: str) -> bool:
    return bool(_PROXY_NAME.match(name))


def frame(message: BaseModel) -> bytes:
    body = message.model_dump_json().encode()
    return len(body).to_bytes(4, "little") + body


async def read_frame(reader: asyncio.StreamReader, limit: int = MAX_HELLO) -> bytes:
    """One framed message's body; `ProtocolError` if the stream ends first or it is longer than `limit`."""
    try:
        length = int.from_bytes(await reader.readexactly(4), "little")
        if length > limit:
            raise ProtocolError(f"a greeting of {length} bytes")
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise ProtocolError("the connection ended during the greeting") from None


def parse_open(body: bytes) -> OpenWorker:
    try:
        return OpenWorker.model_validate_json(body)
    except ValidationError as exc:
        raise ProtocolError(f"not a request to open a browser worker ({exc.error_count()} problems)") from None


def parse_answer(body: bytes) -> WorkerOpened | WorkerRefused:
    for kind in (WorkerOpened, WorkerRefused):
        try:
            return kind.model_validate_json(body)
        except ValidationError:
            continue
    raise ProtocolError("the browser host's answer was not understood")


def peer_uid(connection: socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket, as the kernel tells it (SO_PEERCRED)."""
    _pid, uid, _gid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                                 struct.calcsize("3i")))
    return uid


def proxy_socket_path(host_socket: Path, name: str) -> Path:
    """Where a browser's proxy socket named `name` lives: beside the host's socket, on the shared volume."""
    if not is_proxy_socket_name(name):
        raise ValueError(f"not a proxy socket name: {name!r}")
    return host_socket.parent / name
