"""The model gateway's own promises, with real Redis and the scripted model over HTTP.

A request is answered once (duplicates cost no second model call), a 429 makes the gateway
wait as long as Retry-After says and try again, a request whose goal stopped waiting is set
aside without calling the model, and requests a dead gateway left behind are taken over.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import aiohttp
import pytest
from redis import Redis
from redis.asyncio import BlockingConnectionPool
from redis.asyncio import Redis as AsyncRedis

from agent.async_model import HttpChatModel
from agent.goals import Goal, GoalStatus, GoalStore, ModelWait
from agent.model_requests import GATEWAY_GROUP, REQUESTS_STREAM, ModelRequest, ModelRequests, new_request_id
from agent.testing import ScriptedModelServer, ScriptedResponse, text
from deputy.testing import RedisServer, wait_for
from workers.gateway import USAGE, GatewayConfig, ModelGateway


class RunningGateway:
    """A `ModelGateway` on its own event loop in a thread, as `deputy gateway` runs it."""

    def __init__(self, redis_url: str, base_url: str, claim_idle: float = 5.0) -> None:
        self.continued: list[tuple[str, int]] = []
        self._args = (redis_url, base_url, claim_idle)
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        redis_url, base_url, claim_idle = self._args
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        redis = AsyncRedis(connection_pool=BlockingConnectionPool.from_url(redis_url, max_connections=8, timeout=None))
        async with aiohttp.ClientSession() as session:
            model = HttpChatModel(session, base_url, "scripted-model", "sk-test", timeout=10)
            config = GatewayConfig(provider="scripted", concurrency=10, claim_idle=claim_idle, heartbeat=0.2)
            gateway = ModelGateway(redis, model, lambda goal, step: self.continued.append((goal, step)), config,
                                   consumer="test-gateway")
            self._ready.set()
            await gateway.run(self._stop)
        await redis.aclose()

    def __enter__(self) -> RunningGateway:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(lambda request: text("Hello.")) as s:
        yield s


def waiting_goal(redis: Redis, goal_id: str = "g_gw", status: GoalStatus = GoalStatus.running) -> ModelRequest:
    """A goal checkpointed as waiting for a model request, as the runner leaves it; the request."""
    now = time.time()
    request = ModelRequest(id=new_request_id(goal_id, 2), goal_id=goal_id, step=2,
                           messages=[{"role": "user", "content": "hi"}], created_at=now)
    GoalStore(redis).save(Goal(id=goal_id, user_id=1, chat_id=1, text="hi", status=status, step=2,
                               waiting_model=ModelWait(request_id=request.id, step=2), created_at=now, updated_at=now))
    return request


def usage(redis: Redis) -> dict[str, int]:
    return {k.decode(): int(v) for k, v in redis.hgetall(USAGE.format("scripted")).items()}


def test_a_request_is_answered_once_and_its_goal_continued(
    redis_server: RedisServer, redis: Redis, server: ScriptedModelServer
) -> None:
    requests = ModelRequests(redis)
    request = waiting_goal(redis)
    requests.submit(request)
    requests.submit(request)  # delivered twice (a worker re-ran its step)
    with RunningGateway(redis_server.url, server.base_url) as gateway:
        outcome = wait_for(lambda: requests.outcome(request.id), timeout=10, what="the answer")
        wait_for(lambda: redis.xlen(REQUESTS_STREAM) == 0, timeout=10, what="both entries to be handled")
    assert outcome.kind == "reply" and outcome.reply.content == "Hello."
    assert len(server.requests) == 1, "a duplicate delivery costs no second model call"
    assert set(gateway.continued) == {("g_gw", 2)}
    assert not requests.pending(request.id)
    assert usage(redis)["requests"] == 1 and usage(redis)["completion_tokens"] > 0


def test_a_rate_limit_waits_for_retry_after_then_tries_again(
    redis_server: RedisServer, redis: Redis, server: ScriptedModelServer
) -> None:
    answers = iter([ScriptedResponse.http_error(429, "slow down", retry_after=0.3), text("Now then.")])
    server.responder = lambda request: next(answers)
    requests = ModelRequests(redis)
    request = waiting_goal(redis)
    requests.submit(request)
    with RunningGateway(redis_server.url, server.base_url) as gateway:
        outcome = wait_for(lambda: requests.outcome(request.id), timeout=10, what="the answer")
        wait_for(lambda: gateway.continued, timeout=10, what="the goal to be continued")
    assert outcome.kind == "reply" and outcome.reply.content == "Now then."
    assert len(server.requests) == 2
    assert usage(redis)["rate_limited"] == 1 and usage(redis)["errors"] == 0


def test_a_refused_request_becomes_a_typed_error_for_the_runner(
    redis_server: RedisServer, redis: Redis, server: ScriptedModelServer
) -> None:
    server.responder = lambda request: ScriptedResponse.http_error(401, "bad key")
    requests = ModelRequests(redis)
    request = waiting_goal(redis)
    requests.submit(request)
    with RunningGateway(redis_server.url, server.base_url) as gateway:
        outcome = wait_for(lambda: requests.outcome(request.id), timeout=10, what="the answer")
        wait_for(lambda: gateway.continued, timeout=10, what="the goal to be continued")
    error = outcome.failure.error()
    assert not error.retryable and "refused the request (HTTP 401)" in error.user_message


def test_a_request_whose_goal_stopped_waiting_is_set_aside_without_a_model_call(
    redis_server: RedisServer, redis: Redis, server: ScriptedModelServer
) -> None:
    requests = ModelRequests(redis)
    request = waiting_goal(redis, status=GoalStatus.cancelled)
    requests.submit(request)
    with RunningGateway(redis_server.url, server.base_url) as gateway:
        outcome = wait_for(lambda: requests.outcome(request.id), timeout=10, what="the outcome")
    assert outcome.kind == "discarded"
    assert server.requests == [] and gateway.continued == []


def test_requests_left_by_a_dead_gateway_are_taken_over(
    redis_server: RedisServer, redis: Redis, server: ScriptedModelServer
) -> None:
    requests = ModelRequests(redis)
    request = waiting_goal(redis)
    redis.xgroup_create(REQUESTS_STREAM, GATEWAY_GROUP, id="0", mkstream=True)
    requests.submit(request)
    # Another gateway read it, then died before answering: it stays pending under its name.
    [[_, [_entry]]] = redis.xreadgroup(GATEWAY_GROUP, "dead-gateway", {REQUESTS_STREAM: ">"}, count=1)
    with RunningGateway(redis_server.url, server.base_url, claim_idle=0.5) as gateway:
        outcome = wait_for(lambda: requests.outcome(request.id), timeout=10, what="the takeover")
        wait_for(lambda: gateway.continued, timeout=10, what="the goal to be continued")
    assert outcome.kind == "reply"
    assert redis.xpending(REQUESTS_STREAM, GATEWAY_GROUP)["pending"] == 0
