"""The sandbox card issuer: the user's cards, single-use tokens minted against them, and
the authorisations, captures, refunds and statements that follow.

Shaped like the issuing APIs of real networks (Stripe Issuing's virtual cards, Visa
Intelligent Commerce and Mastercard Agent Pay's agentic tokens): Deputy enrols a card
once, then for each approved purchase asks for a token bound to one merchant, one amount,
one currency and a deadline, carrying the cart mandate the user approved. Shops never see
the card: their acquirer presents the token (or the token's single-use virtual card
number) for authorisation, and it is the issuer, not Deputy, that refuses a token that is
reused, over its amount, for another merchant, expired or revoked, and says why.

`Issuer` is the pure core (state in memory, clock injected); `deputy.sandbox.issuer_api` puts it
behind HTTP with one key for the cardholder's agent and one for acquirers.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable

from deputy.core.records.card_expiry import months_left, parse_expiry
from deputy.sandbox.webapp_common import SiteError, money

ISSUER_KEY_HEADER = "X-Issuer-Key"
MAX_TOKEN_SECONDS = 24 * 3600

DECLINES: dict[str, str] = {
    "token_used": "this single-use payment token was already used",
    "over_amount": "the charge is more than the amount you approved",
    "amount_mismatch": "the charge is not the total of the cart you approved",
    "wrong_merchant": "the charge came from a different shop than the one you approved",
    "token_expired": "the approval behind this payment token has expired",
    "token_revoked": "this payment token was cancelled",
    "unknown_token": "the card issuer does not know this payment token",
    "currency_mismatch": "the charge is in a different currency than the one you approved",
    "card_expired": "the card has expired",
    "mandate_invalid": "the approved cart's signature does not verify",
    "wrong_code": "the confirmation code was not right",
    "challenge_failed": "the payment was not confirmed",
}


class ChallengeRequired(Exception):
    """The issuer wants the cardholder to confirm this payment (3-D Secure style)."""

    def __init__(self, challenge: "Challenge") -> None:
        super().__init__(challenge.id)
        self.challenge = challenge


class Declined(Exception):
    """The issuer refuses: `code` is stable for programs, `reason` is a phrase for people."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code
        self.reason = DECLINES[code]


def canonical(terms: dict[str, Any]) -> bytes:
    """The bytes a cart mandate's signature covers: sorted keys, no spaces, text as is."""
    return json.dumps(terms, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign_mandate(key: bytes, terms: dict[str, Any]) -> str:
    return hmac.new(key, canonical(terms), hashlib.sha256).hexdigest()


def _decimal(value: Any) -> Decimal:
    try:
        return Decimal(str(value))
    except ArithmeticError:
        return Decimal(-1)


def mandate_bound(mandate: dict[str, Any]) -> Decimal:
    """What a token under this mandate may be minted for: the approved total, or for a purchase
    the user's spending rule let through, the rule's limit (the charge must still be the total)."""
    if mandate.get("approved_by") == "rule" and "limit" in mandate:
        return _decimal(mandate["limit"])
    return _decimal(mandate.get("total", "-1"))


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _virtual_number() -> str:
    body = "400000" + "".join(str(secrets.randbelow(10)) for _ in range(9))
    for check in range(10):
        if luhn_ok(body + str(check)):
            return body + str(check)
    raise AssertionError("unreachable: one check digit always fits")


def card_expired(expiry: tuple[int, int], now: float) -> bool:
    return months_left(expiry, now) < 0


@dataclass
class IssuedCard:
    ref: str
    number: str
    expiry: tuple[int, int]
    holder: str


@dataclass
class Token:
    id: str
    card_ref: str
    merchant: str
    amount: Decimal
    currency: str
    expires_at: float
    mandate: dict[str, Any] | None
    virtual_number: str
    virtual_cvc: str
    status: str = "active"


@dataclass
class Transaction:
    id: str
    token_id: str
    card_ref: str
    merchant: str
    amount: Decimal
    currency: str
    created_at: float
    status: str = "authorized"
    refunded: Decimal = Decimal(0)

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "token": self.token_id, "card": self.card_ref, "merchant": self.merchant,
                "amount": money(self.amount), "currency": self.currency, "status": self.status,
                "refunded": money(self.refunded), "created_at": self.created_at}


@dataclass
class Challenge:
    id: str
    token_id: str
    merchant: str
    amount: Decimal
    currency: str
    code: str
    """What the bank sends to the cardholder's phone; never to the shop or to Deputy."""
    attempts: int = 0


def same_merchant(a: str, b: str) -> bool:
    return a.strip().rstrip("/").lower() == b.strip().rstrip("/").lower()


@dataclass
class Issuer:
    """The cards, tokens and transactions of the sandbox bank."""

    mandate_key: bytes | None = None
    clock: Callable[[], float] = time.time
    cards: dict[str, IssuedCard] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    transactions: dict[str, Transaction] = field(default_factory=dict)
    challenge_from: Decimal | None = Decimal(100)
    """Card-form payments of at least this much must be confirmed by the cardholder."""
    challenges: dict[str, Challenge] = field(default_factory=dict)
    _minted: dict[str, str] = field(default_factory=dict)

    def enroll(self, number: str, expiry: str, holder: str) -> IssuedCard:
        """The card's reference; the same number enrolls once. The sandbox bank issues any
        well-formed, unexpired card number it is shown."""
        digits = "".join(c for c in number if c.isdigit())
        if not 12 <= len(digits) <= 19 or not luhn_ok(digits):
            raise SiteError(422, "That is not a valid card number.")
        parsed = parse_expiry(expiry)
        if parsed is None:
            raise SiteError(422, "The expiry must look like MM/YY.")
        if card_expired(parsed, self.clock()):
            raise SiteError(422, "This card has expired.")
        ref = "card_" + hashlib.sha256(b"sandbox-issuer\x00" + digits.encode()).hexdigest()[:16]
        self.cards[ref] = IssuedCard(ref, digits, parsed, holder)
        return self.cards[ref]

    def mint(self, card_ref: str, merchant: str, amount: Decimal, currency: str, ttl_seconds: int,
             mandate: dict[str, Any] | None, signature: str | None, idempotency_key: str) -> Token:
        """A token for one purchase; the same idempotency key returns the same token."""
        if idempotency_key in self._minted:
            return self.tokens[self._minted[idempotency_key]]
        card = self.cards.get(card_ref)
        if card is None:
            raise SiteError(404, "The card issuer does not know this card.")
        if card_expired(card.expiry, self.clock()):
            raise SiteError(422, "This card has expired.")
        if not 1 <= ttl_seconds <= MAX_TOKEN_SECONDS:
            raise SiteError(422, "A token must expire within a day.")
        if mandate is not None:
            self._verify(mandate, signature)
            if (not same_merchant(str(mandate.get("merchant", "")), merchant)
                    or mandate_bound(mandate) != amount or mandate.get("currency") != currency
                    or _decimal(mandate.get("total")) > amount):
                raise SiteError(422, "The token's terms are not those of the cart mandate.")
        token = Token("ptok_" + secrets.token_hex(16), card_ref, merchant, amount, currency,
                      self.clock() + ttl_seconds, mandate, _virtual_number(), f"{secrets.randbelow(1000):03d}")
        self.tokens[token.id] = token
        self._minted[idempotency_key] = token.id
        return token

    def _verify(self, mandate: dict[str, Any], signature: str | None) -> None:
        if self.mandate_key is None:
            return  # this issuer was given no agent key: it keeps the mandate as a record only
        if not signature or not hmac.compare_digest(signature, sign_mandate(self.mandate_key, mandate)):
            raise Declined("mandate_invalid")

    def revoke(self, token_id: str) -> Token:
        token = self.tokens.get(token_id)
        if token is None:
            raise Declined("unknown_token")
        if token.status == "active":
            token.status = "revoked"
        return token

    def find(self, token_id: str = "", number: str = "", cvc: str = "", expiry: str = "") -> Token:
        """The token presented by its id, or by its virtual card number, CVC and expiry."""
        if token_id:
            token = self.tokens.get(token_id)
        else:
            digits = "".join(c for c in number if c.isdigit())
            token = next((t for t in self.tokens.values() if t.virtual_number == digits), None)
            if token is not None and (not hmac.compare_digest(token.virtual_cvc, cvc.strip())
                                      or parse_expiry(expiry) != _expiry_of(token)):
                token = None
        if token is None:
            raise Declined("unknown_token")
        return token

    def authorize(self, token: Token, merchant: str, amount: Decimal, currency: str, *,
                  by_card: bool = False) -> Transaction:
        """Approve the charge and spend the token, or raise `Declined` with why (or
        `ChallengeRequired` for a large card-form payment the cardholder must confirm)."""
        if token.status == "revoked":
            raise Declined("token_revoked")
        if token.status == "used":
            raise Declined("token_used")
        if self.clock() >= token.expires_at:
            raise Declined("token_expired")
        if not same_merchant(token.merchant, merchant):
            raise Declined("wrong_merchant")
        if currency != token.currency:
            raise Declined("currency_mismatch")
        if amount > token.amount:
            raise Declined("over_amount")
        if token.mandate is not None and amount != _decimal(token.mandate.get("total")):
            raise Declined("amount_mismatch")
        card = self.cards[token.card_ref]
        if card_expired(card.expiry, self.clock()):
            raise Declined("card_expired")
        if by_card and self.challenge_from is not None and amount >= self.challenge_from:
            challenge = Challenge("chl_" + secrets.token_hex(8), token.id, merchant, amount, currency,
                                  f"{secrets.randbelow(1_000_000):06d}")
            self.challenges[challenge.id] = challenge
            raise ChallengeRequired(challenge)
        token.status = "used"
        txn = Transaction("txn_" + secrets.token_hex(8), token.id, token.card_ref, token.merchant, amount, currency,
                          self.clock())
        self.transactions[txn.id] = txn
        return txn

    def confirm(self, challenge_id: str, merchant: str, code: str) -> Transaction:
        """The cardholder's code for a challenged payment: the charge goes through, or `Declined`."""
        challenge = self.challenges.get(challenge_id)
        if challenge is None or not same_merchant(challenge.merchant, merchant) or challenge.attempts >= 3:
            raise Declined("challenge_failed")
        if not hmac.compare_digest(challenge.code, code.strip()):
            challenge.attempts += 1
            raise Declined("wrong_code")
        del self.challenges[challenge_id]
        return self.authorize(self.tokens[challenge.token_id], challenge.merchant, challenge.amount,
                              challenge.currency)

    def capture(self, txn_id: str) -> Transaction:
        txn = self._txn(txn_id)
        if txn.status == "authorized":
            txn.status = "captured"
        return txn

    def refund(self, txn_id: str, merchant: str, amount: Decimal) -> Transaction:
        txn = self._txn(txn_id)
        if not same_merchant(txn.merchant, merchant):
            raise SiteError(403, "Only the shop that was paid can refund it.")
        if txn.status not in ("captured", "partially_refunded") or amount <= 0 or txn.refunded + amount > txn.amount:
            raise SiteError(409, f"At most {money(txn.amount - txn.refunded)} {txn.currency} can be refunded.")
        txn.refunded += amount
        txn.status = "refunded" if txn.refunded == txn.amount else "partially_refunded"
        return txn

    def statement(self, card_ref: str) -> list[dict[str, Any]]:
        return [t.public() for t in self.transactions.values() if t.card_ref == card_ref]

    def _txn(self, txn_id: str) -> Transaction:
        if txn_id not in self.transactions:
            raise SiteError(404, f"There is no transaction {txn_id!r}.")
        return self.transactions[txn_id]


def _expiry_of(token: Token) -> tuple[int, int]:
    year, month = time.gmtime(token.expires_at)[:2]
    return year, month
