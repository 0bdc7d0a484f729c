"""The browser host: starts each user's keyless browser worker for executors, as a process of its own.

Without it, the executor starts a worker (`deputy.connectors.web.worker`) as its own child, which
for per-user uids means the executor must run as root. With it (`deputy browser-host`, a service
of its own in compose.yaml), the executor forks nothing to browse and runs as an ordinary user;
the host, which holds no Deputy key and reaches neither Redis nor Deputy's data, does the one
thing that needs privilege: starting each worker, confined exactly as the executor would, as the
user's own uid.

It listens on a Unix socket (`DEPUTY_BROWSER_HOST_SOCKET`, on a volume shared with the executors)
that only the executor's uid may connect to: the socket file is that uid's alone, and each
connection's peer uid, as the kernel reports it (SO_PEERCRED), is checked again. One connection
is one worker (`deputy.connectors.web.host_protocol`): after the greeting, the bytes are copied
unchanged between the connection and the worker's standard input and output, so the channel is
exactly as narrow as a child's pipe. There is no way to name another connection's worker.

The worker's Chromium must still reach the network only through the executor's reviewing
proxy, which the executor serves on a socket it makes beside the host's. The host checks that
the socket named in the greeting is a socket the connecting uid made and that no other worker
uses, hands it to the worker's uid (as root) and binds it into the worker; nothing else of the
network is in the worker's namespace.

When a connection ends the worker's driver is told to stop (its input closes) and killed if it
lingers; when a worker ends its connection is closed, so the executor sees the same as a child
dying. Workers die with the host (bubblewrap's `--die-with-parent`), and a restarted host
removes what the dead one left (private directories, proxy sockets nobody listens on).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from deputy.connectors.web.confinement import INSTALL_HINT, BrowserBox, confinement_problem
from deputy.connectors.web.host_protocol import (
    PROXY_SOCKET_PREFIX,
    OpenWorker,
    ProtocolError,
    WorkerOpened,
    WorkerRefused,
    frame,
    parse_open,
    peer_uid,
    proxy_socket_path,
    read_frame,
)
from deputy.connectors.web.reachable_driver import unreachable
from deputy.connectors.web.worker import worker_command

log = logging.getLogger(__name__)

GREETING_TIMEOUT = 10.0
STOP_GRACE = 10.0
"""Seconds a worker's driver has to close its browser after its executor hung up, before it is killed."""
STALE_AFTER = 60.0
"""A proxy socket nobody listens on is removed once it is this old (never one still being set up)."""
_CHUNK = 65536


class HostConfig(BaseModel):
    """Where the host listens, whom it serves, and how it starts browsers."""

    model_config = ConfigDict(frozen=True)

    socket: Path
    executor_uid: int
    """The only uid whose connections are served: the executors'."""
    executable_path: str = "/usr/bin/chromium"
    bwrap_path: str = "/usr/bin/bwrap"


class HostSetupError(Exception):
    """The host cannot serve as configured; the message says what to change."""


@dataclass(eq=False)
class _Hosted:
    """One connection's worker: its private directory, its process and its proxy socket."""

    box: BrowserBox
    process: asyncio.subprocess.Process
    proxy_socket: Path
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class BrowserHost:
    """Serve `config.socket` until `close()`; see the module docstring."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self._as_root = os.geteuid() == 0
        self._server: asyncio.AbstractServer | None = None
        self._proxies_in_use: set[str] = set()
        self._hosted: set[_Hosted] = set()

    @property
    def workers(self) -> list[int]:
        """Process ids of the workers running now."""
        return [hosted.process.pid for hosted in self._hosted]

    async def start(self) -> None:
        """Listen; `HostSetupError` when another host already serves the socket or the uids cannot meet."""
        path, uid = self.config.socket, self.config.executor_uid
        if not self._as_root and uid != os.geteuid():
            raise HostSetupError(f"the browser host runs as uid {os.geteuid()}, so it can serve only that uid, not "
                                 f"{uid}: run it as root (each user's browser gets a uid of its own) or as the executor's user")
        path.parent.mkdir(mode=0o711, parents=True, exist_ok=True)
        blocked = unreachable(path.parent)
        if self._as_root and blocked is not None:
            raise HostSetupError(f"{blocked} is not searchable by others, so the browsers' own uids cannot reach "
                                 f"their proxy sockets in {path.parent}: make it (and its parents) mode 711 or 755")
        if _answers(path):
            raise HostSetupError(f"another browser host is serving on {path}")
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        await asyncio.to_thread(sweep_stale_proxy_sockets, path.parent)
        mask = os.umask(0o077)  # the socket is born closed to everyone but its owner...
        try:
            self._server = await asyncio.start_unix_server(self._serve, str(path), limit=_CHUNK)
        finally:
            os.umask(mask)
        path.chmod(0o600)
        if self._as_root:
            os.chown(path, uid, -1)  # ...and handed to the executors' uid
        problem = await asyncio.to_thread(confinement_problem, Path(self.config.bwrap_path))
        if problem is not None:
            log.error("browsers cannot be confined here, so every page will fail: %s. %s", problem, INSTALL_HINT)
        log.info("browser host serving uid %d on %s", uid, path)

    async def close(self) -> None:
        """Stop listening and end every worker."""
        if self._server is not None:
            self._server.close()
            self._server = None
            with contextlib.suppress(FileNotFoundError):
                self.config.socket.unlink()
        for hosted in list(self._hosted):
            for task in hosted.tasks:
                task.cancel()
            await _end(hosted)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        uid = peer_uid(writer.get_extra_info("socket"))
        try:
            if uid != self.config.executor_uid:
                log.warning("refused a connection from uid %d: the browser host serves uid %d only", uid,
                            self.config.executor_uid)
                await _answer(writer, WorkerRefused(refused=f"uid {uid} may not use the browser host"))
                return
            try:
                request = parse_open(await asyncio.wait_for(read_frame(reader), GREETING_TIMEOUT))
            except (ProtocolError, TimeoutError) as exc:
                log.warning("a connection from uid %d did not greet as an executor: %s", uid, exc)
                return
            hosted = await self._open(request, uid, writer)
            if hosted is None:
                return
            try:
                await _answer(writer, WorkerOpened(launcher=str(hosted.box.launcher), worker_pid=hosted.process.pid))
                await self._splice(hosted, reader, writer)
            finally:
                self._hosted.discard(hosted)
                self._proxies_in_use.discard(hosted.proxy_socket.name)
                await _end(hosted)
        except (ConnectionError, OSError) as exc:
            log.info("a browser connection ended: %s", exc)
        finally:
            writer.transport.abort()

    async def _open(self, request: OpenWorker, uid: int, writer: asyncio.StreamWriter) -> _Hosted | None:
        """Start the worker `request` asks for, or answer why not (and return None)."""
        problem = await asyncio.to_thread(confinement_problem, Path(self.config.bwrap_path))
        if problem is not None:
            await _answer(writer, WorkerRefused(refused=f"{INSTALL_HINT} ({problem}.)", unconfinable=True))
            return None
        proxy = proxy_socket_path(self.config.socket, request.proxy_socket)
        refusal = self._proxy_refusal(proxy, uid)
        if refusal is not None:
            await _answer(writer, WorkerRefused(refused=refusal))
            return None
        self._proxies_in_use.add(proxy.name)
        box: BrowserBox | None = None
        try:
            box = await asyncio.to_thread(BrowserBox, self.config.executable_path, Path(self.config.bwrap_path),
                                          for_worker=True, user_id=request.user_id, proxy_socket=proxy)
            box.admit_sandbox()
            command = await asyncio.to_thread(worker_command, box.directory, Path(self.config.bwrap_path),
                                              as_root=self._as_root, uid=box.uid, proxy_socket=proxy)
            process = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=_CHUNK,
                # Not even bwrap sees the host's environment.
                env={"PATH": "/usr/bin:/bin"},
            )
        except (OSError, RuntimeError) as exc:
            self._proxies_in_use.discard(proxy.name)
            if box is not None:
                box.remove()
            log.warning("a browser worker could not be started: %s", exc)
            await _answer(writer, WorkerRefused(refused=f"the browser worker could not be started: {exc}"[:800]))
            return None
        hosted = _Hosted(box, process, proxy)
        self._hosted.add(hosted)
        log.info("started a browser worker (pid %d) as uid %d", process.pid, box.uid if self._as_root else os.geteuid())
        return hosted

    def _proxy_refusal(self, proxy: Path, uid: int) -> str | None:
        if proxy.name in self._proxies_in_use:
            return "that proxy socket already serves another browser"
        try:
            found = proxy.lstat()
        except OSError:
            return f"no proxy socket {proxy.name} beside the browser host's socket"
        if not stat.S_ISSOCK(found.st_mode) or found.st_uid != uid:
            return f"{proxy.name} is not a socket made by the connecting executor"
        return None

    async def _splice(self, hosted: _Hosted, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy bytes both ways until either side ends; then the other is ended too."""
        process = hosted.process
        assert process.stdin is not None and process.stdout is not None
        upward = asyncio.ensure_future(_copy(reader, process.stdin))
        downward = asyncio.ensure_future(_copy(process.stdout, writer))
        hosted.tasks = [upward, downward]
        try:
            done, _ = await asyncio.wait(hosted.tasks, return_when=asyncio.FIRST_COMPLETED)
            if upward in done:
                # The executor hung up: the driver closes its browser when its input ends.
                process.stdin.close()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), STOP_GRACE)
        finally:
            for task in hosted.tasks:
                task.cancel()
            await asyncio.gather(*hosted.tasks, return_exceptions=True)


async def _copy(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await source.read(_CHUNK):
            target.write(data)
            await target.drain()


async def _answer(writer: asyncio.StreamWriter, message: WorkerOpened | WorkerRefused) -> None:
    writer.write(frame(message))
    await writer.drain()


async def _end(hosted: _Hosted) -> None:
    """Kill the worker if it still runs, wait for it, and remove its directory and proxy socket."""
    if hosted.process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            hosted.process.kill()
    await hosted.process.wait()
    hosted.box.remove()
    with contextlib.suppress(FileNotFoundError):
        hosted.proxy_socket.unlink()


def _answers(path: Path) -> bool:
    """Something may listen on the Unix socket `path`: only a refused connection (or no file) says nobody does."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(2)
        probe.connect(str(path))
        return True
    except (ConnectionRefusedError, FileNotFoundError):
        return False
    except OSError:
        return True
    finally:
        probe.close()


def sweep_stale_proxy_sockets(directory: Path, now: float | None = None) -> None:
    """Remove proxy sockets left by executors that died: older than a minute, and nobody listening.

    Executors in several containers share the directory, so a process id says nothing here;
    a listener answering a connection does.
    """
    now = time.time() if now is None else now
    for path in directory.glob(f"{PROXY_SOCKET_PREFIX}*.sock"):
        try:
            if not stat.S_ISSOCK(path.lstat().st_mode) or now - path.lstat().st_mtime < STALE_AFTER:
                continue
            if not _answers(path):
                path.unlink()
        except OSError:
            continue
