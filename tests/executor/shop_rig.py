"""A shopper's Deputy: the real runner, executor, guard and approvals inline over real Redis,
two sandbox shops and the sandbox card issuer as real HTTP services, a scripted model."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
from pydantic import SecretStr
from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.core.infrastructure.clock import ManualClock
from deputy.runtime.operations import KNOWN_OVERRIDES, build_catalog
from deputy.executor.issuer_client import HttpIssuerClient
from deputy.executor.mandates import MandateSigner
from deputy.executor.payments import PaymentIssuer
from deputy.executor.review_context import ReviewContextBuilder, stored_rules
from deputy.sandbox import market, shop
from deputy.sandbox.acquirer import MerchantAccount
from deputy.sandbox.issuer import Issuer
from deputy.sandbox.issuer_api import create_app
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.stores.approvals import Choice
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.vault import CredentialKind, KdfCost, PaymentTokens, Vault
from deputy.testing.inline import InlineDeputy

USER = 41
CARD = "4111111111111111"
OTHER_CARD = "5555555555554444"
MANDATE_KEY = b"m" * 32


class Script:
    """The shopper's model: a cart, one item, pay with the placeholder; then reply.
    With `stolen` set it is adversarial: it pays with that token (which it cannot have read:
    the agent sees tokens as [redacted])."""

    def __init__(self, product: str = "usb-c-cable-1m", service: str = "shop") -> None:
        self.product = product
        self.service = service
        self.stolen: str | None = None

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]):
        results = [message_text(m) for m in messages if m.get("role") == "tool"]
        return self._shop(results, self.stolen or "<payment_token>")

    def _shop(self, results: list[str], payment: str):
        if not results:
            return tool_call(f"{self.service}_create_cart")
        cart = re.findall(r"C-[A-Z0-9]+", "\n".join(results))[-1]
        if len(results) == 1:
            return tool_call(f"{self.service}_add_to_cart", cart_id=cart,
                             body={"product_id": self.product, "quantity": 1})
        last = results[-1]
        if last.startswith("Failed:") and "costs" in last:
            return tool_call(f"{self.service}_get_cart", cart_id=cart)  # the price changed: read the cart again
        totals = re.findall(r'"total":\s*"([0-9.]+)"', last)
        if totals and "order_id" not in last and "declined" not in last:
            return tool_call(f"{self.service}_checkout", cart_id=cart, body={
                "payment_token": payment, "amount": totals[0], "currency": "USD", "name": "Demo",
                "shipping_address": "1 Demo Street, Sandbox"})
        return tool_call("reply", text="Done: " + last[:300])


class Rig(InlineDeputy):
    """The issuer, the card payments and Deputy share one clock: today unless a test gives one,
    because the sandbox shops estimate delivery from the real date."""

    def __init__(self, redis: Redis, script: Script, clock: ManualClock | None = None) -> None:
        clock = clock if clock is not None else ManualClock(time.time())
        self.issuer = Issuer(mandate_key=MANDATE_KEY, clock=clock)
        self.servers = [SiteServer(create_app(self.issuer, "agent-key", "acquirer-key"))]
        self.issuer_url = self.servers[0].start()
        self.http = httpx.Client(timeout=10, trust_env=False)
        self.apps, urls, apis = {}, {}, []
        for name, module in (("shop", shop), ("market", market)):
            account = MerchantAccount(self.issuer_url, "acquirer-key")
            self.apps[name] = module.create_app(check_payment=account)
            self.servers.append(SiteServer(self.apps[name]))
            urls[name] = account.merchant = self.servers[-1].start()
            apis.append(import_openapi(fetch_openapi(self.http, f"{urls[name]}/openapi.json"), service=name,
                                       overrides=KNOWN_OVERRIDES[name]))
        self.shop_app, self.shop_url, self.market_url = self.apps["shop"], urls["shop"], urls["market"]
        self.vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
        catalog = build_catalog(apis)
        runners = {key: run for api in apis for key, run in OpenApiRunner(api, self.http, self.vault).runners().items()}
        self.model = FunctionModel(script)
        payments = PaymentIssuer(PaymentTokens(redis, self.vault), redis,
                                 issuer=HttpIssuerClient(self.issuer_url, SecretStr("agent-key")), vault=self.vault,
                                 mandates=MandateSigner(MANDATE_KEY), clock=clock)
        contexts = ReviewContextBuilder(redis, GoalStore(redis), catalog, rules=stored_rules(RuleStore(redis)))
        super().__init__(redis, self.model, catalog, runners, clock=clock, contexts=contexts, payments=payments,
                         approval_ttl=3600)

    def add_card(self, handle: str, number: str, expiry: str, label: str) -> None:
        self.vault.put(USER, handle, SecretStr(number), CredentialKind.card, label,
                       {"holder": "Demo User", "expiry": expiry})

    def buy(self) -> str:
        return self.start(USER, "buy a 1m USB-C cable from the shop").id

    def approve_last_card(self) -> str:
        card = self.cards()[-1]
        approval_id = re.search(r"ap1:([^:]+):", card.buttons[0][0].data).group(1)
        self.press(approval_id, USER, Choice.approve)
        return card.text

    def orders(self, url: str | None = None) -> list[dict[str, Any]]:
        return self.http.get(f"{url or self.shop_url}/api/orders").json()["orders"]

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
