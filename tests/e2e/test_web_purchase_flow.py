"""Paying on a shop's web checkout from the chat, with real processes, real Chromium, the
sandbox shop's card form and the sandbox card issuer; with the executor starting each browser's
worker itself, and with the browser host (`deputy browser-host`) starting them as a service of its own.

The user approves the purchase; the bank wants a confirmation code (the payment is over
$100), the page's picture comes to the chat, the user replies with the code from their
phone, and the payment goes through once, with a receipt in the chat and under the goal in
/goals. Neither the user's card nor the single-use card (number or CVC) appears in the
logs, the model's requests, the audit trail, the chat or Redis, and no picture sent to the
chat showed a page with a card field on it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.apps.local import api_environment, sandbox_environment
from deputy.testing.stack import DeputyStack, RedisServer
from deputy.sandbox.services import SandboxServices
from deputy.sentinel.stores.audit import AuditLog

pytestmark = pytest.mark.browser
CARD = "4111 1111 1111 1111"
FIELDS = {"name": "Demo User", "shipping_address": "1 Demo Street, Sandbox", "cardnumber": "<card:number>",
          "exp-date": "<card:expiry>", "cvc": "<card:cvc>"}


@pytest.fixture
def services(tmp_path) -> Iterator[SandboxServices]:
    world = SandboxServices(tmp_path / "world")
    world.endpoints = world.start()  # type: ignore[attr-defined]
    yield world
    world.stop()


def shopper(shop: str):
    def script(request: ChatRequest) -> ModelReply:
        tools = [message_text(m) for m in request.messages if m.get("role") == "tool"]
        last = request.messages[-1]
        if last.get("role") == "user" and message_text(last).startswith("(Deputy) The step"):
            return tool_call("reply", text="Paid: the bank accepted your code.")
        if not tools:
            return tool_call("open_page", url=f"{shop}/products/headphones-nc")
        if len(tools) == 1:
            return tool_call("submit_form", url=f"{shop}/products/headphones-nc", action_url=f"{shop}/cart/add")
        if len(tools) == 2:
            return tool_call("open_page", url=f"{shop}/checkout/card")
        if len(tools) == 3:
            total = re.search(r"([0-9]+\.[0-9]{2}) USD", tools[2]).group(1)
            return tool_call("pay_on_page", url=f"{shop}/checkout/card", action_url=f"{shop}/checkout/card",
                             amount=total, currency="USD", fields=FIELDS)
        return tool_call("reply", text="Waiting for the bank: " + tools[-1][:120])

    return script


@pytest.mark.parametrize("browser_host", [False, True], ids=["executor-starts-the-worker", "browser-host-service"])
def test_a_web_checkout_confirmed_by_code_is_paid_once_with_a_receipt_and_no_card_anywhere(
    redis_server: RedisServer, redis: Redis, model_server, services: SandboxServices, tmp_path, browser_host: bool
) -> None:
    world = services.endpoints  # type: ignore[attr-defined]
    shop = str(world.shop_url)
    model_server.responder = shopper(shop)
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=sandbox_environment(world),
                        extra_env=api_environment(world), browser_host=browser_host).start()
    try:
        user = stack.user(3)
        sent = user.send("/connect card")
        link = re.search(r"http://\S+/connect/\S+", user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)["text"])
        assert httpx.post(link.group(0), data={"number": CARD, "holder": "Demo User", "expiry": "12/29"}).status_code == 200
        user.wait_for_bot(lambda m: "connected" in m["text"], after=sent)

        sent = user.send(f"buy the noise-cancelling headphones on {shop}")
        card = user.wait_for_card(after=sent, timeout=90)
        assert "spends your money" in card["text"] and "199.00" in card["text"]
        assert services.issuer.tokens == {}, "nothing is minted before the tap"
        user.press(card["message_id"], button="Approve")

        # The bank wants the cardholder to confirm: the page's picture and a question come to the chat.
        asked = user.wait_for_bot(lambda m: m.get("photo") is not None, after=card["message_id"], timeout=90)
        assert "/checkout/verify/" in asked["text"]
        phone = httpx.get(f"{world.issuer_url}/phone").text
        code = re.search(r"<b>(\d{6})</b>", phone).group(1)
        reply = user.send(code)
        user.wait_for_bot(lambda m: m["text"].startswith("Paid: the bank accepted"), after=reply, timeout=90)
        receipt = user.wait_for_bot(lambda m: m["text"].startswith("🧾 199.00 USD"), after=reply, timeout=30)
        assert "/orders/" not in receipt["text"] and "order O-" in receipt["text"]

        [txn] = services.issuer.transactions.values()
        assert (txn.amount, txn.merchant, txn.status) == (199, shop, "captured")
        [order] = httpx.get(f"{shop}/api/orders").json()["orders"]
        assert order["order_id"] in receipt["text"]
        sent = user.send("/goals")
        goals = user.wait_for_bot(lambda m: "🧾 199.00 USD" in m["text"], after=sent, timeout=20)
        assert order["order_id"] in goals["text"]

        # No picture sent to the chat showed a card form: the only one is the bank's page, which has none.
        photos = [m for m in user.messages() if m.get("photo") is not None]
        assert [p["message_id"] for p in photos] == [asked["message_id"]]
        verify_url = re.search(r"http://\S+/checkout/verify/\S+?(?=[\s).,]|$)", asked["text"]).group(0)
        verify_page = httpx.get(verify_url).text
        assert "cardnumber" not in verify_page and "cvc" not in verify_page.lower()

        [token] = services.issuer.tokens.values()
        secrets = [CARD, CARD.replace(" ", ""), token.virtual_number]
        cvc_forms = [f'"cvc": "{token.virtual_cvc}"', f"cvc={token.virtual_cvc}", f"cvc: {token.virtual_cvc}",
                     f"CVC {token.virtual_cvc}"]
        everything = stack.logs() + json.dumps([r.raw for r in model_server.requests]) + json.dumps(user.messages())
        everything += json.dumps([e.model_dump() for e in AuditLog(redis).entries(3)])
        everything += json.dumps({k.decode(): str(redis.dump(k)) for k in redis.scan_iter("*")})
        for secret in [*secrets, *cvc_forms]:
            assert secret not in everything
        assert token.virtual_number not in verify_page
        if browser_host:
            # Every browser of the flow was started by the browser host, a process of its own with no key.
            started = stack.log("browser-host")
            assert started.count("started a browser worker") >= 2, started[-2000:]
    finally:
        stack.stop()
