"""Crash recovery in seconds: in-flight units of work, leases and the watchdog.

A *unit* is one goal's next step (`goal:<id>`) or one action (`action:<id>`). Whoever
enqueues a unit registers it (which job should do it); the job holding the unit renews a
short lease while it runs. If a worker dies (SIGKILL, OOM, a lost machine) its lease
lapses within seconds, and any watchdog re-enqueues the unit. RQ's own detection of
abandoned jobs takes over a minute (its heartbeat adds 60 s), hence this.
Re-running a unit is safe because steps are checkpointed and actions are claimed.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from typing import Any, Callable

from pydantic import BaseModel
from redis import Redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

log = logging.getLogger(__name__)

_UNITS = "deputy:inflight"
_LEASE = "deputy:lease:{}"

# KEYS[1] units hash; ARGV: unit, expected job id, new registration JSON ('' deletes).
_REPLACE = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
if cjson.decode(raw)['job_id'] ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return 1
"""
_RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0"
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


class Registration(BaseModel):
    unit: str
    queue: str
    func: str
    payload: dict[str, Any]
    job_id: str
    registered_at: float
    attempts: int = 0


def new_job_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


class Inflight:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._replace = redis.register_script(_REPLACE)

    def register(self, registration: Registration, pipeline: Any = None) -> None:
        """Record which job should do the unit (on `pipeline`, sync or asyncio, when given)."""
        (self._redis if pipeline is None else pipeline).hset(_UNITS, registration.unit, registration.model_dump_json())

    def get(self, unit: str) -> Registration | None:
        raw = self._redis.hget(_UNITS, unit)
        return Registration.model_validate_json(raw) if raw else None

    def all(self) -> list[Registration]:
        return [Registration.model_validate_json(raw) for raw in self._redis.hvals(_UNITS)]

    def complete(self, unit: str, job_id: str | None = None) -> bool:
        """The unit needs no job any more (only if still owned by `job_id`, when given)."""
        if job_id is None:
            return bool(self._redis.hdel(_UNITS, unit))
        return bool(self._replace(keys=[_UNITS], args=[unit, job_id, ""]))

    def replace(self, unit: str, expected_job_id: str, registration: Registration) -> bool:
        return bool(self._replace(keys=[_UNITS], args=[unit, expected_job_id, registration.model_dump_json()]))


class Lease:
    """Holds `unit` while a job runs; a daemon thread renews it until released."""

    def __init__(self, redis: Redis, unit: str, ttl: float) -> None:
        self._redis = redis
        self._key = _LEASE.format(unit)
        self._ttl_ms = int(ttl * 1000)
        self._token = secrets.token_hex(8)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> bool:
        if not self._redis.set(self._key, self._token, nx=True, px=self._ttl_ms):
            return False
        self._thread = threading.Thread(target=self._renew, name=f"lease {self._key}", daemon=True)
        self._thread.start()
        return True

    def __exit__(self, *exc: object) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._redis.eval(_RELEASE, 1, self._key, self._token)

    def _renew(self) -> None:
        while not self._stop.wait(self._ttl_ms / 3000):
            try:
                self._redis.eval(_RENEW, 1, self._key, self._token, self._ttl_ms)
            except Exception:  # a Redis blip must not kill the job; the next renewal retries
                log.warning("could not renew lease %s", self._key)


def lease_held(redis: Redis, unit: str) -> bool:
    return bool(redis.exists(_LEASE.format(unit)))


class Watchdog:
    """Re-enqueues units whose job died. Any number of watchdogs may run at once."""

    def __init__(
        self,
        redis: Redis,
        queues: dict[str, Queue],
        lease_ttl: float,
        on_give_up: Callable[[Registration], None],
        max_attempts: int = 5,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._redis = redis
        self._inflight = Inflight(redis)
        self._queues = queues
        self._lease_ttl = lease_ttl
        self._on_give_up = on_give_up
        self._max_attempts = max_attempts
        self._clock = clock
        # unit -> (job id, first seen without a live job): a unit is only declared dead
        # when it stays so for a whole lease period (a job may be between start and lease).
        self._suspects: dict[str, tuple[str, float]] = {}

    def sweep(self) -> list[str]:
        now = self._clock()
        revived: list[str] = []
        seen: set[str] = set()
        for registration in self._inflight.all():
            unit = registration.unit
            if registration.queue not in self._queues or not self._looks_dead(registration):
                continue
            seen.add(unit)
            job_id, since = self._suspects.setdefault(unit, (registration.job_id, now))
            if job_id != registration.job_id:
                self._suspects[unit] = (registration.job_id, now)
            elif now - since >= self._lease_ttl:
                self._suspects.pop(unit, None)
                if self._revive(registration, now):
                    revived.append(unit)
        for unit in set(self._suspects) - seen:
            del self._suspects[unit]
        return revived

    def run(self, stop: threading.Event, interval: float) -> None:
        while not stop.wait(interval):
            try:
                for unit in self.sweep():
                    log.warning("re-enqueued %s after its worker stopped", unit)
            except Exception:
                log.exception("watchdog sweep failed")

    def _looks_dead(self, registration: Registration) -> bool:
        if lease_held(self._redis, registration.unit):
            return False
        try:
            status = Job.fetch(registration.job_id, connection=self._redis).get_status(refresh=False)
        except NoSuchJobError:
            return True
        return status not in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED)

    def _revive(self, registration: Registration, now: float) -> bool:
        if registration.attempts + 1 > self._max_attempts:
            if self._inflight.complete(registration.unit, registration.job_id):
                self._on_give_up(registration)
            return False
        fresh = registration.model_copy(
            update={
                "job_id": new_job_id(registration.job_id.rsplit("-", 1)[0]),
                "attempts": registration.attempts + 1,
                "registered_at": now,
            }
        )
        if not self._inflight.replace(registration.unit, registration.job_id, fresh):
            return False  # another watchdog or the job itself got there first
        self._queues[fresh.queue].enqueue(
            fresh.func, fresh.payload, job_id=fresh.job_id, result_ttl=60, failure_ttl=24 * 3600
        )
        return True

