"""Clocks: one that moves only when told, and one a test moves for a whole running Deputy.

Everything in Deputy that reads the time takes a clock (`Callable[[], float]`, seconds since
the epoch) instead of calling `time.time`, so one `ManualClock` can drive a whole goal.

A stack of processes cannot share a `ManualClock` object, so for end-to-end tests each
process takes its clock from `process_clock()`: real time, unless `DEPUTY_TEST_CLOCK_FILE`
names a file holding an offset in seconds, which the test moves with a `SharedTestClock`.
The offset clock keeps running between moves, so leases, retries and scheduled steps that
count real seconds still come due; what the test decides is the date every process sees.
Test-only: a production Deputy never sets it (the processes log a warning when it is set).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Callable, Mapping

log = logging.getLogger(__name__)

TEST_CLOCK_FILE = "DEPUTY_TEST_CLOCK_FILE"
"""The environment variable naming a `SharedTestClock`'s file (tests only)."""


class ManualClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class SharedTestClock:
    """Real time shifted by an offset kept in a file, read by every process given that file.

    The test sets it (`set`, `advance`); processes only read it. The file is replaced whole on
    each move, so a reader never sees half a number.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._seen: tuple[tuple[int, int], float] = ((-1, -1), 0.0)

    def __call__(self) -> float:
        return time.time() + self._offset()

    def set(self, when: float) -> None:
        """From now on every process reads `when`, running on from there."""
        self._write(when - time.time())

    def advance(self, seconds: float) -> None:
        self._write(self._offset() + seconds)

    def _write(self, offset: float) -> None:
        partial = self.path.with_suffix(".partial")
        partial.write_text(repr(offset))
        partial.replace(self.path)

    def _offset(self) -> float:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return 0.0
        changed = (stat.st_ino, stat.st_mtime_ns)  # each move is a new file
        if changed != self._seen[0]:
            self._seen = (changed, float(self.path.read_text() or 0))
        return self._seen[1]


def process_clock(environ: Mapping[str, str] = os.environ) -> Callable[[], float]:
    """The clock a Deputy process runs on: `time.time`, or a test's shared clock when one is named."""
    path = environ.get(TEST_CLOCK_FILE)
    if not path:
        return time.time
    log.warning("%s is set: this process runs on a test's clock, not real time", TEST_CLOCK_FILE)
    return SharedTestClock(Path(path))
