"""A Redis client that counts the bytes it reads: what a piece of Deputy loads, as a figure.

Tests and benchmarks hand it to the part they measure (a runner, an executor) and read
`ByteTally.total` around what it does. Counted is the payload of every reply (the strings
and numbers Redis sent back, scripts' and pipelines' included), not the protocol's framing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis import ConnectionPool, Redis
from redis.connection import Connection


@dataclass
class ByteTally:
    total: int = 0
    replies: int = 0

    def add(self, reply: Any) -> None:
        self.total += payload_bytes(reply)
        self.replies += 1


def payload_bytes(reply: Any) -> int:
    """The bytes of the strings (and numbers, as written) in one parsed reply."""
    if isinstance(reply, (bytes, bytearray, memoryview)):
        return len(reply)
    if isinstance(reply, str):
        return len(reply.encode())
    if isinstance(reply, (list, tuple, set)):
        return sum(payload_bytes(r) for r in reply)
    if isinstance(reply, dict):
        return sum(payload_bytes(k) + payload_bytes(v) for k, v in reply.items())
    if isinstance(reply, Exception) or reply is None:
        return 0
    return len(str(reply))


class CountingConnection(Connection):
    """A connection that adds every reply it reads to its pool's tally."""

    def __init__(self, *args: Any, tally: ByteTally, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tally = tally

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        reply = super().read_response(*args, **kwargs)
        self._tally.add(reply)
        return reply


def counting_client(url: str) -> tuple[Redis, ByteTally]:
    """A client of the Redis at `url` and the tally of what it reads."""
    tally = ByteTally()
    pool = ConnectionPool.from_url(url, connection_class=CountingConnection, tally=tally)
    return Redis(connection_pool=pool), tally


__all__ = ["ByteTally", "CountingConnection", "counting_client", "payload_bytes"]
