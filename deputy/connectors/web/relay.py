"""Inside the browser's sandbox: relay Chromium's proxy connections to Deputy's reviewing proxy.

The sandbox has a network namespace of its own with nothing in it but `lo`, so Chromium cannot
reach any address at all; the one way out is the reviewing proxy's Unix socket, bound into the
sandbox. Chromium only speaks to proxies over TCP, so this relay listens on the sandbox's own
127.0.0.1 and copies each connection, byte for byte, to that socket. It decides nothing: the
proxy on the other end still asks for its password and reviews every request and tunnel.

Run by the sandbox's Python as `relay.py <port> <socket> -- <chromium> <args...>`: it starts
listening, leaves a detached relay process behind, and becomes Chromium (which keeps the
DevTools pipe, descriptors 3 and 4, that Playwright drives it through). Standard library only:
it runs under `python3 -I` with nothing of Deputy installed where it runs.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys

_CHUNK = 65536
_PIPE_FDS = (3, 4)


def main(argv: list[str]) -> None:
    port, target, separator, *command = argv[1:]
    if separator != "--" or not command:
        raise SystemExit("usage: relay.py <port> <socket> -- <command> [args...]")
    # Listening before Chromium starts, so its first connection never finds the port closed.
    listener = socket.create_server(("127.0.0.1", int(port)), backlog=256)
    if os.fork() == 0:
        # A second fork leaves the relay to the sandbox's init, not as an unknown child of Chromium.
        if os.fork() == 0:
            _serve_forever(listener, target)
        os._exit(0)
    os.wait()
    listener.close()
    os.execv(command[0], command)


def _serve_forever(listener: socket.socket, target: str) -> None:
    # The relay must not hold Chromium's DevTools pipe open: Playwright learns that the
    # browser is gone when the pipe closes.
    for fd in _PIPE_FDS:
        try:
            os.close(fd)
        except OSError:
            pass
    os.setsid()
    try:
        asyncio.run(_serve(listener, target))
    finally:
        os._exit(0)


async def _serve(listener: socket.socket, target: str) -> None:
    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
        for closing in (writer, up_writer):
            closing.close()

    server = await asyncio.start_server(relay, sock=listener)
    async with server:
        await server.serve_forever()


async def _copy(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    """Copy until `source` ends, then pass the end on: the proxy relies on half-closed connections."""
    try:
        while data := await source.read(_CHUNK):
            target.write(data)
            await target.drain()
        if target.can_write_eof():
            target.write_eof()
    except (OSError, RuntimeError):
        target.close()


if __name__ == "__main__":
    main(sys.argv)
