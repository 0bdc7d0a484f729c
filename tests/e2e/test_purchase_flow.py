"""Buying in the sandbox shop: the card stays in the vault; the shop gets a single-use token
bound to exactly the approved amount, after the user approves."""

from __future__ import annotations

import json
import re
from typing import Iterator

import httpx
import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.apps.local import api_environment, sandbox_environment
from deputy.testing.stack import DeputyStack, RedisServer
from deputy.sandbox.services import SandboxEndpoints, SandboxServices
from deputy.sandbox.issuer import ISSUER_KEY_HEADER
from deputy.sentinel.stores.audit import AuditLog

CARD = "4111 1111 1111 1111"


@pytest.fixture
def world(tmp_path) -> Iterator[SandboxEndpoints]:
    services = SandboxServices(tmp_path / "world")
    yield services.start()
    services.stop()


def script(request: ChatRequest) -> ModelReply:
    tools = [message_text(m) for m in request.messages if m.get("role") == "tool"]
    if not tools:
        return tool_call("shop_search_products", q="usb-c cable", in_stock=True)
    if len(tools) == 1:
        return tool_call("shop_create_cart")
    cart = re.search(r"C-[A-Z0-9]+", tools[1]).group(0)
    if len(tools) == 2:
        return tool_call("shop_add_to_cart", cart_id=cart, body={"product_id": "usb-c-cable-1m", "quantity": 1})
    if len(tools) == 3:
        total = re.search(r'"total":\s*"([0-9.]+)"', tools[2]).group(1)
        return tool_call("shop_checkout", cart_id=cart, body={
            "payment_token": "<payment_token>", "amount": total, "currency": "USD", "name": "Demo",
            "shipping_address": "1 Demo Street, Sandbox"})
    return tool_call("reply", text="Ordered: " + tools[-1][:100])


def test_a_purchase_is_paid_with_a_single_use_token_after_approval(
    redis_server: RedisServer, redis: Redis, model_server, world: SandboxEndpoints, tmp_path
) -> None:
    model_server.responder = script
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=sandbox_environment(world),
                        extra_env=api_environment(world)).start()
    try:
        user = stack.user(1)
        sent = user.send("/connect card")
        link = re.search(r"http://\S+/connect/\S+", user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)["text"])
        assert httpx.post(link.group(0), data={"number": CARD, "holder": "Demo User", "expiry": "12/29"}).status_code == 200
        user.wait_for_bot(lambda m: "connected" in m["text"], after=sent)

        sent = user.send("buy a 1m USB-C cable from the shop")
        card = user.wait_for_card(after=sent, timeout=40)
        assert "spends your money" in card["text"]
        assert httpx.get(f"{world.shop_url}/api/orders").json()["orders"] == [], "nothing is paid before approval"
        user.press(card["message_id"], button="Approve")
        user.wait_for_bot(lambda m: m["text"].startswith("Ordered"), after=card["message_id"], timeout=40)

        [order] = httpx.get(f"{world.shop_url}/api/orders").json()["orders"]
        token_id = order["payment_token"]
        assert token_id.startswith("ptok_")
        # The card issuer took the payment: once, for exactly the cart's total, from this shop.
        issuer = httpx.Client(base_url=world.issuer_url, headers={ISSUER_KEY_HEADER: world.issuer_key})
        card_ref = redis.get(next(redis.scan_iter("deputy:issuercard:1:*"))).decode()
        [paid] = issuer.get(f"/api/v1/statements/{card_ref}").json()["transactions"]
        assert (paid["token"], paid["amount"], paid["merchant"]) == (token_id, order["total"], world.shop_url)
        user.wait_for_bot(lambda m: m["text"].startswith("🧾"), after=card["message_id"], timeout=20)

        digits = CARD.replace(" ", "")
        everything = stack.logs() + json.dumps([r.raw for r in model_server.requests]) + json.dumps(user.messages())
        everything += json.dumps([e.model_dump() for e in AuditLog(redis).entries(1)])
        everything += json.dumps({k.decode(): str(redis.dump(k)) for k in redis.scan_iter("*")})
        assert CARD not in everything and digits not in everything
    finally:
        stack.stop()
