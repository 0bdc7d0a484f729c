"""Buying in the sandbox shop through Deputy, paid at the sandbox card issuer.

The real runner, executor, guard and approvals run inline over real Redis; the shop and
the issuer are real HTTP services; only the model is scripted (and, where a test says so,
adversarial).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from decimal import Decimal

import pytest
from redis import Redis

from deputy.bot.card_view import press_card_for_merchant
from deputy.connectors.web.checkout import take_card
from deputy.core.records.actions import Action
from deputy.core.accounts.card_preferences import CardPreferences
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.effects import EffectClass
from deputy.sandbox import shop
from deputy.agent.goals import GoalStore
from deputy.core.records.handoff import AGENT_NOTE, CodeField, HandOffRecorder, HandOffStore
from deputy.core.records.outbox import Outbox
from deputy.core.records.payloads import HandOffCodeJob
from deputy.core.records.receipts import ReceiptStore
from deputy.executor.handoffs import HandOffService
from deputy.executor.payments import receipt_on_confirmation
from deputy.sentinel.stores.action_store import ActionStore
from deputy.sentinel.stores.audit import AuditLog
from shop_rig import CARD, OTHER_CARD, USER, Rig, Script


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(time.time())


@pytest.fixture
def rig(redis: Redis, clock: ManualClock, request) -> Iterator[Rig]:
    script = getattr(request, "param", None) or Script()
    made = Rig(redis, script, clock)
    yield made
    made.stop()


def test_an_approved_purchase_is_paid_once_at_the_issuer_under_a_signed_mandate(rig: Rig, redis: Redis) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    rig.buy()
    assert rig.orders() == [], "nothing is paid before the tap"
    seen = rig.approve_last_card()
    [order] = rig.orders()
    assert order["total"] == "8.99"
    [txn] = rig.issuer.transactions.values()
    assert (txn.amount, txn.merchant, txn.status) == (Decimal("8.99"), rig.shop_url, "captured")
    token = rig.issuer.tokens[order["payment_token"]]
    # What the user saw is what the issuer holds, signed by the executor.
    assert token.mandate["seen_sha256"] == hashlib.sha256(seen.encode()).hexdigest()
    assert token.mandate["total"] == "8.99" and token.mandate["merchant"] == rig.shop_url
    assert "1 Demo Street" in token.mandate["shipping"]
    assert rig.sent()[-1].startswith("Done:")


def test_a_leaked_token_presented_again_is_refused_by_the_issuer_and_the_user_hears_why(rig: Rig) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    script = rig.model.fn
    goal = rig.buy()
    rig.approve_last_card()
    [order] = rig.orders()
    assert "[redacted]" in json.dumps(rig.model.calls[-1][0]), "the agent never reads a token"
    # A hijacked agent that got the token anyway pays a second cart with it: still a card...
    script.stolen = order["payment_token"]
    rig.start(USER, "buy another one", goal_id=goal + "-2")
    card = rig.cards()[-1]
    assert "spends your money" in card.text
    rig.approve_last_card()  # ...and even when the user taps Approve, the issuer says no.
    assert len(rig.orders()) == 1 and len(rig.issuer.transactions) == 1
    notice = [t for t in rig.sent() if t.startswith("💳")]
    assert notice and "already used" in notice[-1]


def test_a_price_change_after_approval_comes_back_as_a_new_card(rig: Rig) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    rig.buy()
    first = rig.cards()[-1].text
    assert "8.99" in first
    rig.shop_app[shop.SHOP].products["usb-c-cable-1m"].price = Decimal("9.49")
    rig.approve_last_card()
    assert rig.orders() == [] and rig.issuer.transactions == {}
    # The minted token is cancelled, the user hears why, and the new price is a new card.
    assert all(t.status == "revoked" for t in rig.issuer.tokens.values())
    assert any("9.49" in t for t in rig.sent() if t.startswith("💳"))
    second = rig.cards()[-1].text
    assert second != first and "9.49" in second
    rig.approve_last_card()
    [order] = rig.orders()
    assert order["total"] == "9.49"


def test_an_expired_card_is_never_used_and_the_user_is_told(rig: Rig) -> None:
    rig.add_card("cred:card/main", CARD, "01/21", "Old Visa")
    rig.buy()
    rig.approve_last_card()
    assert rig.orders() == [] and rig.issuer.tokens == {}
    assert any("Old Visa" in t and "expired" in t for t in rig.sent())


def test_the_preferred_card_for_the_shop_pays_and_a_card_about_to_expire_earns_a_heads_up(
    rig: Rig, redis: Redis, clock: ManualClock
) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    soon = time.gmtime(clock() + 20 * 24 * 3600)
    rig.add_card("cred:card/travel", OTHER_CARD, f"{soon.tm_mon:02d}/{soon.tm_year % 100:02d}", "Travel Mastercard")
    prefs = CardPreferences(redis)
    prefs.set_default(USER, "cred:card/main")
    prefs.set_for_merchant(USER, rig.shop_url, "cred:card/travel")
    rig.buy()
    rig.approve_last_card()
    [txn] = rig.issuer.transactions.values()
    assert rig.issuer.cards[txn.card_ref].number == OTHER_CARD
    assert any("Heads-up" in t and "Travel Mastercard" in t for t in rig.sent())


def test_no_card_number_reaches_the_model_the_chat_or_the_audit_trail(rig: Rig, redis: Redis) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    rig.buy()
    rig.approve_last_card()
    [token] = rig.issuer.tokens.values()
    secrets_ = [CARD, token.virtual_number]
    everything = json.dumps(rig.model.calls) + json.dumps(rig.sent())
    everything += json.dumps([e.model_dump() for e in AuditLog(redis).entries(USER)])
    everything += json.dumps({k.decode(): str(redis.dump(k)) for k in redis.scan_iter("*")})
    for secret in secrets_:
        assert secret not in everything


def test_an_approved_web_checkout_gets_a_single_use_card_for_that_shop_alone(rig: Rig, redis: Redis) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    fields = {"cardnumber": "<card:number>", "exp-date": "<card:expiry>", "cvc": "<card:cvc>"}
    action = Action(id="a_web", goal_id="g", user_id=USER, chat_id=USER, connector="web", operation="pay_on_page",
                    effect=EffectClass.spend, tool_call_id="c", created_at=time.time(),
                    arguments={"url": f"{rig.market_url}/checkout/card",
                               "action_url": f"{rig.market_url}/checkout/card",
                               "amount": "11.48", "currency": "USD", "fields": fields},
                    targets=[f"{rig.market_url}/checkout/card"], amount=Decimal("11.48"), currency="USD")
    runnable = rig.executor._payments.prepare(action, "approval-1", card_text="Pay 11.48 USD?")
    assert runnable.arguments == action.arguments, "the agent's arguments never hold the card"
    card = take_card("a_web")
    assert card is not None and card.merchant == rig.market_url
    [token] = rig.issuer.tokens.values()
    assert card.number.get_secret_value() == token.virtual_number and token.amount == Decimal("11.48")
    assert take_card("a_web") is None, "offered for one run only"


@pytest.mark.parametrize("landed, receipt", [("/orders/O-7F3A", True), ("https://elsewhere.example/orders/O-1", False)])
def test_a_web_payment_confirmed_with_a_code_gets_its_receipt_once_the_page_confirms(
        rig: Rig, redis: Redis, landed: str, receipt: bool) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    fields = {"cardnumber": "<card:number>", "exp-date": "<card:expiry>", "cvc": "<card:cvc>"}
    url = f"{rig.market_url}/checkout/card"
    action = Action(id="a_3ds", goal_id="g_3ds", user_id=USER, chat_id=USER, connector="web", operation="pay_on_page",
                    effect=EffectClass.spend, tool_call_id="c", created_at=time.time(),
                    arguments={"url": url, "action_url": url, "amount": "199.00", "currency": "USD", "fields": fields},
                    targets=[url], amount=Decimal("199.00"), currency="USD")
    payments = rig.executor._payments
    payments.prepare(action, "approval-3ds", card_text="Pay 199.00 USD?")
    take_card(action.id)
    ActionStore(redis).submit(action)
    # The bank's page asked for a code: no receipt for a payment not yet made.
    assert payments.after_success(action, AGENT_NOTE.format(what="a code")) is None
    store = HandOffStore(redis)
    recorder = HandOffRecorder(store, Outbox(redis))
    handoff = recorder.record(user_id=USER, chat_id=USER, goal_id="g_3ds", action_id=action.id, reason="two_factor",
                              url=f"{rig.market_url}/checkout/verify/1", site="market", screenshot=None,
                              entry=CodeField(form=1, field="otp"))
    store.put_code(handoff, "123456")
    target = landed if "://" in landed else rig.market_url + landed
    service = HandOffService(store, recorder, GoalStore(redis), Outbox(redis), AuditLog(redis), lambda *a, **k: None,
                             lambda act, page, entry, code: target, confirmed=receipt_on_confirmation(redis, payments))
    assert service.enter(HandOffCodeJob(user_id=USER, handoff_id=handoff.id)) == "entered"
    kept = ReceiptStore(redis).list(USER, "g_3ds")
    if receipt:
        [kept_receipt] = kept
        assert (kept_receipt.order_id, kept_receipt.total) == ("O-7F3A", Decimal("199.00"))
        assert any(t.startswith("🧾 199.00 USD") and "O-7F3A" in t for t in rig.sent())
    else:
        assert kept == []


def test_a_receipt_offers_the_other_cards_for_this_shop_and_the_choice_sticks(rig: Rig, redis: Redis) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    rig.add_card("cred:card/travel", OTHER_CARD, "12/30", "Travel Mastercard")
    goal = rig.buy()
    rig.approve_last_card()
    receipt = next(m for m in rig.messages() if m.text.startswith("🧾"))
    [[button]] = receipt.buttons
    assert button.text == "Pay here with Travel Mastercard from now on" and button.sign.startswith("cm:")
    # Only the receipt's own user can use the choice, and only once.
    assert press_card_for_merchant(redis, button.sign[3:], USER + 1)[0] == "That choice expired."
    assert "Travel Mastercard pays at " + rig.shop_url in press_card_for_merchant(redis, button.sign[3:], USER)[1]
    rig.start(USER, "buy another one", goal_id=goal + "-2")
    rig.approve_last_card()
    cards_used = [rig.issuer.cards[t.card_ref].number for t in rig.issuer.transactions.values()]
    assert cards_used == [CARD, OTHER_CARD]


def test_a_card_the_issuer_forgot_is_enrolled_again(rig: Rig) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    goal = rig.buy()
    rig.approve_last_card()
    rig.issuer.cards.clear()  # the sandbox issuer restarted empty
    rig.start(USER, "buy another one", goal_id=goal + "-2")
    rig.approve_last_card()
    assert len(rig.orders()) == 2 and len(rig.issuer.transactions) == 2


def test_the_card_and_the_signed_mandate_list_what_is_in_the_cart(rig: Rig) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    rig.buy()
    card = rig.cards()[-1].text
    assert "In the cart" in card and "1 × USB-C" in card
    rig.approve_last_card()
    [token] = rig.issuer.tokens.values()
    items = json.loads(token.mandate["items"])
    assert len(items) == 1 and items[0].startswith("1 × USB-C")


def test_a_cart_that_changed_after_the_card_is_not_paid(rig: Rig) -> None:
    rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
    rig.buy()
    [cart] = rig.shop_app[shop.SHOP].carts.values()
    cart.items["usb-c-cable-1m"] = 2  # someone added to the cart after the user saw it
    rig.shop_app[shop.SHOP].products["usb-c-cable-1m"].price = Decimal("4.495")
    rig.approve_last_card()
    assert rig.orders() == [] and rig.issuer.transactions == {}
    assert any("cart changed" in t for t in rig.sent() if t.startswith("💳"))
