"""/delete_me erases the user's credentials, files and browser state, each by its own store."""

from __future__ import annotations

import os

from pydantic import SecretStr
from redis import Redis

from agent.uploads import Uploads
from connectors.web.states import BrowserStates
from vault import KdfCost, Vault, VaultKey
from executor.erasure import erase_user

ANN, BOB = 41, 42
CHEAP = KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)


def test_credentials_files_and_browser_state_of_the_user_are_erased_and_nobody_elses(redis: Redis) -> None:
    vault = Vault(redis, SecretStr("the vault key"), kdf=CHEAP)
    states = BrowserStates(redis, VaultKey(os.urandom(32)).sealer("browser"))
    uploads = Uploads(redis)
    for user in (ANN, BOB):
        vault.put(user, "cred:email/smtp", SecretStr(f"password-of-{user}"), "password", "Mail")
        uploads.put(user, "notes.txt", "text/plain", f"notes of {user}".encode())
        states.save(user, {"cookies": [{"name": "sid", "value": f"session-{user}"}], "origins": []})

    erase_user(redis, ANN)

    assert not [k for k in redis.scan_iter("*") if str(ANN).encode() in k]
    assert vault.list(ANN) == [] and states.load(ANN) == (0, None)
    assert vault.get(BOB, "cred:email/smtp").get_secret_value() == f"password-of-{BOB}"
    assert states.load(BOB)[1]["cookies"][0]["value"] == f"session-{BOB}"
    assert len(list(redis.scan_iter(f"deputy:upload:{BOB}:*"))) == 1
