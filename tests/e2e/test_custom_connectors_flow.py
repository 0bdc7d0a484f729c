"""Services nobody wrote a connector for, connected from the chat: an OpenAPI document Deputy
has never seen, and an MCP server. Their reads run; their writes are reviewed."""

from __future__ import annotations

import re
import threading
from typing import Iterator

import httpx
import pytest
from aiohttp import web

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.core.infrastructure.ports import free_port
from deputy.testing.stack import DeputyStack
from deputy.sandbox.mcp_demo import DemoMcpHttpServer

KEY = "notes-api-key-123456"

NOTES_API = {
    "openapi": "3.0.3",
    "info": {"title": "Notes API", "version": "1"},
    "paths": {
        "/notes": {
            "get": {"operationId": "listNotes", "summary": "List the notes",
                    "responses": {"200": {"description": "ok"}}},
            "post": {"operationId": "addNote", "summary": "Add a note",
                     "requestBody": {"content": {"application/json": {"schema": {
                         "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}}},
                     "responses": {"201": {"description": "created"}}},
        }
    },
    "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
    "security": [{"key": []}],
}


class NotesService:
    """A tiny service with an OpenAPI description, in a thread, recording what it received."""

    def __init__(self) -> None:
        self.port = free_port()
        self.notes: list[str] = ["buy milk"]
        self.keys: list[str | None] = []
        self._loop_ready = threading.Event()

    def app(self) -> web.Application:
        async def spec(request: web.Request) -> web.Response:
            return web.json_response({**NOTES_API, "servers": [{"url": f"http://127.0.0.1:{self.port}"}]})

        async def list_notes(request: web.Request) -> web.Response:
            self.keys.append(request.headers.get("X-Api-Key"))
            return web.json_response({"notes": self.notes})

        async def add_note(request: web.Request) -> web.Response:
            self.keys.append(request.headers.get("X-Api-Key"))
            self.notes.append((await request.json())["text"])
            return web.json_response({"ok": True}, status=201)

        app = web.Application()
        app.add_routes([web.get("/openapi.json", spec), web.get("/notes", list_notes), web.post("/notes", add_note)])
        return app

    def start(self) -> "NotesService":
        import asyncio

        def serve() -> None:
            loop = asyncio.new_event_loop()
            runner = web.AppRunner(self.app())
            loop.run_until_complete(runner.setup())
            loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
            self._loop_ready.set()
            loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        self._loop_ready.wait(10)
        return self


@pytest.fixture
def notes() -> NotesService:
    return NotesService().start()


@pytest.fixture
def stack_env(notes: NotesService, request: pytest.FixtureRequest) -> dict[str, str]:
    # The operator opens exactly the local services a test uses: everything else private is refused.
    opened = [f"127.0.0.1:{notes.port}"]
    if "mcp_server" in request.fixturenames:
        opened.append(f"127.0.0.1:{request.getfixturevalue('mcp_server').port}")
    return {"DEPUTY_EGRESS_ALLOW": ",".join(opened)}


def notes_script(request: ChatRequest) -> ModelReply:
    tools = [m for m in request.messages if m.get("role") == "tool"]
    names = {t["function"]["name"].lower(): t["function"]["name"] for t in request.tools or []}
    if not tools:
        return tool_call(names["notes_listnotes"])
    if len(tools) == 1:
        return tool_call(names["notes_addnote"], body={"text": "call the plumber"})
    return tool_call("reply", text="Noted: " + message_text(tools[-1])[:80])


def test_an_openapi_service_nobody_wrote_a_connector_for(stack: DeputyStack, model_server, notes: NotesService) -> None:
    user = stack.user(951)
    sent = user.send(f"/connect api http://127.0.0.1:{notes.port}/openapi.json")
    connected = user.wait_for_bot(lambda m: "Connected" in m["text"], after=sent, timeout=30)
    assert "“notes”" in connected["text"] and "2 operations" in connected["text"]

    sent = user.send("/connect key notes")
    link = re.search(r"http://\S+/connect/\S+", user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)["text"])
    assert httpx.post(link.group(0), data={"secret": KEY}).status_code == 200
    user.wait_for_bot(lambda m: "key for notes is saved" in m["text"], after=sent)

    model_server.responder = notes_script
    sent = user.send("add 'call the plumber' to my notes")
    card = user.wait_for_card(after=sent, timeout=30)
    assert "notes" in card["text"] and "call the plumber" in card["text"]
    assert notes.keys == [KEY], "the read ran without asking, with the key from the vault"
    user.press(card["message_id"], button="Approve")
    user.wait_for_bot(lambda m: m["text"].startswith("Noted"), after=card["message_id"], timeout=30)
    assert notes.notes == ["buy milk", "call the plumber"] and notes.keys == [KEY, KEY]
    assert all(KEY not in r.model_dump_json() for r in model_server.requests)


@pytest.fixture
def mcp_server() -> Iterator[DemoMcpHttpServer]:
    server = DemoMcpHttpServer().start()
    yield server
    server.stop()


def test_an_mcp_server_becomes_tools_that_the_guard_reviews(
    stack: DeputyStack, model_server, mcp_server: DemoMcpHttpServer
) -> None:
    user = stack.user(952)
    sent = user.send(f"/connect mcp {mcp_server.url}")
    connected = user.wait_for_bot(lambda m: "Connected" in m["text"], after=sent, timeout=60)
    name = re.search(r"“([a-z0-9_-]+)”", connected["text"]).group(1)

    def script(request: ChatRequest) -> ModelReply:
        tools = [m for m in request.messages if m.get("role") == "tool"]
        weather = next(t["function"]["name"] for t in request.tools if t["function"]["name"].endswith("get_weather"))
        if not tools:
            return tool_call(weather, city="Lisbon")
        return tool_call("reply", text="Weather: " + message_text(tools[-1])[:120])

    model_server.responder = script
    sent = user.send("what's the weather in Lisbon?")
    # The server says get_weather is read-only, but nobody marked it trusted: the hint is not believed.
    card = user.wait_for_card(after=sent, timeout=60)
    assert name in card["text"] or "mcp" in card["text"]
    user.press(card["message_id"], button="Approve")
    answer = user.wait_for_bot(lambda m: m["text"].startswith("Weather:"), after=card["message_id"], timeout=60)
    assert "Lisbon" in answer["text"]
