"""Deputy's bot as `deputy bot` builds it, handed Telegram updates in process.

`InProcessBot` builds the application with `deputy.bot.app.build_application` (durable long
polling, every handler) on a real Redis, and answers the Bot API in process (`LocalBotApi`),
so nothing but the bot talks to Redis and nothing leaves the machine. An update goes
through what the poller and the application do with it: recorded in Redis, taken from the
update queue, handled, marked handled. The outbox consumer and the lost-goal watcher are not
started, so every Redis command seen is the message's.

Used by the intake's command-count tests and by `bench.redis_counts`, which also runs it
against an older revision of Deputy: it uses only interfaces that revision has.
"""

from __future__ import annotations

import json
import time
from typing import Any

from redis import Redis
from telegram import Update
from telegram.request import BaseRequest

BOT = {"id": 777, "is_bot": True, "first_name": "Deputy", "username": "deputy_bot", "can_join_groups": True,
       "can_read_all_group_messages": False, "supports_inline_queries": False}


class LocalBotApi(BaseRequest):
    """The Bot API answered in process: every call succeeds; a sent message comes back as Telegram's would."""

    def __init__(self) -> None:
        self._next = 10_000
        self.sent: list[tuple[int, str]] = []  # (chat, text) of every message the bot sent

    @property
    def read_timeout(self) -> float | None:
        return 5.0

    async def initialize(self) -> None:
        """Nothing to open."""

    async def shutdown(self) -> None:
        """Nothing to close."""

    async def do_request(self, url: str, method: str, request_data: Any = None, *_: Any,
                         **__: Any) -> tuple[int, bytes]:
        name = url.rstrip("/").rsplit("/", 1)[-1]
        params = request_data.parameters if request_data is not None else {}
        result: Any = True
        if name == "getMe":
            result = BOT
        elif name.startswith("send"):
            self._next += 1
            chat, text = int(params.get("chat_id", 0)), str(params.get("text", ""))
            self.sent.append((chat, text))
            result = {"message_id": self._next, "date": int(time.time()), "chat": {"id": chat, "type": "private"},
                      "from": BOT, "text": text}
        return 200, json.dumps({"ok": True, "result": result}).encode()


def message_update(update_id: int, user: int, text: str, when: float) -> dict:
    """A private message from `user`, as Telegram sends it (a command carries its entity)."""
    message: dict[str, Any] = {"message_id": update_id, "date": int(when), "chat": {"id": user, "type": "private"},
                               "from": {"id": user, "is_bot": False, "first_name": "Ann"}, "text": text}
    if text.startswith("/"):
        message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
    return {"update_id": update_id, "message": message}


class InProcessBot:
    """The bot on Redis at `url`; its clock stands still (every message in one minute) unless moved."""

    def __init__(self, url: str, allowed: frozenset[int] | None, plans: Any = None,
                 messages_per_minute: int | None = None) -> None:
        from deputy.bot.app import build_application
        from deputy.bot.services import BotServices

        self.url = url
        self.redis = Redis.from_url(url)
        self.services = BotServices.create(self.redis, "in-process-secret", allowed, redis_url=url, plans=plans,
                                           messages_per_minute=messages_per_minute)
        self.now = time.time()
        self.services.clock = lambda: self.now
        self.api = LocalBotApi()
        self.app = build_application("1:in-process", self.services, url, request=self.api)
        self._next_update = 0

    async def start(self) -> None:
        from deputy.core.infrastructure.redis_clients import async_client

        await self.app.initialize()
        self.app.update_queue.attach(async_client(self.url, max_connections=4), self.app.bot.id)

    async def stop(self) -> None:
        await self.app.shutdown()
        self.redis.close()

    def update(self, user: int, text: str) -> Update:
        self._next_update += 1
        return Update.de_json(message_update(self._next_update, user, text, self.now), self.app.bot)

    async def deliver(self, update: Update) -> None:
        """As the poller and the application do: recorded in Redis, taken from the queue, handled."""
        queue = self.app.update_queue
        await queue.put(update)
        while not queue.empty():
            await self.app.process_update(await queue.get())

    async def send(self, user: int, text: str) -> Update:
        """`user` texts the bot; returns the update (to deliver again as a copy)."""
        update = self.update(user, text)
        await self.deliver(update)
        return update

    async def after_a_crash(self, update: Update) -> None:
        """The update handled again, as a process does that took over from one that died before
        marking it handled (it replays the update, its delivery marked as a retry)."""
        from deputy.bot.update_claims import Delivery, update_seed

        queue = self.app.update_queue
        seed = update_seed(self.app.bot.id, update.to_dict())
        queue._deliveries[update.update_id] = Delivery(update.update_id, seed, retried=True)
        await self.app.process_update(update)

    def texts_to(self, user: int) -> list[str]:
        return [text for chat, text in self.api.sent if chat == user]
