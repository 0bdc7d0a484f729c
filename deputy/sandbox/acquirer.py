"""The shops' acquirer: presents each checkout's payment to the card issuer.

A shop holds a `MerchantAccount`; at checkout it calls the account with the payment token
(or the single-use virtual card a browser checkout form received), the amount and the
currency. The acquirer asks the issuer to authorise and capture it as this merchant, and
a refusal comes back as a 402 whose message is the issuer's own reason, so the buyer
(and Deputy, and the user's chat) hears why. Refunds go the same way.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx

from deputy.sandbox.issuer import ISSUER_KEY_HEADER
from deputy.sandbox.webapp_common import SiteError, money


class ChallengeNeeded(Exception):
    """The issuer asked the cardholder to confirm the payment; the shop shows its code page."""

    def __init__(self, challenge: str) -> None:
        super().__init__(challenge)
        self.challenge = challenge


class MerchantAccount:
    """One shop's account with the acquirer. `merchant` is the shop's origin
    (`http://host:port`), set once the shop knows where it listens."""

    def __init__(self, issuer_url: str, acquirer_key: str, merchant: str = "",
                 client: httpx.Client | None = None) -> None:
        self.merchant = merchant
        self._url = issuer_url.rstrip("/")
        self._key = acquirer_key
        self._client = client or httpx.Client(timeout=10)

    def __call__(self, token: str, amount: Decimal, currency: str) -> str:
        """The `PaymentCheck` for a token id: the issuer's transaction id, or a 402 with why."""
        return self.charge(amount, currency, token=token)

    def charge(self, amount: Decimal, currency: str, *, token: str = "", number: str = "", cvc: str = "",
               expiry: str = "") -> str:
        """The issuer's transaction id; `ChallengeNeeded` when the cardholder must confirm first."""
        answer = self._post("/api/v1/authorizations", {
            "merchant": self.merchant, "amount": money(amount), "currency": currency, "token": token,
            "number": number, "cvc": cvc, "expiry": expiry,
        })
        if answer.get("decline_code") == "challenge_required":
            raise ChallengeNeeded(str(answer["challenge"]))
        return self._approved(answer)

    def confirm(self, challenge: str, code: str) -> str:
        """The cardholder's code for a challenged payment; the transaction id, or a 402 with why."""
        return self._approved(self._post(f"/api/v1/challenges/{challenge}", {"merchant": self.merchant, "code": code}))

    @staticmethod
    def _approved(answer: dict[str, Any]) -> str:
        if answer.get("approved"):
            return str(answer["id"])
        raise SiteError(402, f"The card issuer declined the payment: {answer.get('reason', 'no reason given')}.")

    def refund(self, transaction: str, amount: Decimal) -> dict[str, Any]:
        return self._post(f"/api/v1/transactions/{transaction}/refunds",
                          {"merchant": self.merchant, "amount": money(amount)})

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._client.post(self._url + path, json=body, headers={ISSUER_KEY_HEADER: self._key})
        except httpx.HTTPError:
            raise SiteError(503, "The payment network did not answer; nothing was charged. "
                                 "Try again shortly.") from None
        data = response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
        if response.status_code in (201, 402) or response.is_success:
            return data
        raise SiteError(response.status_code, str(data.get("message", "The payment network refused the request.")))
