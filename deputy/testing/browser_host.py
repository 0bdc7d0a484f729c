"""`deputy browser-host` as a real process, for tests and benchmarks.

Its environment is built from nothing but what it needs (no key, no Redis address), as compose.yaml
gives the `browser` service, and its socket sits in a fresh directory that the browsers' own uids
may pass through (as the shared volume in the image), since their proxy sockets live there too.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

READY_LINE = "browser host serving"


def socket_directory() -> Path:
    """A directory for the host's socket and the proxies' beside it: others may pass, not list."""
    directory = Path(tempfile.mkdtemp(prefix="deputy-browser-host-", dir="/tmp"))
    directory.chmod(0o711)
    return directory


def host_environment(socket: Path, executor_uid: int | None = None, **extra: str) -> dict[str, str]:
    """What the host is started with: a path, its socket, whom it serves, and where Deputy's code is."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONUNBUFFERED": "1",
           "DEPUTY_BROWSER_HOST_SOCKET": str(socket)}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    if executor_uid is not None:
        env["DEPUTY_BROWSER_HOST_EXECUTOR_UID"] = str(executor_uid)
    env.update(extra)
    return env


class BrowserHostProcess:
    """One browser host: `start`, `kill` (SIGKILL, as a crash), `stop`, `remove` (its directory)."""

    def __init__(self, directory: Path | None = None, executor_uid: int | None = None,
                 python: str = sys.executable, **extra_env: str) -> None:
        self.directory = directory or socket_directory()
        self.socket = self.directory / "host.sock"
        self.log = Path(tempfile.mkdtemp(prefix="deputy-browser-host-log-")) / "host.log"
        self._env = host_environment(self.socket, executor_uid, **extra_env)
        self._python = python
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 60.0) -> "BrowserHostProcess":
        """Start it and wait until it serves (or raise with its log)."""
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([self._python, "-m", "deputy", "browser-host"], env=self._env,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        seen = self.log.stat().st_size
        deadline = time.monotonic() + timeout
        while READY_LINE not in self.log.read_text(errors="replace")[seen:]:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the browser host did not start: {self.output()[-2000:]}")
            time.sleep(0.05)
        return self

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL the host alone, like a crash: its workers die with it."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
        shutil.rmtree(self.log.parent, ignore_errors=True)
