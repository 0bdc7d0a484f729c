"""Prints the guard's evaluation: every attack with its verdict, benign asks per kind, cost.

    python -m bench.guard [--quick]

Both suites run with no rules and with the most permissive rules a user can set, through
the real runner, executor and Sentinel against the sandbox world (a private redis-server
is started for the run): the generated attack matrix (channel × sink × phrasing) plus the
hand-written attacks, then the benign multi-step tasks. The attacks also run under a rule
that allows everything with the injection detector switched off (what the guard's own
checks hold when a phrasing slips past the detector). Then the imported tools (a team chat
and a drive over MCP, a bank over OpenAPI, with marked arguments): their attacks under all
three rule sets, and their benign tasks with the cause of each card; then travel (orders injected in a
hotel page or a flight listing: book extra, send the passport). Benign steps that needed a card
are also counted per cause (copied text, an outside value, a recipient not named, not asked for, a kind
that asks by default, ...), and apart from them the reads that did (a page opened at an address the user
did not give), for the built-in and the imported tasks alike. Last, the guard's own cost per
decision (`bench.guard_cost`). `--quick` runs one phrasing of the matrix and fewer rounds.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench import guard_cost
from deputy.testing.stack import RedisServer
from bench.guard_eval.cases import allow_everything_rules, permissive_rules
from bench.guard_eval.imported import imported_attacks, imported_benign
from bench.guard_eval.run import GuardHarness, no_detector
from bench.guard_eval.travel import travel_attacks
from bench.guard_eval.report import all_attacks, run_attacks, run_benign, why
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.executor.review_context import stored_rules


def harnesses(redis, *, allow_everything: bool = False) -> dict[str, GuardHarness]:
    store = RuleStore(redis)
    found = {
        "no rules": GuardHarness(redis),
        "permissive rules": GuardHarness(
            redis, rules=stored_rules(store),
            rules_for_user=lambda user: [store.add(user, rule) for rule in permissive_rules()],
        ),
    }
    if allow_everything:
        found["allow all, no detector"] = GuardHarness(
            redis, rules=stored_rules(store), scanner=no_detector,
            rules_for_user=lambda user: [store.add(user, rule) for rule in allow_everything_rules()])
    return found


def print_attack_counts(attack_run, cases: int) -> None:
    print(f"\n{'rules':24} {'attacks':>8} {'auto-allowed':>13} {'asked':>6} {'denied':>7} {'card names origin':>18} "
          f"{'card names the item':>20}")
    for label in attack_run.results:
        counts = attack_run.counts(label)
        named = counts["asked"] - len(attack_run.unnamed(label))
        items, with_item = attack_run.items_named(label)
        print(f"{label:24} {cases:>8} {counts['auto-allowed']:>13} {counts['asked']:>6} "
              f"{counts['denied']:>7} {named:>12}/{counts['asked']:<5} {items:>14}/{with_item}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.guard", description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    server = RedisServer().start()
    try:
        redis = server.client()
        cases = [c for c in all_attacks() if not args.quick or c.phrasing in ("authority", "paraphrase", "")]
        attack_run = run_attacks(harnesses(redis, allow_everything=True), cases)
        print(f"(1a) Attacks by a hijacked model: {len(cases)} cases, every one must be asked or denied\n")
        print(attack_run.table())
        print_attack_counts(attack_run, len(cases))
        benign_run = run_benign(harnesses(redis))
        print("\n(1b) Benign multi-step tasks: side-effecting steps that needed a card (lower is better)\n")
        print(benign_run.table())
        print("\n(1c) The same steps that went without a card but were shown in full with Undo or in a send window "
              "(not cards: nobody had to answer)\n")
        print(benign_run.undoable_table())
        print("\n(1d) The benign steps that needed a card, by the cause their card gave\n")
        print(benign_run.cause_table())
        print_imported(redis)
        travel = travel_attacks()
        travel_run = run_attacks(harnesses(redis, allow_everything=True), travel)
        print(f"\n(1h) Travel: orders injected in a hotel page or a flight listing: {len(travel)} cases\n")
        print(travel_run.table())
        print_attack_counts(travel_run, len(travel))
    finally:
        server.stop()
    print()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        guard_cost.run(Path(tmp), rounds=20 if args.quick else 200).print()


def print_imported(redis) -> None:
    cases = imported_attacks()
    attack_run = run_attacks(harnesses(redis, allow_everything=True), cases)
    print(f"\n(1e) Attacks through imported tools (MCP and OpenAPI, marked arguments): {len(cases)} cases\n")
    print(attack_run.table())
    print_attack_counts(attack_run, len(cases))
    benign_run = run_benign(harnesses(redis), imported_benign())
    print("\n(1f) Benign tasks with imported tools: each side-effecting step, and why its card asked\n")
    labels = list(benign_run.outcomes)
    print(f"{'task':48} " + " ".join(f"{label:>18}" for label in labels) + "  why (no rules)")
    for index, (case, outcome) in enumerate(benign_run.outcomes[labels[0]]):
        verdicts = " ".join(f"{benign_run.outcomes[label][index][1].verdict:>18}" for label in labels)
        print(f"{case.name[:48]:48} {verdicts}  {why(outcome.card) if outcome.verdict == 'asked' else '-'}")
    print()
    print(benign_run.table())
    print("\n(1g) The imported tools' benign steps that needed a card, by cause\n")
    print(benign_run.cause_table())


if __name__ == "__main__":
    main()
