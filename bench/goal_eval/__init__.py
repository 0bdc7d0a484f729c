"""Everyday goals scored by what happened in a sandbox world (`python -m bench.goal_eval`)."""

from bench.goal_eval.corpus import Case, frozen_digest, load
from bench.goal_eval.evaluate import evaluate, evaluate_case, interleaved
from bench.goal_eval.judging import Verdict, judge
from bench.goal_eval.report import CaseResult, print_table, rows, write_json
from bench.goal_eval.services import EvalServices

__all__ = ["Case", "CaseResult", "EvalServices", "Verdict", "evaluate", "evaluate_case", "frozen_digest",
           "interleaved", "judge", "load", "print_table", "rows", "write_json"]
