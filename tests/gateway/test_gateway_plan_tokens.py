"""The model gateway counts each call's tokens against the goal owner's plan, in the owner's own day."""

from __future__ import annotations

import time

from redis import Redis

from deputy.agent.model.model_requests import ModelRequests
from deputy.agent.model.testing import ScriptedModelServer, text
from deputy.core.accounts.plans import default_plans
from deputy.core.accounts.quota_periods import periods
from deputy.core.accounts.quota_store import QuotaStore
from deputy.core.accounts.quotas import Quotas
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.testing.stack import RedisServer, wait_for
from tests.gateway.test_gateway_core import RunningGateway, usage, waiting_goal


def test_a_calls_tokens_count_for_the_user_who_asked_and_per_model(redis_server: RedisServer, redis: Redis) -> None:
    UserSettingsStore(redis).save(31, UserSettings(timezone="Pacific/Auckland"))
    requests = ModelRequests(redis)
    request = waiting_goal(redis, user_id=31)
    requests.submit(request)
    with ScriptedModelServer(lambda r: text("Hello.")) as server:
        with RunningGateway(redis_server.url, server.base_url, model="main-model"):
            wait_for(lambda: requests.outcome(request.id), timeout=10, what="the answer")
    spent = usage(redis)["prompt_tokens"] + usage(redis)["completion_tokens"]
    assert spent > 0
    day = QuotaStore(redis).used(31, periods(time.time(), "Pacific/Auckland"))["day"]
    assert day == {"tokens": spent, "tokens:main-model": spent}
    assert Quotas(redis, default_plans()).usage(99, time.time()).used["day"] == {}  # nobody else's
