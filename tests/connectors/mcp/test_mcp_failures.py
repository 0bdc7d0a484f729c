"""Stdio servers that crash, hang, talk garbage or change under us: always one plain ConnectorError."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import ConnectorError, ConnectorRejected, ConnectorUnavailable
from deputy.connectors.mcp.runners import McpConnector, static_servers
from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.tools import McpTool, McpToolset
from deputy.testing.stack import descendants
from deputy.vault import KdfCost, Vault

ROOT = Path(__file__).resolve().parents[3]
USER = 5


def demo(notes: Path, *, timeout: float = 20, trusted: bool = False) -> McpServerConfig:
    return McpServerConfig(
        name="demo",
        transport="stdio",
        command=sys.executable,
        args=["-m", "deputy.sandbox.mcp_demo", "--faults", "--notes", str(notes)],
        cwd=str(ROOT),
        timeout=timeout,
        trusted=trusted,
    )


@pytest.fixture(scope="module")
def toolset(tmp_path_factory: pytest.TempPathFactory) -> McpToolset:
    notes = tmp_path_factory.mktemp("notes") / "notes.json"
    return McpConnector(static_servers([demo(notes, trusted=True)])).discover(USER, "demo")


def servers_running(marker: str) -> list[int]:
    found = []
    for pid in descendants(os.getpid()):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                found.append(pid)
        except OSError:
            continue
    return found


def test_a_server_that_crashes_mid_call_is_unavailable(toolset: McpToolset, tmp_path: Path) -> None:
    connector = McpConnector(static_servers([demo(tmp_path / "n.json")]))
    with pytest.raises(ConnectorUnavailable, match="The MCP server demo stopped or closed the connection.") as caught:
        connector.call(USER, toolset.tool("demo_crash"), {}, "k")
    assert caught.value.__context__ is None and caught.value.__cause__ is None


def test_a_hanging_server_times_out_and_is_stopped(toolset: McpToolset, tmp_path: Path) -> None:
    notes = tmp_path / "hang-marker.json"
    connector = McpConnector(static_servers([demo(notes, timeout=3)]))
    started = time.monotonic()
    with pytest.raises(ConnectorUnavailable, match="didn't answer within 3 seconds"):
        connector.call(USER, toolset.tool("demo_hang"), {}, "k")
    assert time.monotonic() - started < 12
    assert servers_running(str(notes)) == []


def test_a_vanished_tool_is_rejected(toolset: McpToolset, tmp_path: Path) -> None:
    connector = McpConnector(static_servers([demo(tmp_path / "n.json")]))
    vanished = toolset.tool("demo_add_note").model_copy(update={"name": "archive_note", "operation": "demo_archive"})
    with pytest.raises(ConnectorRejected, match="The MCP server demo no longer offers the tool archive_note."):
        connector.call(USER, vanished, {"text": "x"}, "k")


def test_a_tool_that_changed_since_it_was_reviewed_is_rejected(toolset: McpToolset, tmp_path: Path) -> None:
    notes = tmp_path / "n.json"
    connector = McpConnector(static_servers([demo(notes, trusted=True)]))
    original = toolset.tool("demo_add_note")
    assert original is not None
    looser = original.model_copy(update={"input_schema": {"type": "object", "properties": {"text": {}}}})
    with pytest.raises(ConnectorRejected, match="changed the tool add_note since it was connected"):
        connector.call(USER, looser, {"text": "x"}, "k")
    claimed_read = original.model_copy(update={"read_only": True})
    with pytest.raises(ConnectorRejected, match="changed the tool add_note"):
        connector.call(USER, claimed_read, {"text": "x"}, "k")
    assert not notes.exists()  # nothing was added


def test_a_server_no_longer_trusted_cannot_run_what_was_reviewed_as_trusted(
    toolset: McpToolset, tmp_path: Path
) -> None:
    connector = McpConnector(static_servers([demo(tmp_path / "n.json", trusted=False)]))
    run = connector.runners([toolset])["mcp.demo_get_weather"]
    from deputy.core.records.actions import Action

    action = Action(
        id="a",
        goal_id="g",
        user_id=USER,
        chat_id=USER,
        connector="mcp",
        operation="demo_get_weather",
        effect="read",
        arguments={"city": "Oslo"},
        tool_call_id="c",
        created_at=0.0,
    )
    with pytest.raises(ConnectorRejected, match="no longer trusted"):
        run(action, "k")


GARBAGE_SERVER = """
    import json, os, sys
    mode = sys.argv[1]
    sys.stderr.write("starting with key " + os.environ.get("JUNK_KEY", "none") + "\\n")
    sys.stderr.flush()
    if mode == "die":
        sys.exit(2)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message:
            continue
        if mode == "text":
            sys.stdout.write("Welcome to my server!\\n")
        elif mode == "shape":
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"nonsense": True}}) + "\\n")
        elif mode == "binary":
            sys.stdout.buffer.write(b"\\xff\\xfe\\x00\\x9c garbage\\n")
        elif mode == "odd":
            text = "bad \\u0000\\u202e\\x1b[31m\\n\\u00e9" + " word" * 5000
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32600, "message": text}}) + "\\n")
        elif mode == "exit":
            sys.exit(1)
        sys.stdout.flush()
"""


@pytest.fixture
def junk(tmp_path: Path):
    script = tmp_path / "junk.py"
    script.write_text(textwrap.dedent(GARBAGE_SERVER))

    def config(mode: str, **fields) -> McpServerConfig:
        return McpServerConfig(
            name="junk", transport="stdio", command=sys.executable, args=[str(script), mode], timeout=3, **fields
        )

    return config


@pytest.mark.parametrize("mode", ["text", "shape", "binary"])
def test_a_server_talking_garbage_is_unavailable(junk, mode: str) -> None:
    connector = McpConnector(static_servers([junk(mode)]))
    with pytest.raises(ConnectorUnavailable, match="The MCP server junk answered with something that isn't valid MCP."):
        connector.discover(USER, "junk")


@pytest.mark.parametrize("mode", ["exit", "die"])
def test_a_server_that_exits_is_unavailable(junk, mode: str) -> None:
    connector = McpConnector(static_servers([junk(mode)]))
    with pytest.raises(ConnectorUnavailable, match="The MCP server junk stopped or closed the connection."):
        connector.discover(USER, "junk")


def test_an_odd_error_message_is_made_plain(junk) -> None:
    connector = McpConnector(static_servers([junk("odd")]))
    with pytest.raises(ConnectorRejected, match="refused the request: bad \u00e9 word word") as caught:
        connector.discover(USER, "junk")
    message = caught.value.user_message
    assert len(message) < 300 and message.endswith("…")
    assert not any(c in message for c in "\x00\x1b\u202e\n")


def test_a_server_that_cannot_be_started_is_a_plain_error() -> None:
    config = McpServerConfig(name="gone", transport="stdio", command="/nonexistent/bin/mcp-server")
    with pytest.raises(ConnectorError, match="couldn't start the MCP server gone") as caught:
        McpConnector(static_servers([config])).discover(USER, "gone")
    assert type(caught.value) is ConnectorError and caught.value.retryable is False


def test_the_servers_stderr_is_kept_for_the_log_without_the_key(junk, tmp_path: Path, redis: Redis) -> None:
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)
    )
    vault.put(USER, "cred:mcp/junk", SecretStr("junk-key-Pq93-secret"), "api_key", "Junk key")
    connector = McpConnector(static_servers([junk("die", secret_env="JUNK_KEY")]), vault)
    with pytest.raises(ConnectorUnavailable) as caught:
        connector.discover(USER, "junk")
    detail = caught.value.detail or ""
    assert "starting with key [redacted]" in detail and "junk-key-Pq93-secret" not in detail + str(caught.value)


def test_a_visit_from_inside_an_event_loop_works(toolset: McpToolset, tmp_path: Path) -> None:
    import asyncio

    connector = McpConnector(static_servers([demo(tmp_path / "n.json")]))

    async def from_async_code() -> str:
        return connector.call(USER, toolset.tool("demo_get_weather"), {"city": "Kyiv"}, "k").summary

    assert asyncio.run(from_async_code()).startswith("Kyiv: ")


def test_tools_without_a_usable_schema_are_never_offered(toolset: McpToolset) -> None:
    assert all(isinstance(tool, McpTool) for tool in toolset.tools) and toolset.skipped == []
