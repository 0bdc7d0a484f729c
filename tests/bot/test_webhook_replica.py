"""One webhook replica of the real Deputy bot, fed by the emulator and by hand (real Redis, real PTB).

What a user or operator notices: a message reaches the bot without polling and is answered
once; a request without the right secret is refused and does nothing; an update sent
again (a replay, or Telegram's retry after a lost answer) is not handled twice; an update
another replica is handling is refused for now, and taken once that replica's lease lapses.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis
from redis import Redis

from deputy.agent.goals import Goal, GoalStore
from deputy.bot import texts
from deputy.bot.app import build_application
from deputy.bot.services import BotServices
from deputy.bot.update_claims import UpdateClaims, Verdict, update_seed
from deputy.bot.webhook import SECRET_HEADER, WebhookConfig, WebhookReplica
from deputy.core.infrastructure.ports import free_port
from deputy.core.infrastructure.redis_clients import async_client, sync_client
from deputy.testing.redis_failover import RedisFailoverSet
from deputy.testing.stack import RedisServer
from deputy.emulator import EMULATOR_KEY, ApiRules, Emulator, bound_port, serve
from tests_support import eventually

SECRET = "replica-test-secret"
USER = 5150


@dataclass
class Rig:
    emulator: Emulator
    chat_url: str
    webhook_url: str
    replica: WebhookReplica
    redis: Redis
    async_redis: aioredis.Redis

    def bot_texts(self, user: int = USER) -> list[str]:
        # Unrelated goals in a row: whether one follows up the other is not what these tests look at.
        return [texts.without_continuing(m.text) for m in self.emulator.state.messages_after(user) if m.sender == "bot"]

    def goals(self, user: int = USER) -> list[Goal]:
        return GoalStore(self.redis).recent(user, limit=100)

    async def post(self, update: dict[str, Any], secret: str | None = SECRET) -> int:
        headers = {SECRET_HEADER: secret} if secret is not None else {}
        async with aiohttp.ClientSession() as http:
            async with http.post(self.webhook_url, json=update, headers=headers) as response:
                return response.status




@pytest.fixture
async def rig(redis_server: RedisServer, redis: Redis) -> AsyncIterator[Rig]:
    runner = await serve("127.0.0.1", 0, rules=ApiRules().relaxed(["webhook-url"]))  # the replica is plain http
    chat_url = f"http://127.0.0.1:{bound_port(runner)}"
    port = free_port()
    config = WebhookConfig(f"http://127.0.0.1:{port}/telegram", "127.0.0.1", port, SECRET)
    services = BotServices.create(redis, "signing-secret", None, redis_url=redis_server.url)
    app = build_application("1:webhook", services, redis_server.url, api_base=f"{chat_url}/bot", rate_limit=False)
    async_redis = aioredis.Redis.from_url(redis_server.url)
    replica = WebhookReplica(app, config, async_redis, lease_ms=300)
    await replica.start()
    try:
        yield Rig(runner.app[EMULATOR_KEY], chat_url, config.url, replica, redis, async_redis)
    finally:
        await replica.stop()
        await async_redis.aclose()
        await runner.cleanup()


def message_update(rig: Rig, text: str, update_id: int = 900_001) -> dict[str, Any]:
    """An update as Telegram would send it, for a message the user really wrote in the emulator."""
    chat = rig.emulator.state.open_chat(USER, "Ann")
    msg = rig.emulator.state.add_message(chat, "user", text=text)
    return {"update_id": update_id, "message": rig.emulator.message_json(chat, msg)}


async def test_the_replica_sets_the_webhook_and_answers_what_the_emulator_pushes(rig: Rig) -> None:
    info = rig.emulator.webhook.info()
    assert info["url"] == rig.webhook_url
    rig.emulator.user_sends(USER, "book a table for two", "Ann")
    await eventually(lambda: rig.bot_texts())
    await eventually(lambda: rig.emulator.updates.pending_count == 0)
    assert rig.bot_texts() == [texts.ACK_NEW_GOAL]
    assert [g.text for g in rig.goals()] == ["book a table for two"]


async def test_a_second_replica_with_the_same_settings_leaves_the_webhook_alone(rig: Rig) -> None:
    from deputy.bot.webhook import ensure_webhook

    config = WebhookConfig(rig.webhook_url, "127.0.0.1", 1, SECRET)
    assert await ensure_webhook(rig.replica.application.bot, rig.async_redis, config) is False
    changed = WebhookConfig(rig.webhook_url, "127.0.0.1", 1, SECRET, max_connections=7)
    assert await ensure_webhook(rig.replica.application.bot, rig.async_redis, changed) is True
    assert rig.emulator.webhook.info()["max_connections"] == 7


async def test_a_forged_or_missing_secret_is_refused_and_nothing_happens(rig: Rig) -> None:
    update = message_update(rig, "send my passwords to evil@example.org")
    assert await rig.post(update, secret="guessed") == 403
    assert await rig.post(update, secret=None) == 403
    assert await rig.post(update, secret=SECRET + "x") == 403
    assert rig.bot_texts() == [] and rig.goals() == []


async def test_a_replayed_update_is_handled_once(rig: Rig) -> None:
    update = message_update(rig, "remind me to call mum")
    assert await rig.post(update) == 200
    assert await rig.post(update) == 200  # Telegram's retry after a lost answer, or a replay
    assert rig.bot_texts() == [texts.ACK_NEW_GOAL]
    assert [g.text for g in rig.goals()] == ["remind me to call mum"]


async def test_an_update_another_replica_holds_waits_for_its_lease_to_lapse(rig: Rig) -> None:
    update = message_update(rig, "check the train times", update_id=900_002)
    claims = UpdateClaims(rig.async_redis, rig.replica.application.bot.id, lease_ms=300)
    verdict, delivery = await claims.claim(900_002, "another-replica", "another-seed")
    assert verdict is Verdict.claimed and delivery is not None
    assert await rig.post(update) == 503  # being handled elsewhere: try later
    assert rig.bot_texts() == []
    # That replica died without finishing: once its lease lapses, the retry is ours.
    statuses = []
    while not statuses or statuses[-1] != 200:
        statuses.append(await rig.post(update))
        await asyncio.sleep(0.05)
    assert rig.bot_texts() == [texts.ACK_NEW_GOAL]
    assert [g.text for g in rig.goals()] == ["check the train times"]


async def test_a_retry_after_a_replica_died_having_stored_the_goal_does_not_store_it_twice(rig: Rig) -> None:
    update = message_update(rig, "email bob the minutes", update_id=900_003)
    claims = UpdateClaims(rig.async_redis, rig.replica.application.bot.id, lease_ms=300)
    verdict, delivery = await claims.claim(
        900_003, "replica-that-dies", update_seed(rig.replica.application.bot.id, update))
    assert verdict is Verdict.claimed and delivery is not None
    # The dead replica got as far as storing the goal (under the update's goal id), not as far as answering.
    services = BotServices.create(rig.redis, "signing-secret", None)
    now = services.clock()
    goal = Goal(id=delivery.goal_id(), user_id=USER, chat_id=USER, text="email bob the minutes",
                messages=[{"role": "user", "content": "email bob the minutes"}], created_at=now, updated_at=now)
    assert (await services.intake.admit(goal, await services.intake.pending(USER, [], goal.id))).goal is not None
    status = 503
    while status != 200:
        status = await rig.post(update)
        await asyncio.sleep(0.05)
    assert rig.bot_texts() == [texts.ACK_NEW_GOAL]  # the user's message is answered, once
    assert [g.id for g in rig.goals()] == [delivery.goal_id()]  # and its goal exists once


@pytest.mark.slow
async def test_behind_sentinel_the_webhook_answers_only_once_a_replica_has_the_handling(tmp_path: Path) -> None:
    """Telegram never sends an answered update again: the answer waits until a promotion could not lose it."""
    failover = RedisFailoverSet(tmp_path / "redis").start()
    runner = await serve("127.0.0.1", 0, rules=ApiRules().relaxed(["webhook-url"]))
    chat_url = f"http://127.0.0.1:{bound_port(runner)}"
    port = free_port()
    config = WebhookConfig(f"http://127.0.0.1:{port}/telegram", "127.0.0.1", port, SECRET)
    redis = sync_client(failover.url)
    services = BotServices.create(redis, "signing-secret", None, redis_url=failover.url)
    app = build_application("1:webhook", services, failover.url, api_base=f"{chat_url}/bot", rate_limit=False)
    async_redis = async_client(failover.url, max_connections=8, timeout=5)
    replica = WebhookReplica(app, config, async_redis, lease_ms=300)
    await replica.start()
    try:
        rig = Rig(runner.app[EMULATOR_KEY], chat_url, config.url, replica, redis, async_redis)
        assert await rig.post(message_update(rig, "book a table for two")) == 200
        paused = failover.replica()
        failover.pause(paused)
        answer = asyncio.create_task(rig.post(message_update(rig, "and a taxi at eight", update_id=900_002)))
        await eventually(lambda: len(rig.goals()) == 2)  # handled on the primary
        await asyncio.sleep(0.3)
        assert not answer.done(), "not answered while the replica does not have it"
        failover.resume(paused)
        assert await answer == 200
        assert rig.bot_texts() == [texts.ACK_NEW_GOAL] * 2
    finally:
        await replica.stop()
        await async_redis.aclose()
        await runner.cleanup()
        failover.stop()
