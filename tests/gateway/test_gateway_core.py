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
from typing import Any

import aiohttp
import pytest
from redis import Redis

from deputy.agent.model.async_model import HttpChatModel
from deputy.agent.goals import Goal, GoalStatus, GoalStore, ModelWait
from deputy.agent.model.model_requests import GATEWAY_GROUP, REQUESTS_STREAM, ModelRequest, ModelRequests, new_request_id
from deputy.agent.model.testing import ScriptedModelServer, ScriptedResponse, message_text, text
from deputy.core.records.outbox import OUTBOX_STREAM, OutboxMessage
from deputy.core.infrastructure.redis_clients import async_client
from deputy.testing.stack import RedisServer, wait_for
from deputy.gateway.gateway import USAGE, GatewayConfig, ModelGateway


class RunningGateway:
    """A `ModelGateway` on its own event loop in a thread, as `deputy gateway` runs it."""

    def __init__(self, redis_url: str, base_url: str, claim_idle: float = 5.0, model_timeout: float = 10,
                 **config: Any) -> None:
        self.continued: list[tuple[str, int]] = []
        self.owners: list[int | None] = []  # whose turn each continued step was placed in
        self._args = (redis_url, base_url, model_timeout)
        self._config = {"concurrency": 10, "claim_idle": claim_idle, "heartbeat": 0.2, **config}
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        redis_url, base_url, model_timeout = self._args
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        redis = async_client(redis_url, max_connections=8)  # as `deputy gateway` builds it
        async with aiohttp.ClientSession() as session:
            model = HttpChatModel(session, base_url, "scripted-model", "sk-test", timeout=model_timeout)
            config = GatewayConfig(provider="scripted", **self._config)
            def continue_goal(goal: str, step: int, owner: int | None = None, pipeline: Any = None) -> None:
                self.owners.append(owner)
                self.continued.append((goal, step))

            gateway = ModelGateway(redis, model, continue_goal, config, consumer="test-gateway")
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


def waiting_goal(redis: Redis, goal_id: str = "g_gw", status: GoalStatus = GoalStatus.running,
                 user_id: int = 1) -> ModelRequest:
    """A goal checkpointed as waiting for a model request, as the runner leaves it; the request."""
    now = time.time()
    request = ModelRequest(id=new_request_id(goal_id, 2), goal_id=goal_id, step=2, user_id=user_id,
                           messages=[{"role": "user", "content": goal_id}], created_at=now)
    GoalStore(redis).save(Goal(id=goal_id, user_id=user_id, chat_id=user_id, text="hi", status=status, step=2,
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
    assert set(gateway.owners) == {1}  # the next step goes in its user's turn, named by the request
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


def one_slot_server(seconds_per_answer: float) -> ScriptedModelServer:
    """Like llama-server with `--parallel 1`: one answer at a time, the rest queued inside the server."""
    return ScriptedModelServer(lambda request: ScriptedResponse(reply=text(f"Answer to {message_text(request.messages[-1])}."),
                                                                delay_seconds=seconds_per_answer), slots=1)


def stop_goal(redis: Redis, goal_id: str) -> None:
    store = GoalStore(redis)
    goal = store.get(goal_id)
    goal.status = GoalStatus.cancelled
    store.save(goal)


def outbox_messages(redis: Redis, chat_id: int) -> list[OutboxMessage]:
    messages = [OutboxMessage.model_validate_json(fields[b"json"]) for _, fields in redis.xrange(OUTBOX_STREAM)]
    return [m for m in messages if m.chat_id == chat_id]


def outbox_texts(redis: Redis, chat_id: int) -> list[str]:
    """What the user reads: the texts of the messages sent and edited (not those taken back)."""
    return [m.text for m in outbox_messages(redis, chat_id) if m.delete_ref is None]


def test_one_slot_is_shared_in_turn_between_users_not_first_come(redis_server: RedisServer, redis: Redis) -> None:
    requests = ModelRequests(redis)
    for n in range(4):  # a busy user's four goals come first...
        requests.submit(waiting_goal(redis, f"g_busy{n}", user_id=1))
    quiet = waiting_goal(redis, "g_quiet", user_id=2)  # ...then another user's one
    requests.submit(quiet)
    with one_slot_server(0.2) as server, RunningGateway(redis_server.url, server.base_url, concurrency=1):
        wait_for(lambda: requests.outcome(quiet.id), timeout=20, what="the quiet user's answer")
        order = [message_text(r.messages[-1]) for r in server.served]
    assert server.max_in_flight == 1, "never more calls than the endpoint has slots"
    assert "g_quiet" in order[:3], f"the quiet user waited behind the busy one: {order}"


def test_the_model_timeout_starts_when_a_call_is_sent_not_while_it_waits(
    redis_server: RedisServer, redis: Redis
) -> None:
    requests = ModelRequests(redis)
    waiting = [waiting_goal(redis, f"g_user{n}", user_id=n) for n in range(6)]
    for request in waiting:
        requests.submit(request)
    # Each answer takes 0.5 s and the timeout is 1.5 s: the last call waits 2.5 s for the slot.
    with one_slot_server(0.5) as server, \
            RunningGateway(redis_server.url, server.base_url, model_timeout=1.5, concurrency=1) as gateway:
        outcomes = [wait_for(lambda r=r: requests.outcome(r.id), timeout=30, what="an answer") for r in waiting]
        wait_for(lambda: len(gateway.continued) == 6, timeout=10, what="every goal to be continued")
    assert [o.kind for o in outcomes] == ["reply"] * 6
    assert len(server.requests) == 6, "no call was retried"


def test_calls_nobody_waits_for_leave_the_queue_or_are_cancelled_in_flight(
    redis_server: RedisServer, redis: Redis
) -> None:
    requests = ModelRequests(redis)
    in_flight, queued = waiting_goal(redis, "g_first", user_id=1), waiting_goal(redis, "g_second", user_id=2)
    requests.submit(in_flight)
    with one_slot_server(60) as server, RunningGateway(redis_server.url, server.base_url, concurrency=1) as gateway:
        server.wait_for_requests(1)
        requests.submit(queued)
        wait_for(lambda: redis.xpending(REQUESTS_STREAM, GATEWAY_GROUP)["pending"] == 2, what="both to be held")
        stop_goal(redis, "g_second")  # cancelled while waiting for the slot
        stop_goal(redis, "g_first")  # cancelled while the model thinks (it would take a minute)
        outcomes = [wait_for(lambda r=r: requests.outcome(r.id), timeout=10, what="the outcome") for r in (in_flight, queued)]
        wait_for(lambda: server.in_flight == 0, timeout=10, what="the HTTP call to be dropped")
    assert [o.kind for o in outcomes] == ["discarded", "discarded"]
    assert [message_text(r.messages[-1]) for r in server.requests] == ["g_first"], "the queued call was never sent"
    assert gateway.continued == []


def test_a_user_whose_goal_waits_is_told_how_many_goals_are_ahead(redis_server: RedisServer, redis: Redis) -> None:
    release = threading.Event()

    def slow_first_answer(request):  # the model is busy with the first call until the test has looked
        release.wait(10)
        return text("Done.")

    requests = ModelRequests(redis)
    waiting = [waiting_goal(redis, f"g_user{n}", user_id=100 + n) for n in range(4)]
    for request in waiting:
        requests.submit(request)
    with ScriptedModelServer(slow_first_answer, slots=1) as server, \
            RunningGateway(redis_server.url, server.base_url, concurrency=1, notice_after=0.3):
        [first] = server.wait_for_requests(1)
        served_first = 100 + int(message_text(first.messages[-1]).removeprefix("g_user"))
        queued = [100 + n for n in range(4) if 100 + n != served_first]
        told = wait_for(lambda: all(outbox_texts(redis, user) for user in queued) and
                        {user: outbox_texts(redis, user) for user in queued}, timeout=10, what="the notices")
        release.set()
        for request in waiting:
            wait_for(lambda r=request: requests.outcome(r.id), timeout=20, what="an answer")
    assert sorted(texts[0] for texts in told.values()) == [
        "Waiting for the model: 1 goal ahead of yours.", "Waiting for the model: 2 goals ahead of yours.",
        "Waiting for the model: yours is next."]
    assert outbox_texts(redis, served_first) == [], "a goal served at once needs no notice"
    for user in queued:
        texts = outbox_texts(redis, user)
        assert texts[-1] == "The model is working on your goal now." and len(texts) <= 4, texts
        # Once the call is over the notice is taken back, so many steps leave no trail of notices.
        *told_messages, last = outbox_messages(redis, user)
        assert last.delete_ref is not None and last.delete_ref == told_messages[0].ref


@pytest.mark.parametrize("appendonly", [False, True], ids=["empty-restart", "append-only-restart"])
def test_the_gateway_answers_again_after_redis_restarts(tmp_path, appendonly: bool) -> None:
    server_redis = RedisServer(tmp_path / "redis", appendonly=appendonly).start()
    try:
        redis = server_redis.client()
        requests = ModelRequests(redis)
        with ScriptedModelServer(lambda request: text("Hello.")) as model, \
                RunningGateway(server_redis.url, model.base_url) as gateway:
            first = waiting_goal(redis, "g_before")
            requests.submit(first)
            wait_for(lambda: requests.outcome(first.id), timeout=10, what="the answer before the restart")

            server_redis.restart()
            assert bool(redis.exists("deputy:model:outcome:" + first.id)) == appendonly
            after = waiting_goal(redis, "g_after")
            requests.submit(after)
            outcome = wait_for(lambda: requests.outcome(after.id), timeout=15, what="the answer after the restart")
            wait_for(lambda: ("g_after", 2) in gateway.continued, timeout=10, what="the goal to be continued")
        assert outcome.kind == "reply"
    finally:
        server_redis.stop()


def test_a_request_from_an_older_worker_naming_no_user_is_answered_and_its_goal_continued(
    redis_server: RedisServer, redis: Redis, server: ScriptedModelServer
) -> None:
    requests = ModelRequests(redis)
    request = waiting_goal(redis, goal_id="g_old").model_copy(update={"user_id": None})
    requests.submit(request)
    with RunningGateway(redis_server.url, server.base_url) as gateway:
        outcome = wait_for(lambda: requests.outcome(request.id), timeout=10, what="the answer")
        wait_for(lambda: redis.xlen(REQUESTS_STREAM) == 0, timeout=10, what="the entry to be handled")
        wait_for(lambda: gateway.continued, timeout=10, what="the goal to be continued")
    assert outcome.kind == "reply" and gateway.continued == [("g_old", 2)] and gateway.owners == [None]


def test_the_answer_the_next_step_and_the_acknowledgement_are_written_together(
    redis_server: RedisServer, redis: Redis, server: ScriptedModelServer
) -> None:
    # With Deputy's own dispatch: the step's job is in the agent queue, its unit registered, once the entry is gone.
    from deputy.core.infrastructure.redis_clients import sync_client
    from deputy.queue.dispatch import RQDispatch, goal_unit
    from deputy.queue.inflight import Inflight
    from rq import Queue
    from rq.serializers import JSONSerializer

    requests = ModelRequests(redis)
    request = waiting_goal(redis, goal_id="g_tx", user_id=4)
    requests.submit(request)
    dispatch = RQDispatch(sync_client(redis_server.url))

    async def main(stop: asyncio.Event) -> None:
        client = async_client(redis_server.url, max_connections=8)
        async with aiohttp.ClientSession() as session:
            model = HttpChatModel(session, server.base_url, "scripted-model", "sk-test", timeout=10)
            gateway = ModelGateway(client, model, dispatch.step, GatewayConfig(provider="scripted", concurrency=4,
                                                                               heartbeat=0.2), consumer="tx")
            task = asyncio.create_task(gateway.run(stop))
            while await client.xlen(REQUESTS_STREAM):
                await asyncio.sleep(0.02)
            stop.set()
            await task
        await client.aclose()

    asyncio.run(main(asyncio.Event()))
    assert requests.outcome(request.id).kind == "reply"
    jobs = Queue("agent", connection=redis, serializer=JSONSerializer).jobs
    assert [job.args[0]["goal_id"] for job in jobs] == ["g_tx"] and jobs[0].meta.get("owner") == 4
    assert Inflight(redis).get(goal_unit("g_tx")).job_id == jobs[0].id
