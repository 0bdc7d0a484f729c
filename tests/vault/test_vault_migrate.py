"""A vault file of an older Deputy moves into Redis once, and then leaves no copy on disk."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr
from redis import Redis

from deputy.vault import CredentialInfo, KdfCost, Vault
from deputy.vault.keyfile import KeyFile
from deputy.vault.migrate import migrate_file_vault


CHEAP_KDF = KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)

KEY = "the operator's vault key"


def old_vault(path: Path, redis: Redis, entries: dict[tuple[int, str], str]) -> None:
    """What an older Deputy left: secrets in the file, their index lines in Redis."""
    keyfile = KeyFile(path, KEY, CHEAP_KDF)
    for (user, handle), secret in entries.items():
        keyfile.set(f"deputy/user/{user}", handle, secret)
        info = CredentialInfo(handle=handle, kind="password", label="Mail", created_at=1.0)
        redis.hset(f"deputy:vault:{user}", handle, info.model_dump_json())


def test_every_secret_moves_into_redis_and_the_file_is_deleted(tmp_path: Path, redis: Redis) -> None:
    path = tmp_path / "vault.cfg"
    old_vault(path, redis, {(1, "cred:email/smtp"): "ann-smtp-pw", (1, "cred:email/imap"): "ann-imap-pw",
                            (2, "cred:email/smtp"): "bob-smtp-pw"})
    vault = Vault(redis, SecretStr(KEY), kdf=CHEAP_KDF)

    assert migrate_file_vault(path, SecretStr(KEY), vault, redis) == 3

    assert vault.get(1, "cred:email/imap").get_secret_value() == "ann-imap-pw"
    assert vault.get(2, "cred:email/smtp").get_secret_value() == "bob-smtp-pw"
    assert [i.handle for i in vault.list(1)] == ["cred:email/imap", "cred:email/smtp"]
    assert list(tmp_path.iterdir()) == [], "no copy of the secrets is left on this machine"
    # Run again (another executor starting): nothing to do, nothing lost.
    assert migrate_file_vault(path, SecretStr(KEY), vault, redis) == 0
    assert vault.get(1, "cred:email/smtp").get_secret_value() == "ann-smtp-pw"


def test_without_a_file_nothing_happens(tmp_path: Path, redis: Redis) -> None:
    vault = Vault(redis, SecretStr(KEY), kdf=CHEAP_KDF)
    assert migrate_file_vault(tmp_path / "vault.cfg", SecretStr(KEY), vault, redis) == 0
