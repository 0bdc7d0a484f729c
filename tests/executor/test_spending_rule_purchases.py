"""A purchase within a spending rule the user set goes without a tap, capped at the issuer."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest
from redis import Redis

from deputy.agent.model.testing import message_text, tool_call
from deputy.core.records.effects import EffectClass
from deputy.sandbox import shop
from deputy.sentinel.rules import RequestedVerdict, RuleConditions, RuleScope, UserRule
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.rule_store import RuleStore
from shop_rig import CARD, USER, Rig, Script


@pytest.fixture
def rig(redis: Redis) -> Iterator[Rig]:
    made = Rig(redis, Script())
    made.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    yield made
    made.stop()


def _rule(redis: Redis, cap: str, shop: str | None, text: str = "under $10 at the shop") -> None:
    RuleStore(redis).add(USER, UserRule(
        id="r_spend", verdict=RequestedVerdict.allow, scope=RuleScope(effects=[EffectClass.spend]),
        conditions=RuleConditions(amount_at_most=Decimal(cap), currency="USD", target_in=[shop] if shop else []),
        text=text, created_at=0))


def test_a_purchase_within_the_rule_is_paid_without_a_card_and_the_token_is_capped_at_the_limit(
        rig: Rig, redis: Redis) -> None:
    _rule(redis, "10", rig.shop_url)
    rig.buy()
    assert rig.cards() == [], "no tap needed"
    [order] = rig.orders()
    assert order["total"] == "8.99"
    [token] = rig.issuer.tokens.values()
    # The issuer holds the bound: the token is worth the rule's limit, not the shop's price.
    assert token.amount == Decimal("10") and token.merchant == rig.shop_url
    assert token.mandate["approved_by"] == "rule" and token.mandate["total"] == "8.99"
    [txn] = rig.issuer.transactions.values()
    assert txn.amount == Decimal("8.99")
    told = [t for t in rig.sent() if t.startswith("🛒")]
    assert told and "8.99 USD" in told[0] and "under $10 at the shop" in told[0] and "USB-C" in told[0]
    events = [e.kind for e in AuditLog(redis).entries(USER)]
    assert "purchase_within_rule" in events


def test_a_price_above_the_rule_asks_as_usual(rig: Rig, redis: Redis) -> None:
    _rule(redis, "5", rig.shop_url)
    rig.buy()
    assert rig.orders() == [] and len(rig.cards()) == 1
    assert "8.99" in rig.cards()[0].text


def test_a_rule_for_another_shop_does_not_cover_this_one(rig: Rig, redis: Redis) -> None:
    _rule(redis, "100", rig.market_url, text="under $100 at the market")
    rig.buy()
    assert rig.orders() == [] and len(rig.cards()) == 1


def test_a_goal_that_never_asked_to_buy_gets_a_card_even_within_the_rule(rig: Rig, redis: Redis) -> None:
    _rule(redis, "10", None, text="anything under $10")
    rig.start(USER, "look at the 1m USB-C cable in the shop")
    assert rig.orders() == []
    assert len(rig.cards()) == 1


class PriceWatch(Script):
    """Watches the headphones' price; when it drops below 150 it buys them."""

    def __call__(self, messages, tools):
        woke = [i for i, m in enumerate(messages) if m.get("role") == "tool" and "is now" in message_text(m)]
        if not woke:
            return tool_call("schedule_check", what="headphones under 150 USD", every_minutes=60, max_checks=50,
                             probe={"tool": "shop_get_product", "arguments": {"product_id": "headphones-nc"},
                                    "compare": "threshold", "field": "price", "below": 150})
        results = [message_text(m) for m in messages[woke[0] + 1:] if m.get("role") == "tool"]
        return self._shop(results, "<payment_token>")


def test_a_price_watch_within_a_spending_rule_buys_when_the_price_drops_and_says_so(redis: Redis) -> None:
    rig = Rig(redis, PriceWatch(product="headphones-nc"))
    try:
        rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
        _rule(redis, "150", rig.shop_url, text="headphones under $150 at the shop")
        headphones = rig.shop_app[shop.SHOP].products["headphones-nc"]
        rig.start(USER, "buy the noise-cancelling headphones when they drop below $150", goal_id="g_watch")
        headphones.price = Decimal("189.00")
        rig.tick(3600)
        assert rig.orders() == []
        headphones.price = Decimal("149.00")
        rig.tick(3600)
        assert rig.cards() == []
        [order] = rig.orders()
        assert order["total"] == "149.00"
        assert any(t.startswith("🛒 Bought 1 × ") and "149.00 USD" in t for t in rig.sent())
    finally:
        rig.stop()
