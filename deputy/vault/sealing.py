"""Authenticated encryption under the operator's vault key, for things kept in Redis.

The key (`DEPUTY_VAULT_KEY`) never goes to Redis. What Redis holds is the Argon2id salt and
cost (not secret) and a check value sealed under the derived key, so every process on
every machine derives the same key, and a process started with a wrong key refuses to
start (`VaultLocked`) instead of writing entries nobody else can read.

Each use (vault secrets, browser state) gets its own AES-256-GCM key derived with HKDF, and
every ciphertext is bound to where it belongs (user and name) as associated data, so a
blob copied to another user's key does not decrypt.
"""

from __future__ import annotations

import base64
import json
import os

from argon2.low_level import Type, hash_secret_raw
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from pydantic import BaseModel, ConfigDict, Field, SecretStr
from redis import Redis

from deputy.core.records.vault_errors import VaultCorrupted, VaultLocked

KEY_RECORD = "deputy:vaultkey"
"""Salt, Argon2 cost and check value of the vault key (nothing secret)."""
_CHECK = b"deputy vault key check v1"
_VERSION = b"\x01"
_NONCE = 12


class KdfCost(BaseModel):
    """Argon2id cost used to derive the key from `DEPUTY_VAULT_KEY`; chosen by the first process.

    The defaults are keyrings.cryptfile's own (about 0.7 s and 64 MiB on a small machine,
    paid once per process start); later processes use the cost recorded in Redis.
    """

    model_config = ConfigDict(frozen=True)

    time_cost: int = Field(15, ge=1)
    memory_cost_kib: int = Field(65536, ge=8)
    parallelism: int = Field(2, ge=1)

    def encode(self) -> str:
        return f"t={self.time_cost},m={self.memory_cost_kib},p={self.parallelism}"

    @classmethod
    def decode(cls, text: str) -> "KdfCost":
        parts = dict(item.split("=", 1) for item in text.split(","))
        return cls(time_cost=int(parts["t"]), memory_cost_kib=int(parts["m"]), parallelism=int(parts["p"]))


class Sealer:
    """Seals and opens bytes for one purpose; build with `open_sealer`."""

    def __init__(self, master: bytes, purpose: str) -> None:
        derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=f"deputy/{purpose}".encode())
        self._aead = AESGCM(derived.derive(master))
        self.purpose = purpose

    def seal(self, data: bytes, context: str) -> bytes:
        """`data` encrypted and authenticated, bound to `context` (e.g. user and handle)."""
        nonce = os.urandom(_NONCE)
        return _VERSION + nonce + self._aead.encrypt(nonce, data, context.encode())

    def open(self, blob: bytes, context: str) -> bytes:
        """The data sealed under `context`; `VaultCorrupted` if it was altered or moved."""
        if len(blob) < 1 + _NONCE + 16 or blob[:1] != _VERSION:
            raise VaultCorrupted("A stored secret is damaged and cannot be read.")
        try:
            return self._aead.decrypt(blob[1 : 1 + _NONCE], blob[1 + _NONCE :], context.encode())
        except InvalidTag:
            raise VaultCorrupted("A stored secret could not be decrypted; it was altered or belongs elsewhere.") from None


class VaultKey:
    """The key derived from `DEPUTY_VAULT_KEY`; hands out one `Sealer` per purpose."""

    def __init__(self, master: bytes) -> None:
        self._master = master

    def sealer(self, purpose: str) -> Sealer:
        return Sealer(self._master, purpose)

    def __repr__(self) -> str:
        return "VaultKey(***)"


def open_vault_key(redis: Redis, key: SecretStr, kdf: KdfCost | None = None) -> VaultKey:
    """Derive the vault key with the salt and cost recorded in Redis (recording them first if none).

    `VaultLocked` when `key` is empty or is not the key the record was made with.
    """
    passphrase = key.get_secret_value()
    if not passphrase.strip():
        raise VaultLocked()
    raw = redis.get(KEY_RECORD)
    if raw is None:
        cost, salt = kdf or KdfCost(), os.urandom(16)
        master = _derive(passphrase, salt, cost)
        check = Sealer(master, "check").seal(_CHECK, "check")
        record = {"salt": _b64(salt), "cost": cost.encode(), "check": _b64(check)}
        # The first process to start wins; a racing one then derives from the winner's salt.
        if redis.set(KEY_RECORD, json.dumps(record), nx=True):
            return VaultKey(master)
        raw = redis.get(KEY_RECORD)
    try:
        record = json.loads(raw)
        salt, cost, check = base64.b64decode(record["salt"]), KdfCost.decode(record["cost"]), base64.b64decode(record["check"])
    except (ValueError, KeyError, TypeError):
        raise VaultCorrupted("The vault key record in Redis is damaged.") from None
    master = _derive(passphrase, salt, cost)
    try:
        if Sealer(master, "check").open(check, "check") != _CHECK:
            raise VaultLocked()
    except VaultCorrupted:
        raise VaultLocked() from None
    return VaultKey(master)


def _derive(passphrase: str, salt: bytes, cost: KdfCost) -> bytes:
    return hash_secret_raw(passphrase.encode(), salt, time_cost=cost.time_cost, memory_cost=cost.memory_cost_kib,
                           parallelism=cost.parallelism, hash_len=32, type=Type.ID)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
