"""Long polling with the real Deputy bot against the emulator (real Redis, real PTB).

What a user notices: a message the bot fetched (and so confirmed to Telegram with its next
getUpdates) but had not handled when the process died is answered after the restart,
once; a message handled before a restart is not answered again; and a message whose goal
was stored just before the crash does not get a second goal.

"Dying" here stops the first bot in the middle of a handler (its task cancelled, nothing
after that point runs), which leaves Redis exactly as a SIGKILL at that moment would.

Two bots polling one token (a rolling restart): only the one holding the poller lease polls,
so Telegram never answers 409 and each message is handled once; the other takes over when the
first stops (here), is killed (`test_polling_handover.py`, real processes) or loses the lease.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from redis import Redis
from telegram import Update
from telegram.ext import Application, TypeHandler

from deputy.agent.goals import Goal, GoalStore
from deputy.bot import texts
from deputy.bot import durable_polling
from deputy.bot.app import build_application
from deputy.bot.poller_lease import LEASE_KEY, LEASE_MS
from deputy.bot.services import BotServices
from deputy.core.infrastructure.redis_clients import sync_client
from deputy.testing.redis_failover import RedisFailoverSet
from deputy.testing.stack import RedisServer
from deputy.emulator import EMULATOR_KEY, Emulator, bound_port, serve
from deputy.emulator.tgobjects import BotProfile
from tests_support import eventually

USER = 6160
RECEIVED = f"deputy:polling:{BotProfile.id}:received"  # the bot id is the one getMe answers
POLLER = LEASE_KEY.format(BotProfile.id)
WAITING = "is polling Telegram for this bot; this one waits"




class Hang:
    """A handler that stops the bot where it is placed, until the test 'kills' the bot."""

    def __init__(self, first_only: bool = False) -> None:
        self.entered = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.first_only = first_only  # the updates after the first go on to the handlers

    async def __call__(self, update: Update, context: object) -> None:
        if self.first_only and self.task is not None:
            return
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
    # Unrelated goals in a row: whether one follows up the other is not what these tests look at.
    return [texts.without_continuing(m.text) for m in emu.state.messages_after(USER) if m.sender == "bot"]


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


async def test_two_bots_polling_one_token_answer_each_message_once_and_the_second_takes_over_when_the_first_stops(
    redis_server: RedisServer, redis: Redis, emulator: tuple[Emulator, str], caplog: pytest.LogCaptureFixture
) -> None:
    emu, api_base = emulator
    caplog.set_level(logging.INFO, logger="deputy.bot")
    async with AsyncExitStack() as second:
        first = AsyncExitStack()
        await first.enter_async_context(polling_bot(redis_server, redis, api_base))
        await eventually(lambda: emu.updates.waiting == 1)
        await second.enter_async_context(polling_bot(redis_server, redis, api_base))  # a rolling restart
        await eventually(lambda: WAITING in caplog.text)
        for n in range(3):
            emu.user_sends(USER, f"errand {n}", "Ann")
        await eventually(lambda: len(bot_texts(emu)) == 3)
        for n in range(3, 6):  # sent while the old bot stops: fetched by one of them, answered once
            emu.user_sends(USER, f"errand {n}", "Ann")
        await first.aclose()
        await eventually(lambda: "this one polls now" in caplog.text)
        for n in range(6, 9):  # only the new bot is left to answer these
            emu.user_sends(USER, f"errand {n}", "Ann")
        await eventually(lambda: len(bot_texts(emu)) >= 9 and redis.hlen(RECEIVED) == 0)
    assert bot_texts(emu) == [texts.ACK_NEW_GOAL] * 9
    assert sorted(g.text for g in goals(redis)) == [f"errand {n}" for n in range(9)]
    assert emu.updates.conflicts == 0, "Telegram never had to end one poll for another"
    assert caplog.text.count(WAITING) == 1, "the waiting bot said so once"
    assert not redis.exists(POLLER), "the last bot handed the lease back as it stopped"


async def test_a_bot_that_lost_the_poller_lease_leaves_what_it_had_not_begun_to_the_one_that_took_over(
    redis_server: RedisServer, redis: Redis, emulator: tuple[Emulator, str], caplog: pytest.LogCaptureFixture
) -> None:
    """The first bot stalls on a message with another queued behind it, for longer than its lease:
    the waiting bot takes over and replays both. The first, when it comes to, stops polling and
    drops the queued message instead of answering it a second time."""
    emu, api_base = emulator
    caplog.set_level(logging.INFO, logger="deputy.bot")
    hang = Hang(first_only=True)
    async with AsyncExitStack() as second:
        async with polling_bot(redis_server, redis, api_base, hang):
            emu.user_sends(USER, "book a table for two", "Ann")
            await asyncio.wait_for(hang.entered.wait(), 15)
            emu.user_sends(USER, "and a taxi at eight", "Ann")  # queued behind the first, in its chat's turn
            await eventually(lambda: redis.hlen(RECEIVED) == 2)
            waiting = await second.enter_async_context(polling_bot(redis_server, redis, api_base))
            await eventually(lambda: WAITING in caplog.text)
            # The first bot's lease lapses while it stalls and the waiting one takes it, as it would.
            redis.set(POLLER, waiting.update_queue.turn.lease.name, px=LEASE_MS)
            await eventually(lambda: len(bot_texts(emu)) == 2 and redis.hlen(RECEIVED) == 0)
            await eventually(lambda: "took over polling Telegram for this bot" in caplog.text)
            await hang.kill()  # the stalled handler dies; the one queued behind it gets its turn
        # The first bot has stopped, having dealt with everything it had queued.
        emu.user_sends(USER, "thanks", "Ann")
        await eventually(lambda: len(goals(redis)) == 3 and redis.hlen(RECEIVED) == 0)
    assert bot_texts(emu) == [texts.ACK_NEW_GOAL] * 3
    assert sorted(g.text for g in goals(redis)) == ["and a taxi at eight", "book a table for two", "thanks"]
    # At most the stalled bot's last long poll, open when the other began to poll: no 409 loop.
    assert emu.updates.conflicts <= 1


class Snapshot:
    """What a promoted replica holds: Redis as it was when the handlers began, the record of the
    update included (it reached the replica before Telegram was told), nothing written after."""

    task = None  # never hangs: see `polling_bot`

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self.keys: dict[bytes, tuple[int, bytes]] = {}

    async def __call__(self, update: Update, context: object) -> None:
        if not self.keys:
            self.keys = {key: (max(self.redis.pttl(key), 0), self.redis.dump(key)) for key in self.redis.scan_iter()}

    def promote(self) -> None:
        self.redis.flushall()
        for key, (ttl, value) in self.keys.items():
            self.redis.restore(key, ttl, value)


async def test_a_message_whose_handling_a_failover_lost_is_handled_again(
    redis_server: RedisServer, redis: Redis, emulator: tuple[Emulator, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The primary died after the bot answered and before its replica had the goal: the promoted
    replica still holds the update's record (and not its removal), and the poller handles it again."""
    monkeypatch.setattr(durable_polling, "STRANDED_AFTER", 1.0)
    monkeypatch.setattr(durable_polling, "SWEEP_EVERY", 0.2)
    emu, api_base = emulator
    snapshot = Snapshot(redis)
    async with polling_bot(redis_server, redis, api_base, snapshot, group=-5):  # type: ignore[arg-type]
        emu.user_sends(USER, "book a table for two", "Ann")
        await eventually(lambda: goals(redis) and redis.hlen(RECEIVED) == 0)
        assert snapshot.keys, "the snapshot was taken as the handlers began"
        snapshot.promote()
        assert goals(redis) == [] and redis.hlen(RECEIVED) == 1  # the goal is gone, the record is back

        await eventually(lambda: goals(redis) and redis.hlen(RECEIVED) == 0, timeout=15)
        emu.user_sends(USER, "and a taxi at eight", "Ann")
        await eventually(lambda: len(goals(redis)) == 2 and redis.hlen(RECEIVED) == 0)
        await asyncio.sleep(1.5)  # past STRANDED_AFTER: nothing handled is handled again
    assert sorted(g.text for g in goals(redis)) == ["and a taxi at eight", "book a table for two"]
    # The retry acknowledges again (it cannot know the first "On it." was not lost with the rest).
    assert bot_texts(emu) == [texts.ACK_NEW_GOAL] * 3


@pytest.mark.slow
async def test_behind_sentinel_a_batch_is_confirmed_to_telegram_only_once_a_replica_has_it(
    tmp_path: Path, emulator: tuple[Emulator, str]
) -> None:
    """A promotion loses what the replica did not have: Telegram must not be told of a message
    (the next getUpdates) before the replica has its record."""
    emu, api_base = emulator
    failover = RedisFailoverSet(tmp_path / "redis").start()
    try:
        redis = sync_client(failover.url)
        async with polling_bot(SimpleNamespace(url=failover.url), redis, api_base):  # type: ignore[arg-type]
            emu.user_sends(USER, "book a table for two", "Ann")
            await eventually(lambda: goals(redis) and emu.updates.pending_count == 0)
            replica = failover.replica()
            failover.pause(replica)
            emu.user_sends(USER, "and a taxi at eight", "Ann")
            # Fetched and recorded on the primary (handled, then forgotten, soon after).
            await eventually(lambda: redis.hlen(RECEIVED) == 1 or len(goals(redis)) == 2)
            assert emu.updates.pending_count == 1, "not confirmed to Telegram while the replica lags"
            failover.resume(replica)
            await eventually(lambda: emu.updates.pending_count == 0)
            # The acknowledgement is sent by the handler, beside the confirmation: it may come a moment after.
            await eventually(lambda: len(bot_texts(emu)) >= 2)
            await asyncio.sleep(0.5)  # and no third one (the message handled twice) follows
            assert bot_texts(emu) == [texts.ACK_NEW_GOAL] * 2
    finally:
        failover.stop()
