"""One thread per process renews every lease the process holds.

A lease (`deputy.queue.inflight.Lease`) must be renewed while its job runs. A thread of its own per
lease, started and joined around every job, cost more CPU than a goal step's own work once the model
sat behind the gateway; one thread renews them all, each when a third of its time has gone. A forked
work horse (RQ's forking worker) does not inherit the parent's thread, so it gets its own.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass

from redis import Redis

from deputy.core.infrastructure.lua_scripts import LuaScript

log = logging.getLogger(__name__)

_RENEW = LuaScript("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end "
                   "return 0")


@dataclass
class _Held:
    redis: Redis
    key: str
    ttl_ms: int
    due: float  # monotonic time of its next renewal


class LeaseRenewer:
    def __init__(self, clock=time.monotonic) -> None:  # type: ignore[no-untyped-def]
        self._clock = clock
        self._held: dict[str, _Held] = {}  # token -> lease
        self._lock = threading.Lock()
        self._added = threading.Event()
        self.pid = os.getpid()
        threading.Thread(target=self._run, name="lease renewer", daemon=True).start()

    def hold(self, redis: Redis, key: str, token: str, ttl_ms: int) -> None:
        """Renew the lease `key` (while it still holds `token`) until `drop(token)`."""
        with self._lock:
            self._held[token] = _Held(redis, key, ttl_ms, self._clock() + ttl_ms / 3000)
        self._added.set()  # it may be due sooner than the one waited for

    def drop(self, token: str) -> None:
        with self._lock:
            self._held.pop(token, None)

    def _run(self) -> None:
        while True:
            with self._lock:
                next_due = min((held.due for held in self._held.values()), default=None)
            wait = 60.0 if next_due is None else max(0.0, next_due - self._clock())
            if self._added.wait(wait):
                self._added.clear()  # then whatever is due is renewed all the same: adding often never holds it off
            now = self._clock()
            with self._lock:
                due = [(token, held) for token, held in self._held.items() if held.due <= now]
                for _, held in due:
                    held.due = now + held.ttl_ms / 3000
            for token, held in due:
                try:
                    _RENEW.run(held.redis, [held.key], [token, held.ttl_ms])
                except Exception:  # a Redis blip must not stop the renewals; the next round retries
                    log.warning("could not renew lease %s", held.key)


_renewer: LeaseRenewer | None = None
_renewer_lock = threading.Lock()


def renewer() -> LeaseRenewer:
    """This process's renewer (a new one in a forked child, whose parent's thread did not come along)."""
    global _renewer
    with _renewer_lock:
        if _renewer is None or _renewer.pid != os.getpid():
            _renewer = LeaseRenewer()
        return _renewer
