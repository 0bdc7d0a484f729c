"""The bot's update queue with Telegram's getUpdates semantics and a real long poll.

Waiters sleep on an :class:`asyncio.Event` that ``put`` sets and replaces (a broadcast),
so a waiting long poll wakes at once when an update arrives, and ``put`` can be called
from synchronous code.

One long poll at a time, as on Telegram's server (``telegram-bot-api``'s ``do_get_updates``):
a getUpdates that finds nothing to return and would wait *takes the place* of the one already
waiting, which is answered 409 "Conflict: terminated by other getUpdates request; make sure
that only one bot instance is running". So the *older* request loses, and two processes
polling one bot keep terminating each other's polls. A getUpdates that has updates to return
at once, or a timeout of 0, answers without touching the waiting one. The server answers at
most one such conflict every 3 seconds at once; a later one is answered 3 seconds late.
"""

from __future__ import annotations

import asyncio
from typing import Any

from deputy.emulator.errors import BotApiError

Json = dict[str, Any]

#: Update types delivered when ``allowed_updates`` is empty or never set (Telegram's default
#: excludes chat_member, message_reaction and message_reaction_count).
DEFAULT_TYPES = frozenset(
    {"message", "edited_message", "callback_query", "inline_query", "chosen_inline_result"}
)
MAX_TIMEOUT = 50.0  # seconds; longer waits are clipped so nothing hangs for ever
#: Telegram's answer to getUpdates while a webhook is set (PTB raises telegram.error.Conflict).
WEBHOOK_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
)
#: Telegram's answer to a waiting long poll that a newer one replaced (PTB raises telegram.error.Conflict).
POLL_CONFLICT = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
CONFLICT_PAUSE = 3.0
"""Seconds between two conflicts answered at once; one sooner is answered this much later."""


class _LongPoll:
    """One getUpdates request waiting for updates."""

    terminated = False


class UpdateQueue:
    """Pending updates, confirmed (dropped) by ``offset`` like Telegram's getUpdates."""

    def __init__(self, max_pending: int = 100_000, conflict_pause: float = CONFLICT_PAUSE) -> None:
        self._pending: list[Json] = []
        self._next_id = 1
        self._max_pending = max_pending
        self._wakeup = asyncio.Event()
        self._allowed: frozenset[str] | None = None
        self._closed = False
        self._waiting = 0
        self._long_poll: _LongPoll | None = None  # the one long poll allowed to wait
        self._conflict_pause = conflict_pause
        self._next_conflict_at = 0.0
        #: True while a webhook is set: updates are pushed, and getUpdates answers 409.
        self.webhook_active = False
        #: Long polls answered 409 because a newer one took their place (two pollers at once).
        self.conflicts = 0

    @property
    def waiting(self) -> int:
        """Long polls currently waiting for an update."""
        return self._waiting

    @property
    def pending_count(self) -> int:
        """Updates not yet confirmed (getWebhookInfo's ``pending_update_count``)."""
        return len(self._pending)

    def put(self, kind: str, payload: Json) -> int:
        """Queue an update such as ``("message", {...})`` and wake every long poll."""
        if self._allowed is not None and kind not in self._allowed:
            return 0  # Telegram does not even create updates of types the bot opted out of
        update_id = self._next_id
        self._next_id += 1
        self._pending.append({"update_id": update_id, kind: payload})
        del self._pending[: -self._max_pending]
        self._wake()
        return update_id

    def clear(self) -> None:
        """Drop every pending update (deleteWebhook with drop_pending_updates)."""
        self._pending.clear()

    def close(self) -> None:
        """Make every current and future long poll return at once (server shutdown)."""
        self._closed = True
        self._wake()

    def _wake(self) -> None:
        self._wakeup.set()
        self._wakeup = asyncio.Event()

    @property
    def changed(self) -> asyncio.Event:
        """Set at the next change (an update queued or confirmed, the mode switched, shutdown)."""
        return self._wakeup

    def set_webhook_active(self, active: bool) -> None:
        """Switch between getUpdates and webhook delivery; waiting long polls get 409 at once."""
        self.webhook_active = active
        self._wake()

    def deliverable(self) -> list[Json]:
        """Every pending update of an allowed type, oldest first (for webhook delivery)."""
        return self._select(len(self._pending) or 1)

    def confirm_one(self, update_id: int) -> None:
        """The webhook acknowledged ``update_id``: forget it."""
        self._pending = [u for u in self._pending if u["update_id"] != update_id]
        self._wake()

    def set_allowed(self, allowed: list[str] | None) -> None:
        """Remember ``allowed_updates`` (None keeps the previous setting, [] resets it)."""
        if allowed is None:
            return
        self._allowed = frozenset(allowed) if allowed else None

    def _confirm(self, offset: int | None) -> None:
        if offset is None or offset == 0:
            return
        if offset < 0:
            # -N keeps only the last N updates and forgets the rest, as documented.
            del self._pending[: max(len(self._pending) + offset, 0)]
        else:
            self._pending = [u for u in self._pending if u["update_id"] >= offset]

    def _select(self, limit: int) -> list[Json]:
        allowed = self._allowed or DEFAULT_TYPES
        # Updates of types not allowed are skipped for good (they are never delivered).
        self._pending = [u for u in self._pending if _kind(u) in allowed]
        return self._pending[:limit]

    async def fetch(
        self,
        offset: int | None = None,
        limit: int = 100,
        timeout: float = 0.0,
        allowed_updates: list[str] | None = None,
    ) -> list[Json]:
        """getUpdates: confirm < ``offset``, then return up to ``limit`` updates, waiting
        up to ``timeout`` seconds for the first one to arrive (409 if a newer long poll
        takes this one's place meanwhile)."""
        self.set_allowed(allowed_updates)
        limit = min(max(limit, 1), 100)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(max(timeout, 0.0), MAX_TIMEOUT)
        poll = _LongPoll()
        try:
            while True:
                if self.webhook_active:
                    raise BotApiError(WEBHOOK_CONFLICT, 409)
                if poll.terminated:
                    await self._conflict()
                self._confirm(offset)
                batch = self._select(limit)
                remaining = deadline - loop.time()
                if batch or self._closed or remaining <= 0:
                    return batch
                if self._long_poll is not poll:
                    self._wait_instead(poll)
                wakeup = self._wakeup
                self._waiting += 1
                try:
                    await asyncio.wait_for(wakeup.wait(), remaining)
                except TimeoutError:
                    pass  # loop once more: an update may have raced the timeout
                finally:
                    self._waiting -= 1
        finally:
            if self._long_poll is poll:
                self._long_poll = None

    def _wait_instead(self, poll: _LongPoll) -> None:
        """`poll` becomes the waiting long poll; the one waiting before it is terminated."""
        if self._long_poll is not None:
            self._long_poll.terminated = True
        self._long_poll = poll
        self._wake()

    async def _conflict(self) -> None:
        loop = asyncio.get_running_loop()
        if loop.time() < self._next_conflict_at:
            await asyncio.sleep(self._conflict_pause)
        else:
            self._next_conflict_at = loop.time() + self._conflict_pause
        self.conflicts += 1
        raise BotApiError(POLL_CONFLICT, 409)


def _kind(update: Json) -> str:
    return next(k for k in update if k != "update_id")
