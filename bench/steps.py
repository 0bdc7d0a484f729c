"""Queue overhead per agent step, and throughput, with a zero-latency model.

    python -m bench.steps [--quick]

(3) Overhead: one goal at a time runs `steps` steps on one `deputy worker`; a step's
cycle is the time between two model requests of the goal (the model answers at once).
Baselines in the same run, on the same Redis: a raw RQ no-op job round trip with the
worker class Deputy uses (`rq.Worker`, fork per job; the floor the target is set
against), the same with `SimpleWorker` (no fork), a chain of no-op jobs that enqueue
each other, a no-op job run by Deputy's own worker process, and one zero-latency model
call made with Deputy's model client.
(4) Throughput: steps per second and whole simple goals per second (plan, then reply:
two steps) with 1 and 2 workers, next to no-op jobs per second of bare forking workers.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import openai
from rq import Worker
from rq.job import Job
from rq.serializers import JSONSerializer

from deputy.agent.model.chat_model import OpenAIChatModel
from bench import rq_floor
from bench.agent_rig import GOAL_TEXT, StepRig
from bench.stats import Summary, ratio, table
from deputy.testing.stack import wait_for
from deputy.core.records.payloads import AGENT_QUEUE

FLOOR_QUEUE, SIMPLE_QUEUE, ENGINE_QUEUE = "bench-floor", "bench-simple", "bench-engine"


@dataclass
class StepsReport:
    floor_round_trip: Summary
    simple_round_trip: Summary
    floor_chain: Summary
    noop_on_deputy_worker: Summary
    model_call: Summary
    step: Summary
    queue_wait: Summary
    job_body: Summary
    engine_floor: Summary
    throughput: list[tuple[int, float, float, float]] = field(default_factory=list)
    """(workers, steps/s, simple goals/s, bare no-op jobs/s)."""
    gateway: list[tuple[str, Summary, float, Summary]] = field(default_factory=list)
    """With the model gateway: (worker kind, model request to model request, CPU ms per model turn,
    the forking RQ floor measured right before it: the machine's load moves between minutes)."""

    def print(self) -> None:
        floor = self.floor_round_trip
        print("(3) Queue overhead per agent step (zero-latency model), 1 worker")
        rows = [
            ("raw RQ no-op round trip, rq.Worker (floor)", self.floor_round_trip),
            ("raw RQ no-op round trip, SimpleWorker", self.simple_round_trip),
            ("raw RQ no-op chain, job to next job", self.floor_chain),
            ("no-op job on a bare step engine", self.engine_floor),
            ("no-op job on deputy's worker process", self.noop_on_deputy_worker),
            ("one zero-latency model call (client)", self.model_call),
            ("deputy agent step, request to request", self.step),
            ("  of which RQ enqueued -> started", self.queue_wait),
            ("  of which RQ started -> ended (job body)", self.job_body),
        ]
        print(table(["what", "n", "median ms", "p99 ms", "median vs floor", "p99 vs floor"],
                    [(name, s.n, s.median_ms, s.p99_ms, ratio(s.median, floor.median), ratio(s.p99, floor.p99))
                     for name, s in rows]))
        if self.gateway:
            print("\nWith the model gateway (zero-latency model), each next to the floor measured right before it")
            print(table(["worker", "n", "median ms", "p99 ms", "floor median", "floor p99", "median vs floor",
                         "p99 vs floor", "CPU ms per model turn"],
                        [(name, s.n, s.median_ms, s.p99_ms, f.median_ms, f.p99_ms, ratio(s.median, f.median),
                          ratio(s.p99, f.p99), cpu) for name, s, cpu, f in self.gateway]))
        print("\n(4) Throughput (zero-latency model)")
        print(table(["workers", "steps/s", "simple goals/s", "bare no-op jobs/s", "steps vs no-op jobs"],
                    [(w, s, g, n, f"{s / n:.2f}") for w, s, g, n in self.throughput]))


def run(workdir: Path, goals: int = 4, steps: int = 30, floor_jobs: int = 100,
        throughput_goals: int = 8, throughput_steps: int = 20, simple_goals: int = 40,
        two_workers: bool = True, gateway: bool = False) -> StepsReport:
    with StepRig(workdir) as rig:
        rig.processes.start("floor-1", "bench.rq_floor", [FLOOR_QUEUE], rig.env)
        rig.processes.start("simple-1", "bench.rq_floor", [SIMPLE_QUEUE, "--simple"], rig.env)
        rig.processes.start("engine-floor-1", "bench.rq_floor", [ENGINE_QUEUE, "--engine"], rig.env)
        rig.add_workers(1)
        _wait_queue_workers(rig, FLOOR_QUEUE, 1)
        _wait_queue_workers(rig, SIMPLE_QUEUE, 1)
        # Warm-up: first jobs import modules and open connections in each parent.
        rq_floor.round_trips(rig.redis, FLOOR_QUEUE, 5)
        rq_floor.round_trips(rig.redis, SIMPLE_QUEUE, 5)
        _run_goals(rig, 1, 3)

        floor = Summary.of(rq_floor.round_trips(rig.redis, FLOOR_QUEUE, floor_jobs))
        simple = Summary.of(rq_floor.round_trips(rig.redis, SIMPLE_QUEUE, floor_jobs))
        chain = Summary.of(rq_floor.chain_intervals(rig.redis, FLOOR_QUEUE, floor_jobs))
        engine_floor = Summary.of(rq_floor.signalled_round_trips(rig.redis, ENGINE_QUEUE, floor_jobs))
        on_deputy = Summary.of(rq_floor.signalled_round_trips(rig.redis, AGENT_QUEUE, floor_jobs // 2))
        model_call = Summary.of(_model_calls(rig, 50))

        rig.model.clear()
        keys = set()
        for _ in range(goals):
            keys |= _run_goals(rig, 1, steps)
        step = Summary.of(rig.model.intervals(keys))
        queue_wait, body = _job_times(rig)

        report = StepsReport(floor, simple, chain, on_deputy, model_call, step, queue_wait, body, engine_floor)
        report.throughput.append(_throughput(rig, 1, throughput_goals, throughput_steps, simple_goals, floor_jobs))
        if two_workers:
            rig.add_workers(1)
            rig.processes.start("floor-2", "bench.rq_floor", [FLOOR_QUEUE], rig.env)
            _wait_queue_workers(rig, FLOOR_QUEUE, 2)
            report.throughput.append(
                _throughput(rig, 2, throughput_goals, throughput_steps, simple_goals, floor_jobs))
        if gateway:
            report.gateway = _gateway_steps(rig, goals, steps)
        return report


def _gateway_steps(rig: StepRig, goals: int, steps: int) -> list[tuple[str, Summary, float, Summary]]:
    """The same goals with model calls through `deputy gateway`: forking and non-forking RQ workers, then the
    step engine; each next to the floor of its own mode (a no-op job on a bare worker of that kind)."""
    from bench.procs import cpu_seconds

    rig.stop_workers()
    rig.use_gateway()
    rows = []
    modes = [("rq.Worker (fork per job)", "on", "off", FLOOR_QUEUE),
             ("SimpleWorker (DEPUTY_WORKER_FORK=off)", "off", "off", SIMPLE_QUEUE),
             ("step engine (DEPUTY_STEP_ENGINE=on)", "off", "on", ENGINE_QUEUE)]
    for name, fork, engine, floor_queue in modes:
        rig.env = {**rig.env, "DEPUTY_WORKER_FORK": fork, "DEPUTY_STEP_ENGINE": engine}
        rig.add_workers(1)
        _run_goals(rig, 1, 3)  # warm-up
        pids = rig.processes.main_pids("worker-") + rig.processes.main_pids("gateway-")
        floor = Summary.of(rq_floor.signalled_round_trips(rig.redis, floor_queue, 50))
        cpu = cpu_seconds(pids, children=True)
        rig.model.clear()
        keys = set()
        for _ in range(goals):
            keys |= _run_goals(rig, 1, steps)
        cpu = cpu_seconds(pids, children=True) - cpu
        rows.append((name, Summary.of(rig.model.intervals(keys)), cpu / max(1, len(rig.model.arrivals)) * 1e3, floor))
        rig.stop_workers()
    return rows


def _wait_queue_workers(rig: StepRig, queue: str, count: int) -> None:
    wait_for(lambda: sum(1 for w in Worker.all(connection=rig.redis) if queue in w.queue_names()) >= count,
             timeout=60, interval=0.1, what=f"{count} workers on {queue}")


_users = iter(range(1, 10**9))


def _run_goals(rig: StepRig, count: int, steps: int, timeout: float = 120) -> set[str]:
    """Start `count` goals of `steps` steps at once, each of a user of its own, and wait until all have finished."""
    before = rig.finished()
    keys = {rig.start_goal(steps, user_id=next(_users)) for _ in range(count)}
    rig.wait_finished(before + count, timeout)
    return keys


def _model_calls(rig: StepRig, count: int) -> list[float]:
    """Zero-latency model calls through Deputy's own client class, from this process."""
    client = openai.OpenAI(api_key="sk-bench", base_url=rig.server.base_url, max_retries=0)
    model = OpenAIChatModel(client, "scripted-model")
    messages = [{"role": "user", "content": GOAL_TEXT.format(key="b_probe", steps=1000)}]
    times = []
    for _ in range(count + 3):
        started = time.perf_counter()
        model.complete(messages, [])
        times.append(time.perf_counter() - started)
    return times[3:]


def _job_times(rig: StepRig) -> tuple[Summary, Summary]:
    """Enqueued → started and started → ended of the step jobs RQ still remembers."""
    ids = [k.decode().split(":", 2)[2] for k in rig.redis.scan_iter("rq:job:s-*", count=1000)]
    jobs = [j for j in Job.fetch_many(ids, connection=rig.redis, serializer=JSONSerializer) if j is not None]
    done = [j for j in jobs if j.enqueued_at and j.started_at and j.ended_at]
    waits = [(j.started_at - j.enqueued_at).total_seconds() for j in done]
    bodies = [(j.ended_at - j.started_at).total_seconds() for j in done]
    return Summary.of(waits), Summary.of(bodies)


def _throughput(rig: StepRig, workers: int, goals: int, steps: int, simple: int,
                noop_jobs: int) -> tuple[int, float, float, float]:
    rig.model.clear()
    _run_goals(rig, goals, steps, timeout=300)
    times = sorted(a.at for a in rig.model.arrivals)
    steps_per_s = (len(times) - 1) / (times[-1] - times[0])
    before = rig.finished()
    started = time.perf_counter()
    for _ in range(simple):
        rig.start_goal(2, user_id=next(_users))
    rig.wait_finished(before + simple, timeout=300)
    goals_per_s = simple / (time.perf_counter() - started)
    noop_per_s = rq_floor.jobs_per_second(rig.redis, FLOOR_QUEUE, noop_jobs * 2)
    return workers, steps_per_s, goals_per_s, noop_per_s


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.steps", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer samples (for a fast look)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        if args.quick:
            report = run(Path(tmp), goals=2, steps=10, floor_jobs=30, throughput_goals=4, throughput_steps=5,
                         simple_goals=10, two_workers=False, gateway=True)
        else:
            report = run(Path(tmp), gateway=True)
    report.print()


if __name__ == "__main__":
    main()
