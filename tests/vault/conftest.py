"""Fixtures for the vault tests: a real vault in the test Redis with a cheap KDF."""

from __future__ import annotations

from typing import Callable

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.vault import KdfCost, Vault
from deputy.core.infrastructure.clock import ManualClock

# The production Argon2 cost takes ~0.7 s per entry; the tests exercise the same code
# paths with a cost Redis records, so the suite stays fast.
CHEAP_KDF = KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def vault_key() -> SecretStr:
    return SecretStr("correct horse battery staple 42")


@pytest.fixture
def make_vault(vault_key: SecretStr, redis: Redis, clock: ManualClock) -> Callable[..., Vault]:
    def make(key: SecretStr | None = None) -> Vault:
        return Vault(redis, key or vault_key, kdf=CHEAP_KDF, clock=clock)

    return make


@pytest.fixture
def vault(make_vault: Callable[..., Vault]) -> Vault:
    return make_vault()
