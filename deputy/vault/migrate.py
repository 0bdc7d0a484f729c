"""Opening the vault at start-up, and moving a vault file of an older Deputy (keyrings.cryptfile) into Redis.

The index of every credential was already in Redis; only the secrets were in the file. Each
one is read with the same vault key, sealed into Redis, read back to check, and when all
are in, the file is deleted (a copy of the secrets on one machine's disk would outlive
`/delete_me`). Safe to run again, and by several processes at once.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from pydantic import SecretStr
from redis import Redis

from deputy.core.accounts.credential_index import list_credentials
from deputy.core.records.vault_errors import VaultError, VaultLocked
from deputy.vault.keyfile import KeyFile
from deputy.vault.sealing import VaultKey, open_vault_key
from deputy.vault.store import Vault

log = logging.getLogger(__name__)


class _Settings(Protocol):
    def vault_key_value(self) -> SecretStr: ...


def unlock_vault(redis: Redis, settings: _Settings) -> VaultKey:
    """The vault key for an entry point; a wrong key stops the process with what to do about it."""
    try:
        return open_vault_key(redis, settings.vault_key_value())
    except VaultLocked:
        raise SystemExit(
            "DEPUTY_VAULT_KEY is not the key the vault in Redis was made with: give the executors and the "
            "connect page the same DEPUTY_VAULT_KEY (without it, each machine generates its own)."
        ) from None


def migrate_file_vault(path: Path, key: SecretStr, vault: Vault, redis: Redis) -> int:
    """Copy every secret of the file at `path` into `vault`; the number moved (0 when no file).

    The file is deleted once every indexed secret reads back from Redis; an entry that
    cannot be read leaves the file in place and is logged by handle only.
    """
    if not path.exists():
        return 0
    keyfile = KeyFile(path, key.get_secret_value())
    moved, complete = 0, True
    for user in _users(redis):
        for info in list_credentials(redis, user):
            value = keyfile.get(f"deputy/user/{user}", info.handle)
            if value is None:
                continue  # indexed but never written (a crash between the two): nothing to move
            vault.import_secret(user, info.handle, value)
            try:
                complete &= vault.get(user, info.handle).get_secret_value() == value
            except VaultError:
                complete = False
            moved += 1
    if complete:
        for leftover in (path, path.with_name(path.name + ".lock")):
            leftover.unlink(missing_ok=True)
        log.info("moved %d secrets from the vault file into Redis and deleted the file", moved)
    else:
        log.error("some secrets of the vault file could not be moved into Redis; the file is kept")
    return moved


def _users(redis: Redis) -> list[str]:
    users = set()
    for key in redis.scan_iter("deputy:vault:*"):
        parts = key.decode().split(":")
        if len(parts) == 3:
            users.add(parts[2])
    return sorted(users)
