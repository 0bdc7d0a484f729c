"""Traveller details on the private page: the user's own, and one entry for each person travelling
with them, each sealed on its own and filled into a booking by the executor, in order."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr
from redis import Redis

from deputy.core.accounts.connect_links import ConnectLinks
from deputy.core.records.outbox import Outbox
from deputy.credential_page.page import create_app
from deputy.executor.travel import traveller_details
from deputy.sentinel.stores.audit import AuditLog
from deputy.vault import KdfCost, Vault, list_credentials
from tests_support import everything_in_redis

USER = 33


@pytest.fixture
def vault(redis: Redis) -> Vault:
    return Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))


@pytest.fixture
async def page(redis: Redis, vault: Vault) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(create_app(ConnectLinks(redis), vault, Outbox(redis), AuditLog(redis)))) as client:
        yield client


async def add(page: TestClient, redis: Redis, **values: str) -> int:
    url = "/connect/" + ConnectLinks(redis).create(USER, USER, "traveller")
    return (await page.post(url, data=values)).status


async def test_a_companion_is_kept_beside_the_user_and_booked_second(page: TestClient, redis: Redis,
                                                                    vault: Vault) -> None:
    form = await page.get("/connect/" + ConnectLinks(redis).create(USER, USER, "traveller"))
    assert "name='companion'" in await form.text(), "the form asks who the details are for"
    assert await add(page, redis, name="Dana Demo", date_of_birth="1990-04-02", passport_number="x1234567") == 200
    assert await add(page, redis, name="Sam Demo", date_of_birth="1991-05-06", passport_number="s7654321",
                     companion="Sam") == 200
    labels = sorted(c.label for c in list_credentials(redis, USER))
    assert labels == ["Traveller details", "Traveller details: Sam"]
    assert "S7654321" not in everything_in_redis(redis), "sealed like the user's own"
    people = traveller_details(redis, vault)(USER, 2)
    assert [(p["name"], p["passport_number"]) for p in people] == [("Dana Demo", "X1234567"), ("Sam Demo", "S7654321")]
