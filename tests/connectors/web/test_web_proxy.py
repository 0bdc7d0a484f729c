"""The reviewing proxy on its own: authentication, refusals, pinning and one exchange per connection."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from deputy.connectors.web.proxy import EgressProxy
from deputy.sentinel.egress.policy import EgressDecision
from deputy.sentinel.policy import Risk, Verdict


@pytest.fixture
async def upstream() -> AsyncIterator[int]:
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text=f"hello from {request.host}{request.path_qs}")

    app = web.Application()
    app.router.add_get("/{tail:.*}", hello)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield runner.addresses[0][1]
    await runner.cleanup()


class Reviews:
    """Allows `good.example` (pinned to 127.0.0.1), denies everything else; remembers what it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def __call__(self, method: str, url: str, headers: list[tuple[str, str]]) -> tuple[EgressDecision, list[str]]:
        self.seen.append((method, url))
        if "good.example" in url:
            return EgressDecision(verdict=Verdict.allow, reasons=["fine"], risk=Risk.low), ["127.0.0.1"]
        return EgressDecision(verdict=Verdict.deny, reasons=["evil.example is not allowed."], risk=Risk.high), []


async def exchange(proxy_address: str, request: bytes) -> bytes:
    host, port = proxy_address.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(request)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return answer


def auth(proxy: EgressProxy) -> bytes:
    token = base64.b64encode(f"{proxy.username}:{proxy.password}".encode())
    return b"Proxy-Authorization: Basic " + token + b"\r\n"


async def test_the_proxy_wants_its_password() -> None:
    proxy = EgressProxy(Reviews())
    address = await proxy.start()
    try:
        answer = await exchange(address, b"GET http://good.example/ HTTP/1.1\r\nHost: good.example\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 407 ")
        wrong = b"Proxy-Authorization: Basic " + base64.b64encode(b"deputy:guess") + b"\r\n"
        answer = await exchange(address, b"GET http://good.example/ HTTP/1.1\r\n" + wrong + b"\r\n")
        assert answer.startswith(b"HTTP/1.1 407 ")
    finally:
        await proxy.close()


async def test_plain_http_is_reviewed_pinned_and_closed_after_one_answer(upstream: int) -> None:
    reviews = Reviews()
    proxy = EgressProxy(reviews)
    address = await proxy.start()
    try:
        request = (
            (
                f"GET http://good.example:{upstream}/page?q=1 HTTP/1.1\r\nHost: good.example:{upstream}\r\n"
                "Connection: keep-alive\r\n"
            ).encode()
            + auth(proxy)
            + b"\r\n"
        )
        answer = await exchange(address, request)
        assert answer.startswith(b"HTTP/1.1 200 ")
        assert b"\r\nConnection: close\r\n" in answer
        assert answer.endswith(f"hello from good.example:{upstream}/page?q=1".encode())
        assert reviews.seen == [("GET", f"http://good.example:{upstream}/page?q=1")]

        denied = await exchange(address, b"GET http://evil.example/x HTTP/1.1\r\n" + auth(proxy) + b"\r\n")
        assert denied.startswith(b"HTTP/1.1 403 ") and b"evil.example is not allowed." in denied
    finally:
        await proxy.close()


async def test_tunnels_are_reviewed_by_host_and_port(upstream: int) -> None:
    reviews = Reviews()
    proxy = EgressProxy(reviews)
    address = await proxy.start()
    try:
        denied = await exchange(address, b"CONNECT evil.example:443 HTTP/1.1\r\n" + auth(proxy) + b"\r\n")
        assert denied.startswith(b"HTTP/1.1 403 ")
        tunnel = (
            f"CONNECT good.example:{upstream} HTTP/1.1\r\n".encode()
            + auth(proxy)
            + b"\r\n"
            + b"GET /inside HTTP/1.1\r\nHost: good.example\r\nConnection: close\r\n\r\n"
        )
        answer = await exchange(address, tunnel)
        assert answer.startswith(b"HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200 ")
        assert answer.endswith(b"hello from good.example/inside")
        assert reviews.seen == [
            ("CONNECT", "https://evil.example:443/"),
            ("CONNECT", f"http://good.example:{upstream}/"),
        ]
        garbage = await exchange(address, b"NONSENSE\r\n\r\n")
        assert garbage == b""
    finally:
        await proxy.close()


async def test_on_a_unix_socket_the_proxy_reviews_just_the_same(upstream: int, tmp_path: Path) -> None:
    reviews = Reviews()
    proxy = EgressProxy(reviews)
    path = str(tmp_path / "proxy.sock")
    await proxy.start_unix(path)

    async def over_socket(request: bytes) -> bytes:
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(request)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        return answer

    try:
        unauthorised = await over_socket(b"GET http://good.example/ HTTP/1.1\r\nHost: good.example\r\n\r\n")
        assert unauthorised.startswith(b"HTTP/1.1 407 ")
        denied = await over_socket(b"CONNECT evil.example:443 HTTP/1.1\r\n" + auth(proxy) + b"\r\n")
        assert denied.startswith(b"HTTP/1.1 403 ")
        page = await over_socket(
            f"GET http://good.example:{upstream}/x HTTP/1.1\r\nHost: good.example\r\n".encode() + auth(proxy) + b"\r\n"
        )
        assert page.startswith(b"HTTP/1.1 200 ") and page.endswith(b"hello from good.example/x")
        assert reviews.seen == [("CONNECT", "https://evil.example:443/"), ("GET", f"http://good.example:{upstream}/x")]
    finally:
        await proxy.close()
