"""Guard cost: Sentinel decisions per second and their latency over a realistic mix.

    python -m bench.guard_cost [--quick]

The mix is the guard's own evaluation set: the hand-written attacks and every fifth case
of the generated matrix (`bench.guard_eval.cases`, `bench.guard_eval.matrix`: actions of a
hijacked model after it read attacker content) and the last step of every benign task
(`bench.guard_eval.benign`), each with the context the executor builds for it
(`ReviewContextBuilder`, from goals, memories, contacts and rules stored in a real
Redis). Half the users have the most permissive rules a user can set.

Figures, per decision:
- `review` alone: the pure decision core, on contexts built beforehand;
- `review` plus the heuristic injection detector scanning the goal's outside content in
  the same call (Deputy scans content once, when it arrives; this is the upper bound);
- what the executor pays per action: its one read from Redis (`ReviewContextBuilder.read`), the
  catalog's own view of the action (each user's catalog, custom connectors included, as the
  executor process builds it), the context, then `review`;
- baseline: a no-op review returning a fixed decision.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deputy.agent.goals import Goal, GoalStore
from bench.stats import Summary, ratio, table
from deputy.connectors.catalog import Catalog
from deputy.connectors.custom import CustomConnectors, UserCatalogs
from deputy.testing.stack import RedisServer
from deputy.memory import MemoryItem, MemoryStore, MemoryTrust
from bench.guard_eval.benign import benign_suite, furnish
from bench.guard_eval.cases import CONTACTS, Call, attacks, permissive_rules, seeded_world
from bench.guard_eval.matrix import matrix
from deputy.sandbox.world_operations import world_catalog
from deputy.core.records.actions import Action, EffectClass
from deputy.core.records.read_items import locate
from deputy.sentinel.detectors import HeuristicDetector
from deputy.sentinel.policy import Decision, ReviewContext, Risk, Verdict, review
from deputy.sentinel.provenance import UntrustedItem
from deputy.sentinel.value_sources import value_flows
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.executor.review_context import ReviewContextBuilder, add_contact, stored_rules


@dataclass
class Case:
    action: Action
    context: ReviewContext
    content: list[tuple[str, str]]  # (origin, text) the goal read before acting


@dataclass
class GuardReport:
    decisions: Counter
    rows: list[tuple[str, Summary, Summary, float]]
    """(what, wall-clock latency, CPU time, decisions per second) per decision."""

    def print(self) -> None:
        print("(2) Guard cost per decision (realistic mix: "
              + ", ".join(f"{n} {v}" for v, n in sorted(self.decisions.items())) + ")")
        base = self.rows[0][1]
        print(table(["what", "n", "median us", "p99 us", "CPU p99 us", "decisions/s", "median vs no-op",
                     "p99 vs no-op"],
                    [(name, s.n, s.median * 1e6, s.p99 * 1e6, cpu.p99 * 1e6, f"{rate:,.0f}", ratio(s.median, base.median),
                      ratio(s.p99, base.p99)) for name, s, cpu, rate in self.rows]))
        print("(wall-clock p99 includes time this process was preempted by others on the shared 2 cores;"
              " CPU p99 is the guard's own work)")


def _action(catalog: Catalog, call: Call, goal_id: str, user_id: int, index: int) -> Action:
    """The Action the runner submits for a tool call (as in `GoalRunner._submit`)."""
    operation = catalog.get(call.tool)
    assert operation is not None, call.tool
    args = operation.validate(call.args)
    money = operation.amount(args) if operation.amount is not None else None
    return Action(
        id="a_" + hashlib.sha256(f"{goal_id}:{index}".encode()).hexdigest()[:20], goal_id=goal_id, user_id=user_id,
        chat_id=user_id, connector=operation.spec.connector, operation=operation.spec.operation,
        effect=operation.spec.effect, tags=sorted(operation.spec.tags), arguments=args.model_dump(mode="json"),
        targets=operation.targets(args), amount=money[0] if money else None, currency=money[1] if money else None,
        tool_call_id=f"call_{index}", created_at=time.time(),
    )


def build_cases(redis, detector: HeuristicDetector | None, first: int = 0) -> tuple[list[Case], ReviewContextBuilder]:
    """Store each case's goal, contacts and rules; return the actions with their contexts."""
    catalog, goals, rules = world_catalog(), GoalStore(redis), RuleStore(redis)
    builder = ReviewContextBuilder(redis, goals, catalog, stored_rules(rules),
                                   user_catalogs=UserCatalogs(catalog, CustomConnectors(redis)))
    plans = [(a.goal, list(a.reads), a.attack, a.plants, a.memories) for a in [*attacks(), *matrix()[::5]]]
    plans += [(b.goal, b.calls[:-1], b.calls[-1], (), ()) for b in benign_suite() if b.calls]
    cases = []
    for index, (text, reads, final, plants, memories) in enumerate(plans):
        world = seeded_world()
        furnish(world)
        for where, key, planted in plants:
            if isinstance(getattr(world, where), dict):
                getattr(world, where)[key] = planted
            else:
                setattr(world, where, planted)
        runners = world.runners()
        user_id, goal_id = 700_000 + first + index, f"g_guard{first + index}"
        for memory in memories:
            MemoryStore(redis).add(user_id, MemoryItem(text=memory, trust=MemoryTrust.accepted, source="an email",
                                                       created_at=time.time(), updated_at=time.time()))
        for contact in CONTACTS:
            add_contact(redis, user_id, contact)
        if index % 2:
            for rule in permissive_rules():
                rules.add(user_id, rule)
        content, placed = [], []
        for n, read in enumerate(reads):
            result = runners[_key(catalog, read)](_action(catalog, read, goal_id, user_id, n), "k")
            origin = getattr(result, "untrusted_origin", None)
            if origin:
                content.append((origin, result.summary))
                placed.append(locate(result.summary, result.items))  # each email, event, record: its own origin
        notes = [f"{o}: {r}" for o, t in content for r in (detector.scan(t, o).reasons if detector else [])]
        now = time.time()
        goals.save(Goal(id=goal_id, user_id=user_id, chat_id=user_id, text=text,
                        messages=[{"role": "user", "content": text}], created_at=now, updated_at=now,
                        untrusted=[UntrustedItem(origin=o, text=t, at=now, parts=p) for (o, t), p in zip(content, placed)],
                        risk_notes=notes))
        action = builder.authoritative(_action(catalog, final, goal_id, user_id, 99))
        assert action is not None
        cases.append(Case(action, builder.build(action), content))
    return cases, builder


def _key(catalog: Catalog, call: Call) -> str:
    operation = catalog.get(call.tool)
    assert operation is not None
    return f"{operation.spec.connector}.{operation.spec.operation}"


def _noop(action: Action, context: ReviewContext) -> Decision:
    return Decision(verdict=Verdict.allow, reasons=["no-op"], risk=Risk.low)


def _timed(cases: list[Case], rounds: int, decide: Callable[[Case], object]) -> tuple[Summary, Summary, float]:
    for case in cases:
        decide(case)  # warm-up: first calls fill caches (compiled patterns, pydantic validators)
    times, cpu = [], []
    for _ in range(rounds):
        for case in cases:
            started, started_cpu = time.perf_counter(), time.thread_time()
            decide(case)
            cpu.append(time.thread_time() - started_cpu)
            times.append(time.perf_counter() - started)
    return Summary.of(times), Summary.of(cpu), len(times) / sum(times)


def run(workdir: Path, rounds: int = 200) -> GuardReport:
    server = RedisServer(workdir / "redis").start()
    try:
        redis = server.client()
        detector = HeuristicDetector()
        cases, builder = build_cases(redis, detector)
        plain, _ = build_cases(redis, None, first=1000)
        decisions = Counter(review(c.action, c.context).verdict.value for c in cases)

        def with_scan(case: Case) -> Decision:
            for origin, text in case.content:
                detector.scan(text, origin)
            return review(case.action, case.context)

        def executor_path(case: Case) -> Decision:
            stored = builder.read(case.action)  # as `Executor._review`: one read for the whole decision
            action = builder.authoritative(case.action, stored)
            assert action is not None
            return review(action, builder.build(action, stored=stored))

        def executor_with_sources(case: Case) -> Decision:
            # `Executor._review` also keeps, with each review of a consequential action, the sources of its values
            # (the web view's diagram, drawn as the guard saw it): bookkeeping after the verdict, timed apart.
            stored = builder.read(case.action)
            action = builder.authoritative(case.action, stored)
            assert action is not None
            context = builder.build(action, stored=stored)
            decision = review(action, context)
            if action.effect is not EffectClass.read:
                value_flows(action, context.provenance)
            return decision

        rows = [
            ("no-op review (baseline)", *_timed(plain, rounds, lambda c: _noop(c.action, c.context))),
            ("review, no detector", *_timed(plain, rounds, lambda c: review(c.action, c.context))),
            ("review after injection warnings", *_timed(cases, rounds, lambda c: review(c.action, c.context))),
            ("review + heuristic detector scan", *_timed(cases, rounds, with_scan)),
            ("executor: context from Redis + review", *_timed(cases, max(rounds // 10, 1), executor_path)),
            ("executor, + the values' sources kept for the record", *_timed(cases, max(rounds // 10, 1),
                                                                            executor_with_sources)),
        ]
        return GuardReport(decisions, rows)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.guard_cost", description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), rounds=20 if args.quick else 200).print()


if __name__ == "__main__":
    main()
