"""Helpers for the emulator tests: a live emulator handle, a user-API client and a raw
Bot API caller. Waits poll with a short deadline, never fixed sleeps.

(A uniquely named module rather than conftest, so test files can import it safely.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
from aiohttp import web

from deputy.emulator import EMULATOR_KEY, Emulator

T = TypeVar("T")
TOKEN = "123456:TEST-TOKEN"


@dataclass
class LiveEmulator:
    """A running emulator."""

    runner: web.AppRunner
    url: str

    @property
    def emulator(self) -> Emulator:
        return self.runner.app[EMULATOR_KEY]

    @property
    def bot_base_url(self) -> str:
        """What to pass to ``ApplicationBuilder().base_url(...)``."""
        return f"{self.url}/bot"


class UserClient:
    """Acts as simulated users through the user-side HTTP API."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self.session = session

    async def send(self, user_id: int, text: str, **extra: Any) -> int:
        async with self.session.post(f"/api/users/{user_id}/messages", json={"text": text, **extra}) as r:
            assert r.status == 200, await r.text()
            return (await r.json())["message_id"]

    async def press(self, user_id: int, message_id: int, **how: str) -> str:
        async with self.session.post(
            f"/api/users/{user_id}/press", json={"message_id": message_id, **how}
        ) as r:
            assert r.status == 200, await r.text()
            body = await r.json()
            assert body["ok"] is True
            return body["callback_query_id"]

    async def messages(self, user_id: int, after: int = 0) -> list[dict[str, Any]]:
        async with self.session.get(f"/api/users/{user_id}/messages", params={"after": after}) as r:
            assert r.status == 200
            return await r.json()

    async def answers(self, user_id: int) -> list[dict[str, Any]]:
        async with self.session.get(f"/api/users/{user_id}/answers") as r:
            assert r.status == 200
            return await r.json()

    async def raw(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        async with self.session.request(method, path, **kwargs) as r:
            return r.status, await r.json(content_type=None)

    @staticmethod
    async def eventually(
        probe: Callable[[], Awaitable[T]], check: Callable[[T], bool], timeout: float = 5.0
    ) -> T:
        """Re-run ``probe`` until ``check`` accepts its value; fail after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            value = await probe()
            if check(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"condition not met within {timeout}s; last value: {value!r}")
            await asyncio.sleep(0.02)

    async def wait_for_messages(
        self, user_id: int, check: Callable[[list[dict[str, Any]]], bool], timeout: float = 5.0
    ) -> list[dict[str, Any]]:
        return await self.eventually(lambda: self.messages(user_id), check, timeout)


class BotCaller:
    """Calls the Bot API directly, as a bot would."""

    def __init__(self, session: aiohttp.ClientSession, token: str = TOKEN) -> None:
        self.session = session
        self.token = token

    async def __call__(self, method: str, *, http: str = "POST", as_json: bool = True, **params: Any) -> tuple[int, dict[str, Any]]:
        path = f"/bot{self.token}/{method}"
        if http == "GET":
            kwargs: dict[str, Any] = {"params": {k: str(v) for k, v in params.items()}}
        elif as_json:
            kwargs = {"json": params}
        else:
            kwargs = {"data": params}
        async with self.session.request(http, path, **kwargs) as r:
            return r.status, await r.json()

    async def ok(self, method: str, **params: Any) -> Any:
        status, body = await self(method, **params)
        assert status == 200 and body["ok"] is True, body
        return body["result"]
