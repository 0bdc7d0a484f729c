"""A correctly signed delivery Deputy cannot read is answered 200 and dropped, never retried forever.

Meta delivers again whatever is not answered 200; a shape the webhook chokes on would come
back for days. What can be read in the same delivery is still handled.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, AsyncIterator

import httpx
import pytest
from aiohttp import web
from telegram import Bot, Update

from deputy.bot.update_claims import UpdateClaims
from deputy.core.infrastructure.redis_clients import async_client
from deputy.testing.redis_failover import RedisFailoverSet
from deputy.whatsapp.graph import GraphClient
from deputy.whatsapp.inbox import INBOX_STREAM
from deputy.whatsapp.request import WhatsAppRequest
from deputy.whatsapp.sender import Sender, Template
from deputy.whatsapp.store import SurfaceStore
from tests_support import eventually
from tests.whatsapp.test_request import WA, Rig, rig  # noqa: F401 (the fixture)
from deputy.whatsapp.signature import sign
from deputy.whatsapp.webhook import WhatsAppWebhook, build_server

SECRET = "app-secret"


class _App:
    """The part of the bot's Application the webhook uses: it records what reached the handlers."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.running, self.handled = bot, True, []
        self.update_processor = self

    async def process_update(self, update: Update, coroutine: Any = None) -> None:
        if coroutine is not None:
            await coroutine
        else:
            self.handled.append(update)


def _delivery(value: Any) -> bytes:
    return json.dumps({"object": "whatsapp_business_account",
                       "entry": [{"id": "1", "changes": [{"field": "messages", "value": value}]}]}).encode()


def _text(wamid: str, body: Any = "hello", **extra: Any) -> dict:
    return {"from": WA, "id": wamid, "timestamp": "1700000000", "type": "text", "text": {"body": body}, **extra}


ODD = {
    "statuses only, with errors nested in a list": {"statuses": [
        {"id": "wamid.S1", "status": "failed", "recipient_id": WA, "timestamp": "1", "errors": [[{"code": 131047}]]}]},
    "a reaction": {"messages": [{"from": WA, "id": "wamid.R1", "timestamp": "1", "type": "reaction",
                                 "reaction": {"message_id": "wamid.X", "emoji": "👍"}}]},
    "an unsupported type": {"messages": [{"from": WA, "id": "wamid.U1", "timestamp": "1", "type": "unsupported",
                                          "errors": [{"code": 131051, "title": "Message type unknown"}]}]},
    "fields missing or of the wrong type": {"messages": [{"from": WA, "id": "wamid.M1", "type": "text", "text": "hi",
                                                          "timestamp": "yesterday"}],
                                            "contacts": ["not an object"]},
    "a value that is not an object": ["messages"],
    "errors instead of messages": {"errors": [[{"code": 131000}], "oops"], "statuses": "none"},
}


@pytest.fixture
async def webhook_url(rig: Rig) -> AsyncIterator[tuple[str, _App]]:  # noqa: F811
    app = _App(rig.bot)
    claims = UpdateClaims(rig.sender.store.redis, "whatsapp-test")
    webhook = WhatsAppWebhook(app, claims, rig.sender, SECRET, "verify", [])  # type: ignore[arg-type]
    runner = web.AppRunner(build_server(webhook, "/whatsapp"))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    app.webhook = webhook  # type: ignore[attr-defined]
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/whatsapp", app
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("shape", list(ODD))
async def test_an_odd_but_signed_delivery_is_answered_200(webhook_url: tuple[str, _App], shape: str) -> None:
    url, app = webhook_url
    body = _delivery(ODD[shape])
    async with httpx.AsyncClient() as http:
        answer = await http.post(url, content=body, headers={"X-Hub-Signature-256": sign(body, SECRET)})
    assert answer.status_code == 200, answer.text


async def test_the_readable_messages_of_an_odd_delivery_are_still_handled(webhook_url: tuple[str, _App]) -> None:
    url, app = webhook_url
    body = _delivery({"messages": [_text("wamid.B1", body=["not", "text"]), "junk", _text("wamid.G1", "find a plumber")]})
    async with httpx.AsyncClient() as http:
        answer = await http.post(url, content=body, headers={"X-Hub-Signature-256": sign(body, SECRET)})
    assert answer.status_code == 200
    await app.webhook.worker.settle()  # type: ignore[attr-defined]
    assert [u.effective_message.text for u in app.handled if u.effective_message] == ["find a plumber"]


@pytest.mark.slow
async def test_behind_sentinel_a_delivery_is_answered_only_once_a_replica_has_it(tmp_path: Path) -> None:
    """Meta never delivers again what was answered 200: the answer waits until a promotion could not lose it."""
    failover = RedisFailoverSet(tmp_path / "redis").start()
    redis = async_client(failover.url, max_connections=4, timeout=5)
    http = httpx.AsyncClient()
    sender = Sender(GraphClient(http, "http://127.0.0.1:9/v21.0", "1", "token"), SurfaceStore(redis),
                    Template("deputy_checkin"), time.time)
    bot = Bot("whatsapp:surface", request=WhatsAppRequest(sender), get_updates_request=WhatsAppRequest(sender))
    webhook = WhatsAppWebhook(_App(bot), UpdateClaims(redis, "whatsapp-test"), sender, SECRET, "verify", [])  # type: ignore[arg-type]
    runner = web.AppRunner(build_server(webhook, "/whatsapp"))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/whatsapp"
    try:
        body = _delivery({"messages": [_text("wamid.F1", "find a plumber")]})
        paused = failover.replica()
        failover.pause(paused)
        answer = asyncio.create_task(http.post(url, content=body, headers={"X-Hub-Signature-256": sign(body, SECRET)}))
        primary = failover.client(failover.primary())
        await eventually(lambda: primary.xlen(INBOX_STREAM) == 1)  # recorded on the primary
        await asyncio.sleep(0.3)
        assert not answer.done(), "not answered while the replica does not have it"
        failover.resume(paused)
        assert (await answer).status_code == 200
        assert failover.client(paused).xlen(INBOX_STREAM) == 1
    finally:
        await runner.cleanup()
        await http.aclose()
        await redis.aclose()
        failover.stop()
