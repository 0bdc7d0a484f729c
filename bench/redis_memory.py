"""Redis memory per idle user, per active goal and per scheduled monitor.

    python -m bench.redis_memory [--users 10000] [--goals 1000] [--active 100] [--entries 1000]

Synthetic users are written through Deputy's own stores (settings, memory, rules,
contacts, the audit trail, goals, actions, approvals, the dispatcher), so the keys,
encodings and TTLs are exactly Deputy's. Memory is the MEMORY USAGE of every key Redis holds
(every node counted) before and after each population, divided by its size: Redis's `used_memory`
moves by hundreds of KB on its own (client buffers, keyspace tables rehashed, first allocations),
more than a small population weighs; for active users, the MEMORY USAGE of each user's keys,
with idle users measured the same way beside them.

- idle user: settings (name, tone, quiet hours), 5 memories, 1 rule, 3 contacts and 8
  audit entries (about a week of use), no goal;
- active user: the same with `--entries` audit entries (months of daily use), twice: with the
  whole trail kept (as before the window; the same-run baseline) and with the default window
  (`DEPUTY_AUDIT_KEEP`, the rest folded into the sealed checkpoint);
- finished goal: a short email goal at its end (kept with no expiry, in the user's history);
- goal waiting for approval: the same goal at its card: the goal, the action, the approval
  request and the scheduled job that expires the card;
- running goal: a research goal at step 10 taken from `bench.prompt_growth` (two 12,000
  character pages read), with its queued step job and in-flight registration;
- scheduled monitor: a goal checking every hour, its scheduled RQ job and registration.

It also times one watchdog sweep over those in-flight units (each worker runs one per
second).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import time as clock_time
from pathlib import Path

from redis import Redis

from deputy.agent.goals import Goal, GoalStatus, GoalStore, Monitor
from bench import prompt_growth
from bench.stats import Summary, ratio, table
from deputy.core.records.effects import EffectClass
from deputy.core.records.ids import new_id
from deputy.testing.stack import RedisServer
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.memory import MemoryItem, MemoryKind, MemoryStore
from bench.guard_eval.cases import permissive_rules
from deputy.sentinel.stores.action_store import ActionStore
from deputy.core.records.actions import Action
from deputy.sentinel.stores.approvals import ApprovalRequest, ApprovalStore
from deputy.sentinel.stores.audit import DEFAULT_KEEP, AuditLog
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.queue.dispatch import RQDispatch, make_queues
from deputy.queue.inflight import Watchdog
from deputy.executor.review_context import add_contact

TARGET_IDLE_BYTES = 10 * 1024
MEMORIES = ["I am vegetarian", "My favourite airline is TAP", "Home: 12 Elm Street, Springfield",
            "My sister Ana lives in Lisbon", "I prefer aisle seats"]
EMAIL_GOAL = "email alice@example.org that the meeting moved to Thursday 3pm, and tell me when it's done"
THREADS = 8  # connections writing each population at once
WHOLE_TRAIL = 10**9  # a window no trail reaches: every entry kept, as before trails were folded


@dataclass
class MemoryReport:
    rows: list[tuple[str, int, float]] = field(default_factory=list)  # (what, how many, bytes each)
    floor: float = float("nan")  # bytes per user of the smallest record Redis can keep: one short string key
    idle_keys: list[tuple[str, int]] = field(default_factory=list)  # one idle user's keys and their bytes
    # (what, users, bytes each by MEMORY USAGE of their keys): idle, active with the whole trail, windowed
    active: list[tuple[str, int, float]] = field(default_factory=list)
    active_keys: list[tuple[str, int]] = field(default_factory=list)  # one active user's audit keys (window)
    sweep: tuple[int, float] = (0, 0.0)  # (in-flight units, seconds for one watchdog sweep), the median sweep
    sweeps: Summary = field(default_factory=lambda: Summary.of([]))  # seconds per watchdog sweep

    def bytes_each(self, what: str) -> float:
        return next(b for w, _, b in self.rows if w == what)

    def print(self) -> None:
        print("(5a) Redis memory (MEMORY USAGE of all keys, delta / count); baseline: one short string key per user, the least "
              "Redis can keep per user at all")
        rows = [("(baseline: one 16-byte string key)", self.rows[0][1], self.floor), *self.rows]
        print(table(["what", "count", "bytes each", "KB each", "vs one key"],
                    [(w, n, b, b / 1024, ratio(b, self.floor)) for w, n, b in rows]))
        idle = self.bytes_each("idle user")
        verdict = "met" if idle < TARGET_IDLE_BYTES else "missed"
        print(f"target: under 10 KB per idle user -> {idle / 1024:.1f} KB ({verdict})")
        print("one idle user's keys (MEMORY USAGE): " + ", ".join(f"{k} {b:,} B" for k, b in self.idle_keys))
        if self.active:
            print("(5b) Redis memory per user by MEMORY USAGE of the user's keys; baseline: the idle user, "
                  "same measure")
            base = self.active[0][2]
            print(table(["what", "count", "bytes each", "KB each", "vs idle"],
                        [(w, n, b, b / 1024, ratio(b, base)) for w, n, b in self.active]))
            print("one active user's audit keys, windowed (MEMORY USAGE): "
                  + ", ".join(f"{k} {b:,} B" for k, b in self.active_keys))
        units, _ = self.sweep
        print(f"one watchdog sweep over {units:,} in-flight units: median {self.sweeps.median_ms:,.0f} ms, "
              f"p99 {self.sweeps.p99_ms:,.0f} ms over {self.sweeps.n} sweeps (every worker and executor sweeps "
              "once per second)")


def _stored(redis: Redis) -> int:
    """Bytes of every key Redis holds, by MEMORY USAGE (SAMPLES 0: every node counted; the key's name and its
    entry in the keyspace included). `used_memory` moves by hundreds of KB on its own (client buffers, a
    keyspace table rehashed and freed, the allocator's first pages), more than a small population weighs."""
    total = 0
    batch: list[str] = []
    for key in [*redis.scan_iter(count=1_000), None]:
        if key is not None:
            batch.append(key)
        if batch and (key is None or len(batch) == 1_000):
            pipe = redis.pipeline(transaction=False)
            for each in batch:
                pipe.memory_usage(each, samples=0)
            total += sum(int(size or 0) for size in pipe.execute())
            batch = []
    return total


def _user_keys(user_id: int) -> list[str]:
    return [f"deputy:settings:{user_id}", f"deputy:memory:{user_id}", f"deputy:rules:{user_id}",
            f"deputy:contacts:{user_id}", f"deputy:audit:{user_id}", f"deputy:audit:{user_id}:tip",
            f"deputy:audit:{user_id}:checkpoint"]


def _key_bytes(redis: Redis, users: range) -> float:
    """Mean bytes of each user's keys by MEMORY USAGE (SAMPLES 0: every node of a stream counted)."""
    return sum(int(redis.memory_usage(k, samples=0) or 0) for u in users for k in _user_keys(u)) / len(users)


def _measure(redis: Redis, count: int, make: Callable[[int], None], threads: int = THREADS) -> float:
    before = _stored(redis)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(make, range(count)))
    return (_stored(redis) - before) / count


class Population:
    """Writes synthetic records through Deputy's stores."""

    def __init__(self, redis: Redis, research_goal: bytes) -> None:
        self.redis = redis
        self.goals, self.actions, self.approvals = GoalStore(redis), ActionStore(redis), ApprovalStore(redis)
        self.dispatch, self.audit = RQDispatch(redis), AuditLog(redis)
        self._research = Goal.model_validate_json(research_goal)

    def active_user(self, user_id: int, entries: int, keep: int) -> None:
        """An idle user's records, and `entries` audit entries written with a window of `keep`."""
        self.idle_user(user_id, entries, AuditLog(self.redis, keep=keep))

    def idle_user(self, user_id: int, entries: int = 8, audit: AuditLog | None = None) -> None:
        audit = audit or self.audit
        now = time.time()
        UserSettingsStore(self.redis).save(user_id, UserSettings(
            timezone="Europe/Berlin", agent_name="Jarvis", tone="brief",
            quiet_start=clock_time(22, 0), quiet_end=clock_time(7, 0)))
        memory = MemoryStore(self.redis)
        for i, text in enumerate(MEMORIES):
            memory.add(user_id, MemoryItem(text=text, kind=MemoryKind.preference if i % 2 else MemoryKind.fact,
                                           created_at=now, updated_at=now))
        RuleStore(self.redis).add(user_id, permissive_rules(now)[0])
        for contact in ("carol@example.net", "ana@example.pt", "bob@example.com"):
            add_contact(self.redis, user_id, contact)
        goal_id, action_id = new_id("g"), new_id("a")
        week = [
            ("goal_created", {"goal_id": goal_id, "files": 0}),
            ("review", {"action_id": action_id, "operation": "email.send_email", "targets": ["alice@example.org"],
                        "verdict": "ask", "untrusted": [],
                        "reasons": ["I ask before this because it sends a message on your behalf to alice@example.org."]}),
            ("approval_requested", {"action_id": action_id, "approval_id": "Xk3p9Q2rT0aB"}),
            ("approval_approved", {"approval_id": "Xk3p9Q2rT0aB"}),
            ("review", {"action_id": action_id, "operation": "email.send_email", "targets": ["alice@example.org"],
                        "verdict": "allow", "reasons": ["You approved exactly this action."], "untrusted": []}),
            ("action_succeeded", {"action_id": action_id, "outcome": "Email sent to alice@example.org."}),
            ("memory_added", {"memory_id": "m_abc123", "kind": "preference"}),
            ("settings_changed", {"field": "tone"}),
        ]
        for i in range(entries):
            kind, detail = week[i % len(week)]
            audit.append(user_id, kind, now, **detail)

    def _email_goal(self, user_id: int, status: GoalStatus, finished: bool) -> Goal:
        now = time.time()
        call = {"id": "call_1", "type": "function", "function": {"name": "send_email", "arguments":
                '{"to": ["alice@example.org"], "subject": "Meeting moved", "body": "Hi Alice, the meeting moved to '
                'Thursday at 3pm. Best, Sam"}'}}
        messages = [{"role": "user", "content": EMAIL_GOAL}, {"role": "assistant", "content": None, "tool_calls": [call]}]
        if finished:
            messages += [{"role": "tool", "tool_call_id": "call_1", "content": "Email sent to alice@example.org."},
                         {"role": "assistant", "content": None, "tool_calls": [{"id": "call_2", "type": "function",
                          "function": {"name": "reply", "arguments": '{"text": "Done: I emailed Alice."}'}}]},
                         {"role": "tool", "tool_call_id": "call_2", "content": "Delivered."}]
        return Goal(id=new_id("g"), user_id=user_id, chat_id=user_id, text=EMAIL_GOAL, status=status, step=2,
                    messages=messages, prompt_tokens=4800, completion_tokens=90, created_at=now, updated_at=now)

    def finished_goal(self, user_id: int) -> None:
        self.goals.save(self._email_goal(user_id, GoalStatus.done, finished=True))

    def waiting_approval(self, user_id: int) -> None:
        goal = self._email_goal(user_id, GoalStatus.waiting_approval, finished=False)
        now = time.time()
        action = Action(id=new_id("a"), goal_id=goal.id, user_id=user_id, chat_id=user_id, connector="email",
                        operation="send_email", effect=EffectClass.communicate, targets=["alice@example.org"],
                        arguments={"to": ["alice@example.org"], "subject": "Meeting moved",
                                   "body": "Hi Alice, the meeting moved to Thursday at 3pm. Best, Sam"},
                        tool_call_id="call_1", created_at=now)
        goal.pending_action_id = action.id
        self.goals.save(goal)
        self.actions.submit(action)
        request = ApprovalRequest(
            id=new_id("p")[:14], action_id=action.id, goal_id=goal.id, user_id=user_id, chat_id=user_id,
            fingerprint=action.fingerprint(), created_at=now, expires_at=now + 86400,
            reasons=["I ask before this because it sends a message on your behalf to alice@example.org."],
            card_text="Send an email?\nTo: alice@example.org\nSubject: Meeting moved\n\nHi Alice, the meeting moved "
                      "to Thursday at 3pm. Best, Sam\n\nWhy I'm asking: it sends a message on your behalf.")
        self.approvals.create(request)
        self.dispatch.expire_approval(request.id, request.expires_at)

    def running_goal(self, user_id: int) -> None:
        goal = self._research.model_copy(update={"id": new_id("g"), "user_id": user_id, "chat_id": user_id,
                                                 "revision": -1})
        saved = self.goals.save(goal)
        self.dispatch.step(saved.id, saved.step)

    def monitor(self, user_id: int) -> None:
        now = time.time()
        text = "tell me when flights from Berlin to Lisbon in May drop below $400"
        call = {"id": "call_1", "type": "function", "function": {"name": "schedule_check", "arguments":
                '{"what": "flight prices Berlin-Lisbon in May", "every_minutes": 60, "max_checks": 200}'}}
        goal = Goal(id=new_id("g"), user_id=user_id, chat_id=user_id, text=text, status=GoalStatus.scheduled, step=3,
                    monitor=Monitor(what="flight prices Berlin-Lisbon in May", every_seconds=3600, next_at=now + 3600,
                                    checks_done=4, max_checks=200),
                    messages=[{"role": "user", "content": text}, {"role": "assistant", "content": None,
                                                                  "tool_calls": [call]},
                              {"role": "tool", "tool_call_id": "call_1", "content": "Scheduled: first check at "
                               "2026-05-01 10:00:00 UTC; up to 200 checks."}],
                    summary=["Check 1-4: cheapest BER-LIS fare $512, no news."], created_at=now, updated_at=now)
        saved = self.goals.save(goal)
        self.dispatch.step(saved.id, saved.step, delay=3600)


def run(workdir: Path, users: int = 10_000, goals: int = 1_000, sweeps: int = 5, active: int = 100,
        entries: int = 1_000) -> MemoryReport:
    growth = prompt_growth.run(workdir / "growth", steps=12, keep_records=True)
    server = RedisServer(workdir / "redis").start()
    try:
        redis = server.client()
        redis.ping()
        people = Population(redis, growth.goals[9].encode())  # what it read included: stored beside the record
        report = MemoryReport()
        report.floor = _measure(redis, users, lambda i: redis.set(f"bench:floor:{i}", "x" * 16))
        redis.delete(*[f"bench:floor:{i}" for i in range(users)])
        report.rows.append(("idle user", users, _measure(redis, users, lambda i: people.idle_user(1_000_000 + i))))
        for what, make in [("finished goal (history)", people.finished_goal),
                           ("goal waiting for approval", people.waiting_approval),
                           ("running goal (research, step 10)", people.running_goal),
                           ("scheduled monitor", people.monitor)]:
            report.rows.append((what, goals, _measure(redis, goals, lambda i, make=make: make(1_000_000 + i))))
        if active:
            idle = range(1_000_000, 1_000_000 + min(users, active))
            report.active.append(("idle user (8 entries)", len(idle), _key_bytes(redis, idle)))
            for what, keep, first in [(f"active user, whole trail ({entries:,} entries)", WHOLE_TRAIL, 3_000_000),
                                      (f"active user, window of {DEFAULT_KEEP} ({entries:,} entries)", DEFAULT_KEEP,
                                       4_000_000)]:
                with ThreadPoolExecutor(8) as pool:
                    list(pool.map(lambda i, keep=keep, first=first: people.active_user(first + i, entries, keep),
                                  range(active)))
                report.active.append((what, active, _key_bytes(redis, range(first, first + active))))
            report.active_keys = [(k.replace("4000000", "U"), int(redis.memory_usage(k, samples=0) or 0))
                                  for k in _user_keys(4_000_000)[4:]]
        sample = 1_000_000
        keys = [f"deputy:settings:{sample}", f"deputy:memory:{sample}", f"deputy:rules:{sample}",
                f"deputy:contacts:{sample}", f"deputy:audit:{sample}", f"deputy:audit:{sample}:tip"]
        report.idle_keys = [(k.replace(str(sample), "U"), int(redis.memory_usage(k) or 0)) for k in keys]
        watchdog = Watchdog(redis, make_queues(redis), 3.0, lambda registration: None)
        times = []
        for _ in range(sweeps):
            started = time.perf_counter()
            watchdog.sweep()
            times.append(time.perf_counter() - started)
        report.sweeps = Summary.of(times)
        report.sweep = (int(redis.hlen("deputy:inflight")), report.sweeps.median)
        return report
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.redis_memory", description=__doc__)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--goals", type=int, default=1_000)
    parser.add_argument("--active", type=int, default=100, help="active users (0: none)")
    parser.add_argument("--entries", type=int, default=1_000, help="audit entries per active user")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), args.users, args.goals, active=args.active, entries=args.entries).print()


if __name__ == "__main__":
    main()
