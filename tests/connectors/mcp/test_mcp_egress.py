"""MCP over HTTP passes Sentinel's egress policy: every request the SDK sends is checked and pinned.

A real streamable-HTTP MCP server (the sandbox demo) on 127.0.0.1; DNS is the injected
resolver, so mcp.example.test exists only for the guard.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from egress_testkit import Rebinding, fixed, no_outside_traffic

from deputy.core.records.effects import ConnectorError
from deputy.connectors.mcp.runners import McpConnector, static_servers
from deputy.connectors.mcp.config import McpServerConfig
from deputy.settings import Settings
from deputy.sandbox.mcp_demo import DemoMcpHttpServer
from deputy.sentinel.egress.policy import EgressPolicy
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.sentinel.egress.transports.httpx2_client import guarded_client
from deputy.sentinel.egress.transports.sockets import EndpointGuard
from deputy.runtime.egress_guards import endpoint_guard, mcp_visitor

HOST = "mcp.example.test"
ROOT = Path(__file__).resolve().parents[3]
USER = 5


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoMcpHttpServer]:
    with DemoMcpHttpServer(notes=tmp_path_factory.mktemp("mcp-egress") / "notes.json") as server:
        yield server


def connector(url: str, guard: EndpointGuard) -> McpConnector:
    config = McpServerConfig(name="demo", transport="http", url=url, timeout=10)
    return McpConnector(static_servers([config]), None, visitor=mcp_visitor(guard))


def test_an_allowed_server_is_used_at_the_checked_address(demo: DemoMcpHttpServer) -> None:
    # The demo server accepts only its own names in Host (its DNS-rebinding protection): "localhost".
    guard = endpoint_guard(Settings(DEPUTY_EGRESS_ALLOW=f"localhost:{demo.port}"), fixed({"localhost": ["127.0.0.1"]}))
    mcp = connector(f"http://localhost:{demo.port}/mcp", guard)
    with no_outside_traffic() as attempts:
        toolset = mcp.discover(USER, "demo")
        weather = mcp.call(USER, toolset.tool("demo_get_weather"), {"city": "Lima"}, "k1")
    assert weather.summary.startswith("Lima: ") and attempts == []


def test_the_connection_goes_to_the_checked_address_and_keeps_the_name_in_host(demo: DemoMcpHttpServer) -> None:
    # mcp.example.test exists only in the guard's DNS: the request still reaches the demo server (pinned to
    # 127.0.0.1), which refuses it because the Host header says mcp.example.test, as it should.
    guard = endpoint_guard(Settings(DEPUTY_EGRESS_ALLOW=f"{HOST}:{demo.port}"), fixed({HOST: ["127.0.0.1"]}))
    with no_outside_traffic() as attempts, pytest.raises(ConnectorError) as refused:
        connector(f"http://{HOST}:{demo.port}/mcp", guard).discover(USER, "demo")
    assert "HTTP 421" in refused.value.user_message and attempts == []


@pytest.mark.parametrize(("host", "dns", "says"), [
    ("169.254.169.254", {}, "cloud metadata service"),
    ("10.0.0.5", {}, "(10.0.0.5) is a private network address"),
    ("127.0.0.1", {}, "this computer's own address"),
    (HOST, {HOST: ["10.0.0.5"]}, f"({HOST}) leads to 10.0.0.5"),
])
def test_private_and_metadata_servers_are_refused(demo: DemoMcpHttpServer, host: str, dns: dict, says: str) -> None:
    mcp = connector(f"http://{host}:{demo.port}/mcp", EndpointGuard(EgressPolicy(), "mcp", fixed(dns)))
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked) as refused:
        mcp.discover(USER, "demo")
    assert says in refused.value.user_message and "DEPUTY_EGRESS_ALLOW" in refused.value.user_message or (
        "metadata" in says and says in refused.value.user_message)
    assert attempts == []


def test_a_name_that_rebinds_mid_session_is_refused(demo: DemoMcpHttpServer) -> None:
    # The first request (initialize) sees a harmless address; the next lookup says 10.0.0.5.
    dns = Rebinding(first=["127.0.0.1"], then=["10.0.0.5"])
    guard = EndpointGuard(EgressPolicy(allow_private_networks=["127.0.0.1/32"]), "mcp", dns)
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked) as refused:
        connector(f"http://localhost:{demo.port}/mcp", guard).discover(USER, "demo")
    assert "leads to 10.0.0.5" in refused.value.user_message and attempts == []
    assert len(dns.lookups) >= 2, "every request was checked, not only the first"


class _Redirect(BaseHTTPRequestHandler):
    target = ""

    def _answer(self) -> None:
        self.send_response(307)
        self.send_header("Location", self.target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def redirector() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_server_that_redirects_to_a_private_address_gets_nowhere(redirector: ThreadingHTTPServer) -> None:
    _Redirect.target = "http://10.0.0.5/mcp"
    port = redirector.server_address[1]
    guard = EndpointGuard(EgressPolicy(allow_private_networks=[f"127.0.0.1:{port}"]), "mcp", fixed({}))
    with no_outside_traffic() as attempts, pytest.raises(ConnectorError):
        connector(f"http://127.0.0.1:{port}/mcp", guard).discover(USER, "demo")
    assert attempts == []


@pytest.mark.parametrize("target", ["http://10.0.0.5/mcp", "http://169.254.169.254/latest/meta-data/"])
def test_the_guarded_client_checks_every_redirect_hop(redirector: ThreadingHTTPServer, target: str) -> None:
    # Whoever follows redirects with this client (the SDK only follows same-origin ones), each hop is checked.
    _Redirect.target = target
    port = redirector.server_address[1]
    guard = EndpointGuard(EgressPolicy(allow_private_networks=[f"127.0.0.1:{port}"]), "mcp", fixed({}))

    async def fetch() -> None:
        async with guarded_client(guard, headers={}, timeout=5) as client:
            await client.post(f"http://127.0.0.1:{port}/mcp", content=b"{}", follow_redirects=True)

    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked):
        asyncio.run(fetch())
    assert attempts == []


def test_stdio_servers_are_not_network_connections(tmp_path: Path) -> None:
    # A local command is not an outbound connection: the guard has no say, and it still works.
    guard = EndpointGuard(EgressPolicy(), "mcp", fixed({}))
    config = McpServerConfig(name="demo", transport="stdio", command=sys.executable, cwd=str(ROOT), timeout=30,
                             args=["-m", "deputy.sandbox.mcp_demo", "--notes", str(tmp_path / "notes.json")])
    mcp = McpConnector(static_servers([config]), None, visitor=mcp_visitor(guard))
    assert any(tool.name.endswith("get_weather") for tool in mcp.discover(USER, "demo").tools)
