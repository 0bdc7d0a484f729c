"""One user's browser worker: the Playwright driver and Chromium, in a process that holds no keys.

The executor holds the vault, issuer and mandate keys and reaches Redis. Nothing of that
belongs next to the program that drives a browser rendering pages an attacker may write.
So each open browser gets a worker of its own: Playwright's driver (`node cli.js
run-driver`), started by bubblewrap as an unprivileged uid (when Deputy runs as root, one of
the user's own, `launcher.sandbox_uid`: no two users' browsers share a uid), with an
environment built from nothing and namespaces of its own:

- files: read-only `/usr`, the few `/etc` files Chromium reads, Playwright's driver, and the
  browser's private directory (its launcher and its proxy's socket); `/tmp` (where the
  profile lives) is private memory. No data directory, no vault key file, no Deputy code;
- network: its own empty namespace. Redis, the issuer and every other service are out of
  reach; pages reach the web only through the user's reviewing proxy, whose socket is in
  the private directory;
- processes: its own PID namespace; it dies with the executor.

The channel is the worker's standard input and output: Playwright's JSON protocol, one
message per request (open a page, click, fill a field, read it, take a picture). A value
the executor holds (the password of this login, the single-use card of this checkout)
crosses it only inside the one `fill` that types it. Route handlers, the page guard and the
reviewing proxy stay in the executor: every request the worker's Chromium makes is still
reviewed there. Chromium itself starts through the usual launcher
(`deputy.connectors.web.launcher`) in a sandbox nested inside the worker's.

If the worker dies, the pipe closes and every call in flight fails at once: the session is
dead, and an operation that had already sent a form ends as "outcome unknown"
(`deputy.connectors.web.browser`).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from playwright._impl._driver import compute_driver_executable
from playwright._impl.connection import Connection
from playwright._impl.out_of_process import PlaywrightClient
from playwright._impl.transport import PipeTransport, _get_stderr_fileno
from playwright.async_api import Playwright
from playwright.async_api._generated import Playwright as AsyncPlaywright

from deputy.connectors.web import launcher
from deputy.connectors.web.confinement import SETPRIV
from deputy.connectors.web.reachable_driver import driver_for_others

DRIVER_ENV = {"PW_LANG_NAME": "python", "PW_LANG_NAME_VERSION": "3", "PW_CLI_DISPLAY_VERSION": "deputy"}


def worker_command(box: Path, bwrap: Path, *, as_root: bool, uid: int, proxy_socket: Path | None = None) -> list[str]:
    """The command that starts a keyless driver whose private directory is `box`, as `uid` when root.

    `proxy_socket`: the browser's reviewing proxy listens outside `box` (another process's, on a
    volume shared with it): bound into the worker at the same path, the one way its Chromium gets out.
    """
    if as_root:
        node, cli, found = driver_for_others()
    else:
        node, cli = compute_driver_executable()
        found = Path(cli).parent.parent  # .../playwright/driver: node and the package
    driver = str(found)
    drop = [str(SETPRIV), f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] if as_root else []
    etc = [arg for path in launcher.ETC_READ if os.path.exists(path) for arg in ("--ro-bind", path, path)]
    env = [arg for name, value in DRIVER_ENV.items() for arg in ("--setenv", name, value)]
    return [
        *drop,
        str(bwrap),
        "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--unshare-net",
        "--die-with-parent",
        "--new-session",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        *etc,
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
        # After the private /tmp, so that a driver kept below /tmp (a checkout there) is not hidden by it.
        "--ro-bind", driver, driver,
        "--bind", str(box), str(box),
        *(("--ro-bind", str(proxy_socket), str(proxy_socket)) if proxy_socket is not None else ()),
        "--clearenv",
        "--setenv", "HOME", "/tmp", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
        "--setenv", "TMPDIR", "/tmp", *env,
        "--chdir", "/tmp",
        node, cli, "run-driver",
    ]  # fmt: skip


class _WorkerTransport(PipeTransport):
    """Playwright's pipe to its driver, where the driver is the worker's command, started with `env` only."""

    def __init__(self, loop: asyncio.AbstractEventLoop, command: list[str]) -> None:
        super().__init__(loop)
        self._command = command

    async def connect(self) -> None:
        self._stopped_future = asyncio.Future()
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self._command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=_get_stderr_fileno(),
                limit=32768,
                # Not even bwrap sees the executor's environment: /proc/<bwrap>/environ stays clean.
                env={"PATH": "/usr/bin:/bin"},
            )
        except OSError as exc:
            self.on_error_future.set_exception(exc)
            raise
        self._output = self._proc.stdin


class WorkerClient(PlaywrightClient):
    """Playwright's client (`out_of_process.PlaywrightClient`) over a worker's channel instead of a local driver.

    `transport` is a `PipeTransport` whose `_proc` is the worker (its pipes), or a stand-in with
    the same shape for a worker reached through the browser host (`deputy.connectors.web.hosted_worker`).
    """

    def __init__(self, transport: PipeTransport) -> None:
        loop = asyncio.get_running_loop()
        self._close_promise = loop.create_future()
        connection = Connection(loop)
        self._transport = transport
        self._connection = connection
        connection.onmessage = lambda message: transport.send(message)

        def on_message(message: object) -> None:
            try:
                connection.dispatch(message)  # type: ignore[arg-type]
            except Exception as error:
                connection._on_event_listener_error(error)

        transport.on_message = on_message
        self._playwright = asyncio.ensure_future(self._run(connection))


class BrowserWorker:
    """A running worker: the `Playwright` that drives it, its process id, and `stop`."""

    def __init__(self, client: WorkerClient, playwright: Playwright, launcher: str | None = None) -> None:
        self._client = client
        self.playwright = playwright
        self.launcher = launcher
        """The browser executable to launch, when the worker's host chose it (else the caller's box has it)."""

    @property
    def pid(self) -> int:
        """The process that was started (setpriv/bwrap), by this or the host's process; the driver runs below it."""
        return self._client._transport._proc.pid  # type: ignore[attr-defined]

    @property
    def running(self) -> bool:
        return self._client._transport._proc.returncode is None  # type: ignore[attr-defined]

    async def stop(self) -> None:
        """End the worker; it takes its browser with it."""
        try:
            await asyncio.wait_for(self._client.stop(), 10)
        except TimeoutError:
            pass
        if self.running:
            self._client._transport._proc.kill()  # type: ignore[attr-defined]


async def start_worker(box: Path, bwrap: Path, uid: int) -> BrowserWorker:
    """Start a keyless worker (as `uid` when root) whose browser will use the launcher and proxy socket in `box`."""
    as_root = os.geteuid() == 0
    client = WorkerClient(_WorkerTransport(asyncio.get_running_loop(), worker_command(box, bwrap, as_root=as_root,
                                                                                       uid=uid)))
    impl = await client._playwright
    return BrowserWorker(client, AsyncPlaywright(impl))
