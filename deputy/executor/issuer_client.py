"""Deputy's side of the card issuer: enrol a card, mint a single-use token for one
approved purchase, cancel a token, read the card's statement.

`IssuerClient` is the interface the executor pays through; `HttpIssuerClient` speaks the
sandbox issuer's HTTP API (`sandbox/issuer.py`), which follows the shape of real agentic
card programmes (network tokens or single-use virtual cards bound to a merchant, an
amount and a deadline). A real issuer plugs in behind the same interface.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol

import httpx
from pydantic import BaseModel, ConfigDict, SecretStr

from deputy.core.records.effects import ConnectorError, ConnectorUnavailable

ISSUER_KEY_HEADER = "X-Issuer-Key"


class VirtualCard(BaseModel):
    """The single-use card numbers a web checkout form takes; only the executor holds them."""

    model_config = ConfigDict(frozen=True)

    number: SecretStr
    cvc: SecretStr
    expiry: str


class MintedToken(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    merchant: str
    amount: Decimal
    currency: str
    expires_at: float
    virtual_card: VirtualCard | None = None


class IssuerRefused(ConnectorError):
    """The issuer would not enrol the card or mint the token; the message says why."""

    def __init__(self, user_message: str, *, status: int = 0) -> None:
        super().__init__(user_message)
        self.status = status


class IssuerClient(Protocol):
    def enroll(self, number: SecretStr, expiry: str, holder: str) -> str:
        """The issuer's reference for this card."""

    def mint(self, card_ref: str, merchant: str, amount: Decimal, currency: str, ttl_seconds: int,
             mandate: dict[str, Any] | None, signature: str | None, idempotency_key: str) -> MintedToken: ...

    def revoke(self, token_id: str) -> None: ...

    def statement(self, card_ref: str) -> list[dict[str, Any]]: ...


class HttpIssuerClient:
    """The issuer's HTTP API with Deputy's key (`X-Issuer-Key`)."""

    def __init__(self, base_url: str, key: SecretStr, client: httpx.Client | None = None) -> None:
        self._url = base_url.rstrip("/")
        self._key = key
        self._client = client or httpx.Client(timeout=15)

    def enroll(self, number: SecretStr, expiry: str, holder: str) -> str:
        data = self._call("POST", "/api/v1/cards",
                          {"number": number.get_secret_value(), "expiry": expiry, "holder": holder})
        return str(data["card"])

    def mint(self, card_ref: str, merchant: str, amount: Decimal, currency: str, ttl_seconds: int,
             mandate: dict[str, Any] | None, signature: str | None, idempotency_key: str) -> MintedToken:
        data = self._call("POST", "/api/v1/tokens", {
            "card": card_ref, "merchant": merchant, "amount": str(amount), "currency": currency,
            "ttl_seconds": ttl_seconds, "mandate": mandate, "mandate_signature": signature,
            "idempotency_key": idempotency_key,
        })
        return MintedToken(id=data["token"], merchant=data["merchant"], amount=Decimal(data["amount"]),
                           currency=data["currency"], expires_at=data["expires_at"],
                           virtual_card=data.get("virtual_card"))

    def revoke(self, token_id: str) -> None:
        self._call("POST", f"/api/v1/tokens/{token_id}/revoke", {})

    def statement(self, card_ref: str) -> list[dict[str, Any]]:
        return list(self._call("GET", f"/api/v1/statements/{card_ref}", None)["transactions"])

    def _call(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        try:
            response = self._client.request(method, self._url + path, json=body,
                                            headers={ISSUER_KEY_HEADER: self._key.get_secret_value()})
        except httpx.HTTPError:
            # The request (with the card number, for enrolment) is never part of the message.
            raise ConnectorUnavailable("Your card issuer did not answer, so nothing was paid. "
                                       "Try again in a minute.") from None
        try:
            data = response.json()
        except ValueError:
            data = {}
        if response.is_success:
            return data
        message = str(data.get("message") or f"it answered {response.status_code}")
        raise IssuerRefused(f"Your card issuer refused: {message}", status=response.status_code)
