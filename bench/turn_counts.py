"""Redis commands per model turn: a goal's steps on the step engine with the model gateway.

    python -m bench.turn_counts [--goals 8] [--steps 25] [--at-once 4] [--idle 3] [--json]

`deputy worker` (DEPUTY_STEP_ENGINE=on) and `deputy gateway` run as an operator starts them, with
the zero-latency scripted model of `bench.agent_rig`, on a private redis-server. Each of those
processes loads `bench/count_site`, which tallies every request it writes to Redis by command and
by the Deputy function that sent it (`deputy.testing.redis_sends`). `--goals` goals of `--steps`
model turns each run, `--at-once` at a time; per model turn it prints:

- sent: commands the worker and the gateway sent (a script is one; a transaction is its commands
  plus MULTI and EXEC);
- round trips: requests they wrote and waited on (a pipeline is one);
- ran: commands Redis ran, those inside scripts one by one (INFO commandstats, less this bench's own);

then the commands by name, and by the function that sent them. Commands that come with time rather
than with turns (heartbeats, the watchdog, the scheduler, the gateway's sweep) are measured first
while nothing runs, `--idle` seconds, and shown per second; they are in the per-turn figures too,
spread over the turns of the run. Tallying walks the stack on every request, so no CPU is measured
here: `bench.steps` measures it with nothing loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.agent_rig import StepRig
from bench.stats import table
from deputy.testing.redis_counts import command_stats
from deputy.testing.redis_sends import tallying_sends
from deputy.testing.stack import wait_for

_SITE = Path(__file__).resolve().parent / "count_site"
_ROOT = Path(__file__).resolve().parent.parent


def _tallies(where: Path) -> dict:
    """The tallies of every counted process, summed."""
    total: dict = {"round_trips": 0, "commands": Counter(), "callers": Counter()}
    for path in where.glob("*.json"):
        try:
            one = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        total["round_trips"] += one["round_trips"]
        total["commands"].update(one["commands"])
        total["callers"].update(one["callers"])
    return total


def _settled(where: Path, pause: float = 0.5) -> dict:
    """The tallies once the processes have written theirs after the work ended."""
    time.sleep(pause)
    return _tallies(where)


def _window(rig: StepRig, where: Path, own, work) -> dict:  # type: ignore[no-untyped-def]
    """What the counted processes sent and Redis ran while `work()` ran (this process's commands left out)."""
    before, ran_before, own_before = _settled(where), command_stats(rig.redis), own.as_json()
    work()
    after = _settled(where)
    ran_after, own_after = command_stats(rig.redis), own.as_json()
    ran = ran_after - ran_before
    ran -= Counter(own_after["commands"]) - Counter(own_before["commands"])
    ran["info"] -= 1  # the second INFO was sent after the own tally was read
    return {"round_trips": after["round_trips"] - before["round_trips"],
            "commands": +(after["commands"] - before["commands"]),
            "callers": +(after["callers"] - before["callers"]),
            "ran": +Counter({k: v for k, v in ran.items() if k != "info"})}


def measure(workdir: Path, goals: int = 8, steps: int = 25, at_once: int = 4, idle: float = 3.0) -> dict:
    tally_dir = workdir / "tallies"
    tally_dir.mkdir(parents=True)
    # This process's commands (starting goals, waiting for them) are not the work's.
    with tallying_sends() as own, StepRig(workdir / "rig") as rig:
        rig.env = {**rig.env, "DEPUTY_STEP_ENGINE": "on", "DEPUTY_BENCH_TALLY_DIR": str(tally_dir),
                   "PYTHONPATH": os.pathsep.join([str(_SITE), str(_ROOT), os.environ.get("PYTHONPATH", "")])}
        rig.use_gateway()
        rig.add_workers(1)
        _run(rig, goals=2, steps=5, at_once=2)  # connections opened, scripts loaded
        quiet = _window(rig, tally_dir, own, lambda: time.sleep(idle))
        rig.model.clear()
        busy = _window(rig, tally_dir, own, lambda: _run(rig, goals, steps, at_once))
        turns = len(rig.model.arrivals)
    return {"turns": turns, "idle_seconds": idle, "idle": _jsonable(quiet), "busy": _jsonable(busy)}


def cpu_per_turn(workdir: Path, goals: int = 8, steps: int = 25, at_once: int = 4) -> dict:
    """CPU ms per model turn of the worker and the gateway, nothing tallied (the same goals as `measure`)."""
    from bench.procs import cpu_seconds, cpu_user_system

    with StepRig(workdir / "rig") as rig:
        rig.env = {**rig.env, "DEPUTY_STEP_ENGINE": "on"}
        rig.use_gateway()
        rig.add_workers(1)
        _run(rig, goals=2, steps=5, at_once=2)
        worker, gateway = rig.processes.main_pids("worker-"), rig.processes.main_pids("gateway-")
        redis = [rig.redis_server._process.pid] if rig.redis_server._process else []
        before = cpu_seconds(worker), cpu_seconds(gateway), cpu_seconds(redis)
        split = cpu_user_system(worker + gateway)
        rig.model.clear()
        _run(rig, goals, steps, at_once)
        turns = len(rig.model.arrivals)
        worker_ms = (cpu_seconds(worker) - before[0]) * 1e3 / turns
        gateway_ms = (cpu_seconds(gateway) - before[1]) * 1e3 / turns
        redis_ms = (cpu_seconds(redis) - before[2]) * 1e3 / turns  # this bench's own polling included: an upper bound
        user, system = (after - was for after, was in zip(cpu_user_system(worker + gateway), split))
    return {"turns": turns, "worker_ms": worker_ms, "gateway_ms": gateway_ms, "total_ms": worker_ms + gateway_ms,
            "redis_ms": redis_ms, "system_share": system / max(user + system, 1e-9)}


def _run(rig: StepRig, goals: int, steps: int, at_once: int) -> None:
    users = iter(range(1000 + goals * 10, 10**9))
    left = goals
    while left:
        batch = min(at_once, left)
        before = rig.finished()
        for _ in range(batch):
            rig.start_goal(steps, user_id=next(users))
        wait_for(lambda: rig.finished() >= before + batch, timeout=120, interval=0.05, what="goals to finish")
        left -= batch


def _jsonable(window: dict) -> dict:
    return {k: (dict(v) if isinstance(v, Counter) else v) for k, v in window.items()}


def report(figures: dict, top: int = 25) -> None:
    turns, busy, quiet = figures["turns"], figures["busy"], figures["idle"]
    per = lambda n: f"{n / turns:.1f}"  # noqa: E731
    idle_per_s = lambda n: f"{n / figures['idle_seconds']:.1f}"  # noqa: E731
    sent, ran = sum(busy["commands"].values()), sum(busy["ran"].values())
    print(f"Redis per model turn, step engine + model gateway, zero-latency model ({turns} turns)")
    print(table(["figure", "per model turn", "per idle second"],
                [("sent (commands the processes sent)", per(sent), idle_per_s(sum(quiet["commands"].values()))),
                 ("round trips", per(busy["round_trips"]), idle_per_s(quiet["round_trips"])),
                 ("ran (scripts' commands one by one)", per(ran), idle_per_s(sum(quiet["ran"].values())))]))
    print("\nBy command: sent and ran per model turn")
    names = sorted(set(busy["commands"]) | set(busy["ran"]), key=lambda n: -busy["ran"].get(n, 0))
    print(table(["command", "sent", "ran"],
                [(n, per(busy["commands"].get(n, 0)), per(busy["ran"].get(n, 0))) for n in names]))
    print(f"\nBy the Deputy function that sent them (sent per model turn, the top {top})")
    callers = sorted(busy["callers"].items(), key=lambda kv: -kv[1])[:top]
    print(table(["function command", "sent"], [(c, per(n)) for c, n in callers]))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.turn_counts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--goals", type=int, default=8)
    parser.add_argument("--steps", type=int, default=25, help="model turns per goal")
    parser.add_argument("--at-once", type=int, default=4, help="goals running at the same time")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds of the quiet window")
    parser.add_argument("--top", type=int, default=25, help="functions to list")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--cpu", action="store_true", help="measure CPU ms per model turn instead (nothing tallied)")
    args = parser.parse_args()
    if args.cpu:
        with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
            cpu = cpu_per_turn(Path(tmp), args.goals, args.steps, args.at_once)
        print(json.dumps(cpu) if args.json else
              f"CPU per model turn ({cpu['turns']} turns): worker {cpu['worker_ms']:.2f} ms, gateway "
              f"{cpu['gateway_ms']:.2f} ms, together {cpu['total_ms']:.2f} ms ({cpu['system_share']:.0%} of it in the kernel); "
              f"redis-server {cpu['redis_ms']:.2f} ms")
        return
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        figures = measure(Path(tmp), args.goals, args.steps, args.at_once, args.idle)
    if args.json:
        print(json.dumps(figures))
    else:
        report(figures, args.top)


if __name__ == "__main__":
    main()
