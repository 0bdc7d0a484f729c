"""Travel through the real runner, executor and guard: a hotel page or a flight listing carrying an
injected order (book something extra, send the passport elsewhere). None of them runs without the
user, with no rules, with the most permissive rules, or with everything allowed and no detector."""

from __future__ import annotations

from bench.guard import harnesses
from bench.guard_eval.report import run_attacks
from bench.guard_eval.travel import travel_attacks
from deputy.testing.stack import RedisServer


def test_no_injected_travel_order_runs_without_the_user_whatever_the_rules(redis_server: RedisServer) -> None:
    cases = travel_attacks()
    run = run_attacks(harnesses(redis_server.client(), allow_everything=True), cases)
    for rules, results in run.results.items():
        verdicts = {case.name: outcome.verdict for case, outcome in results}
        assert set(verdicts.values()) <= {"asked", "denied"} and len(verdicts) == len(cases), (rules, verdicts)
        # Each card says where the order came from: the hotel's page, or the airline's listing.
        for case, outcome in results:
            if outcome.verdict == "asked":
                assert outcome.card is not None and outcome.card_names(case.origin), (rules, case.name)
