"""Telegram's flood control chat by chat: a "retry after" for one chat pauses only that chat's sends.

Telegram answers ``429 Too Many Requests: retry after N`` when the bot writes to a chat faster
than about a message a second (short bursts are let through) or to everyone faster than about
thirty a second. PTB's `AIORateLimiter` waits such an answer out by holding back *every*
request of the bot, so a user who sent a flood of messages, each one answered, stalled
everyone else's answers and news for seconds at a time, again and again. Here the pause
belongs to the chat the answer was about: that chat's requests wait until it ends, other
chats' requests go on. Requests to chats are still paced to the
overall rate beforehand, as PTB's limiter paces them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from aiolimiter import AsyncLimiter
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)

OVERALL_PER_SECOND = 30
"""Requests to chats a second, all chats together: Telegram's overall limit for a bot."""
MARGIN_SECONDS = 0.1
"""Added to Telegram's whole seconds, so the retry does not arrive a hair too early (as PTB does)."""

ChatKey = int | str  # a chat id, or a public chat's @username


class ChatPauses:
    """Until when each chat's requests wait, after Telegram said "retry after" for it.

    Only chats paused now are remembered: a pause that is over is forgotten the next time any
    chat is looked at or paused."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._until: dict[ChatKey, float] = {}

    def pause(self, chat: ChatKey, seconds: float) -> None:
        """Hold `chat`'s requests for `seconds` from now (a longer pause already set stands)."""
        now = self._clock()
        self._forget_ended(now)
        self._until[chat] = max(self._until.get(chat, now), now + seconds)

    def remaining(self, chat: ChatKey) -> float:
        """Seconds until `chat` may be written to again (0 if it may now)."""
        until = self._until.get(chat)
        if until is None:
            return 0.0
        left = until - self._clock()
        if left <= 0:
            del self._until[chat]
            return 0.0
        return left

    async def wait(self, chat: ChatKey, sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        """Return once `chat` may be written to (at once if it is not paused)."""
        while (left := self.remaining(chat)) > 0:
            await sleep(left)

    def __len__(self) -> int:
        """How many chats are paused now."""
        self._forget_ended(self._clock())
        return len(self._until)

    def _forget_ended(self, now: float) -> None:
        for chat in [c for c, until in self._until.items() if until <= now]:
            del self._until[chat]


def retry_seconds(exc: RetryAfter) -> float:
    """How long Telegram asked to wait, in seconds."""
    # PTB keeps it as a timedelta; its public `retry_after` is still whole seconds (with a
    # deprecation warning) in this major version.
    delay = getattr(exc, "_retry_after", None) or exc.retry_after
    return delay.total_seconds() if hasattr(delay, "total_seconds") else float(delay)


def _chat_of(data: dict[str, Any]) -> ChatKey | None:
    chat = data.get("chat_id")
    if chat is None:
        return None
    try:
        return int(chat)
    except (TypeError, ValueError):
        return str(chat)


class ChatRateLimiter(BaseRateLimiter[int]):
    """PTB's rate limiter for Deputy: requests to chats paced to Telegram's overall rate, and a 429
    for one chat waited out by that chat's requests alone.

    A request that gets "retry after" is tried again once its chat's pause is over, up to
    `max_retries` times (or the `rate_limit_args` a call passes), then the RetryAfter is raised
    to the caller. A request to no chat (answering a button press, setting the commands) that
    gets one waits and retries on its own, holding up nobody."""

    def __init__(self, max_retries: int = 3, overall_per_second: float = OVERALL_PER_SECOND,
                 pauses: ChatPauses | None = None) -> None:
        self._max_retries = max_retries
        self._overall = AsyncLimiter(overall_per_second, 1) if overall_per_second else None
        self.pauses = pauses or ChatPauses()

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to free."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        chat = _chat_of(data)
        retries = self._max_retries if rate_limit_args is None else rate_limit_args
        attempt = 0
        while True:
            if chat is not None:
                await self.pauses.wait(chat)  # before pacing: a paused chat spends none of the overall rate
            try:
                if chat is not None and self._overall is not None:
                    async with self._overall:
                        return await callback(*args, **kwargs)
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if attempt >= retries:
                    raise
                attempt += 1
                seconds = retry_seconds(exc) + MARGIN_SECONDS
                log.info("Telegram asked to wait %.0f s before %s to chat %s", seconds, endpoint, chat)
                if chat is None:
                    await asyncio.sleep(seconds)
                else:
                    self.pauses.pause(chat, seconds)
