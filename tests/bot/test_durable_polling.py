"""Long polling with the real Deputy bot against the emulator (real Redis, real PTB).

What a user notices: a message the bot fetched (and so confirmed to Telegram with its next
getUpdates) but had not handled when the process died is answered after the restart,
once; a message handled before a restart is not answered again; and a message whose goal
was stored just before the crash does not get a second goal.

"Dying" here stops the first bot in the middle of a handler (its task cancelled, nothing
after that point runs), which leaves Redis exactly as a SIGKILL at that moment would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from redis import Redis
from telegram import Update
from telegram.ext import Application, TypeHandler

from deputy.agent.goals import Goal, GoalStore
from deputy.bot import texts
from deputy.bot.app import build_application
from deputy.bot.services import BotServices
from deputy.testing.stack import RedisServer
from deputy.emulator import EMULATOR_KEY, Emulator, bound_port, serve
from deputy.emulator.tgobjects import BotProfile
from tests_support import eventually

USER = 6160
RECEIVED = f"deputy:polling:{BotProfile.id}:received"  # the bot id is the one getMe answers




class Hang:
    """A handler that stops the bot where it is placed, until the test 'kills' the bot."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def __call__(self, update: Update, context: object) -> None:
        self.task = asyncio.current_task()
        self.entered.set()
        await asyncio.Event().wait()

    async def kill(self) -> None:
        assert self.task is not None
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


@pytest.fixture
async def emulator() -> AsyncIterator[tuple[Emulator, str]]:
    runner = await serve("127.0.0.1", 0)
    try:
        yield runner.app[EMULATOR_KEY], f"http://127.0.0.1:{bound_port(runner)}/bot"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def polling_bot(redis_server: RedisServer, redis: Redis, api_base: str, hang: Hang | None = None,
                      group: int = -2) -> AsyncIterator[Application]:
    """`deputy bot` in long-polling mode (what `run_polling` does, step by step)."""
    services = BotServices.create(redis, "signing-secret", None, redis_url=redis_server.url)
    app = build_application("1:polling", services, redis_server.url, api_base=api_base, rate_limit=False)
    if hang is not None:
        app.add_handler(TypeHandler(Update, hang), group=group)
    await app.initialize()
    await app.post_init(app)
    await app.updater.start_polling(allowed_updates=Update.ALL_TYPES, poll_interval=0.0, timeout=1,
                                    drop_pending_updates=False)
    await app.start()
    try:
        yield app
    finally:
        if hang is not None and hang.task is not None:
            await hang.kill()  # the process dies here: the handler never gets further
        await app.updater.stop()
        await app.stop()
        await app.post_stop(app)
        await app.shutdown()


def bot_texts(emu: Emulator) -> list[str]:
    return [m.text for m in emu.state.messages_after(USER) if m.sender == "bot"]


def goals(redis: Redis) -> list[Goal]:
    return GoalStore(redis).recent(USER, limit=100)


async def test_a_message_confirmed_but_not_handled_when_the_bot_died_is_answered_after_restart_once(
    redis_server: RedisServer, redis: Redis, emulator: tuple[Emulator, str]
) -> None:
    emu, api_base = emulator
    hang = Hang()
    async with polling_bot(redis_server, redis, api_base, hang):
        emu.user_sends(USER, "book a table for two", "Ann")
        await asyncio.wait_for(hang.entered.wait(), 15)
        await eventually(lambda: emu.updates.pending_count == 0)  # confirmed: Telegram will not resend it
    assert bot_texts(emu) == [] and goals(redis) == []  # died before answering

    async with polling_bot(redis_server, redis, api_base):
        await eventually(lambda: bot_texts(emu))
        await eventually(lambda: redis.hlen(RECEIVED) == 0)
    assert bot_texts(emu) == [texts.ACK_NEW_GOAL]
    assert [g.text for g in goals(redis)] == ["book a table for two"]

    # Handled before this restart: not answered again; the next message is answered as usual.
    async with polling_bot(redis_server, redis, api_base):
        emu.user_sends(USER, "remind me to call mum", "Ann")
        await eventually(lambda: len(bot_texts(emu)) == 2)
        await eventually(lambda: redis.hlen(RECEIVED) == 0)
    assert bot_texts(emu) == [texts.ACK_NEW_GOAL, texts.ACK_NEW_GOAL]
    assert sorted(g.text for g in goals(redis)) == ["book a table for two", "remind me to call mum"]


async def test_a_bot_that_died_after_storing_the_goal_does_not_store_it_twice(
    redis_server: RedisServer, redis: Redis, emulator: tuple[Emulator, str]
) -> None:
    emu, api_base = emulator
    hang = Hang()
    async with polling_bot(redis_server, redis, api_base, hang, group=1):  # after the goal handlers
        emu.user_sends(USER, "email bob the minutes", "Ann")
        await asyncio.wait_for(hang.entered.wait(), 15)
        await eventually(lambda: emu.updates.pending_count == 0)
    first = goals(redis)
    assert [g.text for g in first] == ["email bob the minutes"]

    async with polling_bot(redis_server, redis, api_base):
        # The retry acknowledges again (it cannot know the first "On it." got out), as webhook retries do.
        await eventually(lambda: len(bot_texts(emu)) == 2)
        await eventually(lambda: redis.hlen(RECEIVED) == 0)
    assert [g.id for g in goals(redis)] == [first[0].id]  # the retry found it under the same id
    assert bot_texts(emu) == [texts.ACK_NEW_GOAL, texts.ACK_NEW_GOAL]


async def test_a_message_kept_to_be_handled_after_a_crash_is_kept_without_its_secret(
    redis_server: RedisServer, redis: Redis, emulator: tuple[Emulator, str]
) -> None:
    emu, api_base = emulator
    hang = Hang()
    async with polling_bot(redis_server, redis, api_base, hang):
        emu.user_sends(USER, "log in to the library, the password is Tr0ub4dor&3xyz, and renew my books", "Ann")
        await asyncio.wait_for(hang.entered.wait(), 15)
        kept = b"".join(value for key in redis.scan_iter("deputy:polling:*:received") for value in redis.hvals(key))
    assert b"renew my books" in kept and b"Tr0ub4dor" not in kept


async def test_a_bot_that_died_between_recording_an_update_and_confirming_it_makes_one_goal(
    redis_server: RedisServer, redis: Redis, emulator: tuple[Emulator, str]
) -> None:
    """The dead bot wrote the fetched update to Redis and died before its next getUpdates: the
    restarted bot replays its copy and is handed the unconfirmed update again."""
    emu, api_base = emulator
    emu.user_sends(USER, "email bob the minutes", "Ann")
    [update] = emu.updates.deliverable()  # what the dead bot's getUpdates returned, never confirmed
    redis.hset(RECEIVED, str(update["update_id"]), json.dumps({"seed": "seed-of-the-dead", "update": update}))

    async with polling_bot(redis_server, redis, api_base):
        await eventually(lambda: emu.updates.pending_count == 0)  # the copy fetched again, and confirmed
        await eventually(lambda: bot_texts(emu) and redis.hlen(RECEIVED) == 0)
        emu.user_sends(USER, "and book a room", "Ann")  # answered after both copies were dealt with
        await eventually(lambda: len(bot_texts(emu)) == 2)
    assert sorted(g.text for g in goals(redis)) == ["and book a room", "email bob the minutes"]
    assert bot_texts(emu) == [texts.ACK_NEW_GOAL, texts.ACK_NEW_GOAL]
