"""The sandbox card issuer's HTTP API (the core is `deputy.sandbox.issuer`).

`/api/v1/cards`, `/api/v1/tokens`, `/api/v1/statements/{card}` answer the cardholder's
agent (Deputy); `/api/v1/authorizations`, `/api/v1/challenges/{id}` and refunds answer
acquirers; each side has its own key in `X-Issuer-Key`. `/phone` is the cardholder's phone
in the sandbox: where the bank's confirmation codes arrive.
"""

from __future__ import annotations

import hmac
import time
from decimal import Decimal
from typing import Any, Callable

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from deputy.sandbox.issuer import ISSUER_KEY_HEADER, ChallengeRequired, Declined, Issuer
from deputy.sandbox.webapp_common import SiteError, error_middleware, json_response, money, read_json


class EnrollRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    number: str = Field(max_length=30)
    expiry: str = Field(max_length=10)
    holder: str = Field(default="", max_length=100)


class MintRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    card: str = Field(max_length=64)
    merchant: str = Field(min_length=1, max_length=300)
    amount: Decimal = Field(gt=0)
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    ttl_seconds: int = 900
    mandate: dict[str, Any] | None = None
    mandate_signature: str | None = Field(default=None, max_length=128)
    idempotency_key: str = Field(min_length=1, max_length=200)


class AuthorizeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    merchant: str = Field(min_length=1, max_length=300)
    amount: Decimal = Field(gt=0)
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    token: str = Field(default="", max_length=80)
    number: str = Field(default="", max_length=30)
    cvc: str = Field(default="", max_length=4)
    expiry: str = Field(default="", max_length=10)
    capture: bool = True


class ConfirmRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    merchant: str = Field(min_length=1, max_length=300)
    code: str = Field(min_length=1, max_length=12)


class RefundRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    merchant: str = Field(min_length=1, max_length=300)
    amount: Decimal = Field(gt=0)


ISSUER = web.AppKey("issuer", Issuer)


def _declined(declined: Declined) -> web.Response:
    return json_response({"approved": False, "decline_code": declined.code, "reason": declined.reason}, status=402)


def create_app(issuer: Issuer, agent_key: str, acquirer_key: str,
               saved: Callable[[Issuer], None] | None = None) -> web.Application:
    """The issuer's API: `/api/v1/cards`, `/api/v1/tokens`, `/api/v1/statements/{card}` for the
    cardholder's agent (header `X-Issuer-Key: <agent_key>`), and `/api/v1/authorizations`,
    `/api/v1/refunds` for acquirers (`<acquirer_key>`). `saved` is called after every request
    that may have changed the issuer (e.g. `IssuerFile.save`)."""

    @web.middleware
    async def keep(request: web.Request, handler) -> web.StreamResponse:
        try:
            return await handler(request)
        finally:
            if saved is not None and request.method != "GET":
                saved(issuer)

    def need(request: web.Request, key: str) -> None:
        if not hmac.compare_digest(request.headers.get(ISSUER_KEY_HEADER, ""), key):
            raise SiteError(401, "This issuer API needs its key.")

    async def enroll(request: web.Request) -> web.Response:
        need(request, agent_key)
        body = await read_json(request, EnrollRequest)
        card = issuer.enroll(body.number, body.expiry, body.holder)
        return json_response({"card": card.ref, "last4": card.number[-4:],
                              "expiry": f"{card.expiry[1]:02d}/{card.expiry[0] % 100:02d}"}, status=201)

    async def mint(request: web.Request) -> web.Response:
        need(request, agent_key)
        body = await read_json(request, MintRequest)
        try:
            token = issuer.mint(body.card, body.merchant, body.amount, body.currency, body.ttl_seconds, body.mandate,
                                body.mandate_signature, body.idempotency_key)
        except Declined as declined:
            raise SiteError(422, f"The card issuer refused to issue a token: {declined.reason}.") from None
        year, month = time.gmtime(token.expires_at)[:2]
        return json_response({
            "token": token.id, "merchant": token.merchant, "amount": money(token.amount),
            "currency": token.currency, "expires_at": token.expires_at,
            "virtual_card": {"number": token.virtual_number, "cvc": token.virtual_cvc,
                             "expiry": f"{month:02d}/{year % 100:02d}"},
        }, status=201)

    async def revoke(request: web.Request) -> web.Response:
        need(request, agent_key)
        try:
            token = issuer.revoke(request.match_info["token"])
        except Declined as declined:
            raise SiteError(404, declined.reason) from None
        return json_response({"token": token.id, "status": token.status})

    async def statement(request: web.Request) -> web.Response:
        need(request, agent_key)
        return json_response({"transactions": issuer.statement(request.match_info["card"])})

    async def authorize(request: web.Request) -> web.Response:
        need(request, acquirer_key)
        body = await read_json(request, AuthorizeRequest)
        try:
            token = issuer.find(body.token, body.number, body.cvc, body.expiry)
            txn = issuer.authorize(token, body.merchant, body.amount, body.currency, by_card=bool(body.number))
        except Declined as declined:
            return _declined(declined)
        except ChallengeRequired as required:
            return json_response({"approved": False, "decline_code": "challenge_required",
                                  "challenge": required.challenge.id,
                                  "reason": "your bank wants you to confirm this payment"}, status=402)
        if body.capture:
            issuer.capture(txn.id)
        return json_response({"approved": True, **txn.public()}, status=201)

    async def confirm(request: web.Request) -> web.Response:
        need(request, acquirer_key)
        body = await read_json(request, ConfirmRequest)
        try:
            txn = issuer.confirm(request.match_info["challenge"], body.merchant, body.code)
        except Declined as declined:
            return _declined(declined)
        issuer.capture(txn.id)
        return json_response({"approved": True, **txn.public()}, status=201)

    async def phone(request: web.Request) -> web.Response:
        # The cardholder's phone, in the sandbox only: where the bank's codes arrive.
        rows = "".join(f"<li>Your bank: confirm {money(c.amount)} {c.currency} at {c.merchant} with code "
                       f"<b>{c.code}</b></li>" for c in reversed(list(issuer.challenges.values())))
        return web.Response(text=f"<!doctype html><title>Phone</title><ul>{rows or '<li>No messages.</li>'}</ul>",
                            content_type="text/html")

    async def refund(request: web.Request) -> web.Response:
        need(request, acquirer_key)
        body = await read_json(request, RefundRequest)
        return json_response(issuer.refund(request.match_info["txn"], body.merchant, body.amount).public())

    app = web.Application(middlewares=[keep, error_middleware])
    app[ISSUER] = issuer
    app.add_routes([
        web.post("/api/v1/cards", enroll), web.post("/api/v1/tokens", mint),
        web.post("/api/v1/tokens/{token}/revoke", revoke),
        web.get("/api/v1/statements/{card}", statement), web.post("/api/v1/authorizations", authorize),
        web.post("/api/v1/transactions/{txn}/refunds", refund), web.post("/api/v1/challenges/{challenge}", confirm),
        web.get("/phone", phone),
    ])
    return app
