"""Each chat's work one piece at a time, in the order it came; different chats' work at once.

Both directions of the bot need this: a user's updates must be handled in the order they
were sent (an answer to a question, then a new goal), and the outbox must deliver a chat's
messages in the order the workers wrote them (a card, then its edit). A chat's place in line
exists only while it has work holding or waiting for its turn, so a million chats that wrote
once cost nothing afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass
class _Line:
    # asyncio.Lock hands itself to its waiters in the order they came, and a newcomer does not
    # jump a queue that is already waiting: exactly the order in which `turn` was entered.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiting: int = 0  # holding the turn or waiting for it


class ChatTurns:
    """Turns per chat: `async with turns.turn(chat_id):` runs after every earlier entrant for that chat."""

    def __init__(self) -> None:
        self._lines: dict[Hashable, _Line] = {}

    @asynccontextmanager
    async def turn(self, chat: Hashable) -> AsyncIterator[None]:
        """Wait for every earlier entrant of `chat` to finish (or give up), then hold the chat's turn.

        The place in line is taken when this is entered, before its first suspension: work
        started in some order takes its turns in that order."""
        line = self._lines.get(chat)
        if line is None:
            line = self._lines[chat] = _Line()
        line.waiting += 1
        try:
            async with line.lock:
                yield
        finally:
            line.waiting -= 1
            if line.waiting == 0:
                del self._lines[chat]

    def waiting(self, chat: Hashable) -> int:
        """How many entrants of `chat` hold its turn or wait for it."""
        line = self._lines.get(chat)
        return line.waiting if line is not None else 0

    def __len__(self) -> int:
        """How many chats have work holding or waiting for a turn."""
        return len(self._lines)
