"""One-time links for connecting an account, so credentials never pass through the chat.

`/connect email` creates a link bound to the user and the service; it works once and
expires after a few minutes. The page behind it (`deputy.credential_page.page`) puts what the
user types straight into the vault.
"""

from __future__ import annotations

import json
import secrets

from pydantic import BaseModel
from redis import Redis

from deputy.core.records.erasure import Owned, delete_keys

_KEY = "deputy:connect:{}"

FORM_SERVICES = frozenset({"card", "key", "email", "web", "calendar", "traveller"})
TRAVELLER_HANDLE = "cred:traveller/main"
"""The vault entry of the traveller's details (`/connect traveller`), which the executor fills into bookings."""
"""What the connect page has a form for (`deputy.credential_page.forms`); the chat offers links for these."""
CONFIDENTIAL_ON = "confidential_on"
"""A link to turn confidential mode on (choose the passphrase on the page, never in the chat)."""
CONFIDENTIAL_UNLOCK = "confidential_unlock"
"""A link to unlock a confidential user's records for a while."""
TTL_SECONDS = 15 * 60


class ConnectRequest(BaseModel):
    user_id: int
    chat_id: int
    service: str
    handle: str | None = None  # for "key": the vault handle the secret goes to


class ConnectLinks:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def create(self, user_id: int, chat_id: int, service: str, handle: str | None = None) -> str:
        token = secrets.token_urlsafe(24)
        request = ConnectRequest(user_id=user_id, chat_id=chat_id, service=service, handle=handle)
        self._redis.set(_KEY.format(token), request.model_dump_json(), ex=TTL_SECONDS)
        return token

    def peek(self, token: str) -> ConnectRequest | None:
        raw = self._redis.get(_KEY.format(token)) if _valid(token) else None
        return ConnectRequest.model_validate_json(raw) if raw else None

    def consume(self, token: str) -> ConnectRequest | None:
        """The request behind `token`, once: the link stops working as it is used."""
        raw = self._redis.getdel(_KEY.format(token)) if _valid(token) else None
        return ConnectRequest.model_validate_json(raw) if raw else None


def _valid(token: str) -> bool:
    return 16 <= len(token) <= 64 and token.replace("-", "").replace("_", "").isalnum()


def erase_user_links(redis: Redis, owned: Owned) -> int:
    """The user's unused connect links."""
    return delete_keys(redis, (key for key in redis.scan_iter(_KEY.format("*"))
                               if _link_user(redis.get(key)) == str(owned.user_id)))


def _link_user(raw: bytes | None) -> str | None:
    try:
        return str(json.loads(raw)["user_id"]) if raw else None
    except (ValueError, KeyError, TypeError):
        return None
