"""Where a forking worker's metrics are counted: a directory of its own, set up before any metric exists.

RQ runs each job in a child process; counts made there would die with it. In
prometheus_client's multiprocess mode every process writes its counts to a file in
`PROMETHEUS_MULTIPROC_DIR`, and the worker's `/metrics` adds them up (`deputy.core.infrastructure.metrics`).
The mode is chosen when prometheus_client is first imported, so the entry point calls
`count_across_forks` before importing anything that counts. Each worker process gets its
own directory (removed when it exits): its `/metrics` reports it and its children only,
so several workers on one machine are several scrape targets, one port each.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"


def count_across_forks() -> Path:
    """Put this process (and the children it forks) in multiprocess mode, in a fresh directory."""
    directory = Path(tempfile.mkdtemp(prefix=f"deputy-metrics-{os.getpid()}-"))
    os.environ[MULTIPROCESS_ENV] = str(directory)
    owner = os.getpid()
    # Children inherit the hook; only the worker itself removes the directory.
    atexit.register(lambda: os.getpid() == owner and shutil.rmtree(directory, ignore_errors=True))
    return directory
