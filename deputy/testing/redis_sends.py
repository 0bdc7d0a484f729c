"""Which code in this process sends which Redis commands: a tally kept while it runs.

`tally_sends()` wraps redis-py's one place where requests leave (`send_packed_command`, sync and
asyncio) and counts, per request written: one round trip, each command in it by name, and each
command by the innermost Deputy function on the stack that sent it (``module:function``). The
benchmarks load it into real worker and gateway processes (`bench/count_site`) and read the
tallies those processes write to files; it costs a stack walk per request, so CPU is never
measured in a process that tallies.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import redis.asyncio.connection as async_connection
import redis.connection as sync_connection

_OWN_FILES = ("/deputy/testing/", "/bench/")


@dataclass
class SendTally:
    round_trips: int = 0
    commands: Counter = field(default_factory=Counter)  # command name -> times sent
    callers: Counter = field(default_factory=Counter)  # "module:function command" -> times sent
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, packed: object) -> None:
        names = command_names(packed)
        caller = _deputy_caller()
        with self._lock:
            self.round_trips += 1
            for name in names:
                self.commands[name] += 1
                self.callers[f"{caller} {name}"] += 1

    def as_json(self) -> dict:
        with self._lock:
            return {"round_trips": self.round_trips, "commands": dict(self.commands), "callers": dict(self.callers)}


@contextmanager
def tallying_sends() -> Iterator[SendTally]:
    """While open, every request this process writes to any Redis is added to the yielded tally."""
    sync_send = sync_connection.AbstractConnection.send_packed_command
    async_send = async_connection.AbstractConnection.send_packed_command
    tally = tally_sends()
    try:
        yield tally
    finally:
        sync_connection.AbstractConnection.send_packed_command = sync_send  # type: ignore[method-assign]
        async_connection.AbstractConnection.send_packed_command = async_send  # type: ignore[method-assign]


def tally_sends() -> SendTally:
    """From now on, every request this process writes to any Redis is added to the returned tally."""
    tally = SendTally()
    sync_send = sync_connection.AbstractConnection.send_packed_command
    async_send = async_connection.AbstractConnection.send_packed_command

    def send(self, command, check_health=True):  # type: ignore[no-untyped-def]
        tally.add(command)
        return sync_send(self, command, check_health)

    async def asend(self, command, check_health=True):  # type: ignore[no-untyped-def]
        tally.add(command)
        return await async_send(self, command, check_health)

    sync_connection.AbstractConnection.send_packed_command = send  # type: ignore[method-assign]
    async_connection.AbstractConnection.send_packed_command = asend  # type: ignore[method-assign]
    return tally


def write_tally_every(tally: SendTally, path: Path, seconds: float = 0.2) -> threading.Thread:
    """Keep `path` holding the tally as JSON (replaced whole, so a reader never sees half of it)."""

    def loop() -> None:
        part = path.with_suffix(".part")
        while True:
            part.write_text(json.dumps(tally.as_json()))
            os.replace(part, path)
            threading.Event().wait(seconds)

    thread = threading.Thread(target=loop, name="redis-tally", daemon=True)
    thread.start()
    return thread


def command_names(packed: object) -> list[str]:
    """The command names in a packed request (RESP arrays of bulk strings, one or several)."""
    if isinstance(packed, str):
        data = packed.encode()
    elif isinstance(packed, (bytes, bytearray, memoryview)):
        data = bytes(packed)
    else:
        data = b"".join(bytes(part) for part in packed)  # type: ignore[union-attr]
    names, at = [], 0
    while at < len(data) and data[at:at + 1] == b"*":
        end = data.index(b"\r\n", at)
        count, at = int(data[at + 1:end]), end + 2
        for i in range(count):
            end = data.index(b"\r\n", at)
            size = int(data[at + 1:end])
            if i == 0:
                names.append(data[end + 2:end + 2 + size].decode(errors="replace").lower())
            at = end + 2 + size + 2
    return names


def _deputy_caller() -> str:
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if "/deputy/" in name and not any(own in name for own in _OWN_FILES) and "site-packages" not in name:
            module = name.rsplit("/deputy/", 1)[1].removesuffix(".py").replace("/", ".")
            return f"{module}:{frame.f_code.co_name}"
        frame = frame.f_back  # type: ignore[assignment]
    return "(library)"
