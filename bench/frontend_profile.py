"""Where the bot's time goes under load: py-spy on the real bot process, part of `bench.profile`.

    python -m bench.frontend_profile [--users 500] [--seconds 10]

The bot (`bench.frontend_bot deputy`, Deputy's real handlers without the rate limiter) polls
an in-process emulator while N users text it in a closed loop, as in `bench.frontend`.
py-spy samples the bot's event loop thread without pausing it (`--nonblocking`), idle
samples included: the event loop is single-threaded, so a sample that sits in a
synchronous socket read is a stall every other update waits behind, while a sample in
the selector is the loop with nothing to do. Each sample counts for the first category
that matches (blocked, idle, then the first category any of its frames names).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.frontend import BotUnderTest, closed_loop
from bench.procs import Processes
from bench.stats import Summary, table
from deputy.testing.stack import RedisServer

# Frames that mean the thread is waiting in a socket call, and for what.
_SOCKET_WAIT = ("recv", "read (socket", "_read_from_socket", "readline", "sendall", "connect")
BLOCKED = "blocked on a synchronous Redis reply (the event loop stalls)"
IDLE = "idle: the event loop waiting for I/O"
CATEGORIES = [  # (label, substrings of any frame), first match wins
    ("Deputy: goal intake (bot/intake.py)", ("bot/intake.py",)),
    ("Deputy: RQ job building", ("rq/",)),
    ("Deputy: goal record (pydantic)", ("agent/goals.py",)),
    ("Deputy: audit hash chain", ("sentinel/stores/audit.py",)),
    ("PTB: fetching and parsing updates (getUpdates)", ("get_updates", "de_list")),
    ("PTB + httpx: sending the answers (sendMessage)", ("send_message", "httpx", "httpcore", "telegram/request")),
    ("redis-py (asyncio)", ("redis/asyncio",)),
    ("redis-py (synchronous), computing", ("redis/",)),
    ("Deputy: handlers, other", ("bot/",)),
    ("PTB: dispatching updates", ("telegram/ext",)),
    ("asyncio machinery", ("asyncio/",)),
]


@dataclass
class BotProfile:
    users: int = 0
    messages: int = 0
    handled: Summary = field(default_factory=lambda: Summary.of([]))
    shares: list[tuple[str, float]] = field(default_factory=list)  # of all samples of the event loop thread
    samples: int = 0

    def print(self) -> None:
        print(f"Profile of the bot under {self.users} concurrent users (py-spy, event loop thread, idle included; "
              f"{self.messages} messages, handled median {self.handled.median_ms:.1f} ms, "
              f"p99 {self.handled.p99_ms:.1f} ms)")
        if not self.shares:
            print("(py-spy is not installed: `make bench` installs it, or `.venv/bin/pip install -e '.[bench]'`)")
            return
        print(table(["where the event loop's time goes", "share"], [(c, f"{s * 100:.1f}%") for c, s in self.shares]))
        print(f"({self.samples:,} samples)")


def py_spy() -> str | None:
    """The py-spy executable installed with this Python (the `bench` extra), or on the PATH."""
    local = Path(sys.executable).with_name("py-spy")
    return str(local) if local.exists() else shutil.which("py-spy")


def classify(lines: list[str]) -> tuple[Counter[str], int]:
    """py-spy raw lines ("frame;frame;... count") -> the main thread's samples per category, and their total."""
    counts: Counter[str] = Counter()
    for line in lines:
        stack, _, number = line.rpartition(" ")
        if not stack or not number.isdigit():
            continue
        frames = stack.split(";")
        if frames[0].startswith("_bootstrap"):
            continue  # another thread (an idle executor worker); the event loop runs in the main thread
        leaf = frames[-1]
        if "(selectors.py)" in leaf and any("_run_once" in f for f in frames):
            label = IDLE
        elif (any("redis/" in f for f in frames) and not any("redis/asyncio" in f for f in frames)
              and any(w in leaf for w in _SOCKET_WAIT)):
            label = BLOCKED
        else:
            label = next((name for name, marks in CATEGORIES if any(m in f for f in frames for m in marks)), "other")
        counts[label] += int(number)
    return counts, sum(counts.values())


def run(workdir: Path, users: int = 500, seconds: float = 10.0, think: float = 5.0) -> BotProfile:
    return asyncio.run(_run(workdir, users, seconds, think))


async def _run(workdir: Path, users: int, seconds: float, think: float) -> BotProfile:
    report = BotProfile(users=users)
    redis_server = RedisServer(workdir / "redis").start()
    processes = Processes(workdir / "procs")
    spy = py_spy()
    try:
        async with BotUnderTest("deputy", redis_server.url, processes) as bot:
            out = processes.workdir / "bot-py-spy.txt"
            recorder = None
            if spy is not None:
                recorder = subprocess.Popen(
                    [spy, "record", "--pid", str(bot.process.pid), "--rate", "200", "--idle", "--nonblocking",
                     "--format", "raw", "--nolineno", "-o", str(out), "--duration", str(int(seconds) + 1)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                await asyncio.sleep(0.5)  # py-spy attaches
            samples = await closed_loop(bot.probe, users, seconds, think, first_user=10_000 * users)
            report.messages, report.handled = len(samples), Summary.of([s.handled for s in samples])
            if recorder is not None:
                await asyncio.to_thread(recorder.wait, 60)
                if out.exists():
                    counts, total = classify(out.read_text().splitlines())
                    report.samples = total
                    order = [BLOCKED, IDLE, *(name for name, _ in CATEGORIES), "other"]
                    report.shares = [(name, counts[name] / total) for name in order if counts[name]]
    finally:
        processes.stop()
        redis_server.stop()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.frontend_profile", description=__doc__)
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), args.users, args.seconds).print()


if __name__ == "__main__":
    main()
