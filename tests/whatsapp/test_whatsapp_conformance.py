"""Deputy's WhatsApp surface against WhatsApp's published rules, each rule kept by the strict emulator.

The real surface parts run here: python-telegram-bot's `Bot` on the WhatsApp transport (what a
handler or the outbox does), the sender with its backlog, the webhook with its inbox and worker,
real Redis; the emulator answers as the Cloud API does (rate limits, media limits, template
formatting, username users, failed statuses, webhook retries). One clock drives both, so a
rate limit's pause passes without waiting.
"""

from __future__ import annotations

import asyncio
import json
import random
import struct
import time
import zlib
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any, AsyncIterator

import httpx
import pytest
import redis.asyncio as aioredis
from aiohttp import web
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update

from deputy.bot.update_claims import UpdateClaims
from deputy.core.accounts.surfaces import (
    NUMBER_KEY,
    SURFACE_KEY,
    USER_ID_ACCOUNTS,
    account_for,
    default_account,
)
from deputy.core.records.outbox import OUTBOX_STREAM
from deputy.emulator.whatsapp import WaEmulatorConfig, create_app
from deputy.emulator.whatsapp.hub import HUB_KEY, WaHub
from deputy.emulator.whatsapp.rules import WaRules
from deputy.testing.stack import RedisServer
from deputy.whatsapp.graph import GraphClient
from deputy.whatsapp.media import AS_PDF_NOTE
from deputy.whatsapp.request import WhatsAppRequest
from deputy.whatsapp.sender import FIRST_CONTACT_NOTICE, MISSED_INTRO, ON_TELEGRAM_NOTE, Sender, Template
from deputy.whatsapp.store import SurfaceStore
from deputy.whatsapp.webhook import WhatsAppWebhook, build_server

WA, OTHER = "15550004001", "15550004002"
USERNAME_USER = "US.13491208655302741918"
TOKEN, PHONE, SECRET = "conformance-token", "100000000000011", "conformance-secret"


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


class RecordingApp:
    """The part of the bot's Application the webhook uses; records the updates that reach the handlers."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.running, self.handled = bot, True, []
        self.update_processor = self
        self.fail_on: str | None = None
        self.gate: asyncio.Event | None = None

    async def process_update(self, update: Update, coroutine: Any = None) -> None:
        if coroutine is not None:
            await coroutine
            return
        text = update.effective_message.text if update.effective_message else None
        if self.gate is not None:
            await self.gate.wait()
        if self.fail_on is not None and text == self.fail_on:
            raise RuntimeError("a handler broke on this one message")
        self.handled.append(update)


@dataclass
class Surface:
    hub: WaHub
    bot: Bot
    sender: Sender
    webhook: WhatsAppWebhook
    app: RecordingApp
    clock: Clock
    emulator_url: str
    redis: aioredis.Redis
    http: httpx.AsyncClient = field(default_factory=httpx.AsyncClient)

    def said(self, wa_id: str = WA) -> list[dict]:
        return [m for m in self.hub.state.user(wa_id).messages if m["from"] == "bot"]

    async def user_sends(self, wa_id: str, text: str, **extra: Any) -> dict:
        answer = await self.http.post(f"{self.emulator_url}/api/users/{wa_id}/messages",
                                      json={"text": text, "name": "Uma", **extra})
        answer.raise_for_status()
        return answer.json()

    async def statuses_arrived(self, count: int) -> None:
        """Wait until the emulator has made `count` status deliveries (they go in the background)."""
        for _ in range(500):
            if len([d for d in self.hub.deliverer.log if d["status"] == 200]) >= count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the status callbacks never reached the webhook")


@pytest.fixture
def rules() -> WaRules:
    return WaRules()


@pytest.fixture
async def surface(redis_server: RedisServer, rules: WaRules) -> AsyncIterator[Surface]:
    redis = aioredis.Redis.from_url(redis_server.url)
    await redis.flushall()
    clock = Clock()
    # The webhook first (the emulator must know where to deliver), then the emulator.
    http = httpx.AsyncClient()
    webhook_runner: web.AppRunner | None = None
    holder: dict[str, Any] = {}

    async def deliver(request: web.Request) -> web.StreamResponse:
        return await holder["webhook"].deliver(request)

    server = web.Application()
    server.router.add_post("/whatsapp", deliver)
    webhook_runner = web.AppRunner(server)
    await webhook_runner.setup()
    await web.TCPSite(webhook_runner, "127.0.0.1", 0).start()
    webhook_url = f"http://127.0.0.1:{webhook_runner.addresses[0][1]}/whatsapp"

    emulator = create_app(WaEmulatorConfig(webhook_url=webhook_url, token=TOKEN, app_secret=SECRET,
                                           phone_number_id=PHONE, rules=rules, webhook_retry_delays=(0.05, 0.1)))
    runner = web.AppRunner(emulator)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    emulator_url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    hub = emulator[HUB_KEY]
    hub.state.clock = clock
    sender = Sender(GraphClient(http, f"{emulator_url}/v21.0", PHONE, TOKEN), SurfaceStore(redis),
                    Template("deputy_checkin"), clock)
    for wa_id in (WA, OTHER):  # both wrote a moment ago: the 24-hour window is open
        await redis.set(NUMBER_KEY.format(default_account(wa_id)), wa_id)
        await sender.store.wrote(wa_id, clock())
        await sender.store.first_contact(wa_id)
        hub.state.user(wa_id).last_in = clock()
    request = WhatsAppRequest(sender)
    bot = Bot("whatsapp:surface", request=request, get_updates_request=request)
    async with bot:
        app = RecordingApp(bot)
        webhook = WhatsAppWebhook(app, UpdateClaims(redis, "conformance"), sender, SECRET, "verify", [],  # type: ignore[arg-type]
                                  request)
        holder["webhook"] = webhook
        yield Surface(hub, bot, sender, webhook, app, clock, emulator_url, redis, http)
    await runner.cleanup()
    await webhook_runner.cleanup()
    await http.aclose()
    await redis.aclose()


def approval(n: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("Approve", callback_data=f"ap:{n}:sig"),
                                  InlineKeyboardButton("Deny", callback_data=f"dn:{n}:sig")]])


# --- 131056 / 130429: a rate limit never duplicates a part, and holds up nobody else -------------------

@pytest.mark.parametrize("rules", [WaRules(pair_burst=2)])
async def test_a_pair_rate_limit_resumes_at_the_first_part_not_sent(surface: Surface) -> None:
    text = "\n".join(f"Line {i}: " + "the long answer goes on " * 6 for i in range(60))  # three parts and a card
    card = await surface.bot.send_message(default_account(WA), text, reply_markup=approval(1))
    first = [m["text"] for m in surface.said()]
    assert len(first) == 2, "two parts went; the third met WhatsApp's pair rate limit (131056)"

    await surface.bot.send_message(default_account(OTHER), "Your table is booked.")
    assert [m["text"] for m in surface.said(OTHER)] == ["Your table is booked."], "another user does not wait"
    await surface.bot.send_message(default_account(WA), "And one more thing.")
    assert len(surface.said()) == 2, "what follows for the limited user queues behind, in order"

    while len(surface.said()) < 5:  # the pauses pass (one clock for Deputy and WhatsApp)
        surface.clock.now += 60
        await surface.sender.send_due()
    said = surface.said()
    parts = [m["text"] for m in said]
    assert len(parts) == len(set(parts)) == 5, "each part exactly once"
    assert "\n".join(parts[:4]).replace("\n", "") == text.replace("\n", ""), "in order, nothing lost"
    assert parts[4] == "And one more thing."
    pressed = await surface.sender.store.card(said[3]["id"])
    assert said[3]["buttons"] and pressed is not None and pressed.message_id == card.message_id, \
        "a button sent late still leads to its card"


async def test_a_throughput_limit_waits_without_duplicating(surface: Surface) -> None:
    surface.hub.forced_errors.append(130429)
    await surface.bot.send_message(default_account(WA), "Check-in: the price dropped.")
    assert surface.said() == []
    surface.clock.now += 60
    await surface.sender.send_due()
    assert [m["text"] for m in surface.said()] == ["Check-in: the price dropped."]


# --- media the Cloud API refuses: converted or refused before the upload ---------------------------------

def rgb_png(width: int, height: int, colour_type: int = 2, seed: int = 7) -> tuple[bytes, bytes]:
    """A PNG of noise (it does not compress) and its raw pixel rows."""
    channels = {2: 3, 6: 4}[colour_type]
    pixels = random.Random(seed).randbytes(width * height * channels)
    rows = b"".join(b"\0" + pixels[y * width * channels:(y + 1) * width * channels] for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")
    return png, pixels


async def test_the_export_json_goes_as_a_document_type_whatsapp_accepts(surface: Surface) -> None:
    export = json.dumps({"memory": ["I'm vegetarian"]}).encode()
    await surface.bot.send_document(default_account(WA), document=export, filename="deputy-export.json",
                                    caption="Everything I store about you.")
    [sent] = surface.said()
    media = surface.hub.state.media[sent["media"]["id"]]
    assert sent["type"] == "document" and sent["media"]["filename"] == "deputy-export.json"
    assert media.mime_type == "text/plain" and media.data == export


async def test_a_screenshot_over_5_mb_arrives_as_a_pdf_of_the_same_picture(surface: Surface) -> None:
    from pypdf import PdfReader

    png, pixels = rgb_png(1400, 1300)
    assert len(png) > 5 * 1024 * 1024
    await surface.bot.send_photo(default_account(WA), photo=png, caption="The order page.")
    [sent] = surface.said()
    assert sent["type"] == "document" and sent["media"]["filename"].endswith(".pdf")
    assert sent["text"].startswith("The order page.") and AS_PDF_NOTE in sent["text"]
    page = PdfReader(BytesIO(surface.hub.state.media[sent["media"]["id"]].data)).pages[0]
    image = page["/Resources"]["/XObject"]["/Im0"].get_object()
    assert (image["/Width"], image["/Height"]) == (1400, 1300)
    assert image.get_data() == pixels, "the very picture, not a lossy copy"


async def test_a_picture_that_cannot_be_converted_is_refused_with_a_reason_and_the_words_still_go(
        surface: Surface) -> None:
    png, _ = rgb_png(1200, 1200, colour_type=6)  # with alpha: not carried without decoding
    await surface.bot.send_photo(default_account(WA), photo=png, caption="The checkout page.")
    [sent] = surface.said()
    assert sent["type"] == "text" and sent["text"].startswith("The checkout page.")
    assert "5 MB" in sent["text"] and surface.hub.state.media == {}, "nothing uploaded for WhatsApp to refuse"


# --- 132018: template parameters without line breaks, tabs or long runs of spaces -------------------------

async def test_a_template_parameter_is_flattened_as_whatsapp_requires(surface: Surface) -> None:
    await surface.sender.store.wrote(WA, surface.clock() - 25 * 3600)  # a day of silence: only the template
    await surface.bot.send_message(default_account(WA), "Price watch:\n\tBoots\t\t80 EUR\n     Coat      120 EUR")
    [sent] = surface.said()
    assert sent["type"] == "template" and sent["status"] != "failed"
    assert "\t" not in sent["text"] and "     " not in sent["text"] and "\n" not in sent["text"]
    assert "Boots 80 EUR" in sent["text"] and "Coat 120 EUR" in sent["text"]


# --- username users: a business-scoped user id, no phone number -----------------------------------------

async def test_a_username_user_without_a_number_is_answered_and_keeps_one_account(surface: Surface) -> None:
    assert (await surface.user_sends(USERNAME_USER, "find a plumber"))["status"] == 200
    await surface.webhook.worker.settle()
    assert [u.effective_message.text for u in surface.app.handled] == ["find a plumber"]
    account = surface.app.handled[0].effective_user.id
    assert account > USER_ID_ACCOUNTS and account < 2**53
    assert [m["text"] for m in surface.said(USERNAME_USER)] == [FIRST_CONTACT_NOTICE], "answered by user id"

    await surface.user_sends(USERNAME_USER, "/goals")
    await surface.webhook.worker.settle()
    assert surface.app.handled[1].effective_user.id == account, "the same account every time"
    await surface.bot.send_message(account, "Found three plumbers near you.")
    assert surface.said(USERNAME_USER)[-1]["text"] == "Found three plumbers near you."


async def test_a_number_that_is_withheld_later_still_finds_its_account(surface: Surface) -> None:
    await surface.user_sends(WA, "remember I'm vegetarian", user_id="US.5550004001")
    await surface.webhook.worker.settle()
    await surface.user_sends("US.5550004001", "what do you remember?")  # a username now: no number
    await surface.webhook.worker.settle()
    assert [u.effective_user.id for u in surface.app.handled] == [default_account(WA)] * 2
    assert await account_for(surface.redis, "US.5550004001") == default_account(WA)


# --- the webhook answers 200 once the delivery is recorded, and handles it after --------------------------

async def test_the_webhook_answers_before_handling_and_one_failure_does_not_fail_the_batch(surface: Surface) -> None:
    surface.app.gate = asyncio.Event()  # the handlers are slow: they wait for this
    answer = await surface.user_sends(WA, "book a table for two")
    assert answer["statuses"] == [200] and surface.app.handled == [], "answered 200 before any handling"
    surface.app.gate.set()
    surface.app.fail_on = "this one breaks"
    assert (await surface.user_sends(WA, "this one breaks"))["status"] == 200
    assert (await surface.user_sends(WA, "and this one is fine"))["status"] == 200
    await surface.webhook.worker.settle()
    handled = [u.effective_message.text for u in surface.app.handled]
    assert handled == ["book a table for two", "and this one is fine"]
    assert all(d["status"] == 200 for d in surface.hub.deliverer.log), "Meta is never asked to deliver again"


async def test_a_delivery_made_again_is_recorded_and_handled_once(surface: Surface) -> None:
    assert (await surface.user_sends(WA, "hello", duplicate=True))["statuses"] == [200, 200]
    await surface.webhook.worker.settle()
    assert [u.effective_message.text for u in surface.app.handled] == ["hello"]


# --- a failed delivery (not the 24-hour window) is not lost ----------------------------------------------

async def test_news_whatsapp_could_not_deliver_is_said_again_when_the_user_next_writes(surface: Surface) -> None:
    surface.hub.undeliverable[WA] = [131026]
    await surface.bot.send_message(default_account(WA), "Your parcel arrived at the post office.")
    await surface.statuses_arrived(1)
    await surface.webhook.worker.settle()
    before = len(surface.said())
    await surface.user_sends(WA, "any news?")
    await surface.webhook.worker.settle()
    told = [m["text"] for m in surface.said()[before:]]
    assert told and told[0].startswith(MISSED_INTRO) and "parcel arrived" in told[0]
    await surface.user_sends(WA, "thanks")
    await surface.webhook.worker.settle()
    assert not [m for m in surface.said()[before + len(told):] if "parcel" in m["text"]], "said again once"


async def test_news_whatsapp_could_not_deliver_goes_to_the_linked_telegram_account(surface: Surface) -> None:
    telegram = 905
    await surface.redis.set(NUMBER_KEY.format(telegram), OTHER)
    await surface.redis.set(SURFACE_KEY.format(telegram), "whatsapp")
    surface.hub.undeliverable[OTHER] = [131051]
    await surface.bot.send_message(telegram, "Your flight got cheaper.")
    await surface.statuses_arrived(1)
    await surface.webhook.worker.settle()
    assert await surface.redis.get(SURFACE_KEY.format(telegram)) == b"telegram", "news goes to Telegram now"
    [(_, fields)] = await surface.redis.xrange(OUTBOX_STREAM)
    message = json.loads(fields[b"json"])
    assert message["chat_id"] == telegram and ON_TELEGRAM_NOTE in message["text"]
    assert "flight got cheaper" in message["text"]
