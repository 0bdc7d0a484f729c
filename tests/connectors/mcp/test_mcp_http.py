"""The demo MCP server over streamable HTTP, with its bearer token kept in the vault."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import (
    ConnectorAuthError,
    ConnectorError,
    ConnectorRejected,
    ConnectorUnavailable,
    EffectClass,
)
from deputy.connectors.mcp.runners import McpConnector, static_servers
from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.tools import McpToolset
from deputy.connectors.mcp.operations import mcp_operations
from deputy.core.infrastructure.ports import free_port
from deputy.sandbox.mcp_demo import DemoMcpHttpServer
from deputy.vault import KdfCost, Vault

USER = 11
TOKEN = "mcp-token-7Qe2-do-not-leak"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoMcpHttpServer]:
    notes = tmp_path_factory.mktemp("notes") / "notes.json"
    with DemoMcpHttpServer(token=TOKEN, notes=notes, faults=True) as server:
        yield server


@pytest.fixture
def vault(tmp_path: Path, redis: Redis) -> Vault:
    cost = KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)
    return Vault(redis, SecretStr("k"), kdf=cost)


def http_config(url: str, *, timeout: float = 10, trusted: bool = False) -> McpServerConfig:
    return McpServerConfig(name="demo", transport="http", url=url, timeout=timeout, trusted=trusted)


def connector_for(url: str, vault: Vault | None, token: str | None = TOKEN, **config) -> McpConnector:
    if vault is not None and token is not None:
        vault.put(USER, "cred:mcp/demo", SecretStr(token), "token", "Demo MCP server")
    return McpConnector(static_servers([http_config(url, **config)]), vault)


def test_tools_are_discovered_and_called_with_the_vaults_token(demo: DemoMcpHttpServer, vault: Vault) -> None:
    connector = connector_for(demo.url, vault, trusted=True)
    toolset = connector.discover(USER, "demo")
    effects = {op.name: op.spec.effect for op in mcp_operations(toolset)}
    assert effects["demo_get_weather"] is EffectClass.read and effects["demo_add_note"] is EffectClass.communicate
    weather = connector.call(USER, toolset.tool("demo_get_weather"), {"city": "Lima"}, "k1")
    assert weather.summary.startswith("Lima: ") and weather.untrusted_origin == "the MCP server demo"
    saved = connector.call(USER, toolset.tool("demo_add_note"), {"text": "call mum"}, "k2")
    assert saved.summary.startswith("Saved note ")


def test_structured_and_odd_results_come_back_as_safe_text(demo: DemoMcpHttpServer, vault: Vault) -> None:
    connector = connector_for(demo.url, vault)
    toolset = connector.discover(USER, "demo")
    structured = connector.call(USER, toolset.tool("demo_structured"), {"city": "Rome"}, "k")
    assert '"city": "Rome"' in structured.summary
    odd = connector.call(USER, toolset.tool("demo_odd_text"), {}, "k").summary
    assert odd.splitlines() == ["caf\u00e9 evil red \U0001f600 end", "[image (image/png, 9 KB) not shown]"]


def test_huge_results_are_cut(demo: DemoMcpHttpServer, vault: Vault) -> None:
    connector = connector_for(demo.url, vault)
    toolset = connector.discover(USER, "demo")
    flood = connector.call(USER, toolset.tool("demo_flood"), {"size": 3_000_000}, "k").summary
    assert len(flood) < 20_100 and flood.endswith("characters.]") and "cut at 20,000" in flood


def test_a_wrong_token_is_an_auth_error_that_never_shows_the_token(demo: DemoMcpHttpServer, vault: Vault) -> None:
    wrong = "wrong-token-Kd81-do-not-leak"
    connector = connector_for(demo.url, vault, token=wrong)
    with pytest.raises(ConnectorAuthError, match="refused its token \\(HTTP 401\\)") as caught:
        connector.discover(USER, "demo")
    assert wrong not in str(caught.value) and wrong not in (caught.value.detail or "")
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_no_stored_token_is_an_auth_error(demo: DemoMcpHttpServer, vault: Vault) -> None:
    connector = connector_for(demo.url, vault, token=None)
    with pytest.raises(ConnectorAuthError, match="asks for a token, and none is stored for it"):
        connector.discover(USER, "demo")


def test_a_server_that_is_down_is_unavailable(vault: Vault) -> None:
    connector = connector_for(f"http://127.0.0.1:{free_port()}/mcp", vault)
    with pytest.raises(ConnectorUnavailable, match="couldn't reach the MCP server demo") as caught:
        connector.discover(USER, "demo")
    assert caught.value.retryable is True


def test_a_wrong_path_says_there_is_no_server_there(demo: DemoMcpHttpServer, vault: Vault) -> None:
    connector = connector_for(demo.url.replace("/mcp", "/nothing-here"), vault)
    with pytest.raises(ConnectorError, match="no MCP server at the address set up for demo"):
        connector.discover(USER, "demo")


def test_a_hanging_tool_times_out(demo: DemoMcpHttpServer, vault: Vault) -> None:
    connector = connector_for(demo.url, vault, timeout=2)
    toolset = connector.discover(USER, "demo")
    started = time.monotonic()
    with pytest.raises(ConnectorUnavailable, match="didn't answer within 2 seconds"):
        connector.call(USER, toolset.tool("demo_hang"), {}, "k")
    assert time.monotonic() - started < 10


def test_a_tool_error_is_rejected_with_the_servers_plain_message(demo: DemoMcpHttpServer, vault: Vault) -> None:
    connector = connector_for(demo.url, vault)
    toolset = connector.discover(USER, "demo")
    with pytest.raises(
        ConnectorRejected, match="reported an error from fail: .*No such \\[ thing \\[redacted\\]$"
    ) as caught:
        connector.call(USER, toolset.tool("demo_fail"), {"message": f"No such\n\x1b[31m[ thing {TOKEN}"}, "k")
    assert "\x1b" not in str(caught.value) and "\n" not in str(caught.value)
    assert TOKEN not in str(caught.value) and "[redacted]" in str(caught.value)


def test_a_server_that_crashes_mid_call_is_unavailable(tmp_path: Path, vault: Vault) -> None:
    with DemoMcpHttpServer(token=TOKEN, faults=True) as doomed:
        connector = connector_for(doomed.url, vault)
        toolset = connector.discover(USER, "demo")
        with pytest.raises(ConnectorUnavailable) as caught:
            connector.call(USER, toolset.tool("demo_crash"), {}, "k")
    assert "MCP server demo" in str(caught.value)


class _Garbage(BaseHTTPRequestHandler):
    body = b""
    content_type = "text/html"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", self.content_type)
        self.send_header("content-length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    do_GET = do_DELETE = do_POST

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def garbage() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Garbage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("content_type", "body"),
    [("text/html", b"<html><body>Welcome!</body></html>"), ("application/json", b'{"jsonrpc": nope')],
)
def test_a_server_that_does_not_speak_mcp_is_unavailable(garbage, content_type: str, body: bytes) -> None:
    _Garbage.content_type, _Garbage.body = content_type, body
    connector = McpConnector(static_servers([http_config(f"http://127.0.0.1:{garbage.server_port}/mcp")]))
    with pytest.raises(ConnectorUnavailable, match="answered with something that isn't valid MCP"):
        connector.discover(USER, "demo")


def test_a_toolset_from_http_runs_through_the_executor_runners(demo: DemoMcpHttpServer, vault: Vault) -> None:
    connector = connector_for(demo.url, vault)
    toolset: McpToolset = connector.discover(USER, "demo")
    runners = connector.runners([toolset])
    assert "mcp.demo_get_weather" in runners and "mcp.demo_delete_note" in runners
