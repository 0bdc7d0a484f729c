"""Imported operations say what they do, end to end: an API operation the user marked as spending, with
the amount at the argument they chose, meets the user's amount rules; an MCP tool nobody marked, which calls
itself harmless, is asked about as a message would be."""

from __future__ import annotations

import json
import re
import threading
from typing import Iterator

import pytest
from aiohttp import web

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.core.infrastructure.ports import free_port
from deputy.testing.stack import ChatUser, DeputyStack
from deputy.sandbox.mcp_demo import DemoMcpHttpServer
from deputy.sentinel.stores.audit import AuditLog

ORDERS_API = {
    "openapi": "3.0.3",
    "info": {"title": "Flowers API", "version": "1"},
    "paths": {
        "/orders": {
            "post": {"operationId": "placeOrder", "summary": "Order a bouquet",
                     "requestBody": {"required": True, "content": {"application/json": {"schema": {
                         "type": "object", "required": ["bouquet", "price"],
                         "properties": {"bouquet": {"type": "string"}, "price": {
                             "type": "object", "required": ["value", "currency"],
                             "properties": {"value": {"type": "number"}, "currency": {"type": "string"}}}}}}}},
                     "responses": {"201": {"description": "ordered"}}},
        }
    },
}


class FlowerShop:
    """An unauthenticated shop API in a thread, recording every order it received."""

    def __init__(self) -> None:
        self.port = free_port()
        self.orders: list[dict] = []
        self._ready = threading.Event()

    def start(self) -> "FlowerShop":
        import asyncio

        async def spec(request: web.Request) -> web.Response:
            return web.json_response({**ORDERS_API, "servers": [{"url": f"http://127.0.0.1:{self.port}"}]})

        async def order(request: web.Request) -> web.Response:
            self.orders.append(await request.json())
            return web.json_response({"order": len(self.orders)}, status=201)

        def serve() -> None:
            loop = asyncio.new_event_loop()
            app = web.Application()
            app.add_routes([web.get("/openapi.json", spec), web.post("/orders", order)])
            runner = web.AppRunner(app)
            loop.run_until_complete(runner.setup())
            loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
            self._ready.set()
            loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        self._ready.wait(10)
        return self


@pytest.fixture
def shop() -> FlowerShop:
    return FlowerShop().start()


@pytest.fixture
def mcp_server() -> Iterator[DemoMcpHttpServer]:
    server = DemoMcpHttpServer().start()
    yield server
    server.stop()


@pytest.fixture
def stack_env(shop: FlowerShop, request: pytest.FixtureRequest) -> dict[str, str]:
    opened = [f"127.0.0.1:{shop.port}"]
    if "mcp_server" in request.fixturenames:
        opened.append(f"127.0.0.1:{request.getfixturevalue('mcp_server').port}")
    return {"DEPUTY_EGRESS_ALLOW": ",".join(opened)}


def _press_in(user: ChatUser, after: int, text: str, button: str) -> dict:
    message = user.wait_for_bot(lambda m: text in m["text"], after=after)
    user.press(message["message_id"], button=button)
    return message


def _rule(user: ChatUser, model_server, sentence: str, spec: dict) -> None:  # type: ignore[no-untyped-def]
    model_server.responder = lambda request: tool_call("define_rule", **spec)
    sent = user.send(f"/rules {sentence}")
    proposal = user.wait_for_bot(lambda m: "I read your rule as" in m["text"], after=sent)
    user.press(proposal["message_id"], button="Save rule")
    user.wait_for_bot(lambda m: m["message_id"] == proposal["message_id"] and "Saved" in m["text"])


def _order_script(value: float):  # type: ignore[no-untyped-def]
    def script(request: ChatRequest) -> ModelReply:
        tools = [m for m in request.messages if m.get("role") == "tool"]
        names = {t["function"]["name"].lower(): t["function"]["name"] for t in request.tools or []}
        if not tools:
            return tool_call(names["flowers_placeorder"], body={"bouquet": "tulips",
                                                                  "price": {"value": value, "currency": "USD"}})
        return tool_call("reply", text="Order: " + message_text(tools[-1])[:80])

    return script


def test_a_spend_marked_operation_carries_its_amount_to_the_users_amount_rules(
    stack: DeputyStack, model_server, shop: FlowerShop, redis  # type: ignore[no-untyped-def]
) -> None:
    user = stack.user(971)
    sent = user.send(f"/connect api http://127.0.0.1:{shop.port}/openapi.json")
    user.wait_for_bot(lambda m: "Connected" in m["text"], after=sent, timeout=30)

    # Mark the order operation as spend, with the amount and currency at the arguments that hold them.
    sent = user.send("/connections")
    listing = _press_in(user, sent, "Connected:", "Operations of flowers")
    operations = _press_in(user, listing["message_id"], "Operations of flowers", "Mark 1")
    assert re.search(r"1\. flowers_placeorder \(POST /orders\): communicate", operations["text"], re.IGNORECASE)
    chooser = _press_in(user, operations["message_id"], "Mark it as:", "spend")
    where = _press_in(user, chooser["message_id"], "holds the amount", "body.price.value")
    currency = _press_in(user, where["message_id"], "In which currency", "body.price.currency")
    user.wait_for_bot(lambda m: m["message_id"] == currency["message_id"] and "is now spend" in m["text"])
    stored = json.loads(redis.hget("deputy:user:971:connectors", "flowers"))["marks"]
    assert list(stored.values()) == [{"kind": "spend", "amount": "body.price.value", "currency": None,
                                      "currency_field": "body.price.currency", "recipients": [], "objects": [],
                                      "message": None}]

    _rule(user, model_server, "you may spend up to $50 without asking",
          {"verdict": "allow", "scope": {"effects": ["spend"]},
           "conditions": {"amount_at_most": "50", "currency": "USD"}})
    _rule(user, model_server, "never spend more than $50 without asking",
          {"verdict": "ask", "scope": {"effects": ["spend"]}, "conditions": {"amount_above": "50", "currency": "USD"}})

    # The user names the shop and the price, so neither is a value the model made up: only the rules speak.
    # (The user's own connected service is named here because the executor does not yet count it as theirs.)
    # $75: the amount rule sees the amount, so Sentinel asks, and nothing reaches the shop before the answer.
    model_server.responder = _order_script(75)
    sent = user.send("order tulips for mum at the flower shop on 127.0.0.1, they're $75")
    card = user.wait_for_card(after=sent, timeout=40)
    assert "75" in card["text"] and shop.orders == []
    reviews = [e.detail for e in AuditLog(redis).entries(971) if e.kind == "review"]
    assert reviews[-1]["verdict"] == "ask" and "never spend more than $50" in " ".join(reviews[-1]["reasons"])
    assert "unknown" not in " ".join(reviews[-1]["reasons"])
    user.press(card["message_id"], button="Deny")
    user.wait_for_bot(lambda m: m["text"].startswith("Order:"), after=card["message_id"], timeout=40)
    assert shop.orders == []

    # $20 is within what the user allowed: it runs without a card, because the amount is known.
    model_server.responder = _order_script(20)
    sent = user.send("order tulips for mum at the flower shop on 127.0.0.1, they're $20")
    done = user.wait_for_bot(lambda m: m["text"].startswith("Order:") or bool(m["buttons"]), after=sent, timeout=40)
    assert not done["buttons"]
    assert shop.orders == [{"bouquet": "tulips", "price": {"value": 20, "currency": "USD"}}]


def test_an_unmarked_mcp_tool_that_says_it_is_harmless_is_asked_about_as_a_message(
    stack: DeputyStack, model_server, mcp_server: DemoMcpHttpServer, redis  # type: ignore[no-untyped-def]
) -> None:
    user = stack.user(972)
    sent = user.send(f"/connect mcp {mcp_server.url}")
    connected = user.wait_for_bot(lambda m: "Connected" in m["text"], after=sent, timeout=60)
    name = re.search(r"“([a-z0-9_-]+)”", connected["text"]).group(1)

    def script(request: ChatRequest) -> ModelReply:
        tools = [m for m in request.messages if m.get("role") == "tool"]
        add = next(t["function"]["name"] for t in request.tools if t["function"]["name"].endswith("add_note"))
        if not tools:
            return tool_call(add, text="call the plumber")
        return tool_call("reply", text="Noted: " + message_text(tools[-1])[:120])

    # add_note claims readOnly=false, destructive=false: a plain write, if the server were believed.
    model_server.responder = script
    sent = user.send("note down: call the plumber")
    card = user.wait_for_card(after=sent, timeout=60)
    assert "call the plumber" in card["text"]
    reviews = [e.detail for e in AuditLog(redis).entries(972) if e.kind == "review"]
    assert reviews[-1]["verdict"] == "ask" and "sends a message" in " ".join(reviews[-1]["reasons"])
    assert name in reviews[-1]["operation"]
    user.press(card["message_id"], button="Deny")
    user.wait_for_bot(lambda m: m["text"].startswith("Noted:"), after=card["message_id"], timeout=60)
