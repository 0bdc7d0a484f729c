"""Every benchmark, one after the other: `make bench`, or `python -m bench.all [--quick]`.

Prints the machine first (cores, memory, load), because absolute times on a shared
2-core machine are noisy; each benchmark measures its own baseline in the same run, and
the ratios are what to compare between machines and runs. `--quick` uses small loads (a
couple of minutes) for a fast look; the figures in BENCHMARKS.md come from the full run.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from bench import (
    approvals,
    concurrency,
    fair_share,
    faults,
    frontend,
    frontend_profile,
    guard_cost,
    model_queue,
    profile,
    prompt_growth,
    redis_memory,
    steps,
)


def machine() -> str:
    """One paragraph about this machine and how busy it is right now."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    memory_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                     if line.startswith("MemTotal"))
    redis = subprocess.run(["redis-server", "--version"], capture_output=True, text=True, check=True).stdout.split()[2]
    return (f"machine: {os.cpu_count()} cores ({cpu}), {memory_kb / 1024 ** 2:.0f} GB RAM, "
            f"Python {platform.python_version()}, Redis {redis.removeprefix('v=')}; "
            f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} (shared machine: absolute times are "
            "noisy, compare the ratios)")


def sections(quick: bool) -> list[tuple[str, Callable[[Path], object]]]:
    if quick:
        return [
            ("front end", lambda d: frontend.run(d, frontend.QUICK)),
            ("front-end profile", lambda d: frontend_profile.run(d, users=200, seconds=5)),
            ("guard", lambda d: guard_cost.run(d, rounds=20)),
            ("queue and throughput", lambda d: steps.run(d, goals=2, steps=10, floor_jobs=30, throughput_goals=4,
                                                         throughput_steps=5, simple_goals=10)),
            ("redis memory", lambda d: redis_memory.run(d, users=1000, goals=100, active=20, entries=500)),
            ("prompt growth", lambda d: prompt_growth.run(d, steps=50)),
            ("approvals", lambda d: approvals.run(d, samples=5)),
            ("concurrency", lambda d: concurrency.run(d, concurrency.QUICK, 50)),
            ("concurrency with the gateway", lambda d: concurrency.ConcurrencyReport(
                with_gateway=concurrency.run_gateway(d, concurrency.GATEWAY_QUICK))),
            ("profile", lambda d: profile.run(d, goals=1, steps=10, seconds=5)),
            ("model queue on the local model", lambda d: model_queue.run(d, users=3)),
            ("fair share", lambda d: fair_share.run(d, light=10, heavy=100)),
            ("faults", lambda d: faults.run(d, faults.QUICK)),
            ("suggestions from interests", _subprocess("bench.suggestions", "--users", "1000", "--listings", "50")),
        ]
    return [
        ("front end", lambda d: frontend.run(d)),
        ("front-end profile", lambda d: frontend_profile.run(d)),
        ("guard", lambda d: guard_cost.run(d)),
        ("queue and throughput", lambda d: steps.run(d)),
        ("redis memory", lambda d: redis_memory.run(d)),
        ("prompt growth", lambda d: prompt_growth.run(d)),
        ("approvals", lambda d: approvals.run(d)),
        ("concurrency", lambda d: concurrency.run(d)),
        ("concurrency with the gateway", lambda d: concurrency.ConcurrencyReport(
            with_gateway=concurrency.run_gateway(d))),
        ("profile", lambda d: profile.run(d)),
        ("model queue on the local model", lambda d: model_queue.run(d)),
        ("fair share", lambda d: fair_share.run(d)),
        ("faults", lambda d: faults.run(d)),
        ("first card on the local model", _subprocess("bench.first_card")),
        ("suggestions from interests", _subprocess("bench.suggestions")),
    ]


def _subprocess(module: str, *args: str) -> Callable[[Path], object]:
    """A benchmark that prints its own report (`python -m module`)."""

    def run(_: Path) -> None:
        subprocess.run([sys.executable, "-m", module, *args], check=True)

    return run


EXTRA = [("guard evaluation", _subprocess("bench.guard")),
         ("secret scrubbing", _subprocess("bench.scrub")),
         ("fair queue", _subprocess("bench.fair_queue")),
         ("redis commands per message", _subprocess("bench.redis_counts")),
         ("redis commands per model turn", _subprocess("bench.turn_counts")),
         ("injection detectors", _subprocess("bench.detectors", "--no-embedding"))]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.all", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small loads, a couple of minutes")
    parser.add_argument("--only", action="append", help="run only these sections (by name, repeatable)")
    args = parser.parse_args()
    chosen = [*sections(args.quick), *EXTRA]
    if args.only:
        unknown = set(args.only) - {name for name, _ in chosen}
        if unknown:
            parser.error(f"no section named {', '.join(sorted(unknown))}; the sections are: "
                         + ", ".join(name for name, _ in chosen))
        chosen = [(name, bench) for name, bench in chosen if name in args.only]
    began = time.monotonic()
    print(machine(), flush=True)
    failed = []
    for name, bench in chosen:
        print(f"\n===== {name} =====", flush=True)
        started = time.monotonic()
        try:
            with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
                report = bench(Path(tmp))
            if report is not None:
                report.print()  # type: ignore[attr-defined]
        except Exception:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            failed.append(name)
        print(f"[{name}: {time.monotonic() - started:.0f} s]", flush=True)
    print(f"\n{machine()}\n[all benchmarks: {time.monotonic() - began:.0f} s]")
    if failed:
        raise SystemExit(f"these benchmarks failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
