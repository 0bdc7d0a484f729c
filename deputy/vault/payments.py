"""Single-use payment tokens bound to a card, a merchant, a maximum amount and a deadline.

After the user approves a purchase, the executor issues a token (`ptok_...`); the agent
only ever sees the token id. At checkout the executor redeems it for exactly that merchant
and at most that amount, once, and only then receives the card number from the vault.
Redis holds the token's terms and the card's handle, never the card number.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Callable

from pydantic import BaseModel, ConfigDict, SecretStr
from redis import Redis

from deputy.core.accounts.credential_index import CredentialKind, UserId
from deputy.core.records.vault_errors import (
    CredentialNotFound,
    InvalidPaymentRequest,
    PaymentRefused,
    VaultCorrupted,
)
from deputy.vault.store import Vault
from deputy.core.records.erasure import Owned, delete_keys

_TOKEN = "deputy:ptok:{}"
_IDEMPOTENCY = "deputy:ptok:idem:{}:{}"
_TOKEN_ID = re.compile(r"ptok_[0-9a-f]{32}")
_CURRENCY = re.compile(r"[A-Z]{3}")
_MAX_AMOUNT = Decimal("1e12")
_MAX_PLACES = 4
# Tokens outlive their expiry in Redis so that a late redemption hears "token expired" or
# "token already used" rather than "unknown token".
RETENTION_SECONDS = 7 * 24 * 3600

# KEYS[1] idempotency key, KEYS[2] new token hash; ARGV[1] "<id>|<fingerprint>",
# ARGV[2] Redis TTL, ARGV[3..] token fields. Returns the "<id>|<fingerprint>" that holds the key.
_ISSUE = """
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return ARGV[1]
"""

# KEYS[1] token hash; ARGV: now, charged amount. The terms (merchant, amount, currency,
# expiry) never change after issue, so Python checks them exactly with Decimal; only the
# issued -> used transition can race, and it happens here, atomically.
_CLAIM = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'unknown' end
if status ~= 'issued' then return 'used' end
redis.call('HSET', KEYS[1], 'status', 'used', 'used_at', ARGV[1], 'charged_amount', ARGV[2])
return 'ok'
"""


class PaymentToken(BaseModel):
    """An approved purchase: who pays, with which card (handle only), where, up to how much."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = 1
    id: str
    user_id: str
    card_handle: str
    merchant: str
    max_amount: Decimal
    currency: str
    created_at: float
    expires_at: float
    used: bool = False


class CardCharge(BaseModel):
    """A redeemed token: the card to give this merchant for this amount, once."""

    model_config = ConfigDict(frozen=True)

    token_id: str
    user_id: str
    merchant: str
    amount: Decimal
    currency: str
    card_handle: str
    card: SecretStr
    card_public: dict[str, str] = {}


def normalise_merchant(merchant: str) -> str:
    """A comparable merchant name: casefolded; for a domain or URL, its bare host.

    "https://www.Shop.example/checkout" and "shop.example" are the same merchant;
    "shop.example.evil.test" and "evil.test" are not.
    """
    text = unicodedata.normalize("NFKC", merchant).strip().casefold()
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text)
    if text and not re.search(r"\s", text) and ("." in text or "/" in text):
        host = re.split(r"[/?#]", text, maxsplit=1)[0]
        host = host.rsplit("@", 1)[-1]  # userinfo: the browser would go to what follows '@'
        host = host.split(":", 1)[0].rstrip(".")
        host = host.removeprefix("www.")
        try:
            return host.encode("idna").decode("ascii")
        except UnicodeError:
            return host
    return " ".join(text.split())


def _amount(value: Decimal | str | int, what: str) -> Decimal:
    if isinstance(value, float) or isinstance(value, bool):
        raise InvalidPaymentRequest(f"The {what} must be an exact decimal, not a floating-point number.")
    try:
        amount = Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise InvalidPaymentRequest(f"The {what} is not a number.") from None
    if not amount.is_finite() or amount <= 0 or amount >= _MAX_AMOUNT:
        raise InvalidPaymentRequest(f"The {what} must be a positive amount below one trillion.")
    if -amount.as_tuple().exponent > _MAX_PLACES:
        raise InvalidPaymentRequest(f"The {what} has more than {_MAX_PLACES} decimal places.")
    return amount


def _currency(value: str) -> str:
    code = str(value).strip().upper()
    if not _CURRENCY.fullmatch(code):
        raise InvalidPaymentRequest("The currency must be a three-letter ISO code such as EUR.")
    return code


def format_amount(amount: Decimal) -> str:
    """`42` and `42.0000` -> "42.00"; amounts with more significant decimals keep them."""
    return f"{amount:.2f}" if -amount.normalize().as_tuple().exponent <= 2 else str(amount.normalize())


class PaymentTokens:
    """Issues and redeems payment tokens; the clock is injected so expiry is testable."""

    def __init__(self, redis: Redis, vault: Vault, clock: Callable[[], float] = time.time) -> None:
        self._redis = redis
        self._vault = vault
        self._clock = clock
        self._issue = redis.register_script(_ISSUE)
        self._claim = redis.register_script(_CLAIM)

    def issue(
        self,
        user_id: UserId,
        card_handle: str,
        merchant: str,
        max_amount: Decimal,
        currency: str,
        ttl_seconds: int,
        idempotency_key: str,
    ) -> PaymentToken:
        """A token for one purchase; the same `idempotency_key` returns the same token.

        Reusing a key for different terms raises `InvalidPaymentRequest`.
        """
        user = str(user_id)
        card = self._vault.info(user, card_handle)
        if card.kind is not CredentialKind.card:
            raise InvalidPaymentRequest(f"The credential {card.handle} is not a payment card.")
        shop = normalise_merchant(merchant)
        if not shop:
            raise InvalidPaymentRequest("A payment token needs a merchant.")
        limit = _amount(max_amount, "maximum amount")
        code = _currency(currency)
        if not isinstance(ttl_seconds, int) or not 1 <= ttl_seconds <= 7 * 24 * 3600:
            raise InvalidPaymentRequest("A payment token must expire within a week.")
        if not idempotency_key:
            raise InvalidPaymentRequest("A payment token needs an idempotency key.")
        terms = [user, card.handle, shop, str(limit.normalize()), code, str(ttl_seconds)]
        fingerprint = hashlib.sha256(json.dumps(terms).encode()).hexdigest()[:32]
        now = self._clock()
        token = PaymentToken(
            id="ptok_" + secrets.token_hex(16), user_id=user, card_handle=card.handle, merchant=shop,
            max_amount=limit, currency=code, created_at=now, expires_at=now + ttl_seconds,
        )
        fields = {**token.model_dump(mode="json", exclude={"used"}), "status": "issued", "fingerprint": fingerprint}
        key_digest = hashlib.sha256(idempotency_key.encode()).hexdigest()[:32]
        holder = self._issue(
            keys=[_IDEMPOTENCY.format(user, key_digest), _TOKEN.format(token.id)],
            args=[f"{token.id}|{fingerprint}", ttl_seconds + RETENTION_SECONDS,
                  *[str(part) for pair in fields.items() for part in pair]],
        )
        held_id, held_fingerprint = (holder.decode() if isinstance(holder, bytes) else holder).split("|")
        if held_fingerprint != fingerprint:
            raise InvalidPaymentRequest("This idempotency key was already used for a different payment.")
        if held_id == token.id:
            return token
        existing = self.get(held_id)
        if existing is None:  # pragma: no cover - both keys expire together
            raise InvalidPaymentRequest("The earlier token for this idempotency key has expired.")
        return existing

    def get(self, token_id: str) -> PaymentToken | None:
        """The token's terms and whether it was used, or None when unknown."""
        if not isinstance(token_id, str) or not _TOKEN_ID.fullmatch(token_id):
            return None
        raw = self._redis.hgetall(_TOKEN.format(token_id))
        if not raw:
            return None
        data = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
                for k, v in raw.items()}
        return PaymentToken.model_validate({**data, "used": data.get("status") == "used"})

    def redeem(self, token_id: str, merchant: str, amount: Decimal, currency: str) -> CardCharge:
        """Spend the token once, for this merchant and at most its amount; get the card.

        Raises `PaymentRefused` with a precise reason and leaves the token unused when the
        merchant, currency or amount does not fit. Once claimed the token stays used even
        if the card has meanwhile been deleted from the vault (fail closed).
        """
        now = self._clock()
        token = self.get(token_id)
        if token is None:
            raise PaymentRefused("unknown token")
        if token.used:
            raise PaymentRefused("token already used")
        if now >= token.expires_at:
            raise PaymentRefused("token expired")
        if normalise_merchant(merchant) != token.merchant:
            raise PaymentRefused("merchant mismatch")
        try:
            code = _currency(currency)
        except InvalidPaymentRequest:
            raise PaymentRefused("currency mismatch") from None
        try:
            charged = _amount(amount, "amount")
        except InvalidPaymentRequest:
            raise PaymentRefused("invalid amount") from None
        if code != token.currency:
            raise PaymentRefused("currency mismatch")
        if charged > token.max_amount:
            raise PaymentRefused(f"amount exceeds the approved {format_amount(token.max_amount)} {token.currency}")
        outcome = self._claim(keys=[_TOKEN.format(token.id)], args=[repr(now), str(charged)])
        outcome = outcome.decode() if isinstance(outcome, bytes) else outcome
        if outcome != "ok":
            raise PaymentRefused("token already used" if outcome == "used" else "unknown token")
        try:
            card = self._vault.get(token.user_id, token.card_handle)
        except (CredentialNotFound, VaultCorrupted):
            raise PaymentRefused("card no longer available") from None
        try:
            public = self._vault.info(token.user_id, token.card_handle).public
        except CredentialNotFound:
            public = {}
        return CardCharge(
            token_id=token.id, user_id=token.user_id, merchant=token.merchant, amount=charged, currency=code,
            card_handle=token.card_handle, card=card, card_public=public,
        )


def erase_user_payment_tokens(redis: Redis, owned: Owned) -> int:
    """The user's payment tokens, spent or not, and their idempotency records."""
    uid = str(owned.user_id)
    idempotency = redis.scan_iter(_IDEMPOTENCY.format(uid, "*"))
    tokens = (key for key in redis.scan_iter(_TOKEN.format("ptok_*")) if redis.hget(key, "user_id") == uid.encode())
    return delete_keys(redis, [*idempotency, *tokens])
