"""One-time codes that join a Telegram account and a WhatsApp number into one Deputy account.

`/link` in one app issues a short code (valid ten minutes, single use); `/link CODE` in the
other app redeems it. The WhatsApp number is then re-pointed at the Telegram account's id, so
goals, memory and rules are shared; what the number did before linking stays with its old id.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from redis import Redis

from deputy.core.accounts.surfaces import ACCOUNT_KEY, NUMBER_KEY, SURFACE_KEY, WA_USER_ID_KEY, Surface

CODE_SECONDS = 600
_CODE_KEY = "deputy:link:{}"
_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I/L to misread
CODE_LENGTH = 8


@dataclass(frozen=True)
class Linked:
    account_id: int  # the shared account (the Telegram one)
    wa_id: str


class LinkError(Exception):
    """A code that cannot be used; the message is a plain sentence for the user."""


def normalise(code: str) -> str:
    return code.strip().upper().replace("-", "").replace(" ", "")


class AccountLinks:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def issue(self, account_id: int, surface: Surface) -> str:
        code = "".join(secrets.choice(_ALPHABET) for _ in range(CODE_LENGTH))
        self._redis.set(_CODE_KEY.format(code), json.dumps({"account": int(account_id), "surface": surface}),
                        ex=CODE_SECONDS)
        return code

    def redeem(self, code: str, account_id: int, surface: Surface) -> Linked:
        """Join the code's account and this one; the code is used up only by a successful link."""
        key = _CODE_KEY.format(normalise(code))
        raw = self._redis.get(key)
        if raw is None:
            raise LinkError("That code is unknown or has expired. Send /link in the other app for a new one.")
        issued = json.loads(raw)
        if issued["surface"] == surface:
            raise LinkError("That code is for the other app: send /link CODE there, not here.")
        telegram, whatsapp = ((issued["account"], account_id) if issued["surface"] == "telegram"
                              else (account_id, issued["account"]))
        raw_number = self._redis.get(NUMBER_KEY.format(whatsapp))
        if raw_number is None:
            raise LinkError("I could not find your WhatsApp number. Write to me on WhatsApp once, then try again.")
        if not self._redis.delete(key):  # single use: someone else redeemed it a moment ago
            raise LinkError("That code was just used. Send /link in the other app for a new one.")
        wa_id = raw_number.decode()
        user_id = self._redis.get(WA_USER_ID_KEY.format(whatsapp))  # the number's other name, if any
        pipe = self._redis.pipeline(transaction=True)
        pipe.set(ACCOUNT_KEY.format(wa_id), telegram)
        if user_id is not None and user_id.decode() != wa_id:
            pipe.set(ACCOUNT_KEY.format(user_id.decode()), telegram)
            pipe.set(WA_USER_ID_KEY.format(telegram), user_id)
        pipe.set(NUMBER_KEY.format(telegram), wa_id)
        pipe.set(SURFACE_KEY.format(telegram), surface)
        pipe.execute()
        return Linked(telegram, wa_id)
