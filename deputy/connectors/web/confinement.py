"""Where one user's confined browser gets its launcher and its proxy socket; whether it can be confined here.

A confined browser (`deputy.connectors.web.launcher`) reaches the network only through its
reviewing proxy's Unix socket, and Playwright starts it through a small script. Each open
browser gets a private directory holding both: the script (root's alone when Deputy runs as
root, since root runs it) and the socket (handed to the sandbox's uid, which must connect to it).
The directory goes when the browser closes. It is made in the temporary directory (`TMPDIR`,
else /tmp), which must therefore let root run the script there (not mounted `noexec`) and, when
Deputy runs as root, let others pass through it, as /tmp does.

The switch `BrowserConfig.confined` (`DEPUTY_BROWSER_CONFINED`) is on by default. When it is on
and bubblewrap cannot build the sandbox here, the browser does not start at all and
`confinement_problem` says why; only an operator turning the switch off runs Chromium unconfined.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from deputy.connectors.web import launcher, relay

BWRAP = Path("/usr/bin/bwrap")
SETPRIV = Path("/usr/bin/setpriv")
# Debian's interpreter first, then the one the official Python images install under /usr/local:
# the relay runs with what the sandbox's read-only /usr holds.
SANDBOX_PYTHONS = (Path("/usr/bin/python3"), Path("/usr/local/bin/python3"))
_PREFIX = "deputy-browser-"
RELAY_PORT = 3128
"""Where the relay listens on the sandbox's own loopback (every sandbox has its own)."""

# Python 3.11 has no os.unshare; CLONE_NEWUSER is 0x10000000.
_NESTED_USERNS = (
    "import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True)\n"
    "if libc.unshare(0x10000000):\n"
    "    sys.exit('nested user namespaces are not allowed: ' + os.strerror(ctypes.get_errno()))"
)

INSTALL_HINT = (
    "The browser runs confined by bubblewrap (the `bubblewrap` package) and needs unprivileged user "
    "namespaces; install it with `apt-get install bubblewrap`. In a container the runtime must allow "
    "user namespaces (for Docker: a seccomp profile that permits `unshare` and `clone`). To run the "
    "browser unconfined instead, set DEPUTY_BROWSER_CONFINED=false."
)


class BrowserBox:
    """One browser's private directory: the launcher script Playwright runs, and the proxy socket."""

    def __init__(self, executable: str, bwrap: Path = BWRAP, *, for_worker: bool = False, user_id: int = 0,
                 proxy_socket: Path | None = None) -> None:
        """`proxy_socket`: where the reviewing proxy listens when another process serves it (the executor,
        for a worker the browser host starts); by default it listens in this directory."""
        sweep_abandoned()
        self.uid = launcher.sandbox_uid(user_id)
        """The uid the browser (and its worker) runs as when Deputy runs as root: the user's own."""
        self.directory = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-"))
        # Others may pass through to the socket (bwrap binds it as the sandbox's uid), not list or write.
        self.directory.chmod(0o711)
        self.socket = proxy_socket if proxy_socket is not None else self.directory / "proxy.sock"
        self.launcher = self.directory / "launch"
        python, script, relay_script = sys.executable, launcher.__file__, relay.__file__
        if for_worker:
            # A keyless worker (`deputy.connectors.web.worker`) runs the launcher, and sees only this
            # directory and /usr: copies of the two standard-library scripts, run by the system's Python.
            python, script, relay_script = str(_sandbox_python()), str(self.directory / "launcher.py"), str(
                self.directory / "relay.py")
            shutil.copyfile(launcher.__file__, script)
            shutil.copyfile(relay.__file__, relay_script)
        plan = {
            "bwrap": str(bwrap),
            "setpriv": str(SETPRIV),
            "python": str(_sandbox_python()),
            "relay": relay_script,
            "socket": str(self.socket),
            "port": RELAY_PORT,
            "executable": executable,
            "uid": self.uid,
        }
        command = [python, "-I", "-B", script, json.dumps(plan)]
        self.launcher.write_text(f"#!/bin/sh\nexec {shlex.join(command)} \"$@\"\n")
        # Root's alone when root runs it; a worker's uid may run it (and read the copies), never change them.
        self.launcher.chmod(0o755 if for_worker else 0o700)
        for copy in (script, relay_script) if for_worker else ():
            Path(copy).chmod(0o644)

    @property
    def proxy_server(self) -> str:
        """The proxy address Chromium is given: the relay inside its sandbox."""
        return f"http://127.0.0.1:{RELAY_PORT}"

    def admit_sandbox(self) -> None:
        """Let the sandbox's uid connect to the proxy socket (once the proxy listens on it)."""
        if os.geteuid() == 0:
            os.chown(self.socket, self.uid, self.uid, follow_symlinks=False)
        self.socket.chmod(0o600)

    def remove(self) -> None:
        """Remove the directory (a proxy socket outside it is its server's to remove)."""
        shutil.rmtree(self.directory, ignore_errors=True)


def sweep_abandoned(temporary: Path | None = None) -> None:
    """Remove the directories of browsers whose process has ended without closing them.

    A forking executor's job ends with its process, never closing its browser; the directory
    names the process that made it, so the next browser launched on the machine removes it.
    """
    for directory in Path(temporary or tempfile.gettempdir()).glob(f"{_PREFIX}*-*"):
        maker = directory.name.removeprefix(_PREFIX).split("-", 1)[0]
        if not maker.isdigit() or directory.lstat().st_uid != os.geteuid():
            continue
        try:
            os.kill(int(maker), 0)
        except ProcessLookupError:
            shutil.rmtree(directory, ignore_errors=True)
        except PermissionError:
            pass  # alive, as someone else


@functools.cache
def confinement_problem(bwrap: Path = BWRAP) -> str | None:
    """None when a browser can be confined here with `bwrap`, else a plain reason for the operator. Probed once."""
    if not bwrap.exists():
        return f"bubblewrap is not installed (no {bwrap})"
    if os.geteuid() == 0 and not SETPRIV.exists():
        return f"setpriv is not installed (no {SETPRIV}), so the browser cannot leave root"
    if _sandbox_python() is None:
        return "no Python interpreter under /usr for the browser's network relay"
    probe_uid = launcher.SANDBOX_UID_BASE  # as any user's browser would run
    drop = [str(SETPRIV), f"--reuid={probe_uid}", f"--regid={probe_uid}", "--clear-groups"]
    probe = [
        *(drop if os.geteuid() == 0 else []),
        str(bwrap), "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
        "--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
        # Chromium's own sandbox makes user namespaces inside this one: they must be allowed too.
        str(_sandbox_python()), "-I", "-c", _NESTED_USERNS,
    ]  # fmt: skip
    try:
        ran = subprocess.run(probe, env={"PATH": "/usr/bin:/bin"}, stdin=subprocess.DEVNULL, capture_output=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not be started: {error}"
    if ran.returncode != 0:
        said = ran.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap could not build the browser's sandbox: {said[-1] if said else f'exit {ran.returncode}'}"
    return None


def _sandbox_python() -> Path | None:
    return next((path for path in SANDBOX_PYTHONS if path.exists()), None)
