"""Helpers for the egress tests: scripted DNS answers, and a tripwire against outside traffic.

The resolvers stand in for DNS (the guard takes its resolver injected), so a test can make
a name lead to a private address, or answer one address to the check and another to a
second lookup (DNS rebinding) without any real DNS. The tripwire is a safety net, not a
mock: tests that expect Deputy to refuse a private address must never send a packet
there even if the guard is broken, so any connect() to a non-loopback address raises.
"""

from __future__ import annotations

import ipaddress
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from deputy.sentinel.egress.transports.http_client import Resolver

_ARMED = threading.Event()
_INSTALLED = False
_ATTEMPTS: list[str] = []


class OutsideTraffic(ConnectionRefusedError):
    """A test tried to connect beyond this machine (the guard let something through)."""


def _hook(event: str, args: tuple) -> None:
    if event != "socket.connect" or not _ARMED.is_set():
        return
    address = args[1]
    if not isinstance(address, tuple) or not address:
        return
    try:
        ip = ipaddress.ip_address(str(address[0]).split("%", 1)[0])
    except ValueError:
        return
    if not ip.is_loopback:
        _ATTEMPTS.append(str(ip))
        raise OutsideTraffic(f"tripwire: a connection to {ip} was attempted")


@contextmanager
def no_outside_traffic() -> Iterator[list[str]]:
    """Within this block, any socket connect() to a non-loopback address raises; yields the attempts."""
    global _INSTALLED
    if not _INSTALLED:
        sys.addaudithook(_hook)  # audit hooks cannot be removed: it stays, disarmed, after the block
        _INSTALLED = True
    _ATTEMPTS.clear()
    _ARMED.set()
    try:
        yield _ATTEMPTS
    finally:
        _ARMED.clear()


def fixed(table: Mapping[str, Sequence[str]]) -> Resolver:
    """A resolver answering from `table` (host -> addresses); unknown names have no address."""

    def resolve(host: str, port: int) -> list[str]:
        answer = table.get(host.lower())
        if answer is None:
            raise OSError(f"no address for {host}")
        return list(answer)

    return resolve


class Rebinding:
    """A resolver that gives `first` to the first `honest` lookups of each name, then `then`: a rebinding DNS server."""

    def __init__(self, first: Sequence[str], then: Sequence[str], *, honest: int = 1) -> None:
        self.first, self.then, self.honest = list(first), list(then), honest
        self.lookups: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        return self.first if len(self.lookups) <= self.honest else self.then
