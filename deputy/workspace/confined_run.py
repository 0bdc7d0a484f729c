"""Run one piece of untrusted Python over a user's files, confined by bubblewrap.

The code comes from a model that a hostile email or page may have steered, so it runs with
nothing of the host but a read-only `/usr`: no network, no `/etc`, `/home` or Deputy's data,
its own process and user namespaces, an empty environment, and, when Deputy runs as root, an
unprivileged uid. The user's files are the one writable place, at `/work`. Limits on CPU
time, memory, processes, file size and wall-clock time stop it; its output is kept up to a
bound, so a flood of prints cannot exhaust Deputy's memory.

There is no unconfined fallback: without bubblewrap or user namespaces `run_confined`
refuses with `ConfinementUnavailable`, whose message tells the operator what to install.
"""

from __future__ import annotations

import functools
import os
import selectors
import signal
import subprocess
import time
from contextlib import suppress
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

BWRAP = Path("/usr/bin/bwrap")
SETPRIV = "/usr/bin/setpriv"
# prlimit runs inside the sandbox: limits set there count the processes of the sandbox's own
# user namespace, so other processes of the same uid on the host neither use up the limit
# nor get starved by a fork bomb.
PRLIMIT = "/usr/bin/prlimit"
# Debian's interpreter first (its dist-packages come along under /usr), then the one the
# official Python images install under /usr/local.
INTERPRETERS = (Path("/usr/bin/python3"), Path("/usr/local/bin/python3"))
# "nobody": the uid the code runs as when Deputy itself runs as root.
SANDBOX_UID = 65534
SANDBOX_GID = 65534

SCRIPT_PATH = "/code/main.py"
OPEN_FILES = 256
_READ_CHUNK = 65536
# Enough of stderr's end to see how the code stopped, even when its head was truncated.
_STDERR_TAIL_BYTES = 4096
# After a kill, the sandbox's processes die with its namespace; their pipes close promptly.
_KILL_GRACE_SECONDS = 5.0

INSTALL_HINT = (
    "Running code needs bubblewrap (the `bubblewrap` package) and unprivileged user namespaces; "
    "install it with `apt-get install bubblewrap`. In a container, the runtime must also allow "
    "user namespaces (for Docker: a seccomp profile that permits `unshare` and `clone`)."
)


class RunLimits(BaseModel):
    """What one run may use. Output is bounded per stream (stdout and stderr each)."""

    model_config = ConfigDict(frozen=True)

    cpu_seconds: int = Field(default=20, gt=0)
    wall_seconds: float = Field(default=30, gt=0)
    memory_mb: int = Field(default=512, gt=0)
    processes: int = Field(default=32, gt=1)
    output_chars: int = Field(default=20_000, ge=0)
    # Also the size of the sandbox's /tmp, which lives in memory.
    file_mb: int = Field(default=50, gt=0)


class RunResult(BaseModel):
    """How a run ended. `exit_code` is None when it was stopped for running too long; a
    process ended by signal N shows as 128 + N, as in a shell."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    killed_reason: str | None
    truncated: bool


class ConfinementUnavailable(Exception):
    """Code cannot be run here, because it could not be confined."""


@functools.cache
def confinement_available(bwrap: Path = BWRAP) -> str | None:
    """None when code can be confined here, else a plain reason. Probed once per bwrap."""
    if not bwrap.exists():
        return f"bubblewrap is not installed (no {bwrap})"
    interpreter = _interpreter()
    if interpreter is None:
        return "no Python interpreter under /usr to run the code with"
    command = _command(bwrap, RunLimits(), ["--chdir", "/"], ["-c", "pass"])
    try:
        probe = subprocess.run(command, env=_environment(), stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not be started: {error}"
    if probe.returncode != 0:
        said = probe.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap could not build a sandbox: {said[-1] if said else f'exit {probe.returncode}'}"
    return None


def run_confined(directory: Path, code: str, limits: RunLimits = RunLimits(), *, bwrap: Path = BWRAP) -> RunResult:
    """Run `code` with `directory` as its writable working directory `/work`, confined.

    When Deputy runs as root, the tree is handed to the sandbox's uid for the run and back to
    the caller afterwards, and every parent of `directory` must be searchable by that uid
    (a directory from `tempfile.mkdtemp()` under /tmp is). The tree may come back with
    symlinks and other special files the code made: collect regular files only.
    """
    reason = confinement_available(bwrap)
    if reason is not None:
        raise ConfinementUnavailable(f"{INSTALL_HINT} ({reason}.)")
    directory = directory.resolve()
    if not directory.is_dir():
        raise NotADirectoryError(directory)
    dropping = os.geteuid() == 0
    if dropping:
        _check_reachable(directory)
        _chown_tree(directory, SANDBOX_UID, SANDBOX_GID)
    try:
        return _run(directory, code, limits, bwrap)
    finally:
        if dropping:
            _chown_tree(directory, os.getuid(), os.getgid())


def _run(directory: Path, code: str, limits: RunLimits, bwrap: Path) -> RunResult:
    script = os.memfd_create("deputy-code", 0)
    try:
        os.write(script, code.encode())
        os.lseek(script, 0, os.SEEK_SET)
        mounts = ["--bind", str(directory), "/work", "--ro-bind-data", str(script), SCRIPT_PATH, "--chdir", "/work"]
        command = _command(bwrap, limits, mounts, [SCRIPT_PATH])
        process = subprocess.Popen(command, env=_environment(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, pass_fds=(script,), start_new_session=True)
    finally:
        os.close(script)
    with process:
        return _watch(process, limits)


def _watch(process: subprocess.Popen[bytes], limits: RunLimits) -> RunResult:
    """Read the output within bounds until the sandbox ends or the wall clock runs out."""
    stdout, stderr = _BoundedOutput(limits.output_chars), _BoundedOutput(limits.output_chars)
    assert process.stdout is not None and process.stderr is not None, "started with both streams piped"
    ended = os.pidfd_open(process.pid)
    timed_out = False
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ, stdout)
            selector.register(process.stderr, selectors.EVENT_READ, stderr)
            selector.register(ended, selectors.EVENT_READ, None)
            _pump(selector, time.monotonic() + limits.wall_seconds)
            timed_out = ended in selector.get_map()
            if timed_out:
                _kill(process)
                # The output it wrote before the kill is still in the pipes.
                _pump(selector, time.monotonic() + _KILL_GRACE_SECONDS)
    finally:
        os.close(ended)
        # Whatever happened, nothing the code started outlives the call; until it is reaped, the
        # group's id stays ours, so the kill cannot reach anyone else.
        _kill(process)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    exit_code = None if timed_out else process.returncode
    out_text, out_cut = stdout.text()
    err_text, err_cut = stderr.text()
    reason = _stop_reason(timed_out, exit_code, usage.ru_utime + usage.ru_stime, stderr.tail, limits)
    return RunResult(exit_code=exit_code, stdout=out_text, stderr=err_text, timed_out=timed_out,
                     killed_reason=reason, truncated=out_cut or err_cut)


def _pump(selector: selectors.BaseSelector, deadline: float) -> None:
    """Read what is ready until both streams closed and the process ended, or until the deadline."""
    while selector.get_map() and (remaining := deadline - time.monotonic()) > 0:
        for key, _ in selector.select(remaining):
            chunk = b"" if key.data is None else os.read(key.fd, _READ_CHUNK)
            if chunk:
                key.data.add(chunk)
            else:
                selector.unregister(key.fileobj)


def _kill(process: subprocess.Popen[bytes]) -> None:
    # bwrap leads the process group; with it gone, --die-with-parent takes the sandbox's
    # first process and the kernel the rest of its pid namespace.
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _stop_reason(timed_out: bool, exit_code: int | None, cpu_used: float, stderr_tail: bytes,
                limits: RunLimits) -> str | None:
    """Which limit stopped the code, if one did; None when it ended on its own."""
    if timed_out:
        return "wall clock"
    if exit_code == 128 + signal.SIGXCPU or (exit_code == 128 + signal.SIGKILL and cpu_used >= limits.cpu_seconds):
        return "CPU time limit"
    if exit_code != 0 and b"MemoryError" in stderr_tail:
        return "memory limit"
    if exit_code != 0 and b"File too large" in stderr_tail:
        return "file size limit"
    return None


class _BoundedOutput:
    """One stream's output: its head up to the limit, the end of it, and whether it overflowed."""

    def __init__(self, chars: int) -> None:
        self._chars = chars
        # A character takes at most four bytes in UTF-8.
        self._room = chars * 4
        self._head = bytearray()
        self._overflowed = False
        self.tail = b""

    def add(self, chunk: bytes) -> None:
        kept = chunk[: max(self._room - len(self._head), 0)]
        self._head += kept
        self._overflowed = self._overflowed or len(kept) < len(chunk)
        self.tail = (self.tail + chunk)[-_STDERR_TAIL_BYTES:]

    def text(self) -> tuple[str, bool]:
        decoded = self._head.decode(errors="replace")
        return decoded[: self._chars], self._overflowed or len(decoded) > self._chars


def _command(bwrap: Path, limits: RunLimits, mounts: list[str], script: list[str]) -> list[str]:
    """The whole command: drop to the sandbox's uid, enter the sandbox, set the limits, run Python."""
    return [*_privilege_drop(), str(bwrap), *_sandbox_arguments(limits), *mounts,
            PRLIMIT, *_limit_arguments(limits), "--", str(_interpreter()), "-I", "-B", *script]


def _sandbox_arguments(limits: RunLimits) -> list[str]:
    """bwrap's namespaces and mounts: read-only /usr, private /proc, /dev and /tmp, nothing else."""
    return [
        # --unshare-all only tries the user namespace; insist, as --disable-userns needs it.
        "--unshare-all", "--unshare-user", "--disable-userns",
        "--die-with-parent",
        # A new session: the code cannot push keystrokes into a terminal (TIOCSTI).
        "--new-session",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
        "--proc", "/proc", "--dev", "/dev",
        "--size", str(limits.file_mb * 2**20), "--tmpfs", "/tmp",
    ]


def _limit_arguments(limits: RunLimits) -> list[str]:
    # The hard CPU limit one second later kills code that catches SIGXCPU.
    return [
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
        f"--as={limits.memory_mb * 2**20}",
        f"--nproc={limits.processes}",
        f"--fsize={limits.file_mb * 2**20}",
        f"--nofile={OPEN_FILES}",
        "--core=0",
    ]


def _privilege_drop() -> list[str]:
    """setpriv to an unprivileged uid when Deputy runs as root; nothing otherwise."""
    if os.geteuid() != 0:
        return []
    return [SETPRIV, f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_GID}", "--clear-groups", "--no-new-privs"]


def _environment() -> dict[str, str]:
    # Built from nothing, so no Deputy secret in the environment reaches bwrap or the code.
    return {"PATH": "/usr/bin:/bin", "HOME": "/work", "LANG": "C.UTF-8"}


def _interpreter() -> Path | None:
    return next((path for path in INTERPRETERS if path.exists()), None)


def _check_reachable(directory: Path) -> None:
    """bwrap resolves the directory as the sandbox's uid: every parent must let it pass."""
    for parent in directory.parents:
        mode = parent.stat()
        if not (mode.st_mode & 0o001 or (mode.st_uid == SANDBOX_UID and mode.st_mode & 0o100)):
            raise ValueError(f"{directory} cannot be reached by uid {SANDBOX_UID}: {parent} is not searchable; "
                             "make the directory under /tmp, for example with tempfile.mkdtemp()")


def _chown_tree(directory: Path, uid: int, gid: int) -> None:
    # fwalk and dir_fd never follow a symlink, even one the code swapped in for a directory.
    os.chown(directory, uid, gid, follow_symlinks=False)
    for _, dirnames, filenames, dir_fd in os.fwalk(directory):
        for name in (*dirnames, *filenames):
            with suppress(FileNotFoundError):
                os.chown(name, uid, gid, dir_fd=dir_fd, follow_symlinks=False)
