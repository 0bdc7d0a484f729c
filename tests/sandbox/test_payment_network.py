"""The sandbox payment network: the issuer, not Deputy, decides whether a token pays.

A shop's checkout goes through its acquirer to the issuer, and every way a token can be
misused (reused, over its amount, at another shop, after it expired, after it was
cancelled) is refused with the issuer's reason in the shop's answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from deputy.core.infrastructure.clock import ManualClock
from deputy.sandbox import shop
from deputy.sandbox.acquirer import MerchantAccount
from deputy.sandbox.issuer import ISSUER_KEY_HEADER, Declined, Issuer, sign_mandate
from deputy.sandbox.issuer_api import create_app
from deputy.sandbox.webapp_common import SiteServer

CARD = "4111111111111111"
MANDATE_KEY = b"k" * 32


class Network:
    def __init__(self, issuer: Issuer, url: str, shops: list[tuple[str, httpx.Client]]) -> None:
        self.issuer, self.url, self.shops = issuer, url, shops
        self.agent = httpx.Client(base_url=url, headers={ISSUER_KEY_HEADER: "agent-key"})
        self.card = self.agent.post("/api/v1/cards", json={"number": CARD, "expiry": "12/29", "holder": "Demo"}
                                    ).json()["card"]

    def mint(self, merchant: str, amount: str, key: str, ttl: int = 900, mandate: bool = False) -> dict[str, Any]:
        terms = {"merchant": merchant, "total": amount, "currency": "USD"} if mandate else None
        body = {"card": self.card, "merchant": merchant, "amount": amount, "currency": "USD", "ttl_seconds": ttl,
                "idempotency_key": key, "mandate": terms,
                "mandate_signature": sign_mandate(MANDATE_KEY, terms) if terms else None}
        answer = self.agent.post("/api/v1/tokens", json=body)
        assert answer.status_code == 201, answer.text
        return answer.json()


@pytest.fixture
def network() -> Iterator[Network]:
    clock = ManualClock()  # January 2027
    issuer = Issuer(mandate_key=MANDATE_KEY, clock=clock)
    servers = [SiteServer(create_app(issuer, "agent-key", "acquirer-key"))]
    url = servers[0].start()
    shops = []
    for _ in range(2):
        account = MerchantAccount(url, "acquirer-key")
        server = SiteServer(shop.create_app(check_payment=account))
        account.merchant = server.start()
        servers.append(server)
        shops.append((account.merchant, httpx.Client(base_url=account.merchant)))
    net = Network(issuer, url, shops)
    net.clock = clock  # type: ignore[attr-defined]
    yield net
    for server in servers:
        server.stop()


def cart_of(client: httpx.Client, product: str = "usb-c-cable-1m") -> tuple[str, str]:
    cart = client.post("/api/carts").json()["cart_id"]
    total = client.post(f"/api/carts/{cart}/items", json={"product_id": product, "quantity": 1}).json()["total"]
    return cart, total


def pay(client: httpx.Client, cart: str, token: str, amount: str) -> httpx.Response:
    return client.post(f"/api/carts/{cart}/checkout", json={
        "payment_token": token, "amount": amount, "currency": "USD", "name": "Demo",
        "shipping_address": "1 Demo Street, Sandbox"})


def test_a_token_pays_once_at_its_shop_and_shows_on_the_statement(network: Network) -> None:
    merchant, client = network.shops[0]
    cart, total = cart_of(client)
    token = network.mint(merchant, total, "k1")
    answer = pay(client, cart, token["token"], total)
    assert answer.status_code == 201, answer.text
    [entry] = network.agent.get(f"/api/v1/statements/{network.card}").json()["transactions"]
    assert (entry["merchant"], entry["amount"], entry["status"]) == (merchant, total, "captured")


@pytest.mark.parametrize("misuse, reason", [
    ("reused", "already used"),
    ("over_amount", "more than the amount you approved"),
    ("wrong_merchant", "different shop"),
    ("expired", "expired"),
    ("revoked", "cancelled"),
])
def test_the_issuer_refuses_a_misused_token_and_says_why(network: Network, misuse: str, reason: str) -> None:
    merchant, client = network.shops[0]
    cart, total = cart_of(client)
    if misuse == "reused":
        token = network.mint(merchant, total, "k")["token"]
        assert pay(client, cart, token, total).status_code == 201
        cart, total = cart_of(client)
    elif misuse == "over_amount":
        token = network.mint(merchant, "5.00", "k")["token"]
    elif misuse == "wrong_merchant":
        token = network.mint(network.shops[1][0], total, "k")["token"]
    elif misuse == "expired":
        token = network.mint(merchant, total, "k", ttl=60)["token"]
        network.clock.advance(61)  # type: ignore[attr-defined]
    else:
        token = network.mint(merchant, total, "k")["token"]
        assert network.agent.post(f"/api/v1/tokens/{token}/revoke").json()["status"] == "revoked"
    answer = pay(client, cart, token, total)
    assert answer.status_code == 402
    assert "card issuer declined" in answer.json()["message"] and reason in answer.json()["message"]
    paid_before = 1 if misuse == "reused" else 0
    assert len(client.get("/api/orders").json()["orders"]) == paid_before, "the refused checkout placed no order"


def test_a_mandate_bound_token_pays_only_the_exact_total(network: Network) -> None:
    merchant, client = network.shops[0]
    cart, total = cart_of(client)  # 8.99
    token = network.mint(merchant, "9.49", "k", mandate=True)["token"]
    answer = pay(client, cart, token, total)
    assert answer.status_code == 402 and "not the total of the cart you approved" in answer.json()["message"]


def test_a_forged_mandate_gets_no_token(network: Network) -> None:
    merchant, _ = network.shops[0]
    terms = {"merchant": merchant, "total": "8.99", "currency": "USD"}
    answer = network.agent.post("/api/v1/tokens", json={
        "card": network.card, "merchant": merchant, "amount": "8.99", "currency": "USD", "idempotency_key": "x",
        "mandate": terms, "mandate_signature": sign_mandate(b"x" * 32, terms)})
    assert answer.status_code == 422 and "signature does not verify" in answer.json()["message"]


def test_an_expired_card_cannot_be_enrolled(network: Network) -> None:
    answer = network.agent.post("/api/v1/cards", json={"number": CARD, "expiry": "11/26"})
    assert answer.status_code == 422 and "expired" in answer.json()["message"]


def test_the_issuer_api_needs_its_keys(network: Network) -> None:
    assert httpx.post(network.url + "/api/v1/cards", json={"number": CARD, "expiry": "12/29"}).status_code == 401
    # Deputy's key is not an acquirer's: it cannot authorise charges.
    answer = network.agent.post("/api/v1/authorizations", json={"merchant": "m", "amount": "1", "currency": "USD"})
    assert answer.status_code == 401


def test_a_refund_goes_back_to_the_card_only_from_the_shop_that_was_paid(network: Network) -> None:
    merchant, client = network.shops[0]
    cart, total = cart_of(client)
    pay(client, cart, network.mint(merchant, total, "k")["token"], total)
    [txn] = network.issuer.transactions.values()
    other = MerchantAccount(network.url, "acquirer-key", network.shops[1][0])
    with pytest.raises(Exception, match="Only the shop that was paid"):
        other.refund(txn.id, Decimal(total))
    mine = MerchantAccount(network.url, "acquirer-key", merchant)
    assert mine.refund(txn.id, Decimal(total))["status"] == "refunded"


def test_a_token_under_a_spending_rule_is_capped_at_the_rules_limit_and_still_pays_only_the_total(
        network: Network) -> None:
    merchant, client = network.shops[0]
    cart, total = cart_of(client)  # 8.99

    def mint(limit: str, key: str) -> httpx.Response:
        terms = {"merchant": merchant, "total": total, "currency": "USD", "approved_by": "rule", "limit": limit}
        return network.agent.post("/api/v1/tokens", json={
            "card": network.card, "merchant": merchant, "amount": limit, "currency": "USD", "idempotency_key": key,
            "mandate": terms, "mandate_signature": sign_mandate(MANDATE_KEY, terms)})

    assert mint("5", "low").status_code == 422, "a total above the rule's limit gets no token"
    token = network.issuer.tokens[mint("10", "k").json()["token"]]
    assert token.amount == Decimal("10")
    for amount, reason in (("12.00", "over_amount"), ("9.99", "amount_mismatch")):
        with pytest.raises(Declined) as refused:
            network.issuer.authorize(token, merchant, Decimal(amount), "USD")
        assert refused.value.code == reason
    assert pay(client, cart, token.id, total).status_code == 201


def test_the_issuer_remembers_cards_and_payments_across_a_restart_but_never_the_full_number(
        network: Network, tmp_path) -> None:
    from deputy.sandbox.issuer_state import IssuerFile

    merchant, client = network.shops[0]
    cart, total = cart_of(client)
    assert pay(client, cart, network.mint(merchant, total, "k1")["token"], total).status_code == 201
    state = IssuerFile(tmp_path / "issuer.json")
    state.save(network.issuer)
    assert CARD not in (tmp_path / "issuer.json").read_text()
    again = state.load(Issuer(mandate_key=MANDATE_KEY))
    [entry] = again.statement(network.card)
    assert (entry["merchant"], entry["amount"]) == (merchant, total)
    assert again.cards[network.card].number.endswith(CARD[-4:])
    token = again.mint(network.card, merchant, Decimal(total), "USD", 900, None, None, "after-restart")
    assert token.card_ref == network.card, "the card Deputy enrolled before still pays"


def test_the_sandbox_issuer_saves_itself_after_each_change(tmp_path) -> None:
    from deputy.sandbox.issuer_state import IssuerFile

    state = IssuerFile(tmp_path / "issuer.json")
    issuer = Issuer()
    server = SiteServer(create_app(issuer, "agent-key", "acquirer-key", saved=state.save))
    url = server.start()
    try:
        answer = httpx.post(f"{url}/api/v1/cards", headers={ISSUER_KEY_HEADER: "agent-key"},
                            json={"number": CARD, "expiry": "12/29", "holder": "Demo"})
        ref = answer.json()["card"]
    finally:
        server.stop()
    assert ref in state.load(Issuer()).cards
