"""`/healthz`, `/readyz` and `/metrics` of a long-running process, on a port of its own.

- `/healthz` (liveness): the process's own loop still turns: an asyncio process's event
  loop runs a callback within a few seconds (`LoopProbe`), an RQ worker heartbeats
  (`RQWorkerProbe`). 503 means restart it.
- `/readyz` (readiness): what the process needs answers: Redis (a PING, through Sentinel
  when configured), and for the model gateway its model endpoint. 503 means send it no
  traffic for now; it recovers by itself when they are back.
- `/metrics`: Prometheus text (`deputy.core.infrastructure.metrics`).

The server is the standard library's, in a daemon thread, so it answers whatever the
process's own loop is doing (a blocked loop is exactly what `/healthz` must report). It is
started only when `DEPUTY_HEALTH_PORT` is set; every request is answered in a few
seconds at most, and nothing about users is ever in an answer.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from redis.exceptions import RedisError

from deputy.core.infrastructure.redis_clients import probe_client

log = logging.getLogger(__name__)

Check = Callable[[], bool]
LOOP_PATIENCE = 5.0  # seconds an event loop may take to run a callback before it counts as stuck


class LoopProbe:
    """Liveness of an asyncio process: its event loop runs a callback in time. Bound from inside the loop."""

    def __init__(self, patience: float = LOOP_PATIENCE) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._patience = patience

    def bind(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop or asyncio.get_running_loop()

    @classmethod
    def running(cls) -> "LoopProbe":
        """A probe of the loop this is called from."""
        probe = cls()
        probe.bind()
        return probe

    async def bind_running(self, *_: Any) -> None:
        """`bind` as a start-up callback (aiohttp's `on_startup`)."""
        self.bind()

    def before(self, callback: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
        """A start-up callback that binds, then runs `callback` (python-telegram-bot's `post_init`)."""
        async def start(app: Any) -> None:
            self.bind()
            if callback is not None:
                await callback(app)
        return start

    def __call__(self) -> bool:
        loop = self._loop
        if loop is None:
            return True  # still starting up
        if loop.is_closed():
            return False
        answered = threading.Event()
        try:
            loop.call_soon_threadsafe(answered.set)
        except RuntimeError:
            return False
        return answered.wait(self._patience)


class RQWorkerProbe:
    """Liveness of an RQ worker: it heartbeated within its own time to live, and its helper threads run."""

    def __init__(self, worker: Any, threads: Sequence[threading.Thread] = ()) -> None:
        self._worker = worker
        self._threads = list(threads)
        self._started = time.time()

    def __call__(self) -> bool:
        if not all(thread.is_alive() for thread in self._threads):
            return False
        beat: datetime | None = self._worker.last_heartbeat
        last = beat.replace(tzinfo=timezone.utc).timestamp() if beat is not None else self._started
        # RQ heartbeats before each wait for a job (at most worker_ttl - 15 s apart) and while a job runs.
        return time.time() - last < self._worker.worker_ttl + 60


def redis_check(url: str) -> Check:
    """Ready when Redis answers PING within a second or two (the primary, behind Sentinel)."""
    client = probe_client(url)

    def check() -> bool:
        try:
            return bool(client.ping())
        except (RedisError, OSError):
            return False

    return check


def model_check(base_url: str, api_key: str | None, cache_seconds: float = 10.0) -> Check:
    """Ready when the model endpoint answers `GET /models` with 2xx (a wrong key counts as not ready).

    Answers are kept for `cache_seconds`, so frequent probes do not become calls to a provider.
    """
    url = base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    last: dict[str, float | bool] = {"at": 0.0, "ok": False}
    lock = threading.Lock()

    def check() -> bool:
        with lock:
            if time.monotonic() - float(last["at"]) < cache_seconds:
                return bool(last["ok"])
            try:
                ok = httpx.get(url, headers=headers, timeout=3.0).is_success
            except httpx.HTTPError:
                ok = False
            last.update(at=time.monotonic(), ok=ok)
            return ok

    return check


class HealthServer:
    """The three endpoints, served from a daemon thread until the process exits (or `stop`)."""

    def __init__(self, host: str, port: int, live: Check, ready: dict[str, Check],
                 metrics: Callable[[], bytes] | None = None) -> None:
        self.live = live
        self.ready = ready
        self.metrics = metrics
        try:
            self._server = ThreadingHTTPServer((host, port), _handler(self))
        except OSError as exc:
            raise SystemExit(f"DEPUTY_HEALTH_PORT: cannot listen on {host}:{port} ({exc.strerror}). "
                             "Give each Deputy process on a machine its own port.") from None
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]

    def start(self) -> "HealthServer":
        threading.Thread(target=self._server.serve_forever, name="health", daemon=True).start()
        log.info("health checks on port %d: /healthz /readyz /metrics", self.port)
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def readiness(self) -> tuple[bool, str]:
        failing = [name for name, check in self.ready.items() if not _safely(check)]
        if failing:
            return False, "not ready: " + ", ".join(f"{name} unreachable" for name in failing) + "\n"
        return True, "ready\n"


def _safely(check: Check) -> bool:
    try:
        return bool(check())
    except Exception:
        log.exception("health check failed")
        return False


def _handler(health: HealthServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            path = self.path.split("?", 1)[0]
            if path == "/healthz":
                alive = _safely(health.live)
                self._answer(200 if alive else 503, b"ok\n" if alive else b"not alive: the process loop is stuck\n")
            elif path == "/readyz":
                ready, text = health.readiness()
                self._answer(200 if ready else 503, text.encode())
            elif path == "/metrics" and health.metrics is not None:
                self._answer(200, health.metrics(), "text/plain; version=0.0.4; charset=utf-8")
            else:
                self._answer(404, b"not found: try /healthz, /readyz or /metrics\n")

        def _answer(self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # probes every few seconds: debug only
            log.debug("health: " + format, *args)

    return Handler


def serve_health(port: int | None, host: str, live: Check, ready: dict[str, Check],
                 collectors: Sequence[Any] = ()) -> HealthServer | None:
    """Start the endpoints on `port` (DEPUTY_HEALTH_PORT) with this process's metrics; None when unset."""
    if not port:
        return None
    from deputy.core.infrastructure.metrics import Exposition  # prometheus_client: loaded only where metrics are served

    return HealthServer(host, port, live, ready, Exposition(collectors).render).start()
