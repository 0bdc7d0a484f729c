"""The emulator keeps the real Bot API's rules, so a bot that breaks one fails here as it would on Telegram.

Each rule is on by default; where a test needs the lenient form it names the leniency. The
clock is the emulator's own (injected), so "16 seconds later" needs no waiting.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import aiohttp
import pytest
from emulator_testkit import TOKEN, BotCaller, UserClient
from telegram import Bot
from telegram.error import BadRequest, Conflict, Forbidden, InvalidToken, RetryAfter

from deputy.emulator import ApiRules, Emulator, bound_port, create_app, serve
from deputy.emulator.rules import LENIENCIES, Bucket, SendRates
from deputy.emulator.state import QUERY_INVALID
from deputy.emulator.updates import POLL_CONFLICT

USER = 7001


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Rig:
    emulator: Emulator
    clock: Clock
    bot: BotCaller
    user: UserClient
    url: str


async def _rig(rules: ApiRules | None = None) -> AsyncIterator[Rig]:
    clock = Clock()
    emulator = Emulator(clock=clock, rules=rules)
    runner = await serve("127.0.0.1", 0, app=create_app(emulator=emulator))
    url = f"http://127.0.0.1:{bound_port(runner)}"
    try:
        async with aiohttp.ClientSession(url) as session:
            yield Rig(emulator, clock, BotCaller(session), UserClient(session), url)
    finally:
        await runner.cleanup()


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    async for r in _rig():
        yield r


async def _card(rig: Rig) -> int:
    await rig.user.send(USER, "hi")
    sent = await rig.bot.ok("sendMessage", chat_id=USER, text="Approve?",
                            reply_markup={"inline_keyboard": [[{"text": "Yes", "callback_data": "y"}]]})
    return sent["message_id"]


async def test_a_press_answered_too_late_is_refused_like_telegram(rig: Rig) -> None:
    card = await _card(rig)
    late = await rig.user.press(USER, card, button="Yes")
    rig.clock.now += 16
    status, body = await rig.bot("answerCallbackQuery", callback_query_id=late, text="ok")
    assert (status, body["description"]) == (400, f"Bad Request: {QUERY_INVALID}")
    prompt = await rig.user.press(USER, card, button="Yes")
    rig.clock.now += 14
    assert await rig.bot.ok("answerCallbackQuery", callback_query_id=prompt, text="ok") is True


async def test_query_expiry_can_be_switched_off_for_a_test_that_needs_it() -> None:
    async for rig in _rig(ApiRules().relaxed(["query-expiry"])):
        card = await _card(rig)
        query = await rig.user.press(USER, card, button="Yes")
        rig.clock.now += 3600
        assert await rig.bot.ok("answerCallbackQuery", callback_query_id=query) is True


async def test_an_answer_longer_than_200_characters_is_refused(rig: Rig) -> None:
    card = await _card(rig)
    query = await rig.user.press(USER, card, button="Yes")
    status, body = await rig.bot("answerCallbackQuery", callback_query_id=query, text="x" * 201, show_alert=True)
    assert status == 400 and body["description"] == "Bad Request: MESSAGE_TOO_LONG"
    assert await rig.bot.ok("answerCallbackQuery", callback_query_id=query, text="x" * 200) is True


async def test_a_user_edits_their_message_and_the_bot_gets_an_edited_message_update(rig: Rig) -> None:
    sent = await rig.user.send(USER, "email Alice I'm 10 min late")
    status, edited = await rig.user.raw("POST", f"/api/users/{USER}/messages/{sent}/edit",
                                        json={"text": "email Alice I'm 15 min late"})
    assert status == 200 and edited["edited"] is True and edited["text"] == "email Alice I'm 15 min late"
    updates = await rig.bot.ok("getUpdates")
    assert [next(k for k in u if k != "update_id") for u in updates] == ["message", "edited_message"]
    change = updates[1]["edited_message"]
    assert change["message_id"] == sent and change["text"] == "email Alice I'm 15 min late"
    assert "edit_date" in change
    [shown] = await rig.user.messages(USER)
    assert shown["text"] == "email Alice I'm 15 min late" and shown["edited"] is True


async def test_a_user_cannot_edit_the_bots_message(rig: Rig) -> None:
    card = await _card(rig)
    status, body = await rig.user.raw("POST", f"/api/users/{USER}/messages/{card}/edit", json={"text": "mine"})
    assert status == 400 and "bot's" in body["error"]


async def test_a_message_the_user_deleted_cannot_be_edited_by_the_bot(rig: Rig) -> None:
    card = await _card(rig)
    status, _ = await rig.user.raw("DELETE", f"/api/users/{USER}/messages/{card}")
    assert status == 200
    assert [m["message_id"] for m in await rig.user.messages(USER)] == [1], "only the user's own message is left"
    status, body = await rig.bot("editMessageText", chat_id=USER, message_id=card, text="Approved")
    assert (status, body["description"]) == (400, "Bad Request: message to edit not found")


async def test_sends_to_a_user_who_blocked_the_bot_answer_403(rig: Rig) -> None:
    card = await _card(rig)
    status, _ = await rig.user.raw("POST", f"/api/users/{USER}/block", json={"blocked": True})
    assert status == 200
    for method, params in [("sendMessage", {"text": "news"}), ("editMessageText", {"message_id": card, "text": "x"}),
                           ("sendChatAction", {"action": "typing"})]:
        status, body = await rig.bot(method, chat_id=USER, **params)
        assert (status, body["description"]) == (403, "Forbidden: bot was blocked by the user"), method
    await rig.user.raw("POST", f"/api/users/{USER}/block", json={"blocked": False})
    assert (await rig.bot.ok("sendMessage", chat_id=USER, text="welcome back"))["text"] == "welcome back"


async def test_a_revoked_token_answers_401_and_python_telegram_bot_sees_invalid_token(rig: Rig) -> None:
    await rig.user.send(USER, "hi")
    assert (await rig.bot.ok("getMe"))["is_bot"] is True, "until the bot's token is set, any token is the bot's"
    status, _ = await rig.user.raw("POST", "/api/bot/token", json={"token": "123456:NEW-TOKEN"})
    assert status == 200
    status, body = await rig.bot("sendMessage", chat_id=USER, text="hello")
    assert (status, body) == (401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
    with pytest.raises(InvalidToken):
        await Bot(TOKEN, base_url=f"{rig.url}/bot").send_message(USER, "hello")
    assert await BotCaller(rig.bot.session, "123456:NEW-TOKEN").ok("sendMessage", chat_id=USER, text="hi")


async def test_one_chat_sending_faster_than_telegram_allows_gets_429_with_retry_after(rig: Rig) -> None:
    await rig.user.send(USER, "hi")
    for n in range(20):  # a short burst is let through
        await rig.bot.ok("sendMessage", chat_id=USER, text=f"part {n}")
    status, body = await rig.bot("sendMessage", chat_id=USER, text="one too many")
    assert status == 429 and body["parameters"]["retry_after"] >= 1
    assert body["description"] == f"Too Many Requests: retry after {body['parameters']['retry_after']}"
    await rig.user.send(USER + 1, "me too")
    assert await rig.bot.ok("sendMessage", chat_id=USER + 1, text="another chat is not held up")
    rig.clock.now += body["parameters"]["retry_after"]
    assert await rig.bot.ok("sendMessage", chat_id=USER, text="after waiting as told")


async def test_python_telegram_bot_raises_retry_after_with_the_wait(rig: Rig) -> None:
    await rig.user.send(USER, "hi")
    bot = Bot(TOKEN, base_url=f"{rig.url}/bot")
    for n in range(20):
        await bot.send_message(USER, f"part {n}")
    with pytest.raises(RetryAfter) as raised:
        await bot.send_message(USER, "too fast")
    wait = raised.value.retry_after  # seconds, or a timedelta in later releases
    assert (wait.total_seconds() if hasattr(wait, "total_seconds") else wait) >= 1


async def test_the_overall_rate_holds_across_chats(rig: Rig) -> None:
    for user in range(1, 32):
        await rig.user.send(user, "hi")
    for user in range(1, 31):
        await rig.bot.ok("sendMessage", chat_id=user, text="news")
    status, body = await rig.bot("sendMessage", chat_id=31, text="the 31st in the same second")
    assert status == 429 and body["parameters"]["retry_after"] == 1
    rig.clock.now += 1
    assert await rig.bot.ok("sendMessage", chat_id=31, text="a second later")


async def test_rate_limits_can_be_switched_off_for_a_benchmark() -> None:
    async for rig in _rig(ApiRules().relaxed(["rate-limits"])):
        await rig.user.send(USER, "hi")
        for n in range(60):
            await rig.bot.ok("sendMessage", chat_id=USER, text=f"part {n}")


async def test_a_second_poller_terminates_the_first_ones_long_poll_with_409_like_telegram(rig: Rig) -> None:
    """Telegram keeps one long poll per bot: the newer one takes its place and the older is answered 409
    (telegram-bot-api's `abort_long_poll`); python-telegram-bot raises Conflict for it."""
    first, second = Bot(TOKEN, base_url=f"{rig.url}/bot"), Bot(TOKEN, base_url=f"{rig.url}/bot")
    async with first, second:
        older = asyncio.create_task(first.get_updates(timeout=20))
        await until(lambda: rig.emulator.updates.waiting == 1)
        newer = asyncio.create_task(second.get_updates(timeout=20))
        with pytest.raises(Conflict) as lost:
            await asyncio.wait_for(older, 5)
        assert lost.value.message == POLL_CONFLICT
        await until(lambda: rig.emulator.updates.waiting == 1)
        await rig.user.send(USER, "hello")
        (update,) = await asyncio.wait_for(newer, 5)
    assert update.message.text == "hello" and rig.emulator.updates.conflicts == 1


async def until(check: Callable[[], bool]) -> None:
    await UserClient.eventually(lambda: asyncio.sleep(0, check()), bool)


async def test_a_webhook_must_be_https_on_a_port_telegram_allows(rig: Rig) -> None:
    for url, why in [("http://bot.example.org/hook", "An HTTPS URL must be provided for webhook"),
                     ("https://bot.example.org:8080/hook", "Webhook can be set up only on ports 80, 88, 443 or 8443")]:
        status, body = await rig.bot("setWebhook", url=url)
        assert (status, body["description"]) == (400, f"Bad Request: bad webhook: {why}")
    assert await rig.bot.ok("setWebhook", url="https://bot.example.org:8443/hook") is True
    assert (await rig.bot.ok("getWebhookInfo"))["url"] == "https://bot.example.org:8443/hook"
    await rig.bot.ok("deleteWebhook")


def test_leniencies_are_named_and_an_unknown_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPUTY_EMULATOR_LENIENT", "query-expiry, rate-limits")
    rules = ApiRules.from_environment()
    assert rules.callback_query_seconds is None and rules.chat_burst is None and rules.overall_burst is None
    assert rules.strict_webhook_url, "only the named rules are relaxed"
    assert ApiRules() == ApiRules().relaxed([]), "the default is the real service's rules"
    assert set(LENIENCIES) == {"query-expiry", "rate-limits", "webhook-url"}
    with pytest.raises(ValueError, match="unknown leniency"):
        ApiRules().relaxed(["everything"])


def test_a_refused_send_counts_against_neither_limit() -> None:
    rates = SendRates(ApiRules(chat_burst=1, overall_burst=2))
    assert rates.take(1, 0.0) is None
    assert rates.take(1, 0.0) == 1, "the chat's burst is spent"
    assert rates.take(2, 0.0) is None, "the refused send did not use the overall allowance"
    bucket = Bucket(2, 1.0)
    assert bucket.wait(0.0) is None


async def test_ptb_sees_forbidden_and_bad_request_for_these_rules(rig: Rig) -> None:
    card = await _card(rig)
    bot = Bot(TOKEN, base_url=f"{rig.url}/bot")
    await rig.user.raw("DELETE", f"/api/users/{USER}/messages/{card}")
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", chat_id=USER, message_id=card)
    await rig.user.raw("POST", f"/api/users/{USER}/block", json={"blocked": True})
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(USER, "x")
