"""One evaluation run: the servers once, then per case seed, run, read back and judge."""

from __future__ import annotations

import itertools
import sys
from typing import Callable, TextIO

from deputy.agent.model.chat_model import ChatModel
from bench.goal_eval.corpus import Case
from bench.goal_eval.judging import Verdict, judge
from bench.goal_eval.observe import observe
from bench.goal_eval.report import CaseResult, line
from bench.goal_eval.running import Approve, run_case
from bench.goal_eval.seeding import seed
from bench.goal_eval.services import EvalServices

FIRST_USER = 700_000


def evaluate_case(case: Case, services: EvalServices, model: ChatModel, user_id: int,
                  approve: Approve = "asked") -> CaseResult:
    redis = services.redis
    seeded = seed(case, services, redis, user_id)
    orders = {order.id for order in case.world.orders}
    transcript = run_case(case, services, seeded, model, approve)
    outcome = observe(services, redis, seeded, orders)
    verdict = judge(case, seeded, outcome, transcript)
    return CaseResult(id=case.id, category=case.category, split=case.split, turns=case.turns, verdict=verdict,
                      seconds=round(transcript.seconds, 2), said=transcript.said, error=transcript.error,
                      steps=transcript.steps if case.split != "frozen" else [])


def interleaved(cases: list[Case]) -> list[Case]:
    """Round-robin over the categories, so a run stopped early still covers every category alike."""
    by: dict[str, list[Case]] = {}
    for case in cases:
        by.setdefault(case.category, []).append(case)
    return [case for group in itertools.zip_longest(*by.values()) for case in group if case is not None]


def evaluate(cases: list[Case], services: EvalServices, model_for: Callable[[Case], ChatModel],
             out: TextIO = sys.stdout, approve: Approve = "asked",
             done: Callable[[list[CaseResult]], None] | None = None) -> list[CaseResult]:
    """Every case in turn, one line each as it finishes; `done` sees the results so far after each."""
    results: list[CaseResult] = []
    users = itertools.count(FIRST_USER)
    for number, case in enumerate(cases, 1):
        try:
            result = evaluate_case(case, services, model_for(case), next(users), approve)
        except Exception as exc:  # the harness failing on one case must not lose the others
            result = CaseResult(id=case.id, category=case.category, split=case.split, turns=case.turns,
                                verdict=Verdict(right=False, failures=[f"harness: {type(exc).__name__}: {exc}"]),
                                seconds=0.0, error=f"harness: {exc}")
        results.append(result)
        print(line(number, result), file=out, flush=True)
        if done is not None:
            done(results)
    return results

