"""Fixtures for the emulator tests: a live emulator on a free port and clients for it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from emulator_testkit import BotCaller, LiveEmulator, UserClient

from deputy.emulator import bound_port, serve


@pytest.fixture
async def live() -> AsyncIterator[LiveEmulator]:
    runner = await serve("127.0.0.1", 0)
    try:
        yield LiveEmulator(runner, f"http://127.0.0.1:{bound_port(runner)}")
    finally:
        await runner.cleanup()


@pytest.fixture
async def session(live: LiveEmulator) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(live.url) as s:
        yield s


@pytest.fixture
def user(session: aiohttp.ClientSession) -> UserClient:
    return UserClient(session)


@pytest.fixture
def bot(session: aiohttp.ClientSession) -> BotCaller:
    return BotCaller(session)
