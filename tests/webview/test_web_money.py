"""The money page in figures: this month's spending against the user's spending rules (last month's
purchases do not count), a negotiation's asked / agreed / saved, and the plan's limits with their use."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from decimal import Decimal

import pytest
from aiohttp.test_utils import TestClient, TestServer
from redis import Redis

from deputy.bot.services import BotServices
from deputy.core.accounts.plans import default_plans
from deputy.core.accounts.web_sessions import WebSessions
from deputy.core.records.effects import EffectClass
from deputy.core.records.receipts import Receipt, ReceiptStore
from deputy.sentinel.negotiation.mandate import Mandate, MandateStatus, Role
from deputy.sentinel.negotiation.state import NegotiationState, Round, Thread
from deputy.sentinel.rules import RequestedVerdict, RuleConditions, RuleScope, UserRule
from deputy.sentinel.stores.mandates import MandateStore
from deputy.webview import COOKIE, create_app

ANN = 21
SHOTS = os.environ.get("DEPUTY_WEB_SCREENSHOTS")  # a folder: the docs' screenshots are taken there
DAY = 24 * 3600


@pytest.fixture
async def web(redis: Redis) -> AsyncIterator[tuple[TestClient, BotServices]]:
    services = BotServices.create(redis, "web-test-secret", None, plans=default_plans())
    async with TestClient(TestServer(create_app(services, "web-test-secret"))) as client:
        yield client, services


def seed(redis: Redis, services: BotServices) -> None:
    now = time.time()
    receipts = ReceiptStore(redis)
    for action_id, total, at in (("a_old", "200", now - 40 * DAY), ("a_rule", "30", now - 60),
                                 ("a_tap", "12.50", now - 30)):
        receipts.add(ANN, Receipt(goal_id="g_shop", action_id=action_id, merchant="http://shop.example",
                                  total=Decimal(total), currency="USD", items=["tea"], card="everyday", paid_at=at))
    services.rules.add(ANN, UserRule(
        id="r_cap", verdict=RequestedVerdict.allow, scope=RuleScope(effects=[EffectClass.spend]),
        conditions=RuleConditions(amount_at_most=Decimal("50"), currency="USD"),
        text="buy tea under $50 without asking me", created_at=now))
    services.audit.append(ANN, "purchase_within_rule", now - 60, action_id="a_rule", rule_id="r_cap",
                          limit="50.00 USD", merchant="http://shop.example")
    mandates = MandateStore(redis)
    mandate = Mandate(subject="my internet bill", role=Role.reduce, per="month", opening=Decimal("80"),
                      target=Decimal("45"), reservation=Decimal("60"), max_step=Decimal("5"),
                      status=MandateStatus.active)
    mandates.put(ANN, "g_bill", mandate)
    thread = Thread(rounds=2, their_last=Decimal("55"), our_last=Decimal("50"), closed_at=Decimal("55"), history=[
        Round(at=now - 90, who="them", amount=Decimal("75"), text="We can do $75."),
        Round(at=now - 80, who="us", amount=Decimal("50"), text="Could you do $50?")])
    mandates.update_state(ANN, "g_bill", lambda m, s: NegotiationState(threads={"retention@provider.example": thread}))


async def test_the_money_page_shows_this_months_spending_rules_negotiations_and_plan_in_figures(
    web: tuple[TestClient, BotServices], redis: Redis,
) -> None:
    client, services = web
    seed(redis, services)
    sessions = WebSessions(redis)
    _, session = sessions.open(sessions.create_link(ANN))
    page = await client.get("/web/money", cookies={COOKIE: session})
    html = await page.text()
    text = " ".join(html.split())
    if SHOTS:
        await screenshot(html, f"{SHOTS}/web-money.png")
    assert page.status == 200
    # This month: the two purchases of this month (not last month's 200), one let through by the rule.
    assert "Spent this month: <strong>42.50 USD</strong> in 2 purchases (1 approved by you with a tap)" in text
    assert ("<td>buy tea under $50 without asking me</td><td>50.00 USD a purchase</td><td>1</td><td>30.00 USD</td>"
            in text)
    assert "All time: 242.50 USD" in text
    # The negotiation as figures: the bill was $80 a month, agreed at $55, saving $25 a month.
    assert ("<td>my internet bill</td><td>retention@provider.example</td><td>$80/month</td><td>$55/month</td>"
            "<td>$25/month</td>") in text
    # The plan's limits with what is used of them.
    assert "Your plan:" in text and "<td>This month</td>" in text


async def screenshot(html: str, path: str) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        page = await browser.new_page(viewport={"width": 900, "height": 900})
        await page.set_content(html)
        await page.screenshot(path=path, full_page=True)
        await browser.close()
