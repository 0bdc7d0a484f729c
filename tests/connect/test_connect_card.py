"""Connecting a card on the private page: the expiry is checked, a nickname keeps a second
card beside the first, and the heads-up for its last month is scheduled."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr
from redis import Redis
from rq import Queue
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from deputy.credential_page.card_reminders import card_reminders
from deputy.credential_page.page import create_app
from deputy.core.accounts.connect_links import ConnectLinks
from deputy.core.records.outbox import Outbox
from deputy.core.records.payloads import ACTIONS_QUEUE
from deputy.sentinel.stores.audit import AuditLog
from deputy.vault import KdfCost, Vault, list_credentials

USER = 32
NEXT_YEAR = time.gmtime().tm_year % 100 + 1


@pytest.fixture
async def page(redis: Redis) -> AsyncIterator[TestClient]:
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
    app = create_app(ConnectLinks(redis), vault, Outbox(redis), AuditLog(redis), card_connected=card_reminders(redis))
    async with TestClient(TestServer(app)) as client:
        yield client


async def connect(page: TestClient, redis: Redis, **values: str):  # type: ignore[no-untyped-def]
    url = "/connect/" + ConnectLinks(redis).create(USER, USER, "card")
    return await page.post(url, data={"number": "4111111111111111", "holder": "Demo", **values})


async def test_two_cards_with_nicknames_and_a_reminder_each(page: TestClient, redis: Redis) -> None:
    refused = await connect(page, redis, expiry="13/40")
    assert refused.status == 400 and "MM/YY" in await refused.text()
    assert (await connect(page, redis, expiry=f"03/{NEXT_YEAR}", nickname="Everyday Visa")).status == 200
    assert (await connect(page, redis, expiry=f"9/20{NEXT_YEAR}", nickname="Travel")).status == 200
    cards = {c.handle: (c.label, c.public["expiry"]) for c in list_credentials(redis, USER)}
    assert cards == {"cred:card/everyday-visa": ("Everyday Visa", f"03/{NEXT_YEAR}"),
                     "cred:card/travel": ("Travel", f"09/{NEXT_YEAR}")}
    registry = ScheduledJobRegistry(queue=Queue(ACTIONS_QUEUE, connection=redis, serializer=JSONSerializer))
    months = sorted(registry.get_scheduled_time(j).month for j in registry.get_job_ids())
    assert months == [3, 9]
