"""One heavy user does not slow the others: the acknowledgement and first-card p99 of 100 users, with and
without a flood of 1,000 goals.

    python -m bench.fair_share [--light 100] [--heavy 1000] [--flood-limit 0]

The whole of Deputy runs as real processes (`DeputyStack`: emulator, bot, agent worker,
executor) with the scripted model asking to email Alice, so every goal ends in an approval
card. Everyone is on the shipped Plus plan (10 goals in progress at once, 50 a day).

1. Alone: `--light` users each text one goal at the same moment; for each, the time from their
   message appearing in their chat (the emulator, standing in for Telegram, has it) to the bot's
   first answer appearing there (its acknowledgement), both seen on the chat's live event
   stream, and to their card being asked for (the executor's `approval_requested` audit entry,
   on the machine's clock).
2. With a heavy user: another `--light` users do the same while one more user, in a process of
   its own, texts `--heavy` goals as fast as the chat takes them (starting first). The bot
   cuts a user's messages beyond `--flood-limit` a minute (none by default, as on the local
   chat page, so that every one of them reaches the bot's handlers and the plan's check; 30
   as a public bot has).

Reported: both p99s and their ratio, and what happened to the heavy user's goals (started,
refused by the plan with its reason). The emulator keeps Telegram's flood limits: a chat takes
about one message a second from the bot, so the heavy user's answers trickle out long after
the light users are served. What keeps the acknowledgements flat: the bot handles one chat's
updates one at a time, and a chat waiting for its turn holds none of the processing slots; a
429 for the heavy user's chat pauses only that chat's sends. What keeps the cards flat: the
plan admits a user's goals only up to its limits at intake (the rest are refused at once, costing one
Redis script each), and a goal holds at most one step in the agent queue and one action in
the executor's, so a user's share of the queues is bounded by their goals in progress; the
model gateway serves users in turn.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

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
    heavy_rest: int  # neither started nor refused: over the flood limit, or still waiting for their turn
    acks_alone: Summary
    acks_with_heavy: Summary

    def print(self) -> None:
        print(f"(fair share) light users, ms; flood limit: {self.flood_limit or 'none'}")
        rows = [("acknowledgement, light users alone", self.acks_alone),
                ("acknowledgement, while one user sends many goals", self.acks_with_heavy),
                ("approval card, light users alone", self.alone),
                ("approval card, while one user sends many goals", self.with_heavy)]
        print(table(["message in the chat ->", "n", "median", "p99"],
                    [(n, s.n, s.median_ms, s.p99_ms) for n, s in rows]))
        print(f"acknowledgement with the heavy user / alone: "
              f"p99 {ratio(self.acks_with_heavy.p99, self.acks_alone.p99)}, "
              f"median {ratio(self.acks_with_heavy.median, self.acks_alone.median)}")
        print(f"approval card with the heavy user / alone: p99 {ratio(self.with_heavy.p99, self.alone.p99)}, "
              f"median {ratio(self.with_heavy.median, self.alone.median)}")
        rest = (f"not taken (over {self.flood_limit} messages a minute): {self.heavy_rest}" if self.flood_limit
                else f"not yet answered at the end (a chat takes about a message a second): {self.heavy_rest}")
        print(f"heavy user: sent {self.heavy_sent} goals in {self.heavy_send_s:.1f} s; started {self.heavy_started} "
              f"(their cards: {self.heavy_cards}); refused by the plan at once: {self.heavy_refused}; {rest}")


class ChatWatch:
    """Each user's chat as they see it, from its live event stream (the page's Server-Sent Events):
    when their own message appeared in it (the emulator, standing in for Telegram, has it) and when
    the bot's first answer did. Both moments are taken alike, so the emulator's own delays (it is
    one Python process, busy with the flood) and the stream's fall out of the difference."""

    def __init__(self, chat_url: str, users: list[ChatUser]) -> None:
        self._chat_url = chat_url
        self.shown: dict[int, float] = {}
        self.answered: dict[int, float] = {}
        self._ready = threading.Semaphore(0)
        self._threads = [threading.Thread(target=self._watch, args=(u.user_id,), daemon=True) for u in users]

    def __enter__(self) -> "ChatWatch":
        for thread in self._threads:
            thread.start()
        for _ in self._threads:  # every stream is open before anyone sends
            if not self._ready.acquire(timeout=30):
                raise RuntimeError("a chat's event stream did not open")
        return self

    def __exit__(self, *_: object) -> None:
        for thread in self._threads:
            thread.join(timeout=5)

    def _watch(self, user_id: int) -> None:
        url = f"{self._chat_url}/api/users/{user_id}/events"
        with httpx.stream("GET", url, timeout=httpx.Timeout(10, read=None)) as response:
            for line in response.iter_lines():
                if line.startswith(": connected"):
                    self._ready.release()
                elif line.startswith("data:"):
                    event = json.loads(line[5:])
                    if event.get("type") != "message":
                        continue
                    if event.get("from") == "bot":
                        self.answered[user_id] = time.time()
                        return
                    self.shown.setdefault(user_id, time.time())

    def acknowledgements(self, timeout: float) -> list[float]:
        """Seconds from each user's message appearing in their chat to the bot's answer, once all came."""
        wait_for(lambda: len(self.answered) == len(self._threads), timeout=timeout, interval=0.05,
                 what="every light user's acknowledgement")
        return [self.answered[user] - self.shown[user] for user in self.answered]


def _flood(chat_url: str, user_id: int, count: int, started: Any, took: Any) -> None:
    """The heavy user, in a process of its own: the measuring threads do not wait for it."""
    user = ChatUser(chat_url, user_id)
    started.set()
    began = time.perf_counter()
    for n in range(count):
        user.send(f"{GOAL} (number {n})")
    took.put(time.perf_counter() - began)


def _send_all(users: list[ChatUser]) -> None:
    def send(user: ChatUser) -> None:
        user.send(GOAL)

    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(send, users))


def _cards(audit: AuditLog, users: list[ChatUser], sent_at: dict[int, float], timeout: float) -> list[float]:
    """Seconds from each user's message (`sent_at`) to their card, once every user has one."""
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


def run(workdir: Path, light: int = 100, heavy: int = 1000, flood_limit: int | None = None) -> FairShareReport:
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
        with ChatWatch(stack.chat_url, alone_users) as watch:
            _send_all(alone_users)
            acks_alone = watch.acknowledgements(timeout=60 + light)
        alone = _cards(audit, alone_users, watch.shown, timeout=60 + light * 2)

        heavy_user = stack.user(HEAVY_USER, asks_before_sending=True)
        Accounts(redis).set_plan(HEAVY_USER, "plus")
        crowd = [stack.user(81_000 + i, asks_before_sending=True) for i in range(light)]
        spawn = multiprocessing.get_context("spawn")
        flood_started, flood_took = spawn.Event(), spawn.Queue()
        flooding = spawn.Process(target=_flood, args=(stack.chat_url, HEAVY_USER, heavy, flood_started, flood_took),
                                 daemon=True)
        with ChatWatch(stack.chat_url, crowd) as watch:
            flooding.start()
            if not flood_started.wait(60):
                raise RuntimeError("the heavy user's process did not start")
            time.sleep(0.5)  # the heavy user is already sending when the others start
            _send_all(crowd)
            acks_with_heavy = watch.acknowledgements(timeout=120 + light * 4)
        with_heavy = _cards(audit, crowd, watch.shown, timeout=120 + light * 4)
        heavy_send_s = flood_took.get(timeout=600)
        flooding.join(10)
        # The heavy user's goals that started have run to their cards.
        wait_for(lambda: redis.llen("rq:queue:agent") == 0, timeout=300, interval=0.5, what="the queue to drain")
        time.sleep(2)
        answers = [m.get("text") or "" for m in heavy_user.bot_messages()]
        refused = sum("so I can't start this goal" in text for text in answers)
        started = int(redis.zcard(f"deputy:user:{HEAVY_USER}:goals"))
        cards = sum(1 for e in audit.entries(HEAVY_USER) if e.kind == "approval_requested")
        return FairShareReport(Summary.of(alone), Summary.of(with_heavy), heavy, started, refused, cards,
                               heavy_send_s, flood_limit,
                               heavy - started - refused, Summary.of(acks_alone), Summary.of(acks_with_heavy))
    finally:
        stack.stop()
        model.stop()
        redis_server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.fair_share", description=__doc__)
    parser.add_argument("--light", type=int, default=100)
    parser.add_argument("--heavy", type=int, default=1000)
    parser.add_argument("--flood-limit", type=int, default=0,
                        help="messages a user may send a minute (0: none, the local chat page's default; "
                             "a public bot's default is 30)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), args.light, args.heavy, args.flood_limit or None).print()


if __name__ == "__main__":
    main()
