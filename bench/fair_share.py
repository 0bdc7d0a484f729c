"""One heavy user does not slow the others: first-card p99 of 100 users, with and without a flood of 1,000 goals.

    python -m bench.fair_share [--light 100] [--heavy 1000]

The whole of Deputy runs as real processes (`DeputyStack`: emulator, bot, agent worker,
executor) with the scripted model asking to email Alice, so every goal ends in an approval
card. Everyone is on the shipped Plus plan (10 goals in progress at once, 50 a day).

1. Alone: `--light` users each text one goal at the same moment; for each, the time from
   sending to their card being asked for (the executor's `approval_requested` audit entry,
   on the machine's clock).
2. With a heavy user: another `--light` users do the same while one more user texts
   `--heavy` goals as fast as the chat takes them (starting first). The bot cuts a user's
   messages beyond `--flood-limit` a minute (30, as a public bot does; 0 for none, so that
   every one of them reaches the plan's check).

Reported: both p99s and their ratio, and what happened to the heavy user's goals (started,
refused by the plan with its reason). What keeps the light users' p99 flat: the plan admits
a user's goals only up to its limits at intake (the rest are refused at once, costing one
Redis script each), and a goal holds at most one step in the agent queue and one action in
the executor's, so a user's share of the queues is bounded by their goals in progress; the
model gateway serves users in turn.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench.approvals import GOAL, email_model
from bench.stats import Summary, ratio, table
from deputy.agent.model.testing import ScriptedModelServer
from deputy.core.accounts.accounts import Accounts
from deputy.testing.stack import ChatUser, DeputyStack, RedisServer, wait_for
from deputy.sentinel.stores.audit import AuditLog

HEAVY_USER = 90_000


@dataclass
class FairShareReport:
    alone: Summary
    with_heavy: Summary
    heavy_sent: int
    heavy_started: int
    heavy_refused: int
    heavy_cards: int
    heavy_send_s: float
    flood_limit: int | None
    heavy_cut: int  # messages not taken at all: over the per-minute flood limit

    def print(self) -> None:
        print("(fair share) Send -> approval card asked for, light users, seconds")
        rows = [("light users alone", self.alone), ("light users while one user sends many goals", self.with_heavy)]
        print(table(["what", "n", "median", "p99"], [(n, s.n, s.median_ms, s.p99_ms) for n, s in rows]))
        print(f"p99 with the heavy user / alone: {ratio(self.with_heavy.p99, self.alone.p99)}; "
              f"median: {ratio(self.with_heavy.median, self.alone.median)}")
        print(f"heavy user: sent {self.heavy_sent} goals in {self.heavy_send_s:.1f} s; started {self.heavy_started} "
              f"(their cards: {self.heavy_cards}); refused by the plan at once: {self.heavy_refused}; "
              f"not taken (over {self.flood_limit or 'no'} messages a minute): {self.heavy_cut}")


def _send_all(users: list[ChatUser], sent_at: dict[int, float]) -> None:
    def send(user: ChatUser) -> None:
        sent_at[user.user_id] = time.time()
        user.send(GOAL)

    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(send, users))


def _cards(audit: AuditLog, users: list[ChatUser], sent_at: dict[int, float], timeout: float) -> list[float]:
    """Seconds from each user's message to their card, once every user has one."""
    found: dict[int, float] = {}

    def all_in() -> bool:
        for user in users:
            if user.user_id in found:
                continue
            entry = next((e for e in audit.entries(user.user_id) if e.kind == "approval_requested"), None)
            if entry is not None:
                found[user.user_id] = entry.at - sent_at[user.user_id]
        return len(found) == len(users)

    wait_for(all_in, timeout=timeout, interval=0.05, what="every light user's card")
    return list(found.values())


def run(workdir: Path, light: int = 100, heavy: int = 1000, flood_limit: int | None = 30) -> FairShareReport:
    redis_server = RedisServer(workdir / "redis").start()
    model = ScriptedModelServer(email_model).start()
    env = {"DEPUTY_DEFAULT_PLAN": "plus"}
    if flood_limit:  # as a public bot runs (a real Telegram token sets 30 a minute)
        env["DEPUTY_MESSAGES_PER_MINUTE"] = str(flood_limit)
    stack = DeputyStack(redis_server.url, model.base_url, workdir / "stack", extra_env=env)
    try:
        stack.start()
        redis = redis_server.client()
        audit = AuditLog(redis, stack.audit_key)
        warm = stack.user(79_999, asks_before_sending=True)
        warmed_from = time.time()
        warm.send(GOAL)
        _cards(audit, [warm], {warm.user_id: warmed_from}, 60)  # the processes warm up on one goal first

        alone_users = [stack.user(80_000 + i, asks_before_sending=True) for i in range(light)]
        sent_at: dict[int, float] = {}
        _send_all(alone_users, sent_at)
        alone = _cards(audit, alone_users, sent_at, timeout=60 + light * 2)

        heavy_user = stack.user(HEAVY_USER, asks_before_sending=True)
        Accounts(redis).set_plan(HEAVY_USER, "plus")
        crowd = [stack.user(81_000 + i, asks_before_sending=True) for i in range(light)]
        heavy_done = threading.Event()
        heavy_time: list[float] = []

        def flood() -> None:
            started = time.perf_counter()
            for n in range(heavy):
                heavy_user.send(f"{GOAL} (number {n})")
            heavy_time.append(time.perf_counter() - started)
            heavy_done.set()

        flooding = threading.Thread(target=flood, daemon=True)
        flooding.start()
        time.sleep(0.5)  # the heavy user is already sending when the others start
        sent_at = {}
        _send_all(crowd, sent_at)
        with_heavy = _cards(audit, crowd, sent_at, timeout=120 + light * 4)
        heavy_done.wait(600)
        # Every one of the heavy user's messages has been handled: started, refused, or cut as a flood.
        wait_for(lambda: redis.llen("rq:queue:agent") == 0, timeout=300, interval=0.5, what="the queue to drain")
        time.sleep(2)
        answers = [m.get("text") or "" for m in heavy_user.bot_messages()]
        refused = sum("so I can't start this goal" in text for text in answers)
        started = int(redis.zcard(f"deputy:user:{HEAVY_USER}:goals"))
        cards = sum(1 for e in audit.entries(HEAVY_USER) if e.kind == "approval_requested")
        return FairShareReport(Summary.of(alone), Summary.of(with_heavy), heavy, started, refused, cards,
                               heavy_time[0] if heavy_time else float("nan"), flood_limit,
                               heavy - started - refused)
    finally:
        stack.stop()
        model.stop()
        redis_server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.fair_share", description=__doc__)
    parser.add_argument("--light", type=int, default=100)
    parser.add_argument("--heavy", type=int, default=1000)
    parser.add_argument("--flood-limit", type=int, default=30,
                        help="messages a user may send a minute (0: none; a public bot's default is 30)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), args.light, args.heavy, args.flood_limit or None).print()


if __name__ == "__main__":
    main()
