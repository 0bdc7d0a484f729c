"""The signature on a chat button: which user it was made for, so a forged or borrowed press fails.

Chat buttons carry their data back with the press (Telegram's 64-byte `callback_data`, a
WhatsApp reply button's id). Every kind of button signs its fields and the user it was sent to
with a key derived from the operator's secret under its own purpose, truncated to fit.
"""

from __future__ import annotations

import base64
import hashlib
import hmac


class ButtonMac:
    def __init__(self, secret: str, purpose: bytes, length: int) -> None:
        """`purpose` keeps each kind's key apart; `length` is how many bytes of the MAC are kept."""
        self._key = hashlib.sha256(purpose + b"\x00" + secret.encode()).digest()
        self._length = length

    def sign(self, *fields: str | int) -> str:
        """URL-safe text naming these fields (the user among them), without padding."""
        message = ":".join(str(field) for field in fields).encode()
        mac = hmac.new(self._key, message, hashlib.sha256).digest()[: self._length]
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def verifies(self, signature: str, *fields: str | int) -> bool:
        return hmac.compare_digest(signature, self.sign(*fields))
