"""What a check found: the kind of secret and where it sits in the (normalised) message."""

from __future__ import annotations

from dataclasses import dataclass

KINDS = {
    "card": "a card number",
    "card_code": "a card's security code or a PIN",
    "password": "a password",
    "login": "a password",
    "access_key": "an access key",
    "private_key": "a private key",
    "seed_phrase": "a recovery phrase",
    "one_time_code": "a one-time code",
    "bank_account": "a bank account number",
    "national_id": "an identity number",
    "learned": "a secret",
}


@dataclass(frozen=True)
class Hit:
    kind: str
    start: int
    end: int

    @property
    def label(self) -> str:
        return KINDS[self.kind]
