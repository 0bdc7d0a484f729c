"""The connect page refuses servers the egress policy refuses, before anything is stored, and says why."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from egress_testkit import fixed, no_outside_traffic
from pydantic import SecretStr
from redis import Redis

from deputy.core.accounts.connect_links import ConnectLinks
from deputy.credential_page.page import create_app
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox
from deputy.settings import Settings
from deputy.sentinel.stores.audit import AuditLog
from deputy.vault import KdfCost, Vault
from deputy.runtime.egress_guards import endpoint_guard

USER = 31
PASSWORD = "ann-app-password-77"
DNS = fixed({"mail.example.com": ["93.184.216.34"], "mail.sneaky.example": ["10.0.0.5"],
             "cal.example.com": ["93.184.216.35"]})
EMAIL = {"address": "ann@example.com", "username": "ann@example.com", "password": PASSWORD,
         "smtp_host": "mail.example.com", "smtp_port": "465", "imap_host": "mail.example.com", "imap_port": "993",
         "security": "ssl"}


@pytest.fixture
def vault(tmp_path: Path, redis: Redis) -> Vault:
    return Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024,
                                                                            parallelism=1))


@pytest.fixture
async def page(redis: Redis, vault: Vault) -> AsyncIterator[TestClient]:
    # The connect page's guard as `deputy connect-page` builds it, with DNS answered by the test.
    guard = endpoint_guard(Settings(DEPUTY_EGRESS_ALLOW="10.20.0.0/16"), DNS)
    app = create_app(ConnectLinks(redis), vault, Outbox(redis), AuditLog(redis), egress=guard)
    async with TestClient(TestServer(app)) as client:
        yield client


def link(redis: Redis, service: str) -> str:
    return "/connect/" + ConnectLinks(redis).create(USER, USER, service)


def chat_messages(redis: Redis) -> list[str]:
    return [json.loads(fields[b"json"])["text"] for _, fields in redis.xrange(OUTBOX_STREAM)]


@pytest.mark.parametrize(("field", "value", "says"), [
    ("imap_host", "10.0.0.5", ("IMAP server: That server's address (10.0.0.5) is a private network address; "
                               "Deputy only connects to public servers. If this is your own server, the operator "
                               "can allow it with DEPUTY_EGRESS_ALLOW.")),
    ("smtp_host", "169.254.169.254", "SMTP server: That server's address is the cloud metadata service"),
    ("smtp_host", "127.0.0.1", "SMTP server: That server's address (127.0.0.1) is this computer's own address"),
    ("imap_host", "mail.sneaky.example", "IMAP server: That server (mail.sneaky.example) leads to 10.0.0.5"),
])
async def test_a_private_mail_server_is_refused_on_the_page(
    page: TestClient, redis: Redis, vault: Vault, field: str, value: str, says: str
) -> None:
    url = link(redis, "email")
    with no_outside_traffic() as attempts:
        response = await page.post(url, data={**EMAIL, field: value})
    text = await response.text()
    assert response.status == 400 and says in text.replace("&#x27;", "'")
    assert PASSWORD not in text and attempts == []
    assert vault.list(USER) == [] and chat_messages(redis) == [], "nothing stored, nothing announced"
    refused = [e for e in AuditLog(redis).entries(USER) if e.kind == "connection_refused"]
    assert len(refused) == 1 and refused[0].detail["service"] == "email"
    assert PASSWORD not in repr(refused[0].model_dump())
    # The link still works: the user corrects the address and connects.
    fixed_up = await page.post(url, data=EMAIL)
    assert fixed_up.status == 200 and "Done" in await fixed_up.text()
    assert {info.handle for info in vault.list(USER)} == {"cred:email/smtp", "cred:email/imap"}


@pytest.mark.parametrize(("url", "says"), [
    ("http://169.254.169.254/", "cloud metadata service"),
    ("https://10.0.0.5/dav/", "(10.0.0.5) is a private network address"),
    ("https://[::1]:5232/", "this computer's own address"),
])
async def test_a_private_calendar_is_refused_on_the_page(
    page: TestClient, redis: Redis, vault: Vault, url: str, says: str
) -> None:
    form = {"url": url, "username": "ann", "password": PASSWORD}
    response = await page.post(link(redis, "calendar"), data=form)
    text = (await response.text()).replace("&#x27;", "'")
    assert response.status == 400 and "CalDAV address: That server" in text and says in text
    assert vault.list(USER) == []


async def test_public_servers_and_the_operators_openings_connect(page: TestClient, redis: Redis, vault: Vault) -> None:
    response = await page.post(link(redis, "calendar"), data={"url": "https://cal.example.com/dav/",
                                                                "username": "ann", "password": PASSWORD})
    assert response.status == 200
    opened = await page.post(link(redis, "email"), data={**EMAIL, "imap_host": "10.20.1.2", "smtp_host": "10.20.1.3"})
    assert opened.status == 200, "DEPUTY_EGRESS_ALLOW opened 10.20.0.0/16"
    assert "cred:email/imap" in {info.handle for info in vault.list(USER)}


async def test_an_unknown_server_name_asks_the_user_to_check_it(page: TestClient, redis: Redis, vault: Vault) -> None:
    response = await page.post(link(redis, "email"), data={**EMAIL, "imap_host": "imap.typo.example"})
    text = (await response.text()).replace("&#x27;", "'")
    assert response.status == 400 and "couldn't find the server imap.typo.example; check its name" in text
    assert vault.list(USER) == []
