"""Front-end latency: from the emulator delivering an update to the acknowledgement.

    python -m bench.frontend [--quick]

The chat emulator runs inside this process with two timestamps added from outside (no
change to the emulator): when an update is handed to the bot by getUpdates, and when
the bot's answer arrives by sendMessage. The difference is the bot's whole handling
of the update: python-telegram-bot parsing it, Deputy's handler (storing the goal,
enqueueing its first step, the audit entry) and sending the acknowledgement. The goal
is enqueued before the acknowledgement is sent, so every acknowledged message has its
job in the queue (counted after each run; no worker runs here).

The baseline is a python-telegram-bot echo handler on an identical emulator, built the
same way; Deputy's own time is the difference. Both bots run at once and take turns
(every load is cut into rounds, run on one bot then the other), so the noise of a shared
machine falls on both alike. Both pairs run first without PTB's rate limiter (the
handlers' own time) and then with it, as `deputy bot` runs against Telegram: it paces
every bot to ~30 messages per second, so bursts wait for Telegram's limit, not for us.

Loads: one user sending messages back to back; N users each sending, waiting for the
answer, then pausing (exponential, mean THINK seconds) in a closed loop; and bursts of N
users texting at the same instant (the worst case).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rq import Queue

from bench.procs import Processes, cpu_seconds, deputy_env
from bench.stats import Summary, ratio, table
from deputy.testing.stack import RedisServer
from deputy.emulator.hub import Emulator
from deputy.emulator.records import ChatEvent
from deputy.emulator.rules import ApiRules
from deputy.emulator.server import bound_port, create_app, serve
from deputy.emulator.updates import UpdateQueue
from deputy.core.records.payloads import AGENT_QUEUE

THINK = 5.0


class TimedQueue(UpdateQueue):
    """The emulator's update queue, noting when each update was queued and first delivered."""

    def __init__(self) -> None:
        super().__init__()
        self.queued_at: dict[int, float] = {}
        self.delivered_at: dict[int, float] = {}
        self.last_id = 0

    def put(self, kind: str, payload: dict[str, Any]) -> int:
        update_id = super().put(kind, payload)
        self.queued_at[update_id] = time.perf_counter()
        self.last_id = update_id
        return update_id

    async def fetch(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        batch = await super().fetch(*args, **kwargs)
        now = time.perf_counter()
        for update in batch:
            self.delivered_at.setdefault(update["update_id"], now)
        return batch


@dataclass
class Sample:
    handled: float  # delivered to the bot -> its answer arrived
    end_to_end: float  # queued by the user -> answer arrived (adds the long poll pick-up)


class Probe:
    """An in-process emulator whose users send a message and await the bot's answer."""

    def __init__(self) -> None:
        # It measures the bot, not Telegram's flood control: the emulator lets any rate through.
        self.emulator = Emulator(rules=ApiRules().relaxed(["rate-limits"]))
        self.queue = TimedQueue()
        self.emulator.updates = self.queue
        self.emulator.state.listeners.append(self._on_event)
        self._waiting: dict[int, asyncio.Future[float]] = {}

    async def start(self) -> None:
        self._runner = await serve("127.0.0.1", 0, app=create_app(emulator=self.emulator))
        self.api_base = f"http://127.0.0.1:{bound_port(self._runner)}/bot"

    async def stop(self) -> None:
        await self._runner.cleanup()

    def _on_event(self, event: ChatEvent) -> None:
        if event.payload.get("type") == "message" and event.payload.get("from") == "bot":
            waiter = self._waiting.pop(event.user_id or 0, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(time.perf_counter())

    async def wait_polling(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.queue.waiting == 0:
            if time.monotonic() > deadline:
                raise TimeoutError("the bot never started polling")
            await asyncio.sleep(0.05)

    def send(self, user_id: int, text: str) -> tuple[int, asyncio.Future[float]]:
        waiter: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiting[user_id] = waiter
        self.emulator.user_sends(user_id, text, "Bench")
        return self.queue.last_id, waiter

    async def exchange(self, user_id: int, text: str) -> Sample:
        update_id, waiter = self.send(user_id, text)
        answered = await asyncio.wait_for(waiter, 120)
        return Sample(answered - self.queue.delivered_at[update_id], answered - self.queue.queued_at[update_id])


# -- loads ------------------------------------------------------------------------------

async def sequential(probe: Probe, count: int, user: int = 1) -> list[Sample]:
    return [await probe.exchange(user, f"find me a cheap flight to Lisbon, try {i}") for i in range(count)]


async def closed_loop(probe: Probe, users: int, seconds: float, think: float, first_user: int) -> list[Sample]:
    samples: list[Sample] = []
    deadline = time.monotonic() + seconds
    rng = random.Random(users)

    async def person(user_id: int) -> None:
        await asyncio.sleep(rng.uniform(0, think))
        turn = 0
        while time.monotonic() < deadline:
            samples.append(await probe.exchange(user_id, f"book dinner for 4 on Friday ({turn})"))
            turn += 1
            await asyncio.sleep(rng.expovariate(1 / think))

    await asyncio.gather(*(person(first_user + i) for i in range(users)))
    return samples


async def burst(probe: Probe, users: int, rounds: int, first_user: int) -> list[Sample]:
    samples: list[Sample] = []
    for round_ in range(rounds):
        sent = [probe.send(first_user + i, f"sell my 2017 Civic for at least $14k ({round_})") for i in range(users)]
        for update_id, waiter in sent:
            answered = await asyncio.wait_for(waiter, 120)
            samples.append(Sample(answered - probe.queue.delivered_at[update_id],
                                  answered - probe.queue.queued_at[update_id]))
        await asyncio.sleep(0.5)
    return samples


# -- the benchmark ----------------------------------------------------------------------

@dataclass
class Row:
    bot: str
    load: str
    handled: Summary
    end_to_end: Summary


@dataclass
class FrontendReport:
    rows: list[Row] = field(default_factory=list)
    enqueued: dict[str, tuple[int, int]] = field(default_factory=dict)  # bot -> (jobs enqueued, messages)
    cpu_ms: dict[str, float] = field(default_factory=dict)  # bot -> CPU ms its process used per message
    redis_commands: dict[str, float] = field(default_factory=dict)  # bot -> Redis commands per message

    def row(self, bot: str, load: str) -> Row | None:
        return next((r for r in self.rows if r.bot == bot and r.load == load), None)

    def print(self) -> None:
        print("(1) Front-end latency: update delivered to the bot -> acknowledgement received (ms)")
        print(table(["bot", "load", "n", "median", "p99", "queued->ack median", "queued->ack p99"],
                    [(r.bot, r.load, r.handled.n, r.handled.median_ms, r.handled.p99_ms,
                      r.end_to_end.median_ms, r.end_to_end.p99_ms) for r in self.rows]))
        pairs = [("deputy", "echo"), ("deputy + rate limiter", "echo + rate limiter")]
        lines = []
        for ours, base in pairs:
            for row in [r for r in self.rows if r.bot == ours]:
                other = self.row(base, row.load)
                if other is not None:
                    lines.append((ours, row.load, row.handled.median_ms - other.handled.median_ms,
                                  row.handled.p99_ms - other.handled.p99_ms,
                                  ratio(row.handled.median, other.handled.median),
                                  ratio(row.handled.p99, other.handled.p99)))
        print("\nDeputy against the echo baseline (same load): our own time is the difference")
        print(table(["bot", "load", "+median ms", "+p99 ms", "median ratio", "p99 ratio"], lines))
        print("\nCPU time of the bot process per message (all loads; robust to a noisy machine):")
        for bot, value in self.cpu_ms.items():
            base = self.cpu_ms.get(bot.replace("deputy", "echo"), float("nan"))
            print(f"  {bot:24} {value:6.2f} ms  ({ratio(value, base)} the echo bot's)")
        print("Redis commands per message (INFO stats; those inside scripts and transactions count one by one): "
              + ", ".join(f"{bot} {n:.1f}" for bot, n in self.redis_commands.items()))
        for bot, (jobs, messages) in self.enqueued.items():
            print(f"{bot}: {jobs} goal jobs enqueued for {messages} acknowledged messages")


@dataclass(frozen=True)
class Plan:
    sequential: int = 200
    users: tuple[int, ...] = (50, 500)
    seconds: float = 15.0
    think: float = THINK
    bursts: tuple[tuple[int, int], ...] = ((50, 3), (500, 2))
    limited_bursts: tuple[tuple[int, int], ...] = ((50, 1), (500, 1))
    rate_limited: bool = True
    warmup: int = 20  # messages sent to each bot before measuring
    rounds: int = 3  # each load is run in this many slices, alternating between the bots


BOTS = {
    "echo": ("bench.frontend_bot", ["echo"]),
    "deputy": ("bench.frontend_bot", ["deputy"]),
    "echo + rate limiter": ("bench.frontend_bot", ["echo", "--rate-limit"]),
    "deputy + rate limiter": ("deputy", ["bot"]),  # `deputy bot` itself, as deployed
}


def run(workdir: Path, plan: Plan = Plan()) -> FrontendReport:
    return asyncio.run(_run(workdir, plan))


class BotUnderTest:
    """One bot process polling its own in-process emulator (`Probe`), warmed up."""

    def __init__(self, bot: str, redis_url: str, processes: Processes, extra_args: tuple[str, ...] = (),
                 warmup: int = 20) -> None:
        self.bot, self._redis_url, self._processes, self._extra = bot, redis_url, processes, list(extra_args)
        self._warmup = warmup
        self.probe = Probe()

    async def __aenter__(self) -> BotUnderTest:
        await self.probe.start()
        module, args = BOTS[self.bot]
        args = [*args, *self._extra]
        env = deputy_env(self._redis_url, "http://127.0.0.1:9/v1", self._processes.workdir,
                         TELEGRAM_API_BASE=self.probe.api_base)
        self.process = self._processes.start(self.bot, module, args, env)
        try:
            await self.probe.wait_polling()
            await sequential(self.probe, self._warmup, user=999_999)  # warm-up: connections, imports, caches
        except BaseException:
            await self.__aexit__()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._processes.stop(self.bot)
        await self.probe.stop()


GROUPS = [("echo", "deputy"), ("echo + rate limiter", "deputy + rate limiter")]  # (baseline, Deputy)


async def _run(workdir: Path, plan: Plan) -> FrontendReport:
    """Both bots of a group run at once, each with its own emulator, and take turns: every load
    is split into rounds, each round run on one bot then the other (in alternating order), so
    a busy spell on the shared machine falls on both alike."""
    report = FrontendReport()
    redis_server = RedisServer(workdir / "redis").start()
    processes = Processes(workdir / "procs")
    try:
        redis = redis_server.client()
        for group in GROUPS[:2 if plan.rate_limited else 1]:
            async with contextlib.AsyncExitStack() as stack:
                started = await asyncio.gather(*(stack.enter_async_context(  # start (and warm up) both at once
                    BotUnderTest(name, redis_server.url, processes, warmup=plan.warmup)) for name in group))
                bots = dict(zip(group, started, strict=True))
                await _compare(bots, plan, report, redis)
    finally:
        processes.stop()
        redis_server.stop()
    return report


async def _compare(bots: dict[str, BotUnderTest], plan: Plan, report: FrontendReport, redis) -> None:
    limited = any("rate limiter" in name for name in bots)
    cpu = dict.fromkeys(bots, 0.0)
    commands = dict.fromkeys(bots, 0)
    messages = dict.fromkeys(bots, 0)
    jobs_before = Queue(AGENT_QUEUE, connection=redis).count
    for load, rounds in _loads(plan, limited):
        samples: dict[str, list[Sample]] = {name: [] for name in bots}
        for index, one_round in enumerate(rounds):
            for name in list(bots)[::-1 if index % 2 else 1]:
                pid = bots[name].process.pid
                cpu_before, commands_before = cpu_seconds([pid]), _commands(redis)
                taken = await one_round(bots[name].probe)
                cpu[name] += cpu_seconds([pid]) - cpu_before
                commands[name] += _commands(redis) - commands_before
                messages[name] += len(taken)
                samples[name] += taken
        for name in bots:
            report.rows.append(Row(name, load, Summary.of([s.handled for s in samples[name]]),
                                   Summary.of([s.end_to_end for s in samples[name]])))
    for name in bots:
        report.cpu_ms[name] = cpu[name] / max(messages[name], 1) * 1e3
        report.redis_commands[name] = commands[name] / max(messages[name], 1)
        if name.startswith("deputy"):
            report.enqueued[name] = (Queue(AGENT_QUEUE, connection=redis).count - jobs_before, messages[name])


def _commands(redis) -> int:
    return int(redis.info("stats")["total_commands_processed"])


Round = Callable[[Probe], Awaitable[list[Sample]]]


def _loads(plan: Plan, limited: bool) -> list[tuple[str, list[Round]]]:
    """Each load as rounds (a slice of it, run on each bot in turn)."""
    rounds = max(plan.rounds, 1)
    count = plan.sequential // 4 if limited else plan.sequential
    loads: list[tuple[str, list[Round]]] = [
        ("1 user", [lambda probe, n=n: sequential(probe, n) for n in _split(count, rounds)])]
    if not limited:
        for users in plan.users:
            loads.append((f"{users} users", [
                lambda probe, users=users, i=i: closed_loop(probe, users, plan.seconds / rounds, plan.think,
                                                            first_user=10_000 * users + i * users)
                for i in range(rounds)]))
    for users, times in plan.limited_bursts if limited else plan.bursts:
        loads.append((f"burst of {users}", [
            lambda probe, users=users, i=i: burst(probe, users, 1, first_user=100_000 + 10_000 * users + i * users)
            for i in range(times)]))
    return loads


def _split(total: int, parts: int) -> list[int]:
    return [n for n in (total // parts + (1 if i < total % parts else 0) for i in range(parts)) if n]


QUICK = Plan(sequential=40, users=(50,), seconds=8.0, think=2.0, bursts=((50, 1), (200, 1)),
             limited_bursts=((50, 1),))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.frontend", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller loads (for a fast look)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), QUICK if args.quick else Plan()).print()


if __name__ == "__main__":
    main()
