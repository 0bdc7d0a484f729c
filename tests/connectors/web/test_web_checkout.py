"""Paying on a sandbox shop's web checkout form in real Chromium, with a single-use card
from the sandbox issuer that only the executor holds: filled only on the shop's own
origin, never shown back, and a bank's confirmation page handed to the user."""

from __future__ import annotations

import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from conftest import POLICY, fresh_user_id, make_action
from pydantic import SecretStr

from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.human import NeedsHuman
from deputy.connectors.web.runners import WebRunners
from deputy.connectors.web.checkout import CheckoutCard, offer_card
from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorRejected
from deputy.sandbox import market, shop
from deputy.sandbox.acquirer import MerchantAccount
from deputy.sandbox.issuer import Issuer
from deputy.sandbox.issuer_api import create_app
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.egress.policy import EgressContext, reviewer

pytestmark = pytest.mark.browser
CARD = "4111111111111111"
CARD_FIELDS = {"name": "Demo User", "shipping_address": "1 Demo Street, Sandbox", "cardnumber": "<card:number>",
               "exp-date": "<card:expiry>", "cvc": "<card:cvc>"}


class World:
    def __init__(self) -> None:
        self.issuer = Issuer()
        self.servers = [SiteServer(create_app(self.issuer, "agent-key", "acquirer-key"))]
        issuer_url = self.servers[0].start()
        self.urls: dict[str, str] = {}
        for name, module in (("shop", shop), ("market", market)):
            account = MerchantAccount(issuer_url, "acquirer-key")
            self.servers.append(SiteServer(module.create_app(check_payment=account)))
            self.urls[name] = account.merchant = self.servers[-1].start()
        self.card = self.issuer.enroll(CARD, "12/30", "Demo User").ref

    def card_for(self, action_id: str, merchant: str, amount: str) -> tuple[CheckoutCard, Any]:
        """What the executor does after the user approved: mint, then offer the virtual card."""
        token = self.issuer.mint(self.card, merchant, Decimal(amount), "USD", 900, None, None, action_id)
        year, month = time.gmtime(token.expires_at)[:2]
        card = CheckoutCard(number=SecretStr(token.virtual_number), cvc=SecretStr(token.virtual_cvc),
                            expiry=f"{month:02d}/{year % 100:02d}", name="Demo User", merchant=merchant,
                            action_id=action_id)
        return card, token


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    made = World()
    yield made
    for server in made.servers:
        server.stop()


def runners(sessions: BrowserSessions) -> WebRunners:
    return WebRunners(sessions, lambda action: reviewer(POLICY, EgressContext()))


def fill_cart(web: WebRunners, url: str, product: str, user_id: int) -> None:
    page = make_action("open_page", {"url": f"{url}/products/{product}"}, user_id)
    web.open_page(page, page.id)
    add = make_action("submit_form", {"url": f"{url}/products/{product}", "action_url": f"{url}/cart/add"}, user_id)
    web.submit_form(add, add.id)


def pay_action(url: str, amount: str, user_id: int, fields: dict[str, str] | None = None) -> Action:
    return make_action("pay_on_page", {"url": f"{url}/checkout/card", "action_url": f"{url}/checkout/card",
                                       "amount": amount, "currency": "USD", "fields": fields or CARD_FIELDS}, user_id)


def test_a_checkout_form_is_paid_with_the_single_use_card_and_the_numbers_never_come_back(
    sessions: BrowserSessions, world: World
) -> None:
    web, user_id, url = runners(sessions), fresh_user_id(), world.urls["shop"]
    fill_cart(web, url, "usb-c-cable-1m", user_id)
    action = pay_action(url, "8.99", user_id)
    card, token = world.card_for(action.id, url, "8.99")
    offer_card(card)
    result = web.runners()["web.pay_on_page"](action, action.id)
    assert "Order O-" in result.summary and "Paid 8.99 USD" in result.summary
    assert token.virtual_number not in result.summary and token.virtual_cvc not in result.summary
    assert CARD not in result.summary
    [txn] = [t for t in world.issuer.transactions.values() if t.token_id == token.id]
    assert (txn.amount, txn.merchant, txn.status) == (Decimal("8.99"), url, "captured")
    # The same single-use card cannot pay twice, even if it were offered again.
    fill_cart(web, url, "usb-c-cable-1m", user_id)
    again = pay_action(url, "8.99", user_id)
    offer_card(card.model_copy(update={"action_id": again.id}))
    second = web.runners()["web.pay_on_page"](again, again.id)
    assert "already used" in second.summary


def test_a_bank_confirmation_is_handed_to_the_user_and_their_code_completes_the_payment(
    sessions: BrowserSessions, world: World
) -> None:
    web, user_id, url = runners(sessions), fresh_user_id(), world.urls["shop"]
    fill_cart(web, url, "headphones-nc", user_id)
    action = pay_action(url, "199.00", user_id)
    card, token = world.card_for(action.id, url, "199.00")
    offer_card(card)
    with pytest.raises(NeedsHuman) as caught:
        web.pay_on_page(action, action.id)
    needed = caught.value
    assert needed.reason == "two_factor" and "/checkout/verify/" in needed.url
    assert needed.entry is not None and needed.entry.field == "otp"
    assert not [t for t in world.issuer.transactions.values() if t.token_id == token.id], "not paid yet"
    code = next(c.code for c in world.issuer.challenges.values() if c.token_id == token.id)
    landed = web.enter_code(make_action("open_page", {"url": needed.url}, user_id), needed.url, needed.entry, code)
    assert "/orders/O-" in landed
    [txn] = [t for t in world.issuer.transactions.values() if t.token_id == token.id]
    assert txn.status == "captured" and txn.amount == Decimal("199.00")


def test_the_card_is_entered_only_on_the_approved_shop_and_only_into_card_fields(
    sessions: BrowserSessions, world: World
) -> None:
    web, user_id = runners(sessions), fresh_user_id()
    shop_url, market_url = world.urls["shop"], world.urls["market"]
    fill_cart(web, market_url, "usb-c-cable-1m", user_id)
    # Approved for the shop, but the agent points the payment at the market: refused before typing.
    action = pay_action(market_url, "11.48", user_id)
    offer_card(world.card_for(action.id, shop_url, "11.48")[0])
    with pytest.raises(ConnectorRejected, match="approved payment is for"):
        web.pay_on_page(action, action.id)
    # No card was offered for this action (nobody approved it): nothing is typed.
    with pytest.raises(ConnectorRejected, match="no approved card payment"):
        web.pay_on_page(pay_action(market_url, "11.48", user_id), "k")
    # A made-up number in a card field, or the card in a plain field, is refused.
    for fields in ({**CARD_FIELDS, "cardnumber": "4000000000000002"}, {**CARD_FIELDS, "name": "<card:number>"}):
        action = pay_action(market_url, "11.48", user_id, fields)
        offer_card(world.card_for(action.id, market_url, "11.48")[0])
        with pytest.raises(ConnectorRejected):
            web.pay_on_page(action, action.id)
    assert not [t for t in world.issuer.transactions.values() if t.merchant == market_url]
