"""A clock that moves only when told: tests, evaluations and benchmarks decide when time passes.

Everything in Deputy that reads the time takes a clock (`Callable[[], float]`, seconds since
the epoch) instead of calling `time.time`, so one `ManualClock` can drive a whole goal.
"""

from __future__ import annotations


class ManualClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
