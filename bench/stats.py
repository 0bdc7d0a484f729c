"""Summaries and tables for the benchmarks: median, p99 and ratios against a baseline.

Absolute times on a shared 2-core machine are noisy; every benchmark therefore measures a
baseline in the same run and prints the ratio next to the figure.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank `q` percentile (0-100) of `values`; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[rank]


@dataclass(frozen=True)
class Summary:
    """Median, p99 and mean of a sample of durations in seconds."""

    n: int
    median: float
    p99: float
    mean: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Summary:
        if not values:
            return cls(0, float("nan"), float("nan"), float("nan"))
        return cls(len(values), statistics.median(values), percentile(values, 99), statistics.fmean(values))

    @property
    def median_ms(self) -> float:
        return self.median * 1e3

    @property
    def p99_ms(self) -> float:
        return self.p99 * 1e3

    def sane(self) -> bool:
        """Non-empty, finite and ordered (median <= p99): what the smoke tests check."""
        return self.n > 0 and 0 <= self.median <= self.p99 < float("inf")


def ratio(value: float, baseline: float) -> str:
    """`value / baseline` as text like "2.3x" ("n/a" when the baseline is zero or missing)."""
    if not baseline or math.isnan(baseline) or math.isnan(value):
        return "n/a"
    return f"{value / baseline:.1f}x"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def _fmt(cell: object) -> str:
    if isinstance(cell, float):
        if math.isnan(cell):
            return "n/a"
        return f"{cell:.2f}" if abs(cell) < 100 else f"{cell:,.0f}"
    if isinstance(cell, int):
        return f"{cell:,}"
    return str(cell)
