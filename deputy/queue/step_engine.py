"""The step engine: one process runs many queued goal steps at once, without RQ's loop per job.

An RQ worker takes one job at a time and spends, on each, more of Deputy's CPU on its own
bookkeeping (registries, heartbeats, the job's result, a log line) than a goal step's own work
when the model sits behind the gateway. The engine keeps RQ's queues and job records, so the bot,
the gateway, the scheduler and the watchdog write and read them exactly as before, and replaces
only the loop that consumes them:

- one Lua call takes as many jobs as the engine has free threads, moving each to the queue's
  intermediate list and marking it started: the watchdog sees a taken job as it sees one an RQ
  worker took, and a job is taken only when a thread is free to start it at once;
- when the queue is empty, one blocking move waits for the next job;
- each job runs on a thread of its own (the goal runner is synchronous; the Redis round trips of
  several steps overlap), inside RQ's current-job context, so a step hands its goal on as before;
- the ends of the jobs that finished meanwhile are written in one pipeline, the same round trip as
  the next take.

Durability is unchanged: a step holds its goal's lease (`deputy.apps.worker_process.holding`), the
unit of a job whose engine died is queued again by the watchdog within seconds, and a step run again
resumes from its goal's checkpoint. The event loop only takes and ends jobs; it never runs one.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import NoScriptError, RedisError
from rq.job import _job_stack  # RQ's current-job stack is per thread: each job is pushed on its own thread's
from rq.serializers import JSONSerializer
from rq.utils import utcformat, now as rq_now

from deputy.queue.inflight import intermediate_key
from deputy.queue.job_paths import DeputyJob

log = logging.getLogger(__name__)

ENGINES = "deputy:engines:{}"
"""Sorted set per queue: each engine running its jobs, by name -> the time of its last heartbeat."""
HEARTBEAT_SECONDS = 5.0
_JOB_PREFIX = "rq:job:"

# KEYS: queue list, its intermediate list. ARGV: how many, job key prefix, started_at, engine name,
# then optionally job ids already moved to the intermediate list (by the blocking wait) to start.
# Returns [id, [field, value, ...], id, [...], ...] for the jobs started.
_TAKE = """
local started = {}
local function start(id)
  local key = ARGV[2] .. id
  local fields = redis.call('HGETALL', key)
  if #fields == 0 then
    redis.call('LREM', KEYS[2], 1, id)  -- its record expired or was deleted: nothing to run
    return
  end
  redis.call('HSET', key, 'status', 'started', 'started_at', ARGV[3], 'worker_name', ARGV[4])
  started[#started + 1] = id
  started[#started + 1] = fields
end
for i = 5, #ARGV do start(ARGV[i]) end
for _ = 1, tonumber(ARGV[1]) do
  local id = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
  if not id then break end
  start(id)
end
return started
"""


@dataclass(frozen=True)
class EngineConfig:
    queue: str
    name: str
    threads: int = 8
    result_ttl: int = 60
    failure_ttl: int = 24 * 3600
    idle_wait: float = 1.0  # seconds one blocking wait lasts while the queue is empty
    slow_after: float = 300.0  # a job running longer is named in the log (a thread cannot be stopped from outside)
    heartbeat: float = HEARTBEAT_SECONDS


@dataclass
class _Ended:
    job_id: str
    error: str | None = None
    keep: int | None = None  # seconds the job's record is kept after it ended (its own TTLs); 0: not at all


@dataclass
class EngineCounts:
    """What the engine has done since it started (for its health and the benchmarks)."""

    taken: int = 0
    finished: int = 0
    failed: int = 0
    batches: list[int] = field(default_factory=list)  # the sizes of the last takes (bounded)


class StepEngine:
    """Consumes one RQ queue: `perform(job)` runs each job on one of `config.threads` threads."""

    def __init__(self, redis: AsyncRedis, jobs_redis: Redis, config: EngineConfig,
                 perform: Callable[[DeputyJob], Any] | None = None, clock: Callable[[], float] = time.time) -> None:
        self._redis = redis
        self._jobs_redis = jobs_redis  # the job records the threads build, on the synchronous client the jobs use
        self._config = config
        self._perform = perform or _call
        self._clock = clock
        self._pool = ThreadPoolExecutor(max_workers=config.threads, thread_name_prefix="step")
        self._running: dict[asyncio.Future, tuple[str, float]] = {}  # -> (job id, when it started)
        self._ended: list[_Ended] = []
        self._freed = asyncio.Event()
        self._queue_key = f"rq:queue:{config.queue}"
        self._intermediate = intermediate_key(config.queue)
        self._take_sha = hashlib.sha1(_TAKE.encode()).hexdigest()
        self.counts = EngineCounts()

    @property
    def busy(self) -> int:
        return len(self._running)

    async def run(self, stop: asyncio.Event, burst: bool = False) -> None:
        """Take and run jobs until `stop` is set (with `burst`, also once the queue is empty and all ended)."""
        beating = asyncio.create_task(self._heartbeat(stop))
        try:
            while not stop.is_set():
                try:
                    if not await self._turn(stop, burst):
                        break
                except RedisError as exc:
                    log.warning("step engine: Redis unavailable (%s); retrying", type(exc).__name__)
                    await asyncio.sleep(1)
            await self._drain()
        finally:
            beating.cancel()
            await asyncio.gather(beating, return_exceptions=True)
            self._pool.shutdown(wait=True)
            try:
                await self._redis.zrem(ENGINES.format(self._config.queue), self._config.name)
            except RedisError:
                pass

    async def _turn(self, stop: asyncio.Event, burst: bool) -> bool:
        """One round: take what the free threads can start, end what finished. False: nothing left (burst)."""
        free = self._config.threads - len(self._running)
        if free <= 0:
            await self._wait_freed(stop)
            await self._flush()
            return True
        taken = await self._take(free)
        if not taken:
            await self._flush()
            if burst:
                if not self._running:
                    return False
                await self._wait_freed(stop)
                return True
            if self._running:
                # Threads busy: a job ending frees one, and new work is looked for after it.
                await self._wait_freed(stop, timeout=0.05)
                return True
            moved = await self._redis.blmove(self._queue_key, self._intermediate, self._config.idle_wait,
                                             "LEFT", "RIGHT")
            if moved is None:
                return True
            taken = await self._take(free - 1, moved.decode() if isinstance(moved, bytes) else moved)
        for job_id, fields in taken:
            self._start(job_id, fields)
        await self._flush()
        return True

    async def _take(self, count: int, *moved: str) -> list[tuple[str, dict[bytes, bytes]]]:
        """Start up to `count` queued jobs (and those `moved` already), writing the ends of the jobs that finished
        since the last flush first, in the same round trip: a job's end and its successor's start cost one."""
        keys = [self._queue_key, self._intermediate]
        args = [count, _JOB_PREFIX, utcformat(rq_now()), self._config.name, *moved]
        ended, self._ended = self._ended, []
        pipe = self._redis.pipeline(transaction=False)
        self._queue_ends(pipe, ended)
        pipe.evalsha(self._take_sha, len(keys), *keys, *args)
        try:
            *wrote, reply = await pipe.execute(raise_on_error=False)
            failed = next((result for result in wrote if isinstance(result, Exception)), None)
            if failed is not None:
                raise failed
        except RedisError:
            self._ended = [*ended, *self._ended]  # written again (the writes are idempotent); the jobs are done
            raise
        self._count_ends(ended)
        if isinstance(reply, NoScriptError):  # Redis restarted or failed over: the source, which loads it again
            reply = await self._redis.eval(_TAKE, len(keys), *keys, *args)
        elif isinstance(reply, Exception):
            raise reply
        taken = [(_text(reply[i]), _fields(reply[i + 1])) for i in range(0, len(reply), 2)]
        if taken:
            self.counts.taken += len(taken)
            self.counts.batches = [*self.counts.batches[-99:], len(taken)]
        return taken

    def _start(self, job_id: str, fields: dict[bytes, bytes]) -> None:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool, self._run_job, job_id, fields)
        self._running[future] = (job_id, time.monotonic())

        def ended(done: asyncio.Future) -> None:
            self._running.pop(done, None)
            self._ended.append(done.result())
            self._freed.set()

        future.add_done_callback(ended)

    def _run_job(self, job_id: str, fields: dict[bytes, bytes]) -> _Ended:
        job = DeputyJob(job_id, connection=self._jobs_redis, serializer=JSONSerializer)
        try:
            job.restore(fields)
            _job_stack.push(job)
            try:
                self._perform(job)
            finally:
                _job_stack.pop()
        except Exception as exc:  # a job's failure is its own: the engine goes on with the others
            log.exception("job %s failed", job_id)
            keep = job.failure_ttl if job.failure_ttl is not None else self._config.failure_ttl
            return _Ended(job_id, f"{type(exc).__name__}: {exc}"[:2000], keep)
        return _Ended(job_id, keep=job.result_ttl if job.result_ttl is not None else self._config.result_ttl)

    async def _wait_freed(self, stop: asyncio.Event, timeout: float = 1.0) -> None:
        if stop.is_set():
            return
        try:
            await asyncio.wait_for(self._freed.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        self._freed.clear()

    async def _flush(self) -> None:
        """Write the ends of the jobs that finished since the last flush, in one round trip."""
        if not self._ended:
            return
        ended, self._ended = self._ended, []
        pipe = self._redis.pipeline(transaction=False)
        self._queue_ends(pipe, ended)
        try:
            await pipe.execute()
        except RedisError:
            self._ended = [*ended, *self._ended]  # written at the next flush; the jobs themselves are done
            raise
        self._count_ends(ended)

    def _queue_ends(self, pipe: Any, ended: list[_Ended]) -> None:
        """Queue on `pipe` the writes that record these jobs' ends (RQ's job status, their place taken)."""
        now, ended_at = self._clock(), utcformat(rq_now())
        for end in ended:
            key = _JOB_PREFIX + end.job_id
            keep = end.keep if end.keep is not None else self._config.result_ttl
            if keep == 0:
                pipe.delete(key)
            elif end.error is None:
                pipe.hset(key, mapping={"status": "finished", "ended_at": ended_at})
                pipe.expire(key, keep)
            else:
                pipe.hset(key, mapping={"status": "failed", "ended_at": ended_at, "exc_info": end.error})
                pipe.expire(key, keep)
                pipe.zadd(f"rq:failed:{self._config.queue}", {end.job_id: now + keep})
            pipe.lrem(self._intermediate, 1, end.job_id)

    def _count_ends(self, ended: list[_Ended]) -> None:
        self.counts.finished += sum(1 for end in ended if end.error is None)
        self.counts.failed += sum(1 for end in ended if end.error is not None)

    async def _drain(self) -> None:
        """Let the running jobs end (a step is not cut in half on a stop), then write their ends."""
        if self._running:
            log.info("step engine: waiting for %d running jobs to end", len(self._running))
            await asyncio.gather(*self._running, return_exceptions=True)
        for _ in range(3):
            try:
                await self._flush()
                return
            except RedisError:
                await asyncio.sleep(1)

    async def _heartbeat(self, stop: asyncio.Event) -> None:
        told: set[str] = set()
        while not stop.is_set():
            now = time.monotonic()
            told &= {job_id for job_id, _ in self._running.values()}
            for job_id, started in list(self._running.values()):
                if now - started > self._config.slow_after and job_id not in told:
                    told.add(job_id)
                    log.warning("step engine: job %s has run for %.0f s and holds a thread", job_id, now - started)
            try:
                await self._redis.zadd(ENGINES.format(self._config.queue), {self._config.name: self._clock()})
            except RedisError:
                pass
            try:
                await asyncio.wait_for(stop.wait(), self._config.heartbeat)
            except asyncio.TimeoutError:
                pass


def live_engines(redis: Redis, queue: str, within: float = 3 * HEARTBEAT_SECONDS) -> int:
    """How many engines running `queue`'s jobs heartbeated within `within` seconds."""
    return int(redis.zcount(ENGINES.format(queue), time.time() - within, "+inf"))


def _call(job: DeputyJob) -> Any:
    return job.func(*job.args, **job.kwargs)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _fields(flat: list) -> dict[bytes, bytes]:
    raw = [v if isinstance(v, bytes) else str(v).encode() for v in flat]
    return dict(zip(raw[::2], raw[1::2]))
