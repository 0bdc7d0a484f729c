"""Where the time goes, profiled with py-spy (`pip install -e '.[bench]'`, as `make bench` does).

    python -m bench.profile [--quick]

1. The front end: py-spy samples the real bot process (`bench.frontend_bot deputy`) while
   N users text it in a closed loop (as in `bench.frontend`), idle samples included, so the
   time the event loop spends blocked (waiting on a synchronous Redis reply, say) shows up
   next to the time it computes and the time it waits for I/O with nothing to do.
2. The queue overhead per step: py-spy samples a real `deputy worker` and its forked work
   horses while goals run with a zero-latency model; the horses' on-CPU samples are sorted
   into categories (a sample counts for the first category any of its frames matches).
3. Experiments on the causes it finds, same rig, same run: the worker's parent warmed
   before it forks (`bench.warm_worker`), also with `gc.freeze()`; and the OpenAI SDK's
   request building, with the same recorded request passed normally and via `extra_body`.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import openai

from bench.agent_rig import StepRig
from bench.procs import cpu_seconds
from bench.stats import Summary, ratio, table

# py-spy also samples threads blocked in these calls; they are waiting, not working.
WAITING = ("_read_from_socket", "SyncStream.read", "socket.recv", "Condition.wait", "Event.wait", "time.sleep",
           "select", "wait_for_horse")
CATEGORIES = [  # (label, substrings of any frame), first match wins
    ("importing the OpenAI SDK's chat modules (lazy, in every horse)", ("_find_and_load",)),
    ("pydantic building model classes and schemas", ("GenerateSchema", "ModelMetaclass.__new__", "model_rebuild")),
    ("OpenAI SDK walking the request (_transform)", ("openai/_utils/_transform.py",)),
    ("OpenAI SDK sending and parsing (httpx, models)", ("openai/", "httpx", "httpcore")),
    ("goal load and checkpoint (JSON, pydantic, Lua)", ("GoalStore.",)),
    ("prompt building", ("build_messages", "prompt_view")),
    ("other Redis round trips (outbox, settings, memory, queue)", ("redis/",)),
    ("RQ bookkeeping in the horse", ("rq/",)),
]


@dataclass
class Variant:
    name: str
    step: Summary
    horse_cpu_ms: float  # CPU per step of the work horses (user + system)


@dataclass
class ProfileReport:
    categories: list[tuple[str, float]] = field(default_factory=list)  # share of the horses' samples
    processes: dict[str, int] = field(default_factory=dict)  # samples per process kind
    variants: list[Variant] = field(default_factory=list)
    transform_ms: tuple[float, float] = (float("nan"), float("nan"))  # create() normally vs via extra_body

    def print(self) -> None:
        print("Profile of the queue overhead per step (py-spy: the work horses' samples, waiting excluded)")
        if self.categories:
            print(table(["category", "share"], [(c, f"{s * 100:.0f}%") for c, s in self.categories]))
            print("samples by process: " + ", ".join(f"{k} {v}" for k, v in self.processes.items()))
        else:
            print("(py-spy is not installed: `make bench` installs it, or `.venv/bin/pip install -e '.[bench]'`)")
        base = self.variants[0]
        print("\nExperiments on the causes (same rig, zero-latency model, 1 worker)")
        print(table(["worker", "n", "step median ms", "p99 ms", "vs deputy worker", "horse CPU ms/step"],
                    [(v.name, v.step.n, v.step.median_ms, v.step.p99_ms, ratio(v.step.median, base.step.median),
                      v.horse_cpu_ms) for v in self.variants]))
        normal, bypass = self.transform_ms
        print(f"\nOne recorded step request through the OpenAI SDK (zero-latency server), median: {normal:.1f} ms "
              f"as Deputy calls it, {bypass:.1f} ms with messages and tools in extra_body (no _transform walk)")


_users = itertools.count(1)


def _steps(rig: StepRig, goals: int, steps: int) -> tuple[Summary, float]:
    rig.model.clear()
    parents = rig.processes.main_pids("worker-")
    cpu_before = cpu_seconds(parents, children=True) - cpu_seconds(parents)
    for _ in range(goals):
        before = rig.finished()
        rig.start_goal(steps, user_id=next(_users))  # each goal its own user, as in every bench
        rig.wait_finished(before + 1, 120)
    time.sleep(0.3)
    horse_cpu = cpu_seconds(parents, children=True) - cpu_seconds(parents) - cpu_before
    return Summary.of(rig.model.intervals()), horse_cpu / len(rig.model.arrivals) * 1e3


def _profile(rig: StepRig, seconds: float, report: ProfileReport) -> None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        return
    out = rig.processes.workdir / "py-spy.txt"
    pid = rig.processes.main_pids("worker-")[0]
    recorder = subprocess.Popen([spy, "record", "--pid", str(pid), "--subprocesses", "--rate", "250", "--format",
                                 "raw", "-o", str(out), "--duration", str(int(seconds) + 2)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)  # py-spy attaches
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        before = rig.finished()
        rig.start_goal(10)
        rig.wait_finished(before + 1, 120)
    recorder.wait(timeout=120)
    if out.exists():
        _aggregate(out.read_text().splitlines(), pid, report)


def _aggregate(lines: list[str], worker_pid: int, report: ProfileReport) -> None:
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for line in lines:
        stack, _, number = line.rpartition(" ")
        frames, samples = stack.split(";"), int(number)
        if len(frames) > 1 and frames[1].startswith("process "):
            kind = "scheduler" if "rq/scheduler.py" in stack else "work horse"
        else:
            kind = "worker parent"
        kinds[kind] += samples
        if kind != "work horse":
            continue
        if any(mark in frames[-1] for mark in WAITING):
            kinds["work horse, waiting (excluded)"] += samples
            continue
        label = next((name for name, marks in CATEGORIES if any(m in f for f in frames for m in marks)), "other")
        counts[label] += samples
    total = sum(counts.values()) or 1
    report.categories = [(name, counts[name] / total) for name, _ in [*CATEGORIES, ("other", ())] if counts[name]]
    report.processes = dict(kinds)


def _transform(rig: StepRig, calls: int) -> tuple[float, float]:
    request = rig.server.requests[-1]
    client = openai.OpenAI(api_key="sk-bench", base_url=rig.server.base_url, max_retries=0)
    normal, bypass = [], []
    for _ in range(calls):
        started = time.perf_counter()
        client.chat.completions.create(model="scripted-model", messages=request.messages, tools=request.tools)
        normal.append(time.perf_counter() - started)
        started = time.perf_counter()
        client.chat.completions.create(model="scripted-model", messages=[],
                                       extra_body={"messages": request.messages, "tools": request.tools})
        bypass.append(time.perf_counter() - started)
    return statistics.median(normal[3:]) * 1e3, statistics.median(bypass[3:]) * 1e3


def run(workdir: Path, goals: int = 3, steps: int = 20, seconds: float = 12.0,
        experiments: bool = True) -> ProfileReport:
    report = ProfileReport()
    with StepRig(workdir) as rig:
        # These experiments are about RQ's forking worker and its work horses (`DEPUTY_STEP_ENGINE=off`);
        # the step engine forks nothing (`bench.steps` and `bench.concurrency` measure it).
        rig.env = {**rig.env, "DEPUTY_STEP_ENGINE": "off"}
        variants = [("deputy worker", "deputy", ["worker"]), ("parent warmed", "bench.warm_worker", []),
                    ("parent warmed + gc.freeze", "bench.warm_worker", ["--freeze"])]
        for name, module, args in variants if experiments else variants[:1]:
            rig.processes.start(f"worker-{name}", module, args, rig.env)
            rig.wait_for_workers(1)
            _steps(rig, 1, 3)  # warm-up
            step, horse = _steps(rig, goals, steps)
            report.variants.append(Variant(name, step, horse))
            if name == "deputy worker" and seconds > 0:
                _profile(rig, seconds, report)
            rig.stop_workers()
        report.transform_ms = _transform(rig, 20)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        report = run(Path(tmp), goals=1, steps=10, seconds=5) if args.quick else run(Path(tmp))
    report.print()


if __name__ == "__main__":
    main()
