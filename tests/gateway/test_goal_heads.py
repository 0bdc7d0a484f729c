"""The gateway reads what it needs of a goal from the head of its record, for every form a record takes."""

from __future__ import annotations

import asyncio

import pytest
from redis import Redis

from deputy.agent.goals import Goal, GoalStatus, GoalStore, ModelWait
from deputy.core.confidential.keys import ConfidentialKeys
from deputy.core.infrastructure.redis_clients import async_client
from deputy.gateway.goal_heads import HEAD_BYTES, goal_heads, read_head


pytestmark = pytest.mark.usefixtures("asyncio_garbage_collected")


def _goal(goal_id: str, user_id: int, words: str, **fields) -> Goal:
    return Goal(id=goal_id, user_id=user_id, chat_id=user_id + 1, text=words, created_at=1.0, updated_at=1.0,
                messages=[{"role": "user", "content": words}], **fields)


def _heads(redis_server, keys: list[str]) -> list:
    async def read() -> list:
        client = async_client(redis_server.url)
        try:
            return await goal_heads(client, keys)
        finally:
            await client.aclose()

    return asyncio.run(read())


def test_a_long_goal_waiting_for_a_model_call_is_read_from_its_first_bytes(redis: Redis, redis_server) -> None:
    store = GoalStore(redis)
    long_words = "a goal told at length " * 5_000  # a record of ~110 KB
    store.save(_goal("g_long", 7, long_words, step=12, waiting_model=ModelWait(request_id="m-g_long-12-ab", step=12)))
    raw = redis.get("deputy:goal:g_long")
    assert len(raw) > 100_000
    assert read_head(raw[:HEAD_BYTES]) == {"user_id": 7, "chat_id": 8, "status": "running", "step": 12,
                                           "waiting_model": {"request_id": "m-g_long-12-ab", "step": 12}}
    assert _heads(redis_server, ["deputy:goal:g_long", "deputy:goal:none"]) == [
        {"user_id": 7, "chat_id": 8, "status": "running", "step": 12,
         "waiting_model": {"request_id": "m-g_long-12-ab", "step": 12}}, None]


def test_a_paused_goal_and_a_sealed_goal_read_the_same_way(redis: Redis, redis_server) -> None:
    store = GoalStore(redis)
    store.save(_goal("g_paused", 3, "pause me", status=GoalStatus.paused, step=2))
    keys = ConfidentialKeys(redis)
    keys.turn_on(5, "correct horse battery staple")
    store.save(_goal("g_sealed", 5, "my private errand", step=4, waiting_model=ModelWait(request_id="m-x", step=4)))
    assert b"my private errand" not in redis.get("deputy:goal:g_sealed")  # sealed: the words are not in the clear
    paused, sealed = _heads(redis_server, ["deputy:goal:g_paused", "deputy:goal:g_sealed"])
    assert paused["status"] == "paused" and paused["waiting_model"] is None
    assert sealed == {"user_id": 5, "chat_id": 6, "status": "running", "step": 4,
                      "waiting_model": {"request_id": "m-x", "step": 4}}


def test_a_record_in_an_older_field_order_is_read_whole(redis: Redis, redis_server) -> None:
    # Written by a Deputy whose records put the words before the status.
    redis.set("deputy:goal:g_old", b'{"schema_version":3,"revision":4,"id":"g_old","user_id":9,"chat_id":9,'
                                   b'"text":"older","status":"running","step":3,'
                                   b'"waiting_model":{"request_id":"m-old","step":3}}')
    [fields] = _heads(redis_server, ["deputy:goal:g_old"])
    assert fields["status"] == "running" and fields["waiting_model"]["request_id"] == "m-old"
