"""How long a browser step waits for a browser under the cap, with twice as many users as browsers.

    python -m bench.browser_queue [--browsers 2] [--steps 3] [--hold 1.0]

Each user is an executor of their own (a `BrowserSessions` per user, as forked executors are), all
sharing one cap of `--browsers` slots in a Redis of their own (`deputy.connectors.web.slots`). Each of
the 2 × browsers users runs `--steps` steps, one after another with a short pause between them (so
their browser goes idle, as between an agent's steps): open a local page, then hold the browser
`--hold` seconds (the rest of a step's work). All users start together.

Printed: the time each step waited for a slot (from asking to being granted; the launch that follows
is not included), over all steps and per user (fairness), how many steps waited at all, and the
whole run's wall time next to the time the same steps need with a browser for everyone.
Browsers are confined and driven by keyless workers, as in production.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import threading
import time
from dataclasses import dataclass, field

from aiohttp import web

from bench.stats import percentile
from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.session import BrowserConfig, UserSession
from deputy.connectors.web.slots import BrowserSlots
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.testing.stack import RedisServer

_PAGE = "<html><head><title>Hello</title></head><body><p>A small page.</p></body></html>"
ALLOWED = reviewer(EgressPolicy(allow_private_networks=["127.0.0.0/8"]), EgressContext())
PAUSE = 0.3
"""Seconds between one user's steps: their browser is idle meanwhile, and may be closed for a waiter."""


async def _loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


class TimedSlots(BrowserSlots):
    """The cap, noting when each ticket first asked for a slot and when it got one."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.asked: dict[str, float] = {}
        self.granted: dict[str, float] = {}

    def try_take(self, ticket: str) -> int | None:
        self.asked.setdefault(ticket, time.perf_counter())
        ahead = super().try_take(ticket)
        if ahead is None:
            self.granted[ticket] = time.perf_counter()
        return ahead


@dataclass
class UserRun:
    user_id: int
    slots: TimedSlots
    told: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)
    """Per step: how long it waited for a slot (0 when the user's browser was still open)."""

    def note_step(self, before: set[str]) -> None:
        new = set(self.slots.granted) - before
        self.waits.append(sum(self.slots.granted[t] - self.slots.asked[t] for t in new))


def _serve_page() -> tuple[str, asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def start() -> str:
        app = web.Application()
        app.router.add_get("/", lambda request: web.Response(text=_PAGE, content_type="text/html"))
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return f"http://127.0.0.1:{runner.addresses[0][1]}/"

    return asyncio.run_coroutine_threadsafe(start(), loop).result(30), loop


def _round(redis: RedisServer, url: str, users: int, browsers: int, steps: int, hold: float, turn: float,
           tag: str) -> tuple[list[UserRun], float]:
    prefix = f"bench:browsers:{tag}"
    config = BrowserConfig(max_open=browsers, navigation_timeout=30, content_wait=8, operation_timeout=60,
                           slot_wait=600, turn_seconds=turn)
    runs = [UserRun(9000 + i, TimedSlots(redis.client(), browsers, prefix=prefix)) for i in range(users)]
    managers = [BrowserSessions(config, slots=run.slots, resolver=_loopback) for run in runs]

    async def step(session: UserSession) -> None:
        page = await session.page()
        await page.goto(url)
        await asyncio.sleep(hold)

    def user(run: UserRun, manager: BrowserSessions) -> None:
        for _ in range(steps):
            before = set(run.slots.granted)
            try:
                manager.run(run.user_id, ALLOWED, step, on_wait=run.told.append)
            except Exception as failed:
                run.failures.append(str(failed)[:200])
            run.note_step(before)
            time.sleep(PAUSE)

    threads = [threading.Thread(target=user, args=pair) for pair in zip(runs, managers, strict=True)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.perf_counter() - started
    for manager in managers:
        manager.close()
    return runs, took


def main(browsers: int, steps: int, hold: float) -> None:
    users = 2 * browsers
    url, _ = _serve_page()
    redis = RedisServer().start()
    default_turn = BrowserConfig.model_fields["turn_seconds"].default
    try:
        rounds = [(turn, *_round(redis, url, users, browsers, steps, hold, turn, f"turn{turn}"))
                  for turn in (default_turn, 0.0)]
        _, free_wall = _round(redis, url, users, users, steps, hold, default_turn, "uncapped")
    finally:
        redis.stop()
    print(f"browser queue: {users} users, {browsers} browsers, {steps} steps each, {hold:.1f} s held per step, "
          f"{PAUSE:.1f} s between a user's steps")
    for turn, capped, capped_wall in rounds:
        _report(turn, capped, capped_wall, free_wall)


def _report(turn: float, capped: list[UserRun], capped_wall: float, free_wall: float) -> None:
    print(f" a browser's turn while others wait: {turn:.0f} s")
    waits = [w for run in capped for w in run.waits]
    waited = [w for w in waits if w > 0.05]
    print(f"  wait for a browser, all {len(waits)} steps (s): median {statistics.median(waits):.2f}, "
          f"p90 {percentile(waits, 90):.2f}, max {max(waits):.2f}")
    if waited:
        print(f"  steps that waited: {len(waited)}/{len(waits)}, "
              f"median wait of those {statistics.median(waited):.2f} s")
    print(f"  users told they wait: {sum(len(run.told) for run in capped)} notices")
    for run in capped:
        mine, opened = run.waits, len(run.slots.granted)
        print(f"  user {run.user_id}: mean wait {statistics.fmean(mine):.2f} s over {len(mine)} steps "
              f"({opened} browser{'s' if opened != 1 else ''} opened)"
              + (f", {len(run.failures)} failed: {run.failures[0]}" if run.failures else ""))
    print(f"  wall time for all steps: {capped_wall:.1f} s capped, {free_wall:.1f} s with a browser per user")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--browsers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--hold", type=float, default=1.0)
    arguments = parser.parse_args()
    main(arguments.browsers, arguments.steps, arguments.hold)
