"""Crash recovery in seconds: in-flight units of work, leases and the watchdog.

A *unit* is one goal's next step (`goal:<id>`) or one action (`action:<id>`). Whoever
enqueues a unit registers it (which job should do it); the job holding the unit renews a
short lease while it runs. If a worker dies (SIGKILL, OOM, a lost machine) its lease
lapses within seconds, and any watchdog re-enqueues the unit. RQ's own detection of
abandoned jobs takes over a minute (its heartbeat adds 60 s), hence this.
Re-running a unit is safe because steps are checkpointed and actions are claimed.

Every unit is in one of the states of `UnitState`, and `Inflight.states` tells which,
reading RQ's own bookkeeping too: a job RQ has moved from its queue into the queue's
*intermediate* list (BLMOVE, on dequeue) still says `queued` until the worker marks it
`started`; if the worker dies in between, only that list shows the job is no longer
waiting, so a job found there without a lease is treated like a started one that died.

A sweep only looks at units that are due (a sorted set of next-check times), so its cost
follows the units that need a look, not all in-flight work: a unit whose job holds its
lease is checked again a lease period later, one whose job waits in a queue less and less
often (up to `MAX_QUEUED_RECHECK`), and a suspect one when its grace period ends.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from enum import Enum
from typing import Any, Callable, Sequence

from pydantic import BaseModel
from redis import Redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from deputy.core.infrastructure import metrics
from deputy.core.infrastructure.lua_scripts import LuaScript
from deputy.queue.fair_rq import OWNER_META
from deputy.queue.lease_renewer import renewer

log = logging.getLogger(__name__)

_UNITS = "deputy:inflight"
_DUE = "deputy:inflight:due"  # unit -> when a watchdog should look at it next
_SEEN = "deputy:inflight:seen"  # unit -> "job id|time": its job was last alive then, or first seen dead
_LEASE = "deputy:lease:{}"
_JOB = "rq:job:{}"
MAX_QUEUED_RECHECK = 30.0
SWEEP_BATCH = 500

# KEYS: units hash, due zset, seen hash; ARGV: unit, expected job id, new registration JSON ('' deletes), due time.
_REPLACE = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
if cjson.decode(raw)['job_id'] ~= ARGV[2] then return 0 end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
end
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""
# KEYS: lease, due zset; ARGV: token, ttl ms, next look, unit. A unit that waited long in a queue was put off;
# once taken, a dead job must be noticed within a lease period or two (lt: only ever brings the next look closer).
_TAKE_LEASE = LuaScript("""
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[2], 'XX', 'LT', ARGV[3], ARGV[4])
return 1
""")
_RELEASE = LuaScript("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0")
# KEYS: lease, units hash, due zset, seen hash; ARGV: token, unit, job id. The lease let go of, then the unit
# marked done if it still names this job (`_REPLACE` with nothing new): a job's end in one round trip.
_RELEASE_COMPLETING = LuaScript("""
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
local raw = redis.call('HGET', KEYS[2], ARGV[2])
if not raw then return 0 end
if cjson.decode(raw)['job_id'] ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[2])
return 1
""")


_WAITING = (b"queued", b"scheduled", b"deferred")


class UnitState(str, Enum):
    queued = "queued"  # its job waits in a queue (or for its time)
    dequeued = "dequeued"  # a worker took the job off the queue but has not started it
    running = "running"  # a job holds the unit's lease
    suspect = "suspect"  # started or dequeued, no lease: its worker may be dead
    done = "done"  # no job needed any more


def unit_state(registered: bool, leased: bool, status: bytes | None, dequeued: bool) -> UnitState:
    """Where a unit stands, from what Redis holds about it (pure, so every case is testable)."""
    if not registered:
        return UnitState.done
    if leased:
        return UnitState.running
    if status in _WAITING and not dequeued:
        return UnitState.queued
    # Dequeued jobs are still "queued" in RQ's eyes; a live worker starts them in milliseconds.
    return UnitState.suspect if not dequeued else UnitState.dequeued


def job_meta(unit: str, owner: int | None = None) -> dict[str, Any]:
    """What an RQ job carries in its `meta`: which unit it does (for a watchdog) and whose it is (for fair turns)."""
    return {"unit": unit} if owner is None else {"unit": unit, OWNER_META: owner}


def _unit_of(raw_meta: bytes | None) -> str | None:
    try:
        meta = json.loads(raw_meta) if raw_meta else None
    except ValueError:
        return None
    unit = meta.get("unit") if isinstance(meta, dict) else None
    return unit if isinstance(unit, str) else None


def intermediate_key(queue: str) -> str:
    """RQ 2's list of jobs taken off `queue` and not yet started (`rq.intermediate_queue`)."""
    return f"rq:queue:{queue}:intermediate"


class Registration(BaseModel):
    unit: str
    queue: str
    func: str
    payload: dict[str, Any]
    job_id: str
    registered_at: float
    attempts: int = 0
    owner: int | None = None


def new_job_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


class Inflight:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._replace = redis.register_script(_REPLACE)

    def register(self, registration: Registration, pipeline: Any = None) -> None:
        """Record which job should do the unit (on `pipeline`, sync or asyncio, when given)."""
        pipe = self._redis.pipeline(transaction=False) if pipeline is None else pipeline
        pipe.hset(_UNITS, registration.unit, registration.model_dump_json())
        pipe.zadd(_DUE, {registration.unit: registration.registered_at})
        if pipeline is None:
            pipe.execute()

    def get(self, unit: str) -> Registration | None:
        raw = self._redis.hget(_UNITS, unit)
        return Registration.model_validate_json(raw) if raw else None

    def all(self) -> list[Registration]:
        return [Registration.model_validate_json(raw) for raw in self._redis.hvals(_UNITS)]

    def states(self, units: Sequence[str]) -> dict[str, UnitState]:
        """Where each unit stands now, RQ's dequeued-but-not-started state included."""
        raws = self._redis.hmget(_UNITS, list(units)) if units else []
        registrations = [Registration.model_validate_json(raw) if raw else None for raw in raws]
        looks = _look(self._redis, [r for r in registrations if r is not None])
        states: dict[str, UnitState] = {}
        for unit, registration in zip(units, registrations, strict=True):
            if registration is None:
                states[unit] = UnitState.done
            else:
                states[unit] = unit_state(True, *looks[unit])
        return states

    def complete(self, unit: str, job_id: str | None = None) -> bool:
        """The unit needs no job any more (only if still owned by `job_id`, when given)."""
        if job_id is None:
            pipe = self._redis.pipeline(transaction=False)
            pipe.hdel(_UNITS, unit)
            pipe.zrem(_DUE, unit)
            pipe.hdel(_SEEN, unit)
            return bool(pipe.execute()[0])
        return bool(self._replace(keys=[_UNITS, _DUE, _SEEN], args=[unit, job_id, "", 0]))

    def replace(self, unit: str, expected_job_id: str, registration: Registration) -> bool:
        return bool(self._replace(keys=[_UNITS, _DUE, _SEEN], args=[
            unit, expected_job_id, registration.model_dump_json(), registration.registered_at]))

    def forget(self, units: Sequence[str]) -> int:
        """Drop the units and their leases, whatever their state (erasing a user); returns the leases deleted."""
        for unit in units:
            self.complete(unit)
        return self._redis.delete(*(_LEASE.format(unit) for unit in units)) if units else 0


class Lease:
    """Holds `unit` while a job runs; the process's renewer (`deputy.queue.lease_renewer`) renews it until released."""

    def __init__(self, redis: Redis, unit: str, ttl: float) -> None:
        self._redis = redis
        self._unit = unit
        self._key = _LEASE.format(unit)
        self._ttl_ms = int(ttl * 1000)
        self._token = secrets.token_hex(8)
        self._held = False

    def __enter__(self) -> bool:
        return self.take()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def take(self) -> bool:
        """Hold the unit, if nobody does; False when another job holds it."""
        if not _TAKE_LEASE.run(self._redis, [self._key, _DUE],
                               [self._token, self._ttl_ms, time.time() + self._ttl_ms / 1000, self._unit]):
            return False
        renewer().hold(self._redis, self._key, self._token, self._ttl_ms)
        self._held = True
        return True

    def release(self, completing: str | None = None) -> bool:
        """Let go of the unit. With `completing` (the id of the job that held it), also mark the unit done if it
        still names that job (a step that queued its successor has handed it on), in the same round trip; True
        when it was marked done."""
        if not self._held:
            return False
        renewer().drop(self._token)  # a renewal already under way checks the token: after the release it does nothing
        self._held = False
        if completing is None:
            _RELEASE.run(self._redis, [self._key], [self._token])
            return False
        return bool(_RELEASE_COMPLETING.run(self._redis, [self._key, _UNITS, _DUE, _SEEN],
                                            [self._token, self._unit, completing]))


def lease_held(redis: Redis, unit: str) -> bool:
    return bool(redis.exists(_LEASE.format(unit)))


class Watchdog:
    """Re-enqueues units whose job died. Any number of watchdogs may run at once.

    A unit is only declared dead when it stays so for a whole lease period (a job may be
    between its start and taking its lease); that first sighting is kept in Redis, so
    several watchdogs share one grace period.
    """

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
        # Registrations written before the due index existed get a first look now.
        units = redis.hkeys(_UNITS)
        if units:
            redis.zadd(_DUE, {unit: clock() for unit in units}, nx=True)

    def sweep(self) -> list[str]:
        now = self._clock()
        self._look_at_dequeued(now)
        due = [u.decode() for u in self._redis.zrangebyscore(_DUE, "-inf", now, start=0, num=SWEEP_BATCH)]
        if not due:
            return []
        raws = self._redis.hmget(_UNITS, due)
        registrations = [Registration.model_validate_json(raw) for raw in raws if raw is not None]
        gone = [unit for unit, raw in zip(due, raws, strict=True) if raw is None]
        looks = _look(self._redis, registrations)
        seen_before = self._redis.hmget(_SEEN, [r.unit for r in registrations]) if registrations else []
        revived: list[str] = []
        later: dict[str, float] = {}
        seen: dict[str, str] = {}
        for registration, last in zip(registrations, seen_before, strict=True):
            unit = registration.unit
            state = unit_state(True, *looks[unit])
            if registration.queue not in self._queues:
                later[unit] = now + MAX_QUEUED_RECHECK
            elif state is UnitState.running:
                seen[unit] = f"{registration.job_id}|{now}"
                later[unit] = now + self._lease_ttl
            elif state is UnitState.queued and self._overdue(registration, looks[unit][1], now):
                # Its time came and went with no scheduler to move it (RQ's scheduler lock
                # can stay with a killed worker for minutes, and a Redis error ends RQ's
                # scheduler process until its worker's next maintenance): queue it ourselves.
                self._queue_overdue(registration)
                later[unit] = now + self._lease_ttl
            elif state is UnitState.queued:
                # Waiting work cannot die; look less often the longer it waits.
                wait = min(MAX_QUEUED_RECHECK, max(self._lease_ttl, (now - registration.registered_at) / 2))
                later[unit] = now + wait
            else:
                job_id, _, since = (last or b"").decode().partition("|")
                if job_id != registration.job_id:
                    seen[unit] = f"{registration.job_id}|{now}"
                    later[unit] = now + self._lease_ttl
                elif now - float(since) >= self._lease_ttl:
                    if self._revive(registration, now):
                        revived.append(unit)
                else:
                    later[unit] = float(since) + self._lease_ttl
        pipe = self._redis.pipeline(transaction=False)
        if gone:
            pipe.zrem(_DUE, *gone)
        if seen:
            pipe.hset(_SEEN, mapping=seen)
        if later:
            # xx: a unit completed meanwhile must not come back into the index.
            pipe.zadd(_DUE, later, xx=True)
        pipe.execute()
        return revived

    def _look_at_dequeued(self, now: float) -> None:
        """Bring units whose job a worker has dequeued to the front, however long they waited.

        A job that waited long in a queue is only looked at every `MAX_QUEUED_RECHECK`
        seconds; once dequeued it must be watched like a running one. The job's RQ record
        names its unit (`meta`, written by whoever enqueued it).
        """
        pipe = self._redis.pipeline(transaction=False)
        for name in self._queues:
            pipe.lrange(intermediate_key(name), 0, -1)
        job_ids = [job_id.decode() for ids in pipe.execute() for job_id in ids]
        if not job_ids:
            return
        pipe = self._redis.pipeline(transaction=False)
        for job_id in job_ids:
            pipe.hget(_JOB.format(job_id), "meta")
        units = [unit for unit in map(_unit_of, pipe.execute()) if unit]
        if units:
            self._redis.zadd(_DUE, {unit: now for unit in units}, xx=True, lt=True)

    def _overdue(self, registration: Registration, status: bytes | None, now: float) -> bool:
        when = self._redis.zscore(f"rq:scheduled:{registration.queue}", registration.job_id)
        if when is None:
            # Scheduled, yet in neither the registry nor a queue: taken out of the registry by
            # a move that Redis failed midway (see `_queue_overdue`). Nothing else would run it.
            return status == b"scheduled"
        return now - when > 2 * self._lease_ttl

    def _queue_overdue(self, registration: Registration) -> None:
        queue = self._queues[registration.queue]
        try:
            job = Job.fetch(registration.job_id, connection=self._redis, serializer=queue.serializer)
        except NoSuchJobError:
            return
        # A scheduler doing the same meanwhile makes a duplicate job, which the unit's lease absorbs.
        # Removing and queueing are two commands: if Redis fails between them the job is out of
        # the registry and still "scheduled", which the next sweep sees and queues.
        if queue.scheduled_job_registry.remove(job) or job.get_status(refresh=True) == JobStatus.SCHEDULED:
            queue.enqueue_job(job)
            log.warning("queued %s: its scheduled time had passed long ago", registration.unit)
            metrics.recovered(registration.unit)

    def run(self, stop: threading.Event, interval: float) -> None:
        while not stop.wait(interval):
            try:
                for unit in self.sweep():
                    log.warning("re-enqueued %s after its worker stopped", unit)
                    metrics.recovered(unit)
            except Exception:
                log.exception("watchdog sweep failed")

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
        # A job its dead worker had dequeued would otherwise sit in RQ's list until RQ's
        # own clean-up, a minute or more later, marks it failed.
        self._redis.lrem(intermediate_key(registration.queue), 0, registration.job_id)
        self._queues[fresh.queue].enqueue(
            fresh.func, fresh.payload, job_id=fresh.job_id, result_ttl=60, failure_ttl=24 * 3600,
            meta=job_meta(fresh.unit, fresh.owner),
        )
        return True


def _look(redis: Redis, registrations: list[Registration]) -> dict[str, tuple[bool, bytes | None, bool]]:
    """For each unit: is its lease held, its job's RQ status, is its job dequeued-not-started."""
    pipe = redis.pipeline(transaction=False)
    for registration in registrations:
        pipe.exists(_LEASE.format(registration.unit))
        pipe.hget(_JOB.format(registration.job_id), "status")
        # The intermediate list holds one entry per busy worker at most, so LPOS is cheap.
        pipe.lpos(intermediate_key(registration.queue), registration.job_id)
    found = pipe.execute()
    return {
        r.unit: (bool(found[3 * i]), found[3 * i + 1], found[3 * i + 2] is not None)
        for i, r in enumerate(registrations)
    }
