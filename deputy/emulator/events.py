"""Fan-out of chat changes to live viewers (the page's Server-Sent Events streams)."""

from __future__ import annotations

import asyncio
from typing import Any

from deputy.emulator.records import ChatEvent

Json = dict[str, Any]


class EventBus:
    """Per-user subscriber queues; ``None`` in a queue tells its stream to end.

    A viewer too slow to keep up is disconnected rather than silently skipped: the
    page then reconnects and reloads the chat, so it never shows a stale state.
    """

    def __init__(self, queue_size: int = 1000) -> None:
        self._queue_size = queue_size
        self._subscribers: dict[int, set[asyncio.Queue[Json | None]]] = {}
        self._closed = False

    def subscribe(self, user_id: int) -> asyncio.Queue[Json | None]:
        """A queue receiving every change of ``user_id``'s chat from now on."""
        queue: asyncio.Queue[Json | None] = asyncio.Queue(self._queue_size)
        if self._closed:
            queue.put_nowait(None)
        self._subscribers.setdefault(user_id, set()).add(queue)
        return queue

    def unsubscribe(self, user_id: int, queue: asyncio.Queue[Json | None]) -> None:
        """Forget a queue (its stream ended)."""
        queues = self._subscribers.get(user_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._subscribers[user_id]

    def subscriber_count(self, user_id: int) -> int:
        """How many live viewers the chat has."""
        return len(self._subscribers.get(user_id, ()))

    def publish(self, event: ChatEvent) -> None:
        """Deliver a change to the chat's viewers (or to all viewers when user_id is None)."""
        if event.user_id is None:
            targets = [q for qs in self._subscribers.values() for q in qs]
        else:
            targets = list(self._subscribers.get(event.user_id, ()))
        for queue in targets:
            try:
                queue.put_nowait(event.payload)
            except asyncio.QueueFull:
                _end(queue)

    def close(self) -> None:
        """End every stream (server shutdown)."""
        self._closed = True
        for queues in self._subscribers.values():
            for queue in queues:
                _end(queue)


def _end(queue: asyncio.Queue[Json | None]) -> None:
    while not queue.empty():
        queue.get_nowait()
    queue.put_nowait(None)
