"""The bot's Bot API calls carried out on WhatsApp, against the local WhatsApp emulator and Redis.

python-telegram-bot's own `Bot` runs on the WhatsApp transport: what a handler or the outbox
consumer does (send a card, edit it, answer a press, send a file, download one) arrives in
the WhatsApp conversation as WhatsApp shows it; and the webhook answers Meta's handshake.
"""

from __future__ import annotations

import asyncio
import time
from typing import AsyncIterator

import httpx
import pytest
import redis.asyncio as aioredis
from aiohttp import web
from redis import Redis
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from deputy.bot.goal_links import LINK_TEXT
from deputy.bot.outbox_consumer import OutboxConsumer
from deputy.core.records.outbox import Button, Outbox, OutboxMessage

from deputy.core.accounts.surfaces import NUMBER_KEY, default_account
from deputy.testing.stack import RedisServer
from deputy.emulator.whatsapp import WaEmulatorConfig, create_app
from deputy.emulator.whatsapp.hub import HUB_KEY, WaHub
from deputy.whatsapp.graph import GraphClient
from deputy.whatsapp.request import WhatsAppRequest, callback_id
from deputy.whatsapp.sender import FIRST_CONTACT_NOTICE, Sender, Template
from deputy.whatsapp.store import SurfaceStore
from deputy.whatsapp.webhook import WhatsAppWebhook, build_server

WA = "15550007777"
TOKEN, PHONE = "token-for-tests", "100000000000009"


class Rig:
    def __init__(self, hub: WaHub, bot: Bot, sender: Sender, account: int) -> None:
        self.hub, self.bot, self.sender, self.account = hub, bot, sender, account

    def conversation(self) -> list[dict]:
        return self.hub.state.user(WA).messages


@pytest.fixture
async def rig(redis_server: RedisServer) -> AsyncIterator[Rig]:
    config = WaEmulatorConfig(webhook_url="http://127.0.0.1:9/unused", token=TOKEN, app_secret="s",
                              phone_number_id=PHONE)
    app = create_app(config)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    redis = aioredis.Redis.from_url(redis_server.url)
    await redis.flushall()
    http = httpx.AsyncClient()
    sender = Sender(GraphClient(http, f"http://127.0.0.1:{port}/v21.0", PHONE, TOKEN), SurfaceStore(redis),
                    Template("deputy_checkin"), time.time)
    account = default_account(WA)
    await redis.set(NUMBER_KEY.format(account), WA)
    hub = app[HUB_KEY]
    hub.state.user(WA).last_in = time.time()
    await sender.store.wrote(WA, time.time())
    bot = Bot("whatsapp:surface", request=WhatsAppRequest(sender), get_updates_request=WhatsAppRequest(sender))
    async with bot:
        yield Rig(hub, bot, sender, account)
    await http.aclose()
    await redis.aclose()
    await runner.cleanup()


async def test_a_card_its_edit_and_the_answer_to_a_press(rig: Rig) -> None:
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Approve", callback_data="ap:1:sig"),
                                    InlineKeyboardButton("Deny", callback_data="dn:1:sig")]])
    card = await rig.bot.send_message(rig.account, "Send this email?\nTo: alice@example.org", reply_markup=markup)
    shown = rig.conversation()[-1]
    assert shown["type"] == "interactive" and [b["id"] for b in shown["buttons"]] == ["ap:1:sig", "dn:1:sig"]
    press = await rig.sender.store.card(shown["id"])
    assert press is not None and press.message_id == card.message_id and press.text.startswith("Send this email?")

    request: WhatsAppRequest = rig.bot.request  # type: ignore[assignment]
    await rig.bot.answer_callback_query(callback_id(12, rig.account), "Approved. Working on it.")
    edited = await rig.bot.edit_message_text(f"{card.text}\n\n✅ Approved", chat_id=rig.account,
                                             message_id=card.message_id, reply_markup=None)
    await request.flush_toasts(rig.account)
    assert rig.conversation()[-1]["text"] == "✅ Approved", "WhatsApp cannot edit: the addition is said"
    assert "Approved. Working on it." not in [m["text"] for m in rig.conversation()], "said once, not twice"
    assert edited.text.endswith("✅ Approved")
    await rig.bot.answer_callback_query(callback_id(13, rig.account), "This card has expired.", show_alert=True)
    await request.flush_toasts(rig.account)
    assert rig.conversation()[-1]["text"] == "This card has expired.", "a toast no edit follows is said"
    count = len(rig.conversation())
    await rig.bot.edit_message_text(edited.text, chat_id=rig.account, message_id=card.message_id)
    assert len(rig.conversation()) == count, "an edit that adds nothing sends nothing"


async def test_files_go_out_uploaded_and_come_in_downloaded(rig: Rig) -> None:
    await rig.bot.send_document(rig.account, document=b"my notes", filename="notes.txt", caption="Your notes")
    sent = rig.conversation()[-1]
    assert sent["type"] == "document" and sent["media"]["filename"] == "notes.txt" and sent["text"] == "Your notes"
    assert rig.hub.state.media[sent["media"]["id"]].data == b"my notes"

    media_id = rig.hub.state.store_media(b"\x89PNG fake", "image/png", "photo.png")
    received = await (await rig.bot.get_file(media_id)).download_as_bytearray()
    assert bytes(received) == b"\x89PNG fake"


async def test_a_voice_note_goes_as_whatsapp_audio_and_its_caption_as_a_message_after_it(rig: Rig) -> None:
    from deputy.speech.synthesis import spoken_note

    note = spoken_note("Your dentist is on Thursday.")
    await rig.bot.send_voice(rig.account, voice=note, caption="Your dentist is on Thursday.")
    audio, words = rig.conversation()[-2:]
    assert audio["type"] == "audio" and not audio["text"], "WhatsApp audio carries no caption"
    assert rig.hub.state.media[audio["media"]["id"]].data == note
    assert rig.hub.state.media[audio["media"]["id"]].mime_type == "audio/ogg"
    assert words["type"] == "text" and words["text"] == "Your dentist is on Thursday."


async def test_audio_whatsapp_would_not_play_as_a_voice_note_is_not_sent_and_the_user_is_told(rig: Rig) -> None:
    await rig.bot.send_voice(rig.account, voice=b"ID3\x04 an mp3, not an OGG voice note")
    [told] = rig.conversation()[-1:]
    assert told["type"] == "text" and "WhatsApp plays only OGG voice notes with Opus sound" in told["text"]


async def test_outside_the_window_a_message_goes_as_the_template_and_its_buttons_wait(rig: Rig) -> None:
    await rig.sender.store.wrote(WA, time.time() - 25 * 3600)
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Approve", callback_data="ap:2:sig")]])
    await rig.bot.send_message(rig.account, "Your flight got cheaper. Book it?", reply_markup=markup)
    template = rig.conversation()[-1]
    assert template["type"] == "template" and "Book it?" in template["text"]
    assert [m for m in rig.conversation() if m["buttons"]] == []
    rig.hub.state.user(WA).last_in = time.time()
    await rig.sender.user_wrote(WA)  # the user answers: the window opens and the buttons follow
    assert [b["title"] for b in rig.conversation()[-1]["buttons"]] == ["Approve"]


async def test_a_chat_without_a_whatsapp_number_is_refused_politely(rig: Rig) -> None:
    from telegram.error import Forbidden

    with pytest.raises(Forbidden):
        await rig.bot.send_message(default_account("15550000001"), "hello")


async def test_the_webhook_answers_metas_handshake_only_with_our_verify_token(rig: Rig) -> None:
    webhook = WhatsAppWebhook(None, None, rig.sender, "app-secret", "our-verify-token", [])  # type: ignore[arg-type]
    runner = web.AppRunner(build_server(webhook, "/whatsapp"))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/whatsapp"
    try:
        async with httpx.AsyncClient() as http:
            good = await http.get(url, params={"hub.mode": "subscribe", "hub.verify_token": "our-verify-token",
                                               "hub.challenge": "1158201444"})
            assert good.status_code == 200 and good.text == "1158201444"
            bad = await http.get(url, params={"hub.mode": "subscribe", "hub.verify_token": "guess",
                                              "hub.challenge": "1"})
            assert bad.status_code == 403
            unsigned = await http.post(url, content=b'{"entry": []}')
            assert unsigned.status_code == 401
            forged = await http.post(url, content=b'{"entry": []}', headers={"X-Hub-Signature-256": "sha256=00"})
            assert forged.status_code == 403
    finally:
        await runner.cleanup()


async def test_a_photo_with_buttons_goes_as_an_image_then_the_buttons(rig: Rig) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Approve", callback_data="ap:3:sig")]])
    await rig.bot.send_photo(rig.account, photo=png, caption="This is the page. Buy it?", reply_markup=markup)
    image, card = rig.conversation()[-2:]
    assert image["type"] == "image" and rig.hub.state.media[image["media"]["id"]].mime_type == "image/png"
    assert card["text"] == "This is the page. Buy it?" and [b["title"] for b in card["buttons"]] == ["Approve"]


async def test_outside_the_window_a_long_text_is_cut_in_the_template_and_follows_whole(rig: Rig) -> None:
    await rig.sender.store.wrote(WA, time.time() - 25 * 3600)
    text = "Weekly summary:\n" + "\n".join(f"- item {i}: " + "details " * 8 for i in range(40))
    await rig.bot.send_message(rig.account, text)
    template = rig.conversation()[-1]
    assert template["type"] == "template" and len(template["text"]) <= 1024
    assert template["text"].startswith("Weekly summary:") and template["text"].endswith("read all of it.)")
    rig.hub.state.user(WA).last_in = time.time()
    before = len(rig.conversation())
    await rig.sender.user_wrote(WA)
    followed = [m["text"] for m in rig.conversation()[before:] if m["text"] != FIRST_CONTACT_NOTICE]
    assert followed == [text]


async def test_a_cards_goal_link_goes_into_the_text_within_whatsapps_limits(rig: Rig, redis_server: RedisServer) -> None:
    text = "Send this email?\nTo: contracts@vendor.example\n\n" + "A long body line.\n" * 60  # > 1024 in all
    Outbox(Redis.from_url(redis_server.url)).put(OutboxMessage(
        chat_id=rig.account, text=text, goal_id="g_7", goal_link=True, dedupe_key="wa-card",
        buttons=[[Button(text="Approve", data="ap:7:sig"), Button(text="Deny", data="dn:7:sig")]]))
    client = aioredis.Redis.from_url(redis_server.url)
    consumer = OutboxConsumer(client, rig.bot, surface="whatsapp", web_url="https://deputy.example.org")
    task = asyncio.create_task(consumer.run())
    try:
        for _ in range(200):
            if any(m["buttons"] for m in rig.conversation()):
                break
            await asyncio.sleep(0.05)
    finally:
        task.cancel()
        await client.aclose()
    shown = rig.conversation()[-1]
    assert shown["type"] == "interactive" and [b["id"] for b in shown["buttons"]] == ["ap:7:sig", "dn:7:sig"]
    assert shown["text"].endswith(f"{LINK_TEXT}: https://deputy.example.org/web/goal/g_7")
    assert len(shown["text"]) <= 1024  # the emulator enforces it too; the card's head went before it
    assert rig.conversation()[-2]["text"].startswith("Send this email?")
