"""A real local web server with the awkward answers the HTTP connector must handle."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

PAGE = """<!doctype html><html><head><title>Cheap flights</title><style>p {color: red}</style></head>
<body><h1>Flights to Lisbon</h1><p>From <b>$389</b> return.</p>
<script>var tracking = "ignore me";</script>
<a href="/deals?city=lis">See deals</a></body></html>"""


def build_app() -> web.Application:
    async def page(request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(float(request.query.get("seconds", "3")))
        return web.Response(text="late")

    async def huge(request: web.Request) -> web.Response:
        return web.Response(text="x" * 3_000_000)

    async def huge_chunked(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        for _ in range(300):
            await response.write(b"y" * 10_000)
        await response.write_eof()
        return response

    async def image(request: web.Request) -> web.Response:
        return web.Response(body=b"\x89PNG\r\n\x1a\n" + bytes(200), content_type="image/png")

    async def long_text(request: web.Request) -> web.Response:
        return web.Response(text="abcdefghij" * 5_000)

    async def echo(request: web.Request) -> web.Response:
        return web.json_response(
            {"method": request.method, "body": await request.text(), "type": request.headers.get("Content-Type")}
        )

    async def missing(request: web.Request) -> web.Response:
        return web.Response(status=404, text="no such page")

    async def latin1(request: web.Request) -> web.Response:
        return web.Response(
            body="café crème".encode("latin-1"), headers={"Content-Type": "text/plain; charset=latin-1"}
        )

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound(request.query["to"])

    async def loop(request: web.Request) -> web.Response:
        raise web.HTTPFound("/loop")

    app = web.Application()
    app.add_routes(
        [
            web.get("/page", page),
            web.get("/slow", slow),
            web.get("/huge", huge),
            web.get("/huge-chunked", huge_chunked),
            web.get("/image", image),
            web.get("/long", long_text),
            web.route("*", "/echo", echo),
            web.get("/missing", missing),
            web.get("/latin1", latin1),
            web.get("/redirect", redirect),
            web.get("/loop", loop),
        ]
    )
    return app


async def start(app: web.Application, ssl_context: object = None) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ssl_context).start()  # type: ignore[arg-type]
    return runner, runner.addresses[0][1]


@pytest.fixture
async def server_port() -> AsyncIterator[int]:
    runner, port = await start(build_app())
    try:
        yield port
    finally:
        await runner.cleanup()


@pytest.fixture
def self_signed(tmp_path: Path) -> ssl.SSLContext:
    """A server TLS context with a self-signed certificate that no client trusts."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


@pytest.fixture
async def tls_server_port(self_signed: ssl.SSLContext) -> AsyncIterator[int]:
    """An HTTPS server using the untrusted certificate."""
    runner, port = await start(build_app(), self_signed)
    try:
        yield port
    finally:
        await runner.cleanup()
