"""Goals the bot acknowledged and Redis then lost (it came back empty): found, so the user can be told.

Real Redis; "losing the data" is FLUSHALL, which leaves Redis as a restart without
persistence does.
"""

from __future__ import annotations

from redis import Redis

from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.bot.lost_goals import LostGoals, lost_message
from deputy.core.infrastructure.redis_clients import async_client
from deputy.testing.stack import RedisServer

USER = 6170


def stored(redis: Redis, goal_id: str, text: str) -> Goal:
    goal = Goal(id=goal_id, user_id=USER, chat_id=USER, text=text, messages=[], created_at=0, updated_at=0)
    return GoalStore(redis).save(goal)


async def test_goals_lost_with_redis_data_are_found_and_finished_ones_are_not(
    redis_server: RedisServer, redis: Redis
) -> None:
    client = async_client(redis_server.url)
    goals = LostGoals()
    for goal_id, text in (("g_a", "book a table for two"), ("g_b", "email bob the minutes")):
        stored(redis, goal_id, text)
        goals.remember(goal_id, USER, USER, text)
    assert await goals.check(client) == []  # nothing lost; the epoch is set

    finished = GoalStore(redis).get("g_b")
    finished.status = GoalStatus.done
    GoalStore(redis).save(finished)
    assert await goals.check(client) == []  # g_b finished: no longer watched

    redis.flushall()  # Redis came back empty
    lost = await goals.check(client)
    assert [(a.goal_id, a.text) for a in lost] == [("g_a", "book a table for two")]
    assert await goals.check(client) == [], "each lost goal is told once"
    message = lost_message(lost[0], "ident")
    assert "I lost “book a table for two”" in message.text
    assert [b.text for row in message.buttons for b in row] == ["Start again"]
    await client.aclose()


async def test_a_goal_erased_on_purpose_is_not_reported_lost(redis_server: RedisServer, redis: Redis) -> None:
    client = async_client(redis_server.url)
    goals = LostGoals()
    stored(redis, "g_c", "find a plumber")
    goals.remember("g_c", USER, USER, "find a plumber")
    assert await goals.check(client) == []
    redis.delete("deputy:goal:g_c")  # the user erased their data: the epoch is still there
    assert await goals.check(client) == []
    redis.flushall()
    assert await goals.check(client) == [], "forgotten once it was gone without a loss"
    await client.aclose()
