"""Concurrency with a realistic model: active goals vs worker processes, memory, overhead.

    python -m bench.concurrency [--quick]

The scripted model answers after 2 s (and 10 s). Goals run on N real `deputy worker`
processes, started spread over one model latency; a step's overhead is its cycle (model request to the goal's next request) minus
the model's time. In the current design a worker waits for the model inside the step, so
N workers sustain N active goals; one more goal queues behind a whole model call and the
overhead jumps by about the model's latency. The run reports that curve, the memory of
the workers (PSS: pages shared with forked work horses counted once) and their CPU per
step, and then what the target (1,000 concurrently active goals in under 4 GB on this
2-core machine) would require: `bench.gateway_probe` measures one asyncio process
holding many model calls in flight, the model-gateway idea of DESIGN.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.agent_rig import StepRig
from bench.procs import cpu_seconds, pss_mb, rss_mb
from bench.stats import Summary, ratio, table

TARGET_GOALS, TARGET_MB, CORES = 1_000, 4 * 1024, 2


@dataclass(frozen=True)
class Point:
    delay: float
    workers: int
    goals: int
    steps: int


@dataclass
class Result:
    point: Point
    overhead: Summary
    steps_per_s: float
    memory_mb: float  # peak PSS of the workers and their work horses
    cpu_ms_per_step: float


@dataclass
class GatewayResult:
    """One point of the curve with the model gateway: N workers + 1 gateway."""

    point: Point
    overhead: Summary
    steps_per_s: float
    processes: int  # peak count: workers, their schedulers and work horses, the gateway
    rss_mb: float  # peak total RSS of all of them (shared pages counted in each process)
    pss_mb: float  # peak total PSS (shared pages split)
    cpu_ms_per_step: float  # workers + horses + gateway
    gateway_cpu_ms_per_call: float
    max_in_flight: int  # model calls the scripted model held at once


@dataclass
class ConcurrencyReport:
    results: list[Result] = field(default_factory=list)
    gateway: list[tuple[str, dict]] = field(default_factory=list)
    with_gateway: list[GatewayResult] = field(default_factory=list)

    def print_gateway(self) -> None:
        print("(7) Concurrency with the model gateway (overhead = step cycle - model latency)")
        print(table(
            ["model s", "workers", "active goals", "processes", "RSS MB", "PSS MB", "overhead median ms", "p99 ms",
             "steps/s", "CPU ms/step", "gateway CPU ms/call", "calls in flight"],
            [(r.point.delay, r.point.workers, r.point.goals, r.processes, r.rss_mb, r.pss_mb, r.overhead.median_ms,
              r.overhead.p99_ms, r.steps_per_s, r.cpu_ms_per_step, r.gateway_cpu_ms_per_call, r.max_in_flight)
             for r in self.with_gateway]))

    def print(self) -> None:
        if self.with_gateway:
            self.print_gateway()
        if not self.results:
            return
        base = self.results[0].overhead
        print("(7) Concurrency with a slow model (overhead = step cycle - model latency)")
        print(table(
            ["model s", "workers", "active goals", "overhead median ms", "p99 ms", "p99 vs 1 goal", "steps/s",
             "workers MB", "CPU ms/step"],
            [(r.point.delay, r.point.workers, r.point.goals, r.overhead.median_ms, r.overhead.p99_ms,
              ratio(r.overhead.p99, base.p99), r.steps_per_s, r.memory_mb, r.cpu_ms_per_step) for r in self.results]))
        sustained = [r for r in self.results if r.point.goals <= r.point.workers]
        biggest = max(sustained, key=lambda r: r.point.workers)
        per_worker = biggest.memory_mb / biggest.point.workers
        cpu = sorted(r.cpu_ms_per_step for r in sustained)[len(sustained) // 2]
        print(f"\nSustained without queueing: active goals = worker processes (each waits for the model). "
              f"Memory: {per_worker:.0f} MB per busy worker (PSS, horse included).")
        print(f"  {TARGET_GOALS:,} active goals would need {TARGET_GOALS:,} workers ~ "
              f"{per_worker * TARGET_GOALS / 1024:.1f} GB (target: under {TARGET_MB // 1024} GB -> missed); "
              f"{TARGET_MB / per_worker:.0f} goals fit in {TARGET_MB // 1024} GB this way.")
        steps_per_s = CORES * 1000 / cpu
        print(f"  CPU: {cpu:.0f} ms per step (worker + horse) caps this machine at ~{steps_per_s:.0f} steps/s, "
              f"so even with model calls off the workers it sustains ~{steps_per_s * 2:.0f} goals with a 2 s model, "
              f"~{steps_per_s * 10:.0f} with a 10 s model; {TARGET_GOALS:,} goals at 2 s need "
              f"{TARGET_GOALS / 2:.0f} steps/s, i.e. <= {CORES * 1000 / (TARGET_GOALS / 2):.1f} ms CPU per step.")
        for label, probe in self.gateway:
            print(f"  gateway probe ({label}): {probe['count']:,} calls in flight in one process: "
                  f"{probe['wall_s']:.1f} s wall for a {probe['model_s']:.0f} s model, {probe['cpu_s'] / probe['count'] * 1e3:.1f} ms CPU "
                  f"per call, {probe['pss_mb']:.0f} MB")


PLAN = [Point(2.0, 1, 1, 5), Point(2.0, 4, 4, 4), Point(2.0, 4, 8, 4), Point(10.0, 8, 8, 3), Point(10.0, 8, 16, 2),
        Point(2.0, 16, 16, 4), Point(2.0, 16, 32, 3), Point(2.0, 32, 32, 4), Point(10.0, 32, 32, 2)]
QUICK = [Point(0.5, 1, 1, 3), Point(0.5, 2, 2, 3), Point(0.5, 2, 4, 2)]


def run(workdir: Path, plan: list[Point] = PLAN, gateway_calls: int = 1_000,
        gateway_delay: float = 2.0) -> ConcurrencyReport:
    report = ConcurrencyReport()
    with StepRig(workdir) as rig:
        started = 0
        for point in plan:
            if point.workers > started:
                rig.add_workers(point.workers - started)
                started = point.workers
            report.results.append(_measure(rig, point, first_user=len(report.results) * 1000))
        if gateway_calls:
            request = rig.server.requests[-1]
            path = workdir / "request.json"
            path.write_text(json.dumps({"messages": request.messages, "tools": request.tools}))
            rig.stop_workers()
            rig.model.delay = gateway_delay
            for label, flags in [("OpenAI SDK as Deputy calls it", []), ("SDK with extra_body", ["--extra-body"])]:
                output = subprocess.run(
                    [sys.executable, "-m", "bench.gateway_probe", rig.server.base_url, str(path), str(gateway_calls),
                     *flags], capture_output=True, text=True, timeout=600, check=True)
                probe = json.loads(output.stdout.strip().splitlines()[-1])
                report.gateway.append((label, {**probe, "model_s": gateway_delay}))
    return report


GATEWAY_PLAN = [Point(2.0, 1, 100, 3), Point(2.0, 1, 300, 3), Point(2.0, 2, 300, 3), Point(2.0, 2, 1_000, 3),
                Point(10.0, 2, 1_000, 2)]
GATEWAY_QUICK = [Point(0.5, 1, 20, 3)]


def run_gateway(workdir: Path, plan: list[Point] = GATEWAY_PLAN, fork: bool = False,
                engine: bool = True) -> list[GatewayResult]:
    """The curve with the gateway: goals' model calls held by one asyncio process.

    Agent workers run steps on their step engine; with `engine` False they are RQ workers, without a fork per
    job (`DEPUTY_WORKER_FORK=off`) unless `fork`.
    """
    results = []
    with StepRig(workdir) as rig:
        rig.use_gateway()
        rig.env = {**rig.env, "DEPUTY_WORKER_FORK": "on" if fork else "off",
                   "DEPUTY_STEP_ENGINE": "on" if engine and not fork else "off"}
        started = 0
        for point in plan:
            if point.workers > started:
                rig.add_workers(point.workers - started)
                started = point.workers
            results.append(_measure_gateway(rig, point, first_user=len(results) * 10_000))
    return results


def _measure_gateway(rig: StepRig, point: Point, first_user: int) -> GatewayResult:
    rig.model.delay = point.delay
    rig.model.clear()
    rig.server.clear()
    workers, gateway = rig.processes.main_pids("worker-"), rig.processes.main_pids("gateway-")
    cpu_before = cpu_seconds(workers, children=True), cpu_seconds(gateway)
    before = rig.finished()
    spacing, began = point.delay / point.goals, time.monotonic()
    peak_rss = peak_pss = 0.0
    peak_processes = 0

    def sample() -> None:
        nonlocal peak_rss, peak_pss, peak_processes
        pids = rig.processes.pids("worker-") + rig.processes.pids("gateway-")
        peak_processes = max(peak_processes, len(pids))
        peak_rss, peak_pss = max(peak_rss, rss_mb(pids)), max(peak_pss, pss_mb(pids))

    for i in range(point.goals):
        time.sleep(max(0.0, began + i * spacing - time.monotonic()))
        rig.start_goal(point.steps, user_id=first_user + i)
        if i % 50 == 0:
            sample()
    deadline = time.monotonic() + point.steps * (point.delay + point.goals * 0.2) + 120
    while rig.finished() < before + point.goals:
        if time.monotonic() > deadline:
            raise TimeoutError(f"goals did not finish: {point} ({rig.finished() - before} done)")
        sample()
        time.sleep(0.25)
    time.sleep(0.3)
    worker_cpu = cpu_seconds(workers, children=True) - cpu_before[0]
    gateway_cpu = cpu_seconds(gateway) - cpu_before[1]
    arrivals = sorted(a.at for a in rig.model.arrivals)
    overhead = [i - point.delay for i in rig.model.intervals()]
    span = arrivals[-1] - arrivals[0] if len(arrivals) > 1 else float("nan")
    return GatewayResult(point, Summary.of(overhead), (len(arrivals) - 1) / span, peak_processes, peak_rss, peak_pss,
                         (worker_cpu + gateway_cpu) / len(arrivals) * 1e3, gateway_cpu / len(arrivals) * 1e3,
                         rig.server.max_in_flight)


def _measure(rig: StepRig, point: Point, first_user: int) -> Result:
    rig.model.delay = point.delay
    rig.model.clear()
    workers = rig.processes.main_pids("worker-")
    cpu_before = cpu_seconds(workers, children=True)
    before = rig.finished()
    # Starts spread over one model latency: active goals are not phase-locked (real users
    # do not all text at the same instant), so steps arrive evenly rather than in waves.
    spacing, began = point.delay / point.goals, time.monotonic()
    for i in range(point.goals):
        time.sleep(max(0.0, began + i * spacing - time.monotonic()))
        rig.start_goal(point.steps, user_id=first_user + i)
    peak = 0.0
    deadline = time.monotonic() + point.steps * point.delay * (point.goals / point.workers + 1) * 2 + 60
    while rig.finished() < before + point.goals:
        if time.monotonic() > deadline:
            raise TimeoutError(f"goals did not finish: {point}")
        peak = max(peak, pss_mb(rig.processes.pids("worker-")))
        time.sleep(0.25)
    time.sleep(0.3)  # let the last horses be reaped so their CPU is counted
    cpu = cpu_seconds(workers, children=True) - cpu_before
    arrivals = sorted(a.at for a in rig.model.arrivals)
    overhead = [i - point.delay for i in rig.model.intervals()]
    span = arrivals[-1] - arrivals[0] if len(arrivals) > 1 else float("nan")
    return Result(point, Summary.of(overhead), (len(arrivals) - 1) / span, peak, cpu / len(arrivals) * 1e3)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--gateway-only", action="store_true", help="only the curve with the model gateway")
    parser.add_argument("--goals", type=int, nargs="*", help="gateway curve: these numbers of active goals")
    parser.add_argument("--workers", type=int, default=2, help="gateway curve with --goals: agent workers")
    parser.add_argument("--delay", type=float, default=2.0, help="gateway curve with --goals: model seconds")
    parser.add_argument("--fork", action="store_true", help="gateway curve with forking workers (rq.Worker)")
    parser.add_argument("--rq", action="store_true", help="gateway curve with RQ workers instead of step engines")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        plan = GATEWAY_QUICK if args.quick else GATEWAY_PLAN
        if args.goals:
            plan = [Point(args.delay, args.workers, goals, 3) for goals in args.goals]
        report = ConcurrencyReport(with_gateway=run_gateway(Path(tmp) / "gateway", plan, fork=args.fork,
                                                                engine=not args.rq))
        if not args.gateway_only:
            inline = run(Path(tmp) / "inline", QUICK, 50) if args.quick else run(Path(tmp) / "inline")
            report.results, report.gateway = inline.results, inline.gateway
    report.print()


if __name__ == "__main__":
    main()
