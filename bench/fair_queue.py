"""Served in turn: how long 100 users' steps wait behind one user's backlog, first come first served and fair.

    python -m bench.fair_queue [--light 100] [--heavy 1000] [--cost-ms 2]

One RQ worker (`SimpleWorker`) on a real Redis drains a queue of jobs that each take
`--cost-ms` of work. The figure is the time from a light user's job being queued to it
being done:

1. Alone: `--light` users queue one job each.
2. Behind a backlog: one user has `--heavy` jobs queued first (a plan that lets them run that
   many goals, or steps of many goals at once), then the light users queue theirs.

Each is run with RQ's plain queue (first come, first served) and with `FairQueue`, the queue
Deputy's agent and executor use, which serves the users with work waiting in turn.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from redis import Redis
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer

from bench.stats import Summary, ratio, table
from deputy.testing.stack import RedisServer
from deputy.queue.fair_rq import OWNER_META, FairQueue

HEAVY_USER = 0
_queued_at: dict[str, float] = {}
_waits: dict[str, float] = {}


def work(name: str, cost_s: float) -> None:
    end = time.perf_counter() + cost_s
    while time.perf_counter() < end:  # busy, like a step's own work; a sleep would let the worker idle
        pass
    _waits[name] = time.perf_counter() - _queued_at[name]


def _drain(redis: Redis, queue_class: type[Queue], light: int, heavy: int, cost_s: float) -> Summary:
    redis.flushall()
    queue = queue_class("bench-fair", connection=redis, serializer=JSONSerializer)
    _queued_at.clear()
    _waits.clear()
    owners = [(HEAVY_USER, f"heavy-{i}") for i in range(heavy)] + [(n, f"light-{n}") for n in range(1, light + 1)]
    for owner, name in owners:
        _queued_at[name] = time.perf_counter()
        queue.enqueue(f"{__name__}.work", name, cost_s, job_id=name, meta={OWNER_META: owner}, result_ttl=0)
    SimpleWorker([queue], connection=redis, serializer=JSONSerializer).work(burst=True, logging_level="WARNING")
    return Summary.of([wait for name, wait in _waits.items() if name.startswith("light")])


def run(data_dir: Path, light: int = 100, heavy: int = 1000, cost_ms: float = 2.0) -> dict[str, tuple[Summary, Summary]]:
    """For each queue, the light users' waits alone and behind the backlog (and prints the table)."""
    server = RedisServer(data_dir / "redis").start()
    try:
        redis = server.client()
        cost_s = cost_ms / 1000
        rows, found = [], {}
        for label, queue_class in (("first come, first served (RQ's queue)", Queue), ("in turn (FairQueue)", FairQueue)):
            alone = _drain(redis, queue_class, light, 0, cost_s)
            behind = _drain(redis, queue_class, light, heavy, cost_s)
            rows.append((label, alone.p99_ms, behind.p99_ms, ratio(behind.p99, alone.p99)))
            found[queue_class.__name__] = (alone, behind)
        print(f"(fair queue) {light} users' jobs, alone and behind one user's {heavy}; one worker, "
              f"{cost_ms:g} ms of work per job; wait until done, ms")
        print(table(["queue", "p99 alone", "p99 behind the backlog", "ratio"], rows))
        return found
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--light", type=int, default=100)
    parser.add_argument("--heavy", type=int, default=1000)
    parser.add_argument("--cost-ms", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(Path(tmp), args.light, args.heavy, args.cost_ms)


if __name__ == "__main__":
    main()
