"""The old key file (read once to move a vault into Redis): never prompts, records its KDF cost,
reads files made by plain keyrings.cryptfile."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyrings.cryptfile.cryptfile import CryptFileKeyring
from pydantic import SecretStr
from redis import Redis

from deputy.vault import CredentialInfo, KdfCost, Vault, VaultCorrupted, VaultLocked
from deputy.vault.keyfile import KeyFile, _AtomicCryptFileKeyring
from deputy.vault.migrate import migrate_file_vault

CHEAP_KDF = KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)


@pytest.fixture(autouse=True)
def no_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> str:
        raise AssertionError("the vault prompted for a password")

    monkeypatch.setattr(getpass, "getpass", refuse)


def test_the_cost_is_recorded_and_used_on_reopen(tmp_path: Path) -> None:
    path = tmp_path / "v.cfg"
    KeyFile(path, "key-one-two-three", CHEAP_KDF).set("svc", "name", "value-1")

    # Asking for another cost does not matter once the file exists.
    reopened = KeyFile(path, "key-one-two-three", KdfCost())

    assert reopened.kdf == CHEAP_KDF
    assert reopened.get("svc", "name") == "value-1"


@pytest.mark.slow
def test_a_file_made_by_plain_keyrings_cryptfile_opens(tmp_path: Path, redis: Redis) -> None:
    path = tmp_path / "plain.cfg"
    plain = CryptFileKeyring()
    plain.file_path = str(path)
    plain.keyring_key = "operator passphrase"
    plain.set_password("deputy/user/5", "cred:email/work", "made-by-the-library")

    redis.hset("deputy:vault:5", "cred:email/work", CredentialInfo(
        handle="cred:email/work", kind="password", label="Work mail", created_at=1.0).model_dump_json())
    vault = Vault(redis, SecretStr("operator passphrase"), kdf=CHEAP_KDF)

    assert migrate_file_vault(path, SecretStr("operator passphrase"), vault, redis) == 1
    assert vault.get(5, "cred:email/work").get_secret_value() == "made-by-the-library"


def test_a_damaged_file_is_reported_without_content(tmp_path: Path) -> None:
    path = tmp_path / "v.cfg"
    path.write_text("this is not an ini file\nsecret-looking-content\n")

    with pytest.raises(VaultCorrupted) as raised:
        KeyFile(path, "some key", CHEAP_KDF)

    assert "secret-looking-content" not in str(raised.value) + repr(raised.value)


def test_the_wrong_key_is_refused_for_a_file_created_here(tmp_path: Path) -> None:
    path = tmp_path / "v.cfg"
    KeyFile(path, "right key", CHEAP_KDF)

    with pytest.raises(VaultLocked):
        KeyFile(path, "wrong key", CHEAP_KDF)


def test_our_backend_is_never_chosen_by_keyring_globally() -> None:
    # Subclassing registers a backend with keyring; ours must not be selectable.
    assert not _AtomicCryptFileKeyring.viable
    assert _AtomicCryptFileKeyring not in set(KeyringBackend.get_viable_backends())
    assert CryptFileKeyring in set(KeyringBackend.get_viable_backends())


def test_the_lock_is_reentrant_within_a_thread(tmp_path: Path) -> None:
    keyfile = KeyFile(tmp_path / "v.cfg", "a key", CHEAP_KDF)

    with keyfile.exclusive():
        with keyfile.exclusive():
            keyfile.set("svc", "a", "1")
        keyfile.set("svc", "b", "2")

    assert keyfile.names("svc") == ["a", "b"]


def test_a_file_damaged_after_opening_is_reported_without_content(tmp_path: Path) -> None:
    path = tmp_path / "v.cfg"
    keyfile = KeyFile(path, "some key", CHEAP_KDF)
    path.write_text("garbage-line-with-content\n")

    for call in (lambda: keyfile.get("svc", "a"), lambda: keyfile.set("svc", "a", "1"),
                 lambda: keyfile.delete("svc", "a")):
        with pytest.raises(VaultCorrupted) as raised:
            call()
        assert "garbage-line-with-content" not in str(raised.value) + repr(raised.value)
