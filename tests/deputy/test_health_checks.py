"""Liveness and readiness checks report what they claim: a stuck loop, an unreachable model endpoint."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from deputy.runtime.health import HealthServer, LoopProbe, model_check
from deputy.core.infrastructure.ports import free_port


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(timeout=5)
    running.close()


def test_a_loop_that_runs_callbacks_is_alive_and_a_blocked_one_is_not(loop: asyncio.AbstractEventLoop) -> None:
    probe = LoopProbe(patience=0.5)
    assert probe()  # not bound yet: still starting
    probe.bind(loop)
    assert probe()
    released = threading.Event()
    loop.call_soon_threadsafe(lambda: released.wait(10))  # something blocks the loop
    try:
        assert not probe()
    finally:
        released.set()


class _Models(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        ok = self.path == "/v1/models" and self.headers.get("Authorization") == "Bearer right-key"
        self.send_response(200 if ok else 401)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def models_endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_the_gateway_is_ready_only_when_its_model_endpoint_answers_with_this_key(models_endpoint: str) -> None:
    assert model_check(models_endpoint, "right-key")()
    assert not model_check(models_endpoint, "wrong-key")()  # every call would fail: not ready
    assert not model_check(f"http://127.0.0.1:{free_port()}/v1", "right-key")()


def test_the_server_names_what_is_unreachable_and_refuses_a_taken_port() -> None:
    server = HealthServer("127.0.0.1", free_port(), lambda: True, {"redis": lambda: False, "model": lambda: True}).start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        assert httpx.get(f"{base}/healthz").status_code == 200
        answer = httpx.get(f"{base}/readyz")
        assert answer.status_code == 503 and answer.text == "not ready: redis unreachable\n"
        assert httpx.get(f"{base}/metrics").status_code == 404  # none given
        with pytest.raises(SystemExit, match="its own port"):
            HealthServer("127.0.0.1", server.port, lambda: True, {})
    finally:
        server.stop()
