"""Messages taken for secrets, kept sealed for a few minutes so one wrongly taken can be released.

When the chat front end takes a message for a secret it keeps the original here, sealed
(AES-GCM, a key derived from the operator's secret, bound to the user and the message's
handle), under the user's namespace, for `HOLD_SECONDS`. One press of the signed release
button takes it out (once: GETDEL) and lets it go on as the user wrote it; otherwise it
expires. The user's last message, when it named a secret without its value ("the wifi
password is"), is kept the same way for a few minutes, so the next message is read with it;
`held` says whether it was held back (a label alone starts no goal) or went on by itself.
"""

from __future__ import annotations

import hashlib
import os
import secrets

from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from redis import Redis

HOLD_SECONDS = 10 * 60
LEAD_SECONDS = 3 * 60
_HELD = "deputy:user:{}:held_message:{}"
_LEAD = "deputy:user:{}:secret_lead"


@dataclass(frozen=True)
class Lead:
    """A message that named a secret without its value, as the user wrote it."""

    text: str
    held: bool  # held back waiting for its value (it went nowhere yet), or it went on by itself


class HeldMessages:
    def __init__(self, redis: Redis, secret: str) -> None:
        self._redis = redis
        self._aead = AESGCM(hashlib.sha256(b"deputy-held-message\x00" + secret.encode()).digest())

    def hold(self, user_id: int, text: str) -> str:
        """Keep `text` sealed; returns the handle a release button names."""
        ident = secrets.token_urlsafe(12)
        nonce = os.urandom(12)
        sealed = nonce + self._aead.encrypt(nonce, text.encode(), f"{int(user_id)}:{ident}".encode())
        self._redis.set(_HELD.format(int(user_id), ident), sealed, ex=HOLD_SECONDS)
        return ident

    def release(self, user_id: int, ident: str) -> str | None:
        """The held text, taken out for good; None once released, expired, or not this user's."""
        sealed = self._redis.getdel(_HELD.format(int(user_id), ident))
        if not sealed or len(sealed) < 13:
            return None
        try:
            return self._aead.decrypt(sealed[:12], sealed[12:], f"{int(user_id)}:{ident}".encode()).decode()
        except InvalidTag:
            return None

    def mark_lead(self, user_id: int, text: str, held: bool) -> None:
        """Remember `text` (sealed) as the message the next one continues."""
        nonce = os.urandom(12)
        plain = (b"h" if held else b"s") + text.encode()
        self._redis.set(_LEAD.format(int(user_id)), nonce + self._aead.encrypt(nonce, plain, self._lead_aad(user_id)),
                        ex=LEAD_SECONDS)

    def take_lead(self, user_id: int) -> Lead | None:
        """The user's previous message, once, when it named a secret without its value."""
        sealed = self._redis.getdel(_LEAD.format(int(user_id)))
        if not sealed or len(sealed) < 13:
            return None
        try:
            plain = self._aead.decrypt(sealed[:12], sealed[12:], self._lead_aad(user_id)).decode()
        except InvalidTag:
            return None
        return Lead(plain[1:], plain[:1] == "h")

    @staticmethod
    def _lead_aad(user_id: int) -> bytes:
        return f"{int(user_id)}:lead".encode()
