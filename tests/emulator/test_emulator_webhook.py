"""Webhook mode: setWebhook, pushes to the bot's URL, retries until acknowledged, 409 for getUpdates."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from emulator_testkit import TOKEN, BotCaller, LiveEmulator, UserClient
from telegram import Update
from telegram.error import Conflict
from telegram.ext import ApplicationBuilder

from deputy.core.infrastructure.ports import free_port
from deputy.emulator import ApiRules, Emulator, bound_port, create_app, serve
from deputy.emulator.webhook import SECRET_HEADER, Backoff

SECRET = "s3cret_token-1"
# The receivers here listen on plain http and a free port, which Telegram itself would refuse.
LOCAL_WEBHOOKS = ApiRules().relaxed(["webhook-url"])


class Receiver:
    """A webhook endpoint: records each POST; `answer` decides the status of each one."""

    def __init__(self) -> None:
        self.posts: list[tuple[dict[str, Any], str | None]] = []
        self.answer: Callable[[dict[str, Any]], Any] = lambda update: 200
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def _handle(self, request: web.Request) -> web.Response:
        update = await request.json()
        self.posts.append((update, request.headers.get(SECRET_HEADER)))
        status = self.answer(update)
        if asyncio.iscoroutine(status):
            status = await status
        return web.Response(status=status)

    async def start(self) -> Receiver:
        app = web.Application()
        app.router.add_post("/hook", self._handle)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        port = free_port()
        await web.TCPSite(self.runner, "127.0.0.1", port).start()
        self.url = f"http://127.0.0.1:{port}/hook"
        return self

    def texts(self) -> list[str]:
        return [u["message"]["text"] for u, _ in self.posts if "message" in u]


@pytest.fixture
async def live() -> AsyncIterator[LiveEmulator]:
    runner = await serve("127.0.0.1", 0, rules=LOCAL_WEBHOOKS)
    try:
        yield LiveEmulator(runner, f"http://127.0.0.1:{bound_port(runner)}")
    finally:
        await runner.cleanup()


@pytest.fixture
async def fast_live() -> AsyncIterator[LiveEmulator]:
    """An emulator that retries failed pushes after 20 ms (a POST times out after 1 s)."""
    app = create_app(emulator=Emulator(webhook_backoff=Backoff(first=0.02, longest=0.2, timeout=1.0),
                                       rules=LOCAL_WEBHOOKS))
    runner = await serve("127.0.0.1", 0, app=app)
    try:
        yield LiveEmulator(runner, f"http://127.0.0.1:{bound_port(runner)}")
    finally:
        await runner.cleanup()


@pytest.fixture
async def fast(fast_live: LiveEmulator) -> AsyncIterator[tuple[BotCaller, UserClient]]:
    async with aiohttp.ClientSession(fast_live.url) as s:
        yield BotCaller(s), UserClient(s)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    r = await Receiver().start()
    yield r
    assert r.runner is not None
    await r.runner.cleanup()


async def test_set_webhook_is_reported_and_get_updates_conflicts(bot: BotCaller, receiver: Receiver) -> None:
    assert await bot.ok("setWebhook", url=receiver.url, secret_token=SECRET, max_connections=5,
                        allowed_updates=["message"]) is True
    info = await bot.ok("getWebhookInfo")
    assert info["url"] == receiver.url and info["max_connections"] == 5
    assert info["allowed_updates"] == ["message"] and info["pending_update_count"] == 0
    assert "last_error_date" not in info
    status, body = await bot("getUpdates", timeout=0)
    assert status == 409 and body["description"].startswith("Conflict: can't use getUpdates method while webhook")
    assert await bot.ok("deleteWebhook") is True
    assert (await bot.ok("getWebhookInfo"))["url"] == ""
    assert await bot.ok("getUpdates", timeout=0) == []


async def test_bad_webhook_settings_are_refused(bot: BotCaller) -> None:
    status, body = await bot("setWebhook", url="not a url")
    assert status == 400 and "bad webhook" in body["description"]
    status, body = await bot("setWebhook", url="http://127.0.0.1:1/hook", secret_token="no spaces allowed")
    assert status == 400 and "secret token" in body["description"]
    assert (await bot.ok("getWebhookInfo"))["url"] == ""


async def test_a_waiting_long_poll_gets_409_when_a_webhook_is_set(
    bot: BotCaller, receiver: Receiver, live: LiveEmulator
) -> None:
    poll = asyncio.create_task(bot("getUpdates", timeout=20))
    await UserClient.eventually(lambda: asyncio.sleep(0, live.emulator.updates.waiting), lambda n: n == 1)
    await bot.ok("setWebhook", url=receiver.url)
    status, _ = await asyncio.wait_for(poll, 5)
    assert status == 409


async def test_updates_are_pushed_with_the_secret_header_in_order(
    fast: tuple[BotCaller, UserClient], receiver: Receiver
) -> None:
    bot, user = fast
    await user.send(7, "before the webhook")  # pending from getUpdates mode: delivered too
    await bot.ok("setWebhook", url=receiver.url, secret_token=SECRET)
    for n in range(5):
        await user.send(7, f"message {n}")
    await user.eventually(lambda: asyncio.sleep(0, receiver.texts()), lambda t: len(t) >= 6)
    assert receiver.texts() == ["before the webhook"] + [f"message {n}" for n in range(5)]
    assert {secret for _, secret in receiver.posts} == {SECRET}
    await user.eventually(lambda: bot.ok("getWebhookInfo"), lambda info: info["pending_update_count"] == 0)


async def test_a_failed_push_is_retried_until_acknowledged_and_the_chat_waits(
    fast: tuple[BotCaller, UserClient], receiver: Receiver
) -> None:
    bot, user = fast
    failures = {"first": 3}

    def answer(update: dict[str, Any]) -> int:
        if update["message"]["text"] == "first" and failures["first"]:
            failures["first"] -= 1
            return 503
        return 200

    receiver.answer = answer
    await bot.ok("setWebhook", url=receiver.url)
    await user.send(1, "first")
    await user.send(1, "second")  # same chat: must wait for "first"
    await user.send(2, "other chat")  # another chat: not held up
    await user.eventually(lambda: asyncio.sleep(0, receiver.texts()), lambda t: t.count("first") == 4 and "second" in t)
    texts = receiver.texts()
    assert texts.index("second") > max(i for i, t in enumerate(texts) if t == "first")
    assert texts.index("other chat") < texts.index("second")
    info = await bot.ok("getWebhookInfo")
    assert info["last_error_message"] == "Wrong response from the webhook: 503 Service Unavailable"
    assert info["last_error_date"] > 0
    await user.eventually(lambda: bot.ok("getWebhookInfo"), lambda info: info["pending_update_count"] == 0)


async def test_a_push_that_times_out_or_finds_nobody_is_not_lost(
    fast: tuple[BotCaller, UserClient], receiver: Receiver
) -> None:
    bot, user = fast
    dead_url = f"http://127.0.0.1:{free_port()}/hook"
    await bot.ok("setWebhook", url=dead_url)
    await user.send(3, "while down")
    await user.eventually(lambda: bot.ok("getWebhookInfo"), lambda info: "last_error_message" in info)
    assert (await bot.ok("getWebhookInfo"))["last_error_message"] == "Connection refused"
    assert (await bot.ok("getWebhookInfo"))["pending_update_count"] == 1

    hangs = {"left": 1}

    async def answer(update: dict[str, Any]) -> int:
        if hangs["left"]:
            hangs["left"] -= 1
            await asyncio.sleep(3)  # longer than the emulator's 1 s POST timeout
        return 200

    receiver.answer = answer
    await bot.ok("setWebhook", url=receiver.url)  # the bot is back, at its address
    await user.eventually(lambda: bot.ok("getWebhookInfo"), lambda info: info["pending_update_count"] == 0, timeout=10)
    assert receiver.texts() == ["while down", "while down"]  # the timed-out POST, then its retry
    assert (await bot.ok("getWebhookInfo"))["last_error_message"] == "Read timeout expired"


async def test_delete_webhook_keeps_unacknowledged_updates_for_get_updates(
    fast: tuple[BotCaller, UserClient], receiver: Receiver
) -> None:
    bot, user = fast
    receiver.answer = lambda update: 500
    await bot.ok("setWebhook", url=receiver.url)
    await user.send(4, "never acknowledged")
    await user.eventually(lambda: asyncio.sleep(0, receiver.texts()), lambda t: len(t) >= 1)
    await bot.ok("deleteWebhook")
    updates = await bot.ok("getUpdates", timeout=0)
    assert [u["message"]["text"] for u in updates] == ["never acknowledged"]
    await bot.ok("setWebhook", url=receiver.url, drop_pending_updates=True)
    assert (await bot.ok("getWebhookInfo"))["pending_update_count"] == 0


async def test_ptb_sets_reads_and_deletes_the_webhook(live: LiveEmulator, receiver: Receiver) -> None:
    """python-telegram-bot's own calls parse the answers, and its getUpdates raises Conflict meanwhile."""
    app = ApplicationBuilder().token(TOKEN).base_url(live.bot_base_url).build()
    async with app:
        assert await app.bot.set_webhook(receiver.url, secret_token=SECRET, max_connections=3,
                                         allowed_updates=Update.ALL_TYPES)
        info = await app.bot.get_webhook_info()
        assert info.url == receiver.url and info.max_connections == 3 and info.pending_update_count == 0
        with pytest.raises(Conflict):
            await app.bot.get_updates(timeout=0)
        assert await app.bot.delete_webhook()
        assert (await app.bot.get_webhook_info()).url == ""
        assert await app.bot.get_updates(timeout=0) == ()
