"""Two `deputy bot` processes on one token, as in a rolling restart: one polls, the other waits,
and takes over when the first is killed (SIGKILL: no goodbye, its lease lapses on its own).

What a user notices: every message is answered exactly once, before, during and after the
handover. What an operator notices: Telegram never answers 409 (one long poll at a time), and
the waiting process says once that another one polls and that it takes over when that one stops.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis import Redis

from deputy.bot import texts
from deputy.bot.poller_lease import LEASE_KEY
from deputy.emulator import EMULATOR_KEY, Emulator, bound_port, serve
from deputy.emulator.tgobjects import BotProfile
from deputy.testing.stack import RedisServer
from tests_support import eventually

USER = 6170
WAITING = "is polling Telegram for this bot; this one waits and takes over when that one stops"
TOOK_OVER = "the other bot process stopped polling; this one polls now"


@pytest.fixture
async def emulator() -> AsyncIterator[tuple[Emulator, str]]:
    runner = await serve("127.0.0.1", 0)
    try:
        yield runner.app[EMULATOR_KEY], f"http://127.0.0.1:{bound_port(runner)}/bot"
    finally:
        await runner.cleanup()


class Bots:
    """`deputy bot` processes, each logging to a file of its own."""

    def __init__(self, workdir: Path, redis_url: str, api_base: str) -> None:
        self.workdir = workdir
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("DEPUTY_", "TELEGRAM_", "OPENAI_"))}
        self.env.update(REDIS_URL=redis_url, TELEGRAM_API_BASE=api_base, DEPUTY_SECRET="handover-secret",
                        DEPUTY_DATA_DIR=str(workdir / "data"), DEPUTY_DEFAULT_PLAN="pro", PYTHONUNBUFFERED="1")
        self.processes: dict[str, subprocess.Popen] = {}

    def start(self, name: str) -> None:
        with open(self.workdir / f"{name}.log", "ab") as log:
            self.processes[name] = subprocess.Popen([sys.executable, "-m", "deputy", "bot"], env=self.env,
                                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def log(self, name: str) -> str:
        return (self.workdir / f"{name}.log").read_text(errors="replace")

    def kill(self, name: str) -> None:
        process = self.processes[name]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    async def stop(self) -> None:
        """SIGTERM, then wait without blocking the event loop: the emulator answers their last calls."""
        running = [p for p in self.processes.values() if p.poll() is None]
        for process in running:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            await eventually(lambda: all(p.poll() is not None for p in running), timeout=20)
        finally:
            for process in running:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()


@pytest.fixture
async def bots(tmp_path: Path, redis_server: RedisServer, emulator: tuple[Emulator, str]) -> AsyncIterator[Bots]:
    processes = Bots(tmp_path, redis_server.url, emulator[1])
    try:
        yield processes
    finally:
        await processes.stop()


def answers(emu: Emulator) -> list[str]:
    # Unrelated goals in a row: whether one follows up the other is not what these tests look at.
    return [texts.without_continuing(m.text) for m in emu.state.messages_after(USER) if m.sender == "bot"]


@pytest.mark.timeout(180)
async def test_the_waiting_bot_takes_over_when_the_polling_one_is_killed_and_each_message_is_answered_once(
    bots: Bots, redis: Redis, emulator: tuple[Emulator, str]
) -> None:
    emu, _ = emulator
    bots.start("old")
    await eventually(lambda: emu.updates.waiting == 1, timeout=60)  # the old bot polls
    polling = redis.get(LEASE_KEY.format(BotProfile.id)).decode()
    assert polling.startswith(f"{os.uname().nodename}-{bots.processes['old'].pid}-")
    bots.start("new")  # the operator starts the new one before the old one is gone
    await eventually(lambda: WAITING in bots.log("new"), timeout=60)

    for n in range(3):
        emu.user_sends(USER, f"errand {n}", "Ann")
    await eventually(lambda: len(answers(emu)) == 3)
    bots.kill("old")
    for n in range(3, 6):  # nobody polls until the old bot's lease lapses: these wait at Telegram
        emu.user_sends(USER, f"errand {n}", "Ann")
    await eventually(lambda: len(answers(emu)) >= 6)

    assert answers(emu) == [texts.ACK_NEW_GOAL] * 6
    assert emu.updates.conflicts == 0, "one long poll at a time: Telegram never answered 409"
    log = bots.log("new")
    assert log.count(WAITING) == 1 and TOOK_OVER in log, log[-3000:]
