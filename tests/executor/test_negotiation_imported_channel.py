"""A counterpart reached through a service the user connected negotiates by moves, like the marketplace.

A local dealer's chat API (a real HTTP service, imported from its OpenAPI document) has an operation to
send a message and one to read a conversation. The user marked the first as communicate, with its
recipient and the argument its words go in: the message channel. The agent then makes typed moves to
`dealer:alex`; Deputy's code writes each message and sends it through that operation, checked against the
mandate exactly as a marketplace move is. Free text through the same operation still waits on a card.
"""

from __future__ import annotations

import asyncio
import json
import threading
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from aiohttp import web
from pydantic import SecretStr
from redis import Redis

from bench.negotiation_eval.scenarios import CAR
from deputy.agent.goals import GoalStore
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.connectors.custom import CustomConnector, CustomConnectors, UserCatalogs
from deputy.connectors.marks import OperationMark
from deputy.core.infrastructure.ports import free_port
from deputy.core.records.outbox import Outbox
from deputy.executor.custom_connectors import CustomConnectorService
from deputy.executor.review_context import ReviewContextBuilder
from deputy.sandbox.negotiation.operations import negotiation_catalog
from deputy.sentinel.stores.approvals import Choice
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.mandates import MandateStore
from deputy.testing.inline import InlineDeputy
from deputy.vault import KdfCost, Vault

USER = 4711
THEIRS = "Hi, I'm Alex. I can pay $15,200 for the Civic, cash on pickup."


def document(port: int) -> dict:
    text = {"type": "string"}
    return {
        "openapi": "3.0.3", "info": {"title": "Dealer chat", "version": "1"},
        "servers": [{"url": f"http://127.0.0.1:{port}"}],
        "paths": {"/messages": {
            "post": {"operationId": "send_message", "summary": "Send a message to a buyer",
                     "requestBody": {"required": True, "content": {"application/json": {"schema": {
                         "type": "object", "required": ["to", "text"], "properties": {"to": text, "text": text}}}}},
                     "responses": {"200": {"description": "sent"}}},
            "get": {"operationId": "read_messages", "summary": "Read a conversation with a buyer",
                    "parameters": [{"name": "with", "in": "query", "required": True, "schema": text}],
                    "responses": {"200": {"description": "the conversation"}}}}},
    }


class Dealer:
    """The dealer's chat service in a thread: Alex's messages to read, and every message it was sent."""

    def __init__(self) -> None:
        self.port = free_port()
        self.received: list[dict] = []
        self._ready = threading.Event()

    def start(self) -> "Dealer":
        async def send(request: web.Request) -> web.Response:
            self.received.append(await request.json())
            return web.json_response({"sent": True})

        async def read(request: web.Request) -> web.Response:
            return web.json_response({"with": request.query.get("with"), "messages": [THEIRS]})

        def serve() -> None:
            loop = asyncio.new_event_loop()
            app = web.Application()
            app.add_routes([web.post("/messages", send), web.get("/messages", read)])
            runner = web.AppRunner(app)
            loop.run_until_complete(runner.setup())
            loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
            self._ready.set()
            loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        self._ready.wait(10)
        return self


@pytest.fixture
def dealer() -> Dealer:
    return Dealer().start()


def _rig(redis: Redis, tmp_path: Path, dealer: Dealer, replies: list, *, channel: bool = True) -> InlineDeputy:
    mark = OperationMark(kind="communicate", recipients=("body.to",), message="body.text" if channel else None)
    store = CustomConnectors(redis)
    store.add(USER, CustomConnector(kind="openapi", name="dealer", source=f"http://127.0.0.1:{dealer.port}/openapi.json",
                                    document=json.dumps(document(dealer.port)), marks={"dealer_send_message": mark}))
    base = negotiation_catalog()
    catalogs = UserCatalogs(base, store)
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
    service = CustomConnectorService(store, catalogs, httpx.Client(), vault, Outbox(redis), AuditLog(redis))
    script = iter(replies)
    rig = InlineDeputy(redis, FunctionModel(lambda messages, tools: next(script)), base, {},
                       contexts=ReviewContextBuilder(redis, GoalStore(redis), base, user_catalogs=catalogs),
                       executor_options={"user_runners": service.runner_for}, user_catalogs=catalogs)
    MandateStore(redis).put(USER, "g-dealer", CAR.model_copy(update={"counterparts": ["dealer:*"]}))
    return rig


def _cards(rig: InlineDeputy) -> list:
    return [m for m in rig.cards() if m.buttons and m.buttons[0][0].data]


def _tool_answers(rig: InlineDeputy) -> list[str]:
    return [r.get("content") or "" for r in rig.goal("g-dealer").messages if r.get("role") == "tool"]


def test_moves_to_a_counterpart_behind_an_imported_api_are_written_by_code_and_held_to_the_mandate(
        redis: Redis, tmp_path: Path, dealer: Dealer) -> None:
    rig = _rig(redis, tmp_path, dealer, [
        tool_call("dealer_read_messages", **{"with": "alex"}),
        tool_call("offer", to="dealer:alex", amount=16200),                    # inside: sent, words by code
        tool_call("offer", to="dealer:alex", amount=13000),                    # past the floor: refused
        tool_call("dealer_send_message", body={"to": "alex", "text": "OK, $15,200 works, deal."}),  # free text
        tool_call("accept", to="dealer:alex", their_offer_id="T1"),            # waits for the user's tap
        tool_call("reply", text="done"),
    ])
    rig.start(USER, "Sell my Civic to the dealer's buyers", goal_id="g-dealer")
    answers = _tool_answers(rig)
    assert "Their offer T1" in answers[0] and "$15,200" in answers[0], "their message was parsed by code"
    sent = [(m["to"], m["text"]) for m in dealer.received]
    assert sent == [("alex", "Hi, I'm an AI assistant acting for Sam. I can do $16,200 for my 2017 Honda Civic.")]
    assert "past your limit" in answers[2] or "at or past your limit" in answers[2]
    held = _cards(rig)
    assert len(held) == 1 and "OK, $15,200 works, deal." in held[0].text, "free text waits on a card"
    record = rig.actions.get(rig.goal("g-dealer").pending_action_id)
    rig.press(record.approval_id, USER, Choice.deny)
    rig.dispatch.drain()
    [card] = _cards(rig)[1:]
    assert "final yes is always yours" in card.text and "$15,200" in card.text
    assert "Yes, we accept your offer of $15,200 for my 2017 Honda Civic." in card.text
    assert len(dealer.received) == 1, "nothing more went out before the tap"
    rig.press(rig.actions.get(rig.goal("g-dealer").pending_action_id).approval_id, USER, Choice.approve)
    assert dealer.received[-1] == {"to": "alex", "text": "Yes, we accept your offer of $15,200 for my 2017 Honda Civic."}
    state = MandateStore(redis).get(USER, "g-dealer")[1]
    assert state.accepted == Decimal(15200) and state.thread("dealer:alex").rounds >= 1


def test_without_a_marked_channel_a_move_to_that_service_is_not_sent(redis: Redis, tmp_path: Path,
                                                                     dealer: Dealer) -> None:
    rig = _rig(redis, tmp_path, dealer, [tool_call("offer", to="dealer:alex", amount=16200),
                                         tool_call("reply", text="done")], channel=False)
    rig.start(USER, "Sell my Civic to the dealer's buyers", goal_id="g-dealer")
    assert dealer.received == []
    assert any("mark the operation that sends its messages in /connections" in a for a in _tool_answers(rig))
