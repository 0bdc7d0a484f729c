"""Stand-ins for what surrounds bot replicas in production, for the webhook tests.

- `LoadBalancer`: the one public address. Round robin over the replicas; a replica that
  refuses the connection (dead) is skipped, as a load balancer's health checks would;
  one that dies after taking a request gets the caller a 502 (a POST is not re-sent by
  the balancer: Telegram retries it).
- `Gate`: a replica's way out to the Bot API. `hold()` stops its traffic from that moment
  (as when a machine drops off the network before it dies), so a test knows which updates
  the replica had not answered when it is killed.

Both are small aiohttp proxies, run on an event loop in a background thread so that
synchronous tests can drive the real processes around them.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections import Counter
from collections.abc import Coroutine
from typing import Any

import aiohttp
from aiohttp import web

from deputy.core.infrastructure.ports import free_port

_HOP_BY_HOP = {"host", "content-length", "transfer-encoding", "connection", "keep-alive"}


class LoopThread:
    """An asyncio loop in a daemon thread; `run` waits for a coroutine's result."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="proxies", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)


class _Proxy:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60))

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raise NotImplementedError

    async def _forward(self, request: web.Request, base: str, body: bytes) -> web.Response:
        assert self._session is not None
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        async with self._session.request(request.method, base + request.path_qs, data=body, headers=headers) as r:
            content = await r.read()
            kept = {k: v for k, v in r.headers.items() if k.lower() in ("content-type", "retry-after")}
            return web.Response(status=r.status, body=content, headers=kept)


class LoadBalancer(_Proxy):
    """Round robin over `backends` (base URLs), skipping those that refuse connections."""

    def __init__(self, backends: list[str]) -> None:
        super().__init__()
        self.backends = backends
        self._turn = itertools.count()
        self.outstanding: Counter[str] = Counter()  # requests a backend holds unanswered
        self.answered: Counter[tuple[str, int]] = Counter()  # (backend, status) -> count

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        for _ in range(len(self.backends)):
            backend = self.backends[next(self._turn) % len(self.backends)]
            self.outstanding[backend] += 1
            try:
                response = await self._forward(request, backend, body)
            except aiohttp.ClientConnectorError:
                continue  # nobody listening there: the next backend
            except aiohttp.ClientError:
                return web.Response(status=502, text="the backend went away")
            finally:
                self.outstanding[backend] -= 1
            self.answered[(backend, response.status)] += 1
            return response
        return web.Response(status=503, text="no backend is up")


class Gate(_Proxy):
    """Forwards to `target` until `hold()`; from then on requests are kept, never forwarded."""

    def __init__(self, target: str) -> None:
        super().__init__()
        self._target = target
        self.holding = False
        self.held = 0
        self._never = asyncio.Event()

    def hold(self) -> None:
        self.holding = True

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        if self.holding:
            self.held += 1
            await self._never.wait()  # until the test ends
        return await self._forward(request, self._target, body)
