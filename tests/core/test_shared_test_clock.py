"""The clock an end-to-end test moves for every process of a running Deputy."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

from deputy.core.infrastructure.clock import TEST_CLOCK_FILE, SharedTestClock, process_clock

CHOSEN = datetime(2027, 2, 1, 8, 0).timestamp()


def test_another_process_reads_the_date_the_test_set_and_each_move(tmp_path: Path) -> None:
    clock = SharedTestClock(tmp_path / "clock")
    clock.set(CHOSEN)
    command = [sys.executable, "-c", "from deputy.core.infrastructure.clock import process_clock; "
               "print(process_clock()())"]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           TEST_CLOCK_FILE: str(clock.path)}
    read = float(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)
    assert CHOSEN <= read < CHOSEN + 60, "the other process is on the test's date, not the machine's"

    clock.advance(24 * 3600)
    read = float(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)
    assert CHOSEN + 24 * 3600 <= read < CHOSEN + 24 * 3600 + 60


def test_a_reader_in_this_process_follows_the_moves_and_time_runs_on_between_them(tmp_path: Path) -> None:
    writer, reader = SharedTestClock(tmp_path / "clock"), SharedTestClock(tmp_path / "clock")
    writer.set(CHOSEN)
    first = reader()
    assert CHOSEN <= first < CHOSEN + 60
    time.sleep(0.01)
    assert reader() > first, "it keeps running, so leases and delays that count real seconds still come due"
    writer.advance(3600)
    assert reader() >= first + 3600


def test_without_the_setting_a_process_runs_on_real_time(tmp_path: Path) -> None:
    assert process_clock({}) is time.time
    assert isinstance(process_clock({TEST_CLOCK_FILE: str(tmp_path / "clock")}), SharedTestClock)
    assert abs(SharedTestClock(tmp_path / "never-set")() - time.time()) < 5, "no file yet: no offset"
