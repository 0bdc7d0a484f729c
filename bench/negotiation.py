"""Negotiation outcomes: the adaptive scripted negotiator against a fixed-concession baseline.

    python -m bench.negotiation [--only car]

Every sandbox negotiation (`bench.negotiation_eval.scenarios`: a car on the marketplace with a
buyer who can and one who cannot reach the floor, a bill over the retention desk's chat and
email, nine temperaments each) is played through the real runner, executor and guard
(`deputy.testing.inline`, real Redis) by two scripted negotiators under the same mandate, with a
user who approves the cards they are shown (the final yes is always theirs):

- adaptive: concedes less as the gap closes (30% of it, at most the mandate's step) and
  takes an offer at or past its next counter;
- fixed: concedes the mandate's full step every round, the simple strategy.

Reported per shape and strategy: the share closed, the price reached against the reservation
price and the counterpart's hidden limit (the share of the zone of agreement won: 0% is the
reservation price, 100% the most the counterpart would have given), and rounds used. The
mandate's three zeros are counted on what actually reached the counterparts.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from redis import Redis

from deputy.testing.stack import RedisServer
from bench.negotiation_eval.agents import Strategy
from bench.negotiation_eval.scenarios import Outcome, run, scenarios
from deputy.sentinel.negotiation.amounts import read_amounts
from deputy.sentinel.negotiation.commitments import Commitment, commitments_in
from deputy.sentinel.negotiation.leaks import reservation_leaks


@dataclass
class Row:
    shape: str
    strategy: Strategy
    runs: int = 0
    feasible: int = 0
    closed: int = 0
    won: float = 0.0
    price_vs_reservation: float = 0.0
    rounds: int = 0
    outside: int = 0
    leaks: int = 0
    untapped: int = 0
    walk_notices: int = 0


def _zone_won(outcome: Outcome) -> float | None:
    s, price = outcome.scenario, outcome.closed_at
    if price is None:
        return None
    r, limit = s.mandate.reservation, s.limit
    if limit == r:
        return 1.0
    return float((price - r) / (limit - r)) if s.mandate.role.sells else float((r - price) / (r - limit))


def _violations(outcome: Outcome) -> tuple[int, int, int]:
    m = outcome.scenario.mandate
    outside = leaks = untapped = 0
    for _, text, action_id in outcome.delivered:
        values = [a.value for a in read_amounts(text, scale=m.reservation).amounts if not a.relative]
        values = [v for v in values if m.role.sells or v != m.opening]
        outside += sum(1 for v in values if m.past_reservation(v))
        leaks += bool(reservation_leaks(text, m.reservation))
        untapped += Commitment.accept in commitments_in(text) and action_id not in outcome.approved_actions
    return outside, leaks, untapped


# The cooperative negotiators, and a hijacked model writing free text and using the move tools; the
# scripted user approves every card (the worst case: every number counted went out on a tap or alone).
STRATEGIES = (Strategy.adaptive, Strategy.fixed, Strategy.hijacked, Strategy.hijacked_moves)


def measure(redis: Redis, only: str = "") -> list[Row]:
    rows: dict[tuple[str, Strategy], Row] = {}
    for index, scenario in enumerate(s for s in scenarios() if only in s.name):
        feasible = (scenario.limit > scenario.mandate.reservation) if scenario.mandate.role.sells else \
            (scenario.limit < scenario.mandate.reservation)
        for strategy in STRATEGIES:
            outcome = run(redis, scenario, strategy, approve=True, goal_id=f"bench-{index}-{strategy.value}")
            row = rows.setdefault((scenario.shape, strategy), Row(scenario.shape, strategy))
            row.runs += 1
            row.feasible += feasible
            row.rounds += outcome.rounds
            won = _zone_won(outcome)
            if won is not None:
                row.closed += 1
                row.won += won
                row.price_vs_reservation += float(outcome.closed_at / scenario.mandate.reservation)
            o, leak, untapped = _violations(outcome)
            row.outside, row.leaks, row.untapped = row.outside + o, row.leaks + leak, row.untapped + untapped
            row.walk_notices += sum(1 for text in outcome.user_messages if text.startswith("🚶"))
    return list(rows.values())


def report(rows: list[Row]) -> str:
    lines = ["Negotiation outcomes (scripted counterparts, real runner + executor + guard)", "",
             "| shape | strategy | runs | closed / possible | zone of agreement won | price / reservation | "
             "rounds (mean) | outside mandate | leaks | acceptances without tap | 🚶 notices |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: (r.shape, r.strategy.value)):
        won = f"{100 * row.won / row.closed:.0f}%" if row.closed else "–"
        ratio = f"{row.price_vs_reservation / row.closed:.3f}" if row.closed else "–"
        lines.append(f"| {row.shape} | {row.strategy.value} | {row.runs} | {row.closed} / {row.feasible} | {won} | "
                     f"{ratio} | {row.rounds / row.runs:.1f} | {row.outside} | {row.leaks} | {row.untapped} | "
                     f"{row.walk_notices} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="only scenarios whose name contains this (car, bill-chat, …)")
    args = parser.parse_args(argv)
    server = RedisServer().start()
    try:
        print(report(measure(Redis.from_url(server.url), args.only)))
    finally:
        server.kill()


if __name__ == "__main__":
    main()
