"""Webhook delivery, as Telegram does it once ``setWebhook`` is called.

Each pending update is POSTed as JSON to the webhook URL with the header
``X-Telegram-Bot-Api-Secret-Token``. An update is confirmed (forgotten) only when the
webhook answers 2xx; a POST that fails, times out or gets any other status is retried
with growing delays, for ever: the emulator never drops an update (Telegram gives up
after "a reasonable amount of attempts"; a test of a crash wants the stricter promise).

Updates of one chat go one at a time, in order: the next is sent only after the one
before it was acknowledged (Telegram behaves so; bot frameworks such as grammY document
it). Different chats are delivered in parallel, up to ``max_connections`` POSTs at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import aiohttp

from deputy.emulator.updates import Json, UpdateQueue

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@dataclass(frozen=True)
class WebhookConfig:
    """What ``setWebhook`` set."""

    url: str
    secret_token: str | None = None
    max_connections: int = 40
    allowed_updates: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Backoff:
    """Delay before the n-th retry of one update: ``first * 2**(n-1)``, at most ``longest`` seconds."""

    first: float = 0.2
    longest: float = 5.0
    timeout: float = 60.0  # seconds a POST may take before it is given up and re-sent (Telegram's)

    def delay(self, failures: int) -> float:
        return min(self.first * 2 ** (failures - 1), self.longest)


def lane_of(update: Json) -> tuple[str, int]:
    """What orders updates: the chat (else the user; else the update is on its own)."""
    for kind, payload in update.items():
        if kind == "update_id" or not isinstance(payload, dict):
            continue
        message = payload if "chat" in payload else payload.get("message")
        if isinstance(message, dict) and isinstance(message.get("chat"), dict):
            return ("chat", int(message["chat"]["id"]))
        if isinstance(payload.get("from"), dict):
            return ("user", int(payload["from"]["id"]))
    return ("update", int(update["update_id"]))


class WebhookPusher:
    """Pushes the queue's updates to the webhook while one is set."""

    def __init__(self, queue: UpdateQueue, backoff: Backoff | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self._queue = queue
        self._backoff = backoff or Backoff()
        self._clock = clock
        self.config: WebhookConfig | None = None
        self.last_error: tuple[int, str] | None = None  # (unix time, what went wrong)
        self._lanes: dict[tuple[str, int], asyncio.Task] = {}
        self._slots = asyncio.Semaphore(40)
        self._loop_task: asyncio.Task | None = None
        self._session: aiohttp.ClientSession | None = None

    def set(self, config: WebhookConfig) -> None:
        """Start (or re-aim) delivery; updates in flight finish against the new settings."""
        if self.config is None or self.config.max_connections != config.max_connections:
            self._slots = asyncio.Semaphore(config.max_connections)
        self.config = config
        self._queue.set_webhook_active(True)
        if self._loop_task is None or self._loop_task.done():
            self._loop_task = asyncio.get_running_loop().create_task(self._run(), name="webhook-push")

    async def delete(self) -> None:
        """Back to getUpdates: stop pushing; unacknowledged updates stay pending."""
        self.config = None
        tasks = [t for t in [self._loop_task, *self._lanes.values()] if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._loop_task = None
        self._lanes.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None
        self._queue.set_webhook_active(False)

    def info(self) -> Json:
        """getWebhookInfo's WebhookInfo."""
        info: Json = {"url": "", "has_custom_certificate": False, "pending_update_count": self._queue.pending_count}
        if self.config is not None:
            info["url"] = self.config.url
            info["max_connections"] = self.config.max_connections
            if self.config.allowed_updates is not None:
                info["allowed_updates"] = list(self.config.allowed_updates)
        if self.last_error is not None:
            info["last_error_date"], info["last_error_message"] = self.last_error
        return info

    async def _run(self) -> None:
        while self.config is not None:
            changed = self._queue.changed  # taken before looking, so no change slips between
            for update in self._queue.deliverable():
                lane = lane_of(update)
                if lane not in self._lanes:  # else an earlier update of this chat is still out
                    self._lanes[lane] = asyncio.create_task(self._deliver(update, lane))
            await changed.wait()

    async def _deliver(self, update: Json, lane: tuple[str, int]) -> None:
        failures = 0
        try:
            while True:
                config = self.config
                if config is None:
                    return
                async with self._slots:
                    error = await self._post(config, update)
                if error is None:
                    break
                failures += 1
                self.last_error = (int(self._clock()), error)
                await asyncio.sleep(self._backoff.delay(failures))
        finally:
            self._lanes.pop(lane, None)
        self._queue.confirm_one(update["update_id"])

    async def _post(self, config: WebhookConfig, update: Json) -> str | None:
        """POST one update; None when the webhook took it, else Telegram's kind of error text."""
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self._backoff.timeout))
        headers = {SECRET_HEADER: config.secret_token} if config.secret_token else {}
        try:
            async with self._session.post(config.url, json=update, headers=headers) as response:
                await response.read()
                if 200 <= response.status < 300:
                    return None
                return f"Wrong response from the webhook: {response.status} {response.reason or ''}".strip()
        except TimeoutError:
            return "Read timeout expired"
        except aiohttp.ClientConnectorError:
            return "Connection refused"
        except aiohttp.ClientError as exc:
            return f"Connection failed: {type(exc).__name__}"
