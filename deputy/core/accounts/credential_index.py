"""What a user has connected, without a secret: the vault's index of credentials, by handle.

The vault (`deputy.vault.store`) keeps each secret sealed under the vault key and, beside it, this
index: the handle, kind, label and public fields (a username, a card's last four digits).
Reading the index needs no vault key, so the chat front end lists a user's connections and
cards from here and never imports the vault. A confidential user's index entries are sealed to
their own key (`deputy.core.confidential`), and are unreadable while they are locked.
"""

from __future__ import annotations

import re
from enum import Enum

from pydantic import BaseModel, ConfigDict
from redis import Redis

from deputy.core.infrastructure import step_reads
from deputy.core.confidential import confidential_keys
from deputy.core.confidential.sealing import is_sealed
from deputy.core.records.vault_errors import InvalidCredential

UserId = int | str

HANDLE_PATTERN = re.compile(r"cred:[a-z0-9][a-z0-9._-]{0,31}/[a-z0-9][a-z0-9._-]{0,63}")
_USER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_INDEX = "deputy:vault:{}"


class CredentialKind(str, Enum):
    """What a stored secret is; the executor uses it to decide how to present it."""

    password = "password"
    api_key = "api_key"
    token = "token"
    card = "card"
    """The secret is the card number (digits only); `public` holds `last4` and e.g. expiry."""


class CredentialInfo(BaseModel):
    """What may be known about a credential without opening it: never the secret."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = 1
    handle: str
    kind: CredentialKind
    label: str
    created_at: float
    public: dict[str, str] = {}


def validate_handle(handle: str) -> str:
    """Return `handle` if it looks like `cred:<service>/<name>`, else raise InvalidCredential."""
    if not isinstance(handle, str) or not HANDLE_PATTERN.fullmatch(handle):
        # Never echo the rejected value: it may be a secret passed where a handle belonged.
        raise InvalidCredential(
            "A credential handle must look like cred:service/name (lowercase letters, digits, '.', '_', '-')."
        )
    return handle


def checked_user(user_id: UserId) -> str:
    """The user id as the vault's Redis keys spell it; InvalidCredential when it cannot be one."""
    text = str(user_id)
    if not _USER_ID.fullmatch(text):
        raise InvalidCredential("The user id is not valid for the vault.")
    return text


def index_key(user: str) -> str:
    """The Redis hash of a user's index entries, by handle."""
    return _INDEX.format(user)


def confidential_id(user: str) -> int | None:
    """The user's id as confidential keys know it (numeric ids only; others are never confidential)."""
    return int(user) if user.lstrip("-").isdigit() else None


def opened_index(redis: Redis, user: str, raw: bytes) -> bytes:
    """One stored index entry as JSON, opened with the user's own key when it was sealed to it."""
    owner = confidential_id(user)
    if owner is None or not is_sealed(raw):
        return raw
    return confidential_keys(redis).open_bytes(owner, raw)  # `Locked` while the user is locked


def list_credentials(redis: Redis, user_id: UserId) -> list[CredentialInfo]:
    """What a user has connected (no secrets), readable without the vault key."""
    user = checked_user(user_id)
    key = index_key(user)
    raw = step_reads.read(("HGETALL", key), lambda: redis.hgetall(key))
    return sorted((CredentialInfo.model_validate_json(opened_index(redis, user, v)) for v in raw.values()),
                  key=lambda i: i.handle)
