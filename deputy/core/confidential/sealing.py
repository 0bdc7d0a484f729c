"""The cryptography of confidential mode, pure: no Redis, no clock, no process state.

A confidential user has an X25519 key pair. Values are *sealed* to the public key (an
ephemeral X25519 exchange, HKDF-SHA256, AES-256-GCM), so anything can be written while the
user is locked, and only the private key opens it. The private key is kept *wrapped*:
under a key derived from the user's passphrase (argon2id, random salt) for good, and,
while unlocked, under the operator's unlock key for the period the user chose.
"""

from __future__ import annotations

import base64
import os

from argon2.low_level import Type, hash_secret_raw
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

PREFIX = "cf1."
"""Every sealed value starts with this, so a reader knows what it holds."""

# argon2id, the RFC 9106 "second recommended" profile (64 MiB, 3 passes).
ARGON_TIME, ARGON_MEMORY_KIB, ARGON_LANES = 3, 64 * 1024, 4
_SEAL_INFO = b"deputy confidential value v1"


class CannotOpen(Exception):
    """The key does not open this value: a wrong passphrase, a wrong key or a damaged value."""


def new_private_key() -> bytes:
    return X25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())


def public_of(private: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(private).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def _value_key(shared: bytes, ephemeral: bytes, recipient: bytes) -> bytes:
    return HKDF(hashes.SHA256(), 32, salt=ephemeral + recipient, info=_SEAL_INFO).derive(shared)


def seal(public: bytes, plaintext: bytes) -> str:
    """`plaintext` readable only with the private key of `public`, as ASCII text."""
    ephemeral = X25519PrivateKey.generate()
    ephemeral_public = ephemeral.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    key = _value_key(ephemeral.exchange(X25519PublicKey.from_public_bytes(public)), ephemeral_public, public)
    nonce = os.urandom(12)
    sealed = ephemeral_public + nonce + AESGCM(key).encrypt(nonce, plaintext, public)
    return PREFIX + base64.urlsafe_b64encode(sealed).decode()


def open_sealed(private: bytes, token: str) -> bytes:
    """What `seal` sealed; `CannotOpen` if `private` is not the key it was sealed to."""
    try:
        raw = base64.urlsafe_b64decode(token[len(PREFIX):].encode())
        ephemeral_public, nonce, body = raw[:32], raw[32:44], raw[44:]
        me = X25519PrivateKey.from_private_bytes(private)
        public = public_of(private)
        key = _value_key(me.exchange(X25519PublicKey.from_public_bytes(ephemeral_public)), ephemeral_public, public)
        return AESGCM(key).decrypt(nonce, body, public)
    except (InvalidTag, ValueError, TypeError) as exc:
        raise CannotOpen("this value does not open with this key") from exc


def is_sealed(value: str | bytes | None) -> bool:
    if isinstance(value, bytes):
        return value.startswith(PREFIX.encode())
    return isinstance(value, str) and value.startswith(PREFIX)


def passphrase_key(passphrase: str, salt: bytes) -> bytes:
    """The key a passphrase stands for (argon2id; about a tenth of a second, on purpose)."""
    return hash_secret_raw(passphrase.encode(), salt, time_cost=ARGON_TIME, memory_cost=ARGON_MEMORY_KIB,
                           parallelism=ARGON_LANES, hash_len=32, type=Type.ID)


def wrap(key: bytes, secret: bytes, label: bytes) -> bytes:
    """`secret` under a symmetric `key` (AES-256-GCM), bound to `label` (whose key it is)."""
    nonce = os.urandom(12)
    return nonce + AESGCM(key).encrypt(nonce, secret, label)


def unwrap(key: bytes, wrapped: bytes, label: bytes) -> bytes:
    try:
        return AESGCM(key).decrypt(wrapped[:12], wrapped[12:], label)
    except (InvalidTag, ValueError) as exc:
        raise CannotOpen("wrong key") from exc
