"""The real Deputy bot (its python-telegram-bot application, handlers and outbox, real Redis) against
the emulator keeping the real Bot API's rules: what a deployment on Telegram runs into.

Each test is one condition the real service produces (see docs/running/telegram.md, "Checked
against the real Bot API"): a stranger who blocked the bot, a press answered too late, a message
the user edits, a send that failed on its way, a card the user deleted, a listing longer than one
message, a revoked token, and the flood limits.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from redis import Redis
from telegram import Update
from telegram.ext import Application, TypeHandler

import deputy.bot.outbox_consumer as outbox_consumer
from deputy.agent.goals import GoalStore
from deputy.agent.origins import user_message
from deputy.bot import texts
from deputy.bot.app import build_application
from deputy.bot.edited_messages import IGNORED
from deputy.bot.services import BotServices
from deputy.bot.telegram_access import TelegramAccess
from deputy.core.infrastructure.ports import free_port
from deputy.core.records.outbox import MESSAGE_REF_KEY, OUTBOX_STREAM, Button, Outbox, OutboxMessage
from deputy.emulator import ApiRules, Emulator, bound_port, create_app, serve
from deputy.memory import MemoryItem, MemoryKind, MemoryStore
from deputy.sentinel.stores.audit import AuditLog
from deputy.testing.stack import RedisServer
from tests_support import eventually

USER = 6301
STRANGER = 6666


class Clock:
    """The emulator's clock: real time, plus however far a test moves it on."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@dataclass
class Rig:
    emulator: Emulator
    clock: Clock
    app: Application
    redis: Redis
    access: TelegramAccess

    def bot_texts(self, user: int = USER) -> list[str]:
        return [m.text for m in self.emulator.state.messages_after(user) if m.sender == "bot"]

    def bot_messages(self, user: int = USER) -> list[Any]:
        return [m for m in self.emulator.state.messages_after(user) if m.sender == "bot"]




@asynccontextmanager
async def emulator(rules: ApiRules | None = None) -> AsyncIterator[tuple[Emulator, Clock, str]]:
    clock = Clock()
    emu = Emulator(clock=clock, rules=rules)
    runner = await serve("127.0.0.1", 0, app=create_app(emulator=emu))
    try:
        yield emu, clock, f"http://127.0.0.1:{bound_port(runner)}/bot"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def deputy_bot(redis_server: RedisServer, redis: Redis, api_base: str, emu: Emulator, clock: Clock,
                     before: Any = None, rate_limit: bool = False) -> AsyncIterator[Rig]:
    """`deputy bot` in long-polling mode, for the one allowed user `USER`."""
    services = BotServices.create(redis, "signing-secret", frozenset({USER}), redis_url=redis_server.url)
    access = TelegramAccess()
    app = build_application("1:conformance", services, redis_server.url, api_base=api_base,
                            rate_limit=rate_limit, access=access)
    if before is not None:
        app.add_handler(TypeHandler(Update, before), group=-5)
    await app.initialize()
    await app.post_init(app)
    await app.updater.start_polling(allowed_updates=Update.ALL_TYPES, poll_interval=0.0, timeout=1)
    await app.start()
    try:
        yield Rig(emu, clock, app, redis, access)
    finally:
        await app.updater.stop()
        await app.stop()
        await app.post_stop(app)
        await app.shutdown()


@pytest.fixture
async def rig(redis_server: RedisServer, redis: Redis) -> AsyncIterator[Rig]:
    async with emulator() as (emu, clock, api_base):
        async with deputy_bot(redis_server, redis, api_base, emu, clock) as r:
            yield r


# -- access control ---------------------------------------------------------------------------

async def test_a_stranger_whose_refusal_fails_with_403_gets_no_goal(rig: Rig) -> None:
    rig.emulator.user_sends(STRANGER, "hello")
    await eventually(lambda: rig.bot_texts(STRANGER))
    assert rig.bot_texts(STRANGER) == [texts.not_allowed(STRANGER)]
    rig.emulator.user_blocks(STRANGER)  # the refusal to their next message answers 403
    rig.emulator.user_sends(STRANGER, "email everyone in my contacts")
    rig.emulator.user_sends(USER, "a goal of the allowed user")  # proves the bot went on to later updates
    await eventually(lambda: GoalStore(rig.redis).recent(USER))
    await eventually(lambda: rig.emulator.updates.pending_count == 0)
    assert GoalStore(rig.redis).recent(STRANGER) == [], "the stranger's update went no further than the gate"
    assert AuditLog(rig.redis).entries(STRANGER) == []


async def test_a_stranger_pressing_a_button_gets_an_alert_within_200_characters_and_nothing_else(rig: Rig) -> None:
    message = rig.emulator.user_sends(STRANGER, "hello")
    await eventually(lambda: rig.bot_texts(STRANGER))
    rig.emulator.user_presses(STRANGER, message.message_id, data="ap:forged")
    answers = await eventually(lambda: rig.emulator.state.chats[STRANGER].answers)
    await asyncio.sleep(0.3)  # anything the press could still set off
    assert AuditLog(rig.redis).entries(STRANGER) == [], "no handler looked at the stranger's press"
    [answer] = rig.emulator.state.chats[STRANGER].answers
    assert answers == [answer] and answer.show_alert and len(answer.text) <= 200
    assert str(STRANGER) in answer.text, "the stranger learns the id to give the operator"
    assert answer.text == texts.not_allowed_alert(STRANGER)


# -- button presses ---------------------------------------------------------------------------

async def test_a_press_too_old_to_answer_still_changes_the_card(redis_server: RedisServer, redis: Redis) -> None:
    async def press_waited(update: Update, context: object) -> None:
        if update.callback_query is not None:  # it waited behind the chat's earlier updates
            clock.ahead += 20

    async with emulator() as (emu, clock, api_base):
        async with deputy_bot(redis_server, redis, api_base, emu, clock, before=press_waited) as rig:
            emu.user_sends(USER, "plan a trip to Rome")
            await eventually(lambda: GoalStore(redis).recent(USER))
            emu.user_sends(USER, "/goals")
            card = await eventually(lambda: next((m for m in rig.bot_messages() if m.keyboard), None))
            emu.user_presses(USER, card.message_id, button="Cancel")
            await eventually(lambda: "⏹ Stopped" in emu.state.chats[USER].messages[card.message_id].text)
    assert emu.state.chats[USER].answers == [], "Telegram took no answer so late"
    assert emu.state.chats[USER].messages[card.message_id].keyboard == [], "its buttons are gone"
    assert GoalStore(redis).recent(USER)[0].status.value == "cancelled"


# -- edited messages --------------------------------------------------------------------------

async def test_an_edit_before_the_goal_started_rewords_it_and_never_makes_a_second_goal(rig: Rig) -> None:
    sent = rig.emulator.user_sends(USER, "email Alice I'm 10 min late")
    await eventually(lambda: texts.ACK_NEW_GOAL in rig.bot_texts())
    rig.emulator.user_edits(USER, sent.message_id, "email Alice I'm 15 min late")
    await eventually(lambda: len(rig.bot_texts()) == 2)
    [goal] = GoalStore(rig.redis).recent(USER)
    assert goal.text == "email Alice I'm 15 min late"
    assert goal.messages == [user_message("email Alice I'm 15 min late")]
    assert goal.user_words() == ["email Alice I'm 15 min late"], "the guard takes the new words as the user's"
    assert rig.bot_texts()[-1].startswith("Got it: I'll use your edit")


async def test_an_edit_after_the_goal_took_its_turn_is_left_alone_with_a_note(rig: Rig) -> None:
    sent = rig.emulator.user_sends(USER, "email Alice I'm 10 min late")
    await eventually(lambda: texts.ACK_NEW_GOAL in rig.bot_texts())
    [goal] = GoalStore(rig.redis).recent(USER)

    def took_a_turn(g):  # what a worker saves once the model answered
        g.messages.append({"role": "assistant", "content": "Sending it."})
        g.step = 1
        return g

    GoalStore(rig.redis).update(goal.id, took_a_turn)
    rig.emulator.user_edits(USER, sent.message_id, "email Alice I'm 15 min late")
    command = rig.emulator.user_sends(USER, "/help")
    await eventually(lambda: len(rig.bot_texts()) >= 3)
    rig.emulator.user_edits(USER, command.message_id, "/start")
    await eventually(lambda: len(rig.bot_texts()) == 4)
    assert rig.bot_texts()[1] == IGNORED and rig.bot_texts()[3] == IGNORED
    [still] = GoalStore(rig.redis).recent(USER)
    assert still.text == "email Alice I'm 10 min late", "the goal that already acted keeps its words"


# -- the outbox -------------------------------------------------------------------------------

class FlakyProxy:
    """Stands between the bot and Telegram: the first call carrying `fail_once` gets a 502 and never reaches it;
    a call carrying `hold` waits, unanswered, until `release()`, and then never reaches it either."""

    def __init__(self, upstream: str, fail_once: bytes | None = None, hold: bytes | None = None) -> None:
        self.upstream, self.fail_once, self.failed = upstream, fail_once, 0
        self.hold, self.holding, self.released = hold, asyncio.Event(), asyncio.Event()
        self.runner: web.AppRunner | None = None
        self.url = ""

    def release(self) -> None:
        self.released.set()

    async def _forward(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        body = await request.read()
        bad_gateway = web.json_response({"ok": False, "error_code": 502, "description": "Bad Gateway"}, status=502)
        if self.fail_once is not None and self.fail_once in body and not self.failed:
            self.failed += 1
            return bad_gateway
        if self.hold is not None and self.hold in body:
            self.holding.set()
            await self.released.wait()
            return bad_gateway
        async with aiohttp.ClientSession() as http:
            async with http.request(request.method, f"{self.upstream}{request.match_info['token']}/{method}",
                                    data=body, headers={"Content-Type": request.content_type}) as answer:
                return web.Response(body=await answer.read(), status=answer.status, content_type="application/json")

    async def start(self) -> FlakyProxy:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._forward)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        port = free_port()
        await web.TCPSite(self.runner, "127.0.0.1", port).start()
        self.url = f"http://127.0.0.1:{port}/bot"
        return self


async def test_a_long_answer_whose_second_part_failed_is_resumed_not_sent_again_whole(
    redis_server: RedisServer, redis: Redis
) -> None:
    parts = [f"Part-{n}: " + "x" * 3000 for n in (1, 2, 3)]
    async with emulator() as (emu, clock, api_base):
        proxy = await FlakyProxy(api_base, fail_once=b"Part-2").start()
        try:
            async with deputy_bot(redis_server, redis, proxy.url, emu, clock) as rig:
                emu.user_sends(USER, "/help")
                await eventually(lambda: rig.bot_texts())
                Outbox(redis).put(OutboxMessage(chat_id=USER, text="\n".join(parts), dedupe_key="long-answer"))
                await eventually(lambda: any(t.startswith("Part-3") for t in rig.bot_texts()))
                await eventually(lambda: redis.xlen(OUTBOX_STREAM) == 0)
        finally:
            await proxy.runner.cleanup()
    assert proxy.failed == 1
    delivered = [t for t in rig.bot_texts() if t.startswith("Part")]
    assert delivered == parts, "each part once, in order"


async def test_a_long_answer_cut_short_by_the_bot_stopping_is_resumed_by_the_next_bot_at_the_first_part_not_sent(
    redis_server: RedisServer, redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The next bot reclaims the entry its predecessor left pending at once, not after 30 s.
    monkeypatch.setattr(outbox_consumer, "_RECLAIM_IDLE_MS", 100)
    parts = [f"Part-{n}: " + "x" * 3000 for n in (1, 2, 3, 4)]
    async with emulator() as (emu, clock, api_base):
        proxy = await FlakyProxy(api_base, hold=b"Part-3").start()
        try:
            async with deputy_bot(redis_server, redis, proxy.url, emu, clock) as rig:
                emu.user_sends(USER, "/help")
                await eventually(lambda: rig.bot_texts())
                Outbox(redis).put(OutboxMessage(chat_id=USER, text="\n".join(parts), dedupe_key="long-answer"))
                await asyncio.wait_for(proxy.holding.wait(), 30)  # parts 1 and 2 confirmed, part 3 under way
            # The bot stopped there (its delivery cancelled mid-call, as a kill would): part 3 never arrived.
            proxy.release()
            assert [t[:6] for t in rig.bot_texts() if t.startswith("Part")] == ["Part-1", "Part-2"]
            async with deputy_bot(redis_server, redis, api_base, emu, clock) as rig:
                await eventually(lambda: any(t.startswith("Part-4") for t in rig.bot_texts()))
                await eventually(lambda: redis.xlen(OUTBOX_STREAM) == 0)
        finally:
            await proxy.runner.cleanup()
    delivered = [t for t in rig.bot_texts() if t.startswith("Part")]
    assert delivered == parts, "each part once, in order, across the restart"
    assert not list(redis.scan_iter("deputy:outbox:progress:*")), "the progress went with the entry"


async def test_a_card_the_user_deleted_is_shown_again_as_a_new_message(rig: Rig) -> None:
    rig.emulator.user_sends(USER, "/help")
    await eventually(lambda: rig.bot_texts())
    outbox = Outbox(rig.redis)
    outbox.put(OutboxMessage(chat_id=USER, text="Send the email to Alice?", ref="card:a_1", dedupe_key="card:a_1",
                             buttons=[[Button(text="Approve", data="approve"), Button(text="Deny", data="deny")]]))
    card = await eventually(lambda: next((m for m in rig.bot_messages() if m.text.startswith("Send the")), None))
    rig.emulator.user_deletes(USER, card.message_id)
    outbox.put(OutboxMessage(chat_id=USER, text="I don't know whether the email went out. Try again?",
                             ref="card:u_1", edit_ref="card:a_1", dedupe_key="card:u_1",
                             buttons=[[Button(text="Try again", data="retry"), Button(text="Drop", data="drop")]]))
    shown = await eventually(lambda: next((m for m in rig.bot_messages() if "don't know" in m.text), None))
    assert [b.text for row in shown.keyboard for b in row] == ["Try again", "Drop"], "with its buttons"
    await eventually(lambda: int(rig.redis.get(MESSAGE_REF_KEY.format("card:u_1")) or 0) == shown.message_id)
    # Later edits reach it (noted once the delivery is confirmed, a moment after the user sees it).
    await eventually(lambda: int(rig.redis.get(MESSAGE_REF_KEY.format("card:a_1"))) == shown.message_id)
    outbox.put(OutboxMessage(chat_id=USER, text="Dropped.", edit_ref="card:a_1", dedupe_key="drop"))
    await eventually(lambda: rig.emulator.state.chats[USER].messages[shown.message_id].text == "Dropped.")


async def test_a_notice_taken_back_leaves_the_chat_and_one_already_gone_is_no_error(rig: Rig) -> None:
    rig.emulator.user_sends(USER, "/help")
    await eventually(lambda: rig.bot_texts())
    outbox = Outbox(rig.redis)
    outbox.put(OutboxMessage(chat_id=USER, text="Waiting for the model: yours is next.", ref="wait:1", dedupe_key="w1"))
    notice = await eventually(lambda: next((m for m in rig.bot_messages() if m.text.startswith("Waiting")), None))
    await eventually(lambda: rig.redis.get(MESSAGE_REF_KEY.format("wait:1")))
    outbox.put(OutboxMessage(chat_id=USER, text="", delete_ref="wait:1", dedupe_key="w1:over"))
    outbox.put(OutboxMessage(chat_id=USER, text="Here is your answer.", dedupe_key="answer"))
    await eventually(lambda: "Here is your answer." in rig.bot_texts())
    assert notice.message_id not in rig.emulator.state.chats[USER].messages
    assert not rig.redis.exists(MESSAGE_REF_KEY.format("wait:1"))

    outbox.put(OutboxMessage(chat_id=USER, text="Waiting for the model: yours is next.", ref="wait:2", dedupe_key="w2"))
    second = await eventually(lambda: next((m for m in rig.bot_messages() if m.text.startswith("Waiting")), None))
    await eventually(lambda: rig.redis.get(MESSAGE_REF_KEY.format("wait:2")))
    rig.emulator.user_deletes(USER, second.message_id)
    outbox.put(OutboxMessage(chat_id=USER, text="", delete_ref="wait:2", dedupe_key="w2:over"))
    outbox.put(OutboxMessage(chat_id=USER, text="And the next one.", dedupe_key="next"))
    await eventually(lambda: "And the next one." in rig.bot_texts())
    assert "" not in rig.bot_texts(), "nothing empty was sent"


async def test_a_revoked_token_keeps_every_outgoing_message_and_is_reported(
    rig: Rig, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(outbox_consumer, "TOKEN_RETRY_SECONDS", (0.05,))
    rig.emulator.user_sends(USER, "/help")
    await eventually(lambda: rig.bot_texts())
    rig.emulator.token = "1:the-new-token"  # revoked in @BotFather: the bot's token answers 401 now
    Outbox(rig.redis).put(OutboxMessage(chat_id=USER, text="Your flight is booked.", dedupe_key="news"))
    await eventually(lambda: not rig.access())
    assert rig.redis.xlen(OUTBOX_STREAM) == 1, "the message is kept"
    assert any("401 Unauthorized" in r.getMessage() and "TELEGRAM_BOT_TOKEN" in r.getMessage() for r in caplog.records)
    rig.emulator.token = None  # the operator put the right token back
    await eventually(lambda: "Your flight is booked." in rig.bot_texts())
    # The delivery is seen by the user a moment before the outbox hears back from it.
    await eventually(lambda: rig.access())
    await eventually(lambda: rig.redis.xlen(OUTBOX_STREAM) == 0)


async def test_flood_limits_slow_the_outbox_down_but_lose_and_reorder_nothing(
    redis_server: RedisServer, redis: Redis
) -> None:
    async with emulator(ApiRules(chat_burst=3)) as (emu, clock, api_base):
        async with deputy_bot(redis_server, redis, api_base, emu, clock, rate_limit=True) as rig:
            emu.user_sends(USER, "/help")
            await eventually(lambda: rig.bot_texts())
            for n in range(5):
                Outbox(redis).put(OutboxMessage(chat_id=USER, text=f"news {n}", dedupe_key=f"news-{n}"))
            await eventually(lambda: len([t for t in rig.bot_texts() if t.startswith("news")]) == 5, timeout=30)
    assert [t for t in rig.bot_texts() if t.startswith("news")] == [f"news {n}" for n in range(5)]


# -- replies longer than one message ------------------------------------------------------------

async def test_a_memory_listing_longer_than_one_message_arrives_in_parts(rig: Rig) -> None:
    store, now = MemoryStore(rig.redis), time.time()
    for n in range(30):
        store.add(USER, MemoryItem(text=f"fact {n:02d}: " + "y" * 280, kind=MemoryKind.fact, created_at=now,
                                   updated_at=now))
    rig.emulator.user_sends(USER, "/memory")
    # Same-moment memories list in no fixed order: wait for every part, not for one fact.
    await eventually(lambda: all(f"fact {n:02d}" in "".join(rig.bot_texts()) for n in range(30)))
    listing = rig.bot_messages()
    assert len(listing) >= 3 and all(len(m.text) <= 4096 for m in listing)
    assert all(f"fact {n:02d}" in "".join(m.text for m in listing) for n in range(30)), "nothing was left out"
    assert listing[-1].keyboard and not any(m.keyboard for m in listing[:-1]), "the buttons under the listing"


async def test_deputy_bot_started_with_a_wrong_token_says_so_and_stops(redis_server: RedisServer, redis: Redis,
                                                                       tmp_path) -> None:
    import os
    import sys

    async with emulator(ApiRules(token="1:the-right-token")) as (emu, clock, api_base):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DEPUTY_", "TELEGRAM_"))}
        env.update(REDIS_URL=redis_server.url, TELEGRAM_BOT_TOKEN="1:a-revoked-token", TELEGRAM_API_BASE=api_base,
                   DEPUTY_SECRET="signing-secret", DEPUTY_DATA_DIR=str(tmp_path), DEPUTY_ALLOWED_USERS=str(USER))
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "deputy.cli", "bot", env=env,
                                                       stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode != 0
    said = stderr.decode()
    assert "401 Unauthorized" in said and "TELEGRAM_BOT_TOKEN" in said and "kept" in said
    assert "1:a-revoked-token" not in said, "the token itself is never written out"
