"""How the bot runs python-telegram-bot: many chats at once, each chat's updates in order.

The handlers await Redis and the Bot API, so while one update waits another can run:
PTB's concurrent processing lets the bot serve hundreds of users at once. But two
messages from the same person must not overtake each other (an answer to a question,
then a new goal; Edit pressed, then the change): updates of one chat wait for the one
before them, updates of different chats do not wait for each other, and an update waiting
for its chat's turn holds no processing slot (`PerChatOrder`). Likewise for what the bot
sends: Telegram's "retry after" for one chat pauses that chat's sends only (`ChatRateLimiter`).

Concurrency is bounded and the Bot API connection pool kept small: httpx's pool does work
proportional to its open connections on every request (an expiry check, with a system
call, per idle connection), so with PTB's default of 256 connections every request gets
slower once a burst has opened many of them. A few dozen updates in flight already keep
the CPU busy: a handler's waits (two Redis round trips, one Bot API call) are short.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import ApplicationBuilder, BaseUpdateProcessor
from telegram.request import BaseRequest

from deputy.bot.chat_rate_limiter import ChatRateLimiter
from deputy.bot.chat_turns import ChatTurns

MAX_CONCURRENT_UPDATES = 32
# A Bot API call takes a few milliseconds, so a few connections carry hundreds of calls per
# second; a call that finds them all busy waits its turn (up to POOL_TIMEOUT seconds).
CONNECTION_POOL_SIZE = 8
POOL_TIMEOUT = 30.0


def application_builder(
    token: str, api_base: str | None = None, rate_limit: bool = True, request: BaseRequest | None = None,
    updates_request: BaseRequest | None = None,
) -> ApplicationBuilder:
    """PTB configured as Deputy runs it (the front-end benchmark's echo baseline uses it too).

    A `request` of its own carries every Bot API call instead of PTB's HTTP client, and an
    `updates_request` the getUpdates calls (by default `request`, or PTB's own)."""
    builder = ApplicationBuilder().token(token).concurrent_updates(PerChatOrder())
    if request is not None:
        return builder.request(request).get_updates_request(updates_request or request)
    if updates_request is not None:
        builder = builder.get_updates_request(updates_request)
    builder = builder.connection_pool_size(CONNECTION_POOL_SIZE).pool_timeout(POOL_TIMEOUT)
    if api_base:
        base = api_base.rstrip("/")
        builder = builder.base_url(base).base_file_url(base.replace("/bot", "/file/bot", 1))
    if rate_limit:
        builder = builder.rate_limiter(ChatRateLimiter(max_retries=3))
    return builder


class PerChatOrder(BaseUpdateProcessor):
    """Up to `max_concurrent_updates` updates at once; one chat's updates one after another.

    An update first waits for its chat's turn and only then takes one of the processing slots,
    so a chat holds at most one slot: a user who sends a thousand messages gets them handled
    one by one while everyone else's go past them. Updates without a chat (inline queries,
    polls) take a slot at once."""

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self.turns = ChatTurns()

    # PTB marks `process_update` final (it takes the slot, then calls `do_process_update`); taking
    # the slot first would let one chat's waiting updates fill every slot, so the order is ours here.
    async def process_update(self, update: object, coroutine: Awaitable[Any]) -> None:  # type: ignore[misc]
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            async with self._semaphore:
                await self.do_process_update(update, coroutine)
            return
        async with self.turns.turn(chat.id):
            async with self._semaphore:
                await self.do_process_update(update, coroutine)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        await coroutine

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to free."""
