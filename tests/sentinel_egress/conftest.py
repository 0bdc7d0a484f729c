"""A real local web server for the egress transport and browser tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

PAGE = """<!doctype html><html><head><title>Local page</title></head><body>
<h1>Hello</h1>
<script>
  window.outcomes = {};
  function settle(id, outcome) { window.outcomes[id] = outcome; }
</script>
<img id="private" src="http://10.1.2.3/pixel.png" onload="settle(this.id,'loaded')" onerror="settle(this.id,'failed')">
<img id="leak" src="http://127.0.0.1:{port}/pixel.png?e=alice%40example.com"
     onload="settle(this.id,'loaded')" onerror="settle(this.id,'failed')">
<img id="rebound" src="http://evil.test:{port}/pixel.png" onload="settle(this.id,'loaded')"
     onerror="settle(this.id,'failed')">
<img id="fine" src="http://127.0.0.1:{port}/pixel.png?ok=1" onload="settle(this.id,'loaded')"
     onerror="settle(this.id,'failed')">
<script>
  fetch("http://169.254.169.254/latest/meta-data/").then(
    () => settle("metadata", "loaded"), () => settle("metadata", "failed"));
</script>
</body></html>"""

SOCKET_PAGE = """<!doctype html><html><body><script>
  window.log = [];
  const blocked = new WebSocket("ws://10.1.2.3/ws");
  blocked.onclose = () => window.log.push("private socket closed");
  const socket = new WebSocket("ws://127.0.0.1:{port}/ws");
  socket.onopen = () => socket.send("hello");
  socket.onmessage = (event) => {
    window.log.push(event.data);
    socket.send("my address is alice@example.com");
  };
  socket.onclose = () => window.log.push("socket closed");
</script></body></html>"""

# A 1x1 transparent GIF.
PIXEL = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


@dataclass
class LocalSite:
    """A server on 127.0.0.1 that records every request it receives."""

    port: int
    hits: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    """Every WebSocket message the server received."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
async def site() -> AsyncIterator[LocalSite]:
    local = LocalSite(port=0)

    @web.middleware
    async def record(request: web.Request, handler):  # type: ignore[no-untyped-def]
        local.hits.append(request.path_qs)
        return await handler(request)

    async def ok(request: web.Request) -> web.Response:
        return web.Response(text="hello")

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound(request.query["to"])

    async def echo(request: web.Request) -> web.Response:
        return web.json_response({"host": request.host, "body": await request.text(), "method": request.method})

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=PAGE.replace("{port}", str(local.port)), content_type="text/html")

    async def pixel(request: web.Request) -> web.Response:
        return web.Response(body=PIXEL, content_type="image/gif")

    async def socket_page(request: web.Request) -> web.Response:
        return web.Response(text=SOCKET_PAGE.replace("{port}", str(local.port)), content_type="text/html")

    async def echo_socket(request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        async for message in socket:
            local.messages.append(message.data)
            await socket.send_str(f"echo: {message.data}")
        return socket

    app = web.Application(middlewares=[record])
    app.add_routes(
        [
            web.get("/ok", ok),
            web.get("/redirect", redirect),
            web.route("*", "/echo", echo),
            web.get("/", page),
            web.get("/pixel.png", pixel),
            web.get("/sockets", socket_page),
            web.get("/ws", echo_socket),
        ]
    )
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    local.port = runner.addresses[0][1]
    try:
        yield local
    finally:
        await runner.cleanup()
