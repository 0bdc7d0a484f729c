"""A correctly signed delivery Deputy cannot read is answered 200 and dropped, never retried forever.

Meta delivers again whatever is not answered 200; a shape the webhook chokes on would come
back for days. What can be read in the same delivery is still handled.
"""

from __future__ import annotations

import json
from typing import Any, AsyncIterator

import httpx
import pytest
from aiohttp import web
from telegram import Update

from deputy.bot.update_claims import UpdateClaims
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
