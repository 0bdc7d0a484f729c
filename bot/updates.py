"""How the bot processes updates: many chats at once, each chat's updates in the order they came.

The handlers await Redis and the Bot API, so while one update waits another can run:
python-telegram-bot's concurrent processing lets the bot serve hundreds of users at once.
But two messages from the same person must not overtake each other (an answer to a
question, then a new goal; Edit pressed, then the change): updates of one chat wait for
the one before them, updates of different chats do not wait for each other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

# Enough to have a whole getUpdates batch (up to 100 updates) in flight, with room for the
# outbox's sends; each waiting update costs a task and a little memory, not a thread.
MAX_CONCURRENT_UPDATES = 256


class PerChatOrder(BaseUpdateProcessor):
    """Up to `max_concurrent_updates` updates at once; one chat's updates one after another."""

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._chats: dict[int, tuple[asyncio.Lock, int]] = {}  # chat id -> (its lock, updates holding or waiting)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            await coroutine
            return
        lock, users = self._chats.get(chat.id, (None, 0))
        lock = lock or asyncio.Lock()  # asyncio.Lock wakes its waiters in the order they came
        self._chats[chat.id] = (lock, users + 1)
        try:
            async with lock:
                await coroutine
        finally:
            lock, users = self._chats[chat.id]
            if users == 1:
                del self._chats[chat.id]
            else:
                self._chats[chat.id] = (lock, users - 1)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to free."""
