"""The vault keeps secrets sealed in Redis, per user, and tells the agent only handles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

import pytest
from pydantic import SecretStr
from redis import Redis

import deputy.vault as vault_package
from deputy.vault import (
    CredentialKind,
    CredentialNotFound,
    InvalidCredential,
    Vault,
    VaultCorrupted,
    VaultError,
    VaultLocked,
)
from deputy.vault.scrub import encodings

PASSWORD = "Tr0ub4dor&3-work-mail"
CARD = "4242 4242 4242 4242"


def test_round_trip(vault: Vault) -> None:
    info = vault.put(42, "cred:email/work", SecretStr(PASSWORD), "password", "Work mail", {"username": "me@corp.test"})

    assert vault.get(42, "cred:email/work").get_secret_value() == PASSWORD
    assert info.kind is CredentialKind.password
    assert info.public == {"username": "me@corp.test"}
    assert vault.info(42, "cred:email/work") == info


def test_put_replaces_the_secret(vault: Vault) -> None:
    vault.put(42, "cred:email/work", SecretStr("old-password"), "password", "Work mail")
    vault.put(42, "cred:email/work", SecretStr("new-password"), "password", "Work mail")

    assert vault.get(42, "cred:email/work").get_secret_value() == "new-password"
    assert len(vault.list(42)) == 1


def test_redis_holds_no_secret_in_any_spelling_and_nothing_is_written_to_disk(
    vault: Vault, redis: Redis, tmp_path: Path
) -> None:
    vault.put(42, "cred:email/work", SecretStr(PASSWORD), "password", "Work mail")
    vault.put(42, "cred:card/visa", SecretStr(CARD), "card", "Visa")

    dump = b"".join(_everything(redis))
    assert b"deputy:vault:42:secrets" in dump  # the secrets are there, sealed
    for secret in (PASSWORD, CARD.replace(" ", ""), "correct horse battery staple 42"):
        for spelling in encodings(secret):
            assert spelling.encode() not in dump
    assert not list(tmp_path.rglob("*")), "the vault keeps nothing on this machine's disk"


def _everything(redis: Redis) -> list[bytes]:
    parts = []
    for key in redis.scan_iter("*"):
        parts.append(key)
        kind = redis.type(key)
        if kind == b"hash":
            parts += [k + v for k, v in redis.hgetall(key).items()]
        elif kind == b"string":
            parts.append(redis.get(key))
    return parts


def test_a_vault_opened_on_another_machine_reads_the_same_secrets(
    make_vault: Callable[..., Vault], redis_server
) -> None:
    make_vault().put(42, "cred:email/work", SecretStr(PASSWORD), "password", "Work mail")

    # Another process with only the key and Redis (no shared disk): the same secret.
    elsewhere = Vault(redis_server.client(), SecretStr("correct horse battery staple 42"))

    assert elsewhere.get(42, "cred:email/work").get_secret_value() == PASSWORD


def test_a_wrong_key_raises_vault_locked(make_vault: Callable[..., Vault]) -> None:
    make_vault().put(42, "cred:email/work", SecretStr(PASSWORD), "password", "Work mail")

    with pytest.raises(VaultLocked) as raised:
        make_vault(key=SecretStr("not the key"))

    assert "not the key" not in str(raised.value) + repr(raised.value)
    assert isinstance(raised.value, VaultError)
    with pytest.raises(VaultLocked):
        make_vault(key=SecretStr("   "))


def test_reopening_with_the_right_key_finds_everything(make_vault: Callable[..., Vault]) -> None:
    make_vault().put(42, "cred:email/work", SecretStr(PASSWORD), "password", "Work mail")

    assert make_vault().get(42, "cred:email/work").get_secret_value() == PASSWORD


def test_users_are_isolated(vault: Vault) -> None:
    vault.put(1, "cred:email/work", SecretStr("alice-secret"), "password", "Work mail")
    vault.put(2, "cred:email/work", SecretStr("bob-secret"), "password", "Work mail")
    vault.put(1, "cred:github/token", SecretStr("ghp_alice_only"), "token", "GitHub")

    assert vault.get(1, "cred:email/work").get_secret_value() == "alice-secret"
    assert vault.get(2, "cred:email/work").get_secret_value() == "bob-secret"
    with pytest.raises(CredentialNotFound) as raised:
        vault.get(2, "cred:github/token")
    assert "ghp_alice_only" not in str(raised.value)
    assert [info.handle for info in vault.list(2)] == ["cred:email/work"]


def test_a_ciphertext_moved_to_another_user_does_not_decrypt(vault: Vault, redis: Redis) -> None:
    vault.put(1, "cred:email/work", SecretStr("alice-secret"), "password", "Work mail")
    vault.put(2, "cred:email/work", SecretStr("bob-secret"), "password", "Work mail")
    alice = redis.hget("deputy:vault:1:secrets", "cred:email/work")
    redis.hset("deputy:vault:2:secrets", "cred:email/work", alice)

    # AES-GCM binds each entry to its user and handle: the copy fails authentication.
    with pytest.raises(VaultCorrupted) as raised:
        vault.get(2, "cred:email/work")
    assert "alice-secret" not in str(raised.value)


def test_an_altered_ciphertext_is_reported_not_misread(vault: Vault, redis: Redis) -> None:
    vault.put(1, "cred:email/work", SecretStr("alice-secret"), "password", "Work mail")
    sealed = bytearray(redis.hget("deputy:vault:1:secrets", "cred:email/work"))
    sealed[-1] ^= 1
    redis.hset("deputy:vault:1:secrets", "cred:email/work", bytes(sealed))

    with pytest.raises(VaultCorrupted):
        vault.get(1, "cred:email/work")


def test_list_never_contains_secret_values(vault: Vault) -> None:
    secrets = {
        "cred:email/work": (PASSWORD, "password"),
        "cred:openai/key": ("sk-proj-abcdef0123456789", "api_key"),
        "cred:github/token": ("ghp_0123456789abcdef", "token"),
        "cred:card/visa": (CARD, "card"),
    }
    for handle, (secret, kind) in secrets.items():
        vault.put(7, handle, SecretStr(secret), kind, f"My {kind}", {"host": "example.test"})

    listed = vault.list(7)
    shown = json.dumps([info.model_dump(mode="json") for info in listed]) + repr(listed)

    assert [info.handle for info in listed] == sorted(secrets)
    for secret, _ in secrets.values():
        assert secret not in shown
    assert "4242424242424242" not in shown
    assert next(i for i in listed if i.kind is CredentialKind.card).public["last4"] == "4242"


def test_delete_removes_one_credential(vault: Vault) -> None:
    vault.put(7, "cred:email/work", SecretStr(PASSWORD), "password", "Work mail")
    vault.put(7, "cred:email/home", SecretStr("home-password"), "password", "Home mail")

    vault.delete(7, "cred:email/work")

    with pytest.raises(CredentialNotFound):
        vault.get(7, "cred:email/work")
    assert [info.handle for info in vault.list(7)] == ["cred:email/home"]
    with pytest.raises(CredentialNotFound):
        vault.delete(7, "cred:email/work")


def test_delete_all_leaves_no_entry_in_redis(vault: Vault, redis: Redis) -> None:
    for n in range(3):
        vault.put(7, f"cred:site/n{n}", SecretStr(f"user-seven-secret-{n}"), "password", f"Site {n}")
    vault.put(8, "cred:site/n0", SecretStr("user-eight-secret"), "password", "Site 0")

    vault.delete_all(7)

    assert not [key for key in redis.scan_iter("*") if b":7" in key]
    assert vault.list(7) == []
    with pytest.raises(CredentialNotFound):
        vault.get(7, "cred:site/n0")
    assert vault.get(8, "cred:site/n0").get_secret_value() == "user-eight-secret"


def test_concurrent_puts_from_threads_lose_nothing(vault: Vault) -> None:
    def writer(worker: int) -> None:
        for n in range(5):
            vault.put(3, f"cred:t{worker}/n{n}", SecretStr(f"secret-{worker}-{n}"), "password", "x")

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(vault.list(3)) == 40
    for w in range(8):
        for n in range(5):
            assert vault.get(3, f"cred:t{w}/n{n}").get_secret_value() == f"secret-{w}-{n}"


_WRITER = """
import sys
from pathlib import Path
from pydantic import SecretStr
from redis import Redis
from deputy.vault import KdfCost, Vault
path, key, url, worker = sys.argv[1:5]
vault = Vault(Redis.from_url(url), SecretStr(key), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
for n in range(5):
    vault.put(3, f"cred:p{worker}/n{n}", SecretStr(f"secret-{worker}-{n}"), "password", "x")
"""


def test_concurrent_puts_from_processes_lose_nothing(vault: Vault, vault_key: SecretStr, redis_server) -> None:
    root = str(Path(vault_package.__file__).resolve().parents[2])  # the checkout, above deputy/
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, "-", vault_key.get_secret_value(), redis_server.url, str(w)],
            env=env,
        )
        for w in range(4)
    ]
    assert [process.wait(timeout=60) for process in processes] == [0, 0, 0, 0]

    assert len(vault.list(3)) == 20
    for w in range(4):
        for n in range(5):
            assert vault.get(3, f"cred:p{w}/n{n}").get_secret_value() == f"secret-{w}-{n}"


@pytest.mark.parametrize(
    "handle",
    ["email/work", "cred:/", "cred:email", "cred:Email/Work", "cred:email/work/x", "cred:../etc", "cred:a/" + "b" * 80,
     "hunter2-is-my-password", "cred:email/wo rk"],
)
def test_invalid_handles_are_refused_without_echo(vault: Vault, handle: str) -> None:
    with pytest.raises(InvalidCredential) as raised:
        vault.put(1, handle, SecretStr("whatever-secret"), "password", "x")

    assert handle not in str(raised.value) + repr(raised.value)
    with pytest.raises(InvalidCredential):
        vault.get(1, handle)


def test_errors_never_contain_the_secret(vault: Vault) -> None:
    errors: list[Exception] = []
    attempts: list[Callable[[], object]] = [
        lambda: vault.put(1, "cred:email/work", SecretStr(PASSWORD), "password", f"pw {PASSWORD}"),
        lambda: vault.put(1, "cred:email/work", SecretStr(PASSWORD), "password", "x", {"note": PASSWORD}),
        lambda: vault.put(1, "cred:email/work", SecretStr(PASSWORD), "password", "x", {"password": "x"}),
        lambda: vault.put(1, "cred:email/work", SecretStr(PASSWORD), "bogus-kind", "x"),
        lambda: vault.put(1, PASSWORD, SecretStr(PASSWORD), "password", "x"),
        lambda: vault.put(1, "cred:card/visa", SecretStr("4242 4242 4242 4241"), "card", "Visa"),
        lambda: vault.put(1, "cred:email/work", SecretStr(""), "password", "x"),
        lambda: vault.get(1, "cred:email/missing"),
        lambda: vault.get("../../etc", "cred:email/work"),
    ]
    for attempt in attempts:
        with pytest.raises(VaultError) as raised:
            attempt()
        errors.append(raised.value)

    for error in errors:
        text = str(error) + repr(error) + error.user_message
        assert PASSWORD not in text
        assert "4242 4242 4242 4241" not in text
    assert vault.list(1) == []
