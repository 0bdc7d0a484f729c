"""Suggestion rounds run in a process of their own beside an agent worker, and end with it.

A round embeds listings for minutes of CPU; run as a thread of the worker it stalled goal steps
(RQ forks the worker for each job). These tests start a real worker's suggestions the way
`deputy worker` does and look at the processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from redis import Redis

from deputy.agent.suggestions.suggestion_loop import LEASE
from deputy.testing.stack import RedisServer, wait_for

_WORKER = """
import os, sys, threading, time
from deputy.apps.agent_worker import start_suggestions
from deputy.settings import Settings
process = start_suggestions(Settings())
print(process.pid, flush=True)
print(",".join(t.name for t in threading.enumerate()), flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in state  # a zombie has ended; only its exit status is left


def test_rounds_run_in_their_own_process_which_ends_when_its_worker_is_killed(redis_server: RedisServer,
                                                                              redis: Redis) -> None:
    env = {**os.environ, "REDIS_URL": redis_server.url, "DEPUTY_SUGGESTION_MINUTES": "0.05",
           # Nothing listens there: the round takes its turn (the lease) and fails to read, which it logs.
           "DEPUTY_SUGGESTION_SOURCES": "tickets=http://127.0.0.1:9/listings"}
    worker = subprocess.Popen([sys.executable, "-c", _WORKER], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None
        child = int(worker.stdout.readline())
        threads = worker.stdout.readline().strip().split(",")
        assert child != worker.pid and _alive(child)
        assert "suggestions" not in threads  # nothing of the rounds runs inside the worker itself
        wait_for(lambda: redis.exists(LEASE), timeout=60, what="a suggestion round taking its turn")

        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        wait_for(lambda: not _alive(child), timeout=20, what="the suggestions process ending with its worker")
    finally:
        worker.kill()
        worker.wait(timeout=10)


def test_without_sources_no_process_is_started() -> None:
    from deputy.apps.agent_worker import start_suggestions
    from deputy.settings import Settings

    assert start_suggestions(Settings(DEPUTY_SUGGESTION_SOURCES="")) is None
