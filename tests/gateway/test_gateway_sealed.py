"""The model gateway keeps a confidential user's answer sealed to their key, and everyone else's in clear."""

from __future__ import annotations

from redis import Redis

from deputy.agent.model.model_requests import OUTCOME, ModelRequests
from deputy.agent.model.testing import ScriptedModelServer, text
from deputy.core.confidential.keys import ConfidentialKeys
from deputy.testing.stack import RedisServer, wait_for
from tests.gateway.test_gateway_core import RunningGateway, waiting_goal


def test_a_confidential_users_answer_is_stored_sealed_and_another_users_in_clear(
    redis_server: RedisServer, redis: Redis
) -> None:
    ConfidentialKeys(redis).turn_on(41, "a long enough passphrase")
    requests = ModelRequests(redis)
    sealed = waiting_goal(redis, goal_id="g_sealed", user_id=41)
    clear = waiting_goal(redis, goal_id="g_clear", user_id=42)
    requests.submit(sealed)
    requests.submit(clear)
    with ScriptedModelServer(lambda r: text("The secret plan.")) as server:
        with RunningGateway(redis_server.url, server.base_url) as gateway:
            wait_for(lambda: len(gateway.continued) == 2, timeout=10, what="both goals continued")
    kept = redis.get(OUTCOME.format(sealed.id))
    assert kept is not None and b'"sealed"' in kept and b"secret plan" not in kept
    assert b"The secret plan." in (redis.get(OUTCOME.format(clear.id)) or b"")
