"""Payment tokens: one use, one merchant, at most the approved amount, before the deadline."""

from __future__ import annotations

import threading
from decimal import Decimal
from typing import Callable, Iterator

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.vault import (
    CardCharge,
    InvalidPaymentRequest,
    PaymentRefused,
    PaymentTokens,
    Vault,
    VaultError,
    normalise_merchant,
)
from deputy.vault.payments import format_amount

CARD = "4242424242424242"
USER = 77

raised_errors: list[Exception] = []


@pytest.fixture(autouse=True)
def errors_never_show_secrets() -> Iterator[None]:
    """Every error a test provoked is checked: no card number, no password, in any form."""
    raised_errors.clear()
    yield
    for error in raised_errors:
        text = str(error) + repr(error) + error.user_message + getattr(error, "reason", "")
        assert CARD not in text
        assert "shop-password-123" not in text


@pytest.fixture
def tokens(vault: Vault, redis: Redis, clock) -> PaymentTokens:
    vault.put(USER, "cred:card/visa", SecretStr(CARD), "card", "Visa", {"expiry": "12/29", "holder": "Sam Doe"})
    vault.put(USER, "cred:shop/login", SecretStr("shop-password-123"), "password", "Shop")
    return PaymentTokens(redis, vault, clock)


def refused(call: Callable[[], object]) -> PaymentRefused:
    with pytest.raises(PaymentRefused) as raised:
        call()
    raised_errors.append(raised.value)
    return raised.value


def issue(tokens: PaymentTokens, key: str = "approval-1", **terms: object):
    base = dict(card_handle="cred:card/visa", merchant="shop.example", max_amount=Decimal("42.00"),
                currency="EUR", ttl_seconds=600, idempotency_key=key)
    return tokens.issue(USER, **{**base, **terms})


def test_redeem_once_gives_the_card(tokens: PaymentTokens) -> None:
    token = issue(tokens)

    charge = tokens.redeem(token.id, "shop.example", Decimal("39.99"), "EUR")

    assert token.id.startswith("ptok_")
    assert isinstance(charge, CardCharge)
    assert charge.card.get_secret_value() == CARD
    assert charge.amount == Decimal("39.99") and charge.currency == "EUR"
    assert charge.card_public == {"expiry": "12/29", "holder": "Sam Doe", "last4": "4242"}
    assert CARD not in repr(charge) and CARD not in str(charge)
    assert refused(lambda: tokens.redeem(token.id, "shop.example", Decimal("39.99"), "EUR")).reason == (
        "token already used"
    )
    assert tokens.get(token.id).used


def test_redis_never_holds_the_card_number(tokens: PaymentTokens, redis: Redis) -> None:
    token = issue(tokens)
    tokens.redeem(token.id, "shop.example", Decimal("10"), "EUR")

    dump = b""
    for key in redis.scan_iter("*"):
        kind = redis.type(key)
        if kind == b"hash":
            dump += b"".join(k + v for k, v in redis.hgetall(key).items())
        elif kind == b"string":
            dump += redis.get(key)
    assert b"cred:card/visa" in dump
    assert CARD.encode() not in dump and CARD[-8:].encode() not in dump


def test_twenty_concurrent_redemptions_succeed_exactly_once(tokens: PaymentTokens) -> None:
    token = issue(tokens)
    start = threading.Barrier(20)
    outcomes: list[str] = []
    lock = threading.Lock()

    def redeem() -> None:
        start.wait()
        try:
            tokens.redeem(token.id, "shop.example", Decimal("42.00"), "EUR")
            result = "ok"
        except PaymentRefused as error:
            result = error.reason
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=redeem) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert outcomes.count("ok") == 1
    assert outcomes.count("token already used") == 19


def test_merchant_binding(tokens: PaymentTokens) -> None:
    token = issue(tokens, merchant="https://www.Shop.Example/checkout")

    for other in ("evil.example", "shop.example.evil.test", "shop.example@evil.test", "sub.shop.example"):
        assert refused(lambda: tokens.redeem(token.id, other, Decimal("1"), "EUR")).reason == "merchant mismatch"
    # A refusal does not use the token up.
    assert tokens.redeem(token.id, "SHOP.example", Decimal("1"), "EUR").merchant == "shop.example"


@pytest.mark.parametrize(
    "given, expected",
    [("Shop.Example", "shop.example"), ("https://www.shop.example:443/cart?x=1", "shop.example"),
     ("  ACME   Store ", "acme store"), ("shop.example.", "shop.example"), ("bücher.example", "xn--bcher-kva.example")],
)
def test_merchant_names_are_normalised(given: str, expected: str) -> None:
    assert normalise_merchant(given) == expected


def test_amount_and_currency_binding(tokens: PaymentTokens) -> None:
    token = issue(tokens)

    over = refused(lambda: tokens.redeem(token.id, "shop.example", Decimal("42.01"), "EUR"))
    assert over.reason == "amount exceeds the approved 42.00 EUR"
    assert refused(lambda: tokens.redeem(token.id, "shop.example", Decimal("42"), "USD")).reason == "currency mismatch"
    assert refused(lambda: tokens.redeem(token.id, "shop.example", 41.5, "EUR")).reason == "invalid amount"
    assert tokens.redeem(token.id, "shop.example", Decimal("42.0000"), "eur").amount == Decimal("42")


@pytest.mark.parametrize(
    "amount, shown", [("42", "42.00"), ("42.0000", "42.00"), ("0.5", "0.50"), ("19.9999", "19.9999")]
)
def test_amounts_are_shown_like_prices(amount: str, shown: str) -> None:
    assert format_amount(Decimal(amount)) == shown


def test_expiry_follows_the_clock(tokens: PaymentTokens, clock) -> None:
    token = issue(tokens, ttl_seconds=300)
    clock.now += 300

    assert refused(lambda: tokens.redeem(token.id, "shop.example", Decimal("1"), "EUR")).reason == "token expired"


def test_issue_is_idempotent(tokens: PaymentTokens, clock) -> None:
    first = issue(tokens, key="approval-9")
    clock.now += 5
    again = issue(tokens, key="approval-9")
    other = issue(tokens, key="approval-10")

    assert again == first
    assert other.id != first.id
    with pytest.raises(InvalidPaymentRequest) as raised:
        issue(tokens, key="approval-9", max_amount=Decimal("500"))
    raised_errors.append(raised.value)


def test_unknown_tokens(tokens: PaymentTokens) -> None:
    # Includes the card number itself, passed where a token id belongs: it is not echoed.
    for token_id in ("ptok_" + "0" * 32, "ptok_nope", "", CARD):
        assert refused(lambda: tokens.redeem(token_id, "shop.example", Decimal("1"), "EUR")).reason == "unknown token"


def test_a_deleted_card_fails_closed(tokens: PaymentTokens, vault: Vault) -> None:
    token = issue(tokens)
    vault.delete(USER, "cred:card/visa")

    assert refused(lambda: tokens.redeem(token.id, "shop.example", Decimal("1"), "EUR")).reason == (
        "card no longer available"
    )
    assert tokens.get(token.id).used


@pytest.mark.parametrize(
    "terms",
    [dict(card_handle="cred:shop/login"), dict(card_handle="cred:card/other"), dict(max_amount=42.0),
     dict(max_amount=Decimal("-1")), dict(max_amount=Decimal("1.00001")), dict(max_amount=Decimal("NaN")),
     dict(currency="euro"), dict(ttl_seconds=0), dict(merchant="  "), dict(card_handle=CARD)],
)
def test_issue_refuses_bad_terms(tokens: PaymentTokens, terms: dict) -> None:
    with pytest.raises(VaultError) as raised:
        issue(tokens, **terms)
    raised_errors.append(raised.value)

