"""Telegram's "retry after" for one chat (`deputy.bot.chat_rate_limiter`, with the outbox and the handlers
of the real bot against the emulator keeping Telegram's flood limits): that chat's messages wait,
everyone else's go out meanwhile, and the waiting ones all arrive, in order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from redis import Redis
from telegram import Update
from telegram.ext import Application

from deputy.bot import texts
from deputy.bot.app import build_application
from deputy.bot.chat_rate_limiter import ChatRateLimiter
from deputy.bot.services import BotServices
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox, OutboxMessage
from deputy.emulator import ApiRules, Emulator, bound_port, create_app, serve
from deputy.emulator.records import ChatEvent
from deputy.testing.stack import RedisServer
from tests_support import eventually

PAUSED = 7401
OTHER = 7402




@asynccontextmanager
async def deputy_bot(redis_server: RedisServer, redis: Redis,
                     rules: ApiRules) -> AsyncIterator[tuple[Emulator, Application]]:
    """`deputy bot` as deployed on Telegram (rate limiter on), polling an emulator with `rules`."""
    emu = Emulator(rules=rules)
    runner = await serve("127.0.0.1", 0, app=create_app(emulator=emu))
    services = BotServices.create(redis, "signing-secret", frozenset({PAUSED, OTHER}), redis_url=redis_server.url)
    app = build_application("1:rate-limits", services, redis_server.url,
                            api_base=f"http://127.0.0.1:{bound_port(runner)}/bot", rate_limit=True)
    await app.initialize()
    await app.post_init(app)
    await app.updater.start_polling(allowed_updates=Update.ALL_TYPES, poll_interval=0.0, timeout=1)
    await app.start()
    try:
        yield emu, app
    finally:
        await app.updater.stop()
        await app.stop()
        await app.post_stop(app)
        await app.shutdown()
        await runner.cleanup()


async def test_a_retry_after_for_one_chat_holds_back_that_chat_alone_and_loses_nothing(
    redis_server: RedisServer, redis: Redis
) -> None:
    # Two messages at once, then one every 4 s: the third message to a chat gets "retry after 4".
    rules = ApiRules(chat_burst=2, chat_per_second=0.25)
    async with deputy_bot(redis_server, redis, rules) as (emu, app):
        delivered: list[tuple[int | None, str]] = []

        def record(event: ChatEvent) -> None:
            if event.payload.get("type") == "message" and event.payload.get("from") == "bot":
                delivered.append((event.user_id, event.payload["text"]))

        emu.state.listeners.append(record)
        for user in (PAUSED, OTHER):
            emu.state.open_chat(user)  # both users started the bot earlier
        limiter = app.bot.rate_limiter
        assert isinstance(limiter, ChatRateLimiter)
        outbox = Outbox(redis)
        for n in range(5):
            outbox.put(OutboxMessage(chat_id=PAUSED, text=f"news {n} for the paused chat"))
        await eventually(lambda: limiter.pauses.remaining(PAUSED) > 0)  # Telegram said "retry after" for it

        outbox.put(OutboxMessage(chat_id=OTHER, text="news for the other chat"))
        emu.user_sends(OTHER, "/help")  # and a handler's answer to the other chat
        await eventually(lambda: {"news for the other chat", texts.HELP} <= {t for c, t in delivered if c == OTHER})
        assert [t for c, t in delivered if c == PAUSED] == [f"news {n} for the paused chat" for n in range(2)], \
            "the other chat's messages went out while the paused chat's waited"

        await eventually(lambda: len([c for c, _ in delivered if c == PAUSED]) == 5, timeout=60)
        assert [t for c, t in delivered if c == PAUSED] == [f"news {n} for the paused chat" for n in range(5)]
        await eventually(lambda: redis.xlen(OUTBOX_STREAM) == 0)
        assert len(limiter.pauses) == 0, "a pause that is over is forgotten"
