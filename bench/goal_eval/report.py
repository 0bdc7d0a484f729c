"""The evaluation's figures: per category right/total, time per goal, unasked side effects, wrong dates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel, Field

from bench.goal_eval.judging import Verdict
from bench.stats import percentile


class CaseResult(BaseModel):
    id: str
    category: str
    split: str
    turns: list[str]
    verdict: Verdict
    seconds: float
    said: list[str] = Field(default_factory=list)
    error: str | None = None
    steps: list[str] = Field(default_factory=list)
    """The model's calls and the start of their results (not shown for the frozen split: never tuned on)."""


class CategoryRow(BaseModel):
    category: str
    right: int
    total: int
    median_seconds: float
    p90_seconds: float
    unasked: int
    """Cases with at least one unasked side effect."""
    wrong_dates: int
    """Cases where something was created, moved or booked at the wrong time."""


def rows(results: list[CaseResult]) -> list[CategoryRow]:
    by: dict[str, list[CaseResult]] = {}
    for result in results:
        by.setdefault(result.category, []).append(result)
    by["all"] = list(results)
    table = []
    for category, group in by.items():
        times = [r.seconds for r in group]
        table.append(CategoryRow(
            category=category, right=sum(r.verdict.right for r in group), total=len(group),
            median_seconds=percentile(times, 50) if times else 0.0, p90_seconds=percentile(times, 90) if times else 0.0,
            unasked=sum(bool(r.verdict.unasked) for r in group), wrong_dates=sum(bool(r.verdict.wrong_dates) for r in group),
        ))
    return table


def print_table(results: list[CaseResult], out: TextIO) -> None:
    print(f"\n{'category':22} {'right':>9} {'median s':>9} {'p90 s':>7} {'unasked':>8} {'wrong dates':>12}", file=out)
    for row in rows(results):
        if row.category == "all":
            print("-" * 72, file=out)
        print(f"{row.category:22} {row.right:>4}/{row.total:<4} {row.median_seconds:9.1f} {row.p90_seconds:7.1f} "
              f"{row.unasked:>8} {row.wrong_dates:>12}", file=out)
    out.flush()


def line(number: int, result: CaseResult) -> str:
    """A finished case's line; for a frozen case only that it ran (its verdict counts in the totals and is in the
    JSON, never on the screen of whoever is improving Deputy)."""
    if result.split == "frozen":
        return f"{number:>3}. done  {result.seconds:6.1f}s"
    verdict = result.verdict
    mark = "RIGHT" if verdict.right else "WRONG"
    why = "; ".join([*verdict.failures, *(f"unasked: {u}" for u in verdict.unasked)])[:240]
    return f"{number:>3}. {mark} {result.seconds:6.1f}s {result.id:26} {result.turns[0][:44]:44} {why}"


def write_json(results: list[CaseResult], path: Path, meta: dict) -> None:
    payload = {"meta": meta, "categories": [r.model_dump() for r in rows(results)],
               "cases": [r.model_dump() for r in results]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False, default=str), encoding="utf-8")
