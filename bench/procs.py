"""Real Deputy processes for the benchmarks, and what they cost in memory.

`Processes` starts `python -m deputy worker|executor|bot` (or any `python -m module`) with
an explicit environment, logs to files in a work directory, and stops exactly what it
started. `pss_mb` reads the proportional set size from /proc, so pages that forked work
horses share with their parent are counted once, not once per process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from deputy.testing.stack import descendants


def deputy_env(redis_url: str, model_url: str, workdir: Path, **extra: str) -> dict[str, str]:
    """The environment an operator gives Deputy's processes, pointed at local test parts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEPUTY_", "TELEGRAM_", "OPENAI_"))}
    env.update(
        REDIS_URL=redis_url,
        OPENAI_BASE_URL=model_url,
        OPENAI_API_KEY="sk-bench-not-secret",
        DEPUTY_MODEL="scripted-model",
        DEPUTY_MODEL_TIMEOUT="60",
        DEPUTY_SECRET="bench-secret-" + os.urandom(8).hex(),
        DEPUTY_DATA_DIR=str(workdir / "data"),
        DEPUTY_VAULT_KEY="bench-vault-key-" + os.urandom(8).hex(),
        DEPUTY_DEFAULT_PLAN="pro",  # as `deputy run` gives its users: no plan notice pauses a bench goal
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class Processes:
    """Child processes started by one benchmark; `stop()` ends them (and their forks)."""

    def __init__(self, workdir: Path | None = None) -> None:
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="deputy-bench-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._running: dict[str, subprocess.Popen] = {}

    def start(self, name: str, module: str, args: list[str], env: dict[str, str]) -> subprocess.Popen:
        """`python -m module *args` in its own session, output to `<workdir>/<name>.log`."""
        with open(self.workdir / f"{name}.log", "ab") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", module, *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._running[name] = process
        return process

    def deputy(self, name: str, role: str, env: dict[str, str]) -> subprocess.Popen:
        """`deputy <role>` exactly as an operator starts it."""
        return self.start(name, "deputy", [role], env)

    def pids(self, prefix: str = "") -> list[int]:
        """Live processes whose name starts with `prefix`, with everything they forked."""
        found = []
        for name, process in self._running.items():
            if name.startswith(prefix) and process.poll() is None:
                found += [process.pid, *descendants(process.pid)]
        return found

    def main_pids(self, prefix: str = "") -> list[int]:
        """Live processes whose name starts with `prefix`, without what they forked."""
        return [p.pid for n, p in self._running.items() if n.startswith(prefix) and p.poll() is None]

    def log(self, name: str) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self, prefix: str = "") -> None:
        """SIGTERM the matching processes' sessions, then SIGKILL what is left after 10 s."""
        chosen = [(n, p) for n, p in self._running.items() if n.startswith(prefix)]
        for _, process in chosen:
            if process.poll() is None:
                _signal_group(process.pid, signal.SIGTERM)
        for name, process in chosen:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _signal_group(process.pid, signal.SIGKILL)
                process.wait()
            del self._running[name]


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass


def pss_mb(pids: list[int]) -> float:
    """Proportional set size of these processes together, in MB (shared pages split)."""
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
                    break
        except (OSError, ValueError):
            continue  # the process ended meanwhile (a work horse, typically)
    return total_kb / 1024


def rss_mb(pids: list[int]) -> float:
    """Resident set size summed over these processes, in MB (shared pages counted each time)."""
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
                    break
        except (OSError, ValueError):
            continue
    return total_kb / 1024


def cpu_seconds(pids: list[int], children: bool = False) -> float:
    """User + system CPU time these processes have used so far (all their threads), in seconds.

    With `children`, CPU of their children that already ended is added (RQ's work horses).
    """
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
        if children:
            total += int(fields[13]) + int(fields[14])  # cutime, cstime: children waited for
    return total / ticks


def cpu_user_system(pids: list[int]) -> tuple[float, float]:
    """User and system CPU seconds these processes have used so far (all their threads), apart."""
    ticks = os.sysconf("SC_CLK_TCK")
    user = system = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user, system = user + int(fields[11]), system + int(fields[12])
    return user / ticks, system / ticks
