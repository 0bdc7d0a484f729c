"""The practical floor under Deputy's queue: raw RQ no-op jobs on the same Redis.

`python -m bench.rq_floor QUEUE [--simple]` runs a bare RQ worker of the class Deputy
uses (`rq.Worker`, which forks a work horse per job; `--simple` for `SimpleWorker`, which
does not), with the same JSON serializer and scheduler setting as `deputy worker`, and
nothing else loaded. The functions below measure a no-op job's round trip (enqueue →
result, waited for with RQ's blocking result read, no polling), a chain of no-op jobs
each enqueuing the next (the shape of a goal's steps), and no-op jobs per second.
"""

from __future__ import annotations

import argparse
import os
import time
from itertools import pairwise
from typing import Any

from redis import Redis
from rq import Queue, SimpleWorker, Worker, get_current_job
from rq.serializers import JSONSerializer

NOOP = "bench.rq_floor.noop"
SIGNAL = "bench.rq_floor.signal"
CHAIN = "bench.rq_floor.chain"
_CHAIN_TIMES = "bench:chain:{}"


def noop(payload: dict[str, Any]) -> str:
    """Does nothing: what remains is RQ's own cost per job."""
    return "ok"


def signal(payload: dict[str, Any]) -> str:
    """Does nothing but say it ran (one RPUSH), for a consumer that keeps no results (the step engine)."""
    job = get_current_job()
    assert job is not None
    job.connection.rpush(payload["key"], "1")
    return "ok"


def chain(payload: dict[str, Any]) -> str:
    """Notes when it started, then enqueues the next link until `left` reaches zero."""
    job = get_current_job()
    assert job is not None
    redis = job.connection
    redis.rpush(_CHAIN_TIMES.format(payload["run"]), repr(time.time()))
    if payload["left"] > 0:
        queue = Queue(payload["queue"], connection=redis, serializer=JSONSerializer)
        queue.enqueue(CHAIN, {**payload, "left": payload["left"] - 1}, result_ttl=60)
    return "ok"


def queue(redis: Redis, name: str) -> Queue:
    return Queue(name, connection=redis, serializer=JSONSerializer)


def round_trips(redis: Redis, name: str, count: int, func: str = NOOP) -> list[float]:
    """Seconds from enqueue to the job's result being readable, one job at a time."""
    target = queue(redis, name)
    times = []
    for _ in range(count):
        started = time.perf_counter()
        job = target.enqueue(func, {}, result_ttl=60)
        if job.latest_result(timeout=30) is None:
            raise TimeoutError(f"no worker ran a no-op job on queue {name!r} within 30 s")
        times.append(time.perf_counter() - started)
    return times


def signalled_round_trips(redis: Redis, name: str, count: int) -> list[float]:
    """Seconds from enqueue to the job having run, one job at a time, for consumers that keep no result."""
    target = queue(redis, name)
    times = []
    for i in range(count):
        key = f"bench:ran:{os.urandom(4).hex()}"
        started = time.perf_counter()
        target.enqueue(SIGNAL, {"key": key}, result_ttl=60)
        if redis.blpop([key], timeout=30) is None:
            raise TimeoutError(f"nothing ran a no-op job on queue {name!r} within 30 s")
        times.append(time.perf_counter() - started)
    return times


def chain_intervals(redis: Redis, name: str, links: int) -> list[float]:
    """Seconds between the starts of consecutive jobs in a chain of `links` no-op jobs."""
    run = os.urandom(4).hex()
    key = _CHAIN_TIMES.format(run)
    queue(redis, name).enqueue(CHAIN, {"run": run, "left": links - 1, "queue": name}, result_ttl=60)
    deadline = time.monotonic() + 60
    while redis.llen(key) < links:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the no-op chain on {name!r} did not finish")
        time.sleep(0.01)
    starts = [float(v) for v in redis.lrange(key, 0, -1)]
    redis.delete(key)
    return [b - a for a, b in pairwise(starts)]


def jobs_per_second(redis: Redis, name: str, count: int) -> float:
    """No-op jobs per second while `count` jobs wait in the queue for the running workers."""
    target = queue(redis, name)
    started = time.perf_counter()
    jobs = [target.enqueue(NOOP, {}, result_ttl=60) for _ in range(count)]
    for job in jobs:
        if job.latest_result(timeout=60) is None:
            raise TimeoutError("no-op jobs did not finish")
    return count / (time.perf_counter() - started)


def serve(redis_url: str, name: str, simple: bool) -> None:
    """A bare RQ worker, configured like `deputy worker` (JSON payloads, scheduler on)."""
    redis = Redis.from_url(redis_url)
    worker_class = SimpleWorker if simple else Worker
    worker = worker_class([queue(redis, name)], connection=redis, serializer=JSONSerializer)
    worker.work(with_scheduler=True, logging_level=os.environ.get("DEPUTY_LOG_LEVEL", "INFO"))


def serve_engine(redis_url: str, name: str) -> None:
    """A bare step engine (`deputy.queue.step_engine`) on `name`, with nothing of Deputy's loaded around it."""
    import asyncio
    import signal as signals

    from deputy.core.infrastructure.redis_clients import async_client
    from deputy.queue.step_engine import EngineConfig, StepEngine

    async def run() -> None:
        stop = asyncio.Event()
        for sig in (signals.SIGTERM, signals.SIGINT):
            asyncio.get_running_loop().add_signal_handler(sig, stop.set)
        client = async_client(redis_url)
        await StepEngine(client, Redis.from_url(redis_url), EngineConfig(queue=name, name=f"floor-{os.getpid()}")).run(stop)

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rq_floor", description=__doc__)
    parser.add_argument("queue")
    parser.add_argument("--simple", action="store_true", help="SimpleWorker (no fork) instead of rq.Worker")
    parser.add_argument("--engine", action="store_true", help="the step engine instead of an RQ worker")
    args = parser.parse_args()
    if args.engine:
        serve_engine(os.environ["REDIS_URL"], args.queue)
    else:
        serve(os.environ["REDIS_URL"], args.queue, args.simple)


if __name__ == "__main__":
    main()
