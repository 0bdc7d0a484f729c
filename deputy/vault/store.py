"""Per-user credentials: secrets sealed in Redis under the vault key, a non-secret index beside them.

The index's records and its reader, which needs no vault key, are in `deputy.core.accounts.credential_index`.

Only the executor and the connect page open a `Vault` (only they hold `DEPUTY_VAULT_KEY`);
Redis sees AES-GCM ciphertexts, each bound to its user and handle. The agent knows handles such as `cred:email/work` and
what `list` shows (kind, label, public fields like a username or the card's last four
digits), never a value. Each user's entries live under their own keyring service name, so a
handle of another user is simply not found.
"""

from __future__ import annotations

import re
import time
from typing import Callable

from pydantic import SecretStr
from redis import Redis

from deputy.core.records.card_numbers import luhn_valid
from deputy.core.confidential import confidential_keys
from deputy.core.confidential.sealing import is_sealed
from deputy.core.accounts.credential_index import (
    CredentialInfo,
    CredentialKind,
    UserId,
    checked_user,
    confidential_id,
    index_key,
    list_credentials,
    opened_index,
    validate_handle,
)
from deputy.core.records.vault_errors import CredentialNotFound, InvalidCredential
from deputy.vault.sealing import KdfCost, VaultKey, open_vault_key

_PUBLIC_KEY = re.compile(r"[a-z][a-z0-9_]{0,31}")
# Public fields are shown to the agent; names that usually hold secrets are refused so a
# caller cannot leak one by putting it in the wrong place.
_SECRET_FIELD_NAMES = {"password", "passwd", "pwd", "secret", "token", "apikey", "key", "pin", "cvv", "cvc",
                       "number", "cardnumber", "pan", "privatekey", "accesstoken", "refreshtoken"}
_MAX_SECRET = 16 * 1024
_SECRETS = "deputy:vault:{}:secrets"


def _context(user: str, handle: str) -> str:
    # Associated data: a ciphertext copied to another user or handle does not decrypt.
    return f"vault/{user}/{handle}"


def _card_digits(number: str) -> str:
    digits = re.sub(r"[ -]", "", number)
    if not (digits.isascii() and digits.isdigit() and 12 <= len(digits) <= 19 and luhn_valid(digits)):
        raise InvalidCredential("That is not a valid payment card number.")
    return digits


class Vault:
    """Credentials of every user, sealed in Redis with the key derived from `key`.

    `key` is the operator's `DEPUTY_VAULT_KEY` (or an already derived `VaultKey`). Raises
    `VaultLocked` at construction when it is not the key the vault was made with. `kdf`
    only matters for the first process ever to start; `clock` stamps `created_at`.
    """

    def __init__(
        self,
        redis: Redis,
        key: SecretStr | VaultKey,
        *,
        kdf: KdfCost | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        derived = key if isinstance(key, VaultKey) else open_vault_key(redis, key, kdf)
        self._sealer = derived.sealer("vault")
        self._redis = redis
        self._clock = clock
        # A confidential user's secrets are sealed to their own key first (then under the vault key), and
        # their index too: while they are locked, not even the operator's vault key opens them.
        self._keys = confidential_keys(redis)

    def __repr__(self) -> str:
        return "Vault(redis)"

    def put(
        self,
        user_id: UserId,
        handle: str,
        secret: SecretStr,
        kind: CredentialKind | str,
        label: str,
        public: dict[str, str] | None = None,
    ) -> CredentialInfo:
        """Store (or replace) the secret behind `handle` for this user and index it."""
        user = checked_user(user_id)
        handle = validate_handle(handle)
        try:
            kind = CredentialKind(kind)
        except ValueError:
            raise InvalidCredential("The credential kind must be password, api_key, token or card.") from None
        value = secret.get_secret_value()
        if not value or len(value) > _MAX_SECRET:
            raise InvalidCredential("The secret must be between 1 and 16384 characters long.")
        fields = dict(public or {})
        if kind is CredentialKind.card:
            value = _card_digits(value)
            fields["last4"] = value[-4:]
        label = " ".join(label.split())
        if not 1 <= len(label) <= 100:
            raise InvalidCredential("A credential needs a label of 1 to 100 characters.")
        self._check_public(fields, value, label)
        info = CredentialInfo(handle=handle, kind=kind, label=label, created_at=self._clock(), public=fields)
        owner = confidential_id(user)
        layered = self._keys.seal_bytes(owner, value.encode()) if owner is not None else value.encode()
        index = self._keys.seal_text(owner, info.model_dump_json()) if owner is not None else info.model_dump_json()
        sealed = self._sealer.seal(layered, _context(user, handle))
        # Secret and index change in one transaction, so concurrent puts of the same handle
        # cannot leave the index describing a different secret than the one stored.
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(_SECRETS.format(user), handle, sealed)
            pipe.hset(index_key(user), handle, index)
            pipe.execute()
        return info

    def get(self, user_id: UserId, handle: str) -> SecretStr:
        """The secret behind `handle` for this user; `CredentialNotFound` when there is none."""
        user = checked_user(user_id)
        handle = validate_handle(handle)
        sealed = self._redis.hget(_SECRETS.format(user), handle)
        if sealed is None:
            raise CredentialNotFound(f"No credential {handle} is stored for you.")
        value = self._sealer.open(sealed, _context(user, handle))
        owner = confidential_id(user)
        if owner is not None and is_sealed(value):
            value = self._keys.open_bytes(owner, value)  # `Locked` while the user is locked
        return SecretStr(value.decode())

    def info(self, user_id: UserId, handle: str) -> CredentialInfo:
        """The indexed, non-secret description of `handle` (no decryption)."""
        user = checked_user(user_id)
        handle = validate_handle(handle)
        raw = self._redis.hget(index_key(user), handle)
        if raw is None:
            raise CredentialNotFound(f"No credential {handle} is stored for you.")
        return CredentialInfo.model_validate_json(opened_index(self._redis, user, raw))

    def list(self, user_id: UserId) -> list[CredentialInfo]:
        """Every credential of the user, by handle, without secret values."""
        return list_credentials(self._redis, user_id)

    def delete(self, user_id: UserId, handle: str) -> None:
        """Forget one credential; `CredentialNotFound` when there was none."""
        user = checked_user(user_id)
        handle = validate_handle(handle)
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hdel(_SECRETS.format(user), handle)
            pipe.hdel(index_key(user), handle)
            removed, indexed = pipe.execute()
        if not (removed or indexed):
            raise CredentialNotFound(f"No credential {handle} is stored for you.")

    def reseal(self, user_id: UserId) -> int:
        """Store the user's credentials again, now with their confidential layer (turning the mode on)."""
        count = 0
        for info in self.list(user_id):
            public = {k: v for k, v in info.public.items() if not (info.kind is CredentialKind.card and k == "last4")}
            self.put(user_id, info.handle, self.get(user_id, info.handle), info.kind, info.label, public)
            count += 1
        return count

    def delete_all(self, user_id: UserId) -> None:
        """Erase every credential of the user, secrets and index."""
        erase_credentials(self._redis, user_id)

    def import_secret(self, user_id: UserId, handle: str, value: str) -> None:
        """Store a secret whose index line already exists (moving an old vault file into Redis)."""
        user = checked_user(user_id)
        handle = validate_handle(handle)
        self._redis.hset(_SECRETS.format(user), handle, self._sealer.seal(value.encode(), _context(user, handle)))

    @staticmethod
    def _check_public(fields: dict[str, str], value: str, label: str) -> None:
        if len(fields) > 20:
            raise InvalidCredential("A credential can have at most 20 public fields.")
        for name, field in fields.items():
            if not isinstance(name, str) or not _PUBLIC_KEY.fullmatch(name) or not isinstance(field, str):
                raise InvalidCredential("Public fields need short lowercase names and text values.")
            if name.replace("_", "") in _SECRET_FIELD_NAMES:
                raise InvalidCredential(f"The field {name} looks secret; it cannot be a public field.")
            if len(field) > 200:
                raise InvalidCredential(f"The public field {name} is too long.")
        # A secret of 4+ characters copied into a visible place would reach the agent.
        if len(value) >= 4 and any(value in text for text in [label, *fields.values()]):
            raise InvalidCredential("The label or a public field contains the secret itself.")


def erase_credentials(redis: Redis, user_id: UserId) -> int:
    """Delete every vault key of the user (sealed secrets and index); needs no vault key."""
    user = checked_user(user_id)
    return redis.delete(index_key(user), _SECRETS.format(user))
