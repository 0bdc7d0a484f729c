"""The model gateway: one asyncio process holding many model calls in flight at once.

Agent workers hand model calls over as `ModelRequest`s on a Redis stream
(`agent.model_requests`); a worker waiting on the model would serve one goal at a time,
the gateway serves hundreds. For each request it checks that the goal still waits for
it, calls the model (at most `concurrency` calls in flight per provider, pausing after a
429 for as long as Retry-After says), stores the reply or a typed error under the request
id, counts the tokens, enqueues the goal's next step and only then acknowledges the
entry. A gateway that dies keeps its entries pending in the consumer group; any gateway
claims entries idle for `claim_idle` seconds (a live gateway keeps its own fresh), so a
restarted or another gateway picks them up within seconds. Outcomes are stored once (the
first wins) and steps check their goal's state, so a duplicate delivery changes nothing.
Prompts and keys are never logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError, ResponseError

from agent.async_model import AsyncChatModel, ModelRateLimited
from agent.goals import GOAL_KEY
from agent.model import ModelError, TokenUsage
from agent.model_requests import (
    GATEWAY_GROUP,
    OUTCOME,
    OUTCOME_TTL,
    PENDING,
    REQUESTS_STREAM,
    ModelFailure,
    ModelOutcome,
    ModelRequest,
)

log = logging.getLogger(__name__)

USAGE = "deputy:model:usage:{}"


@dataclass(frozen=True)
class GatewayConfig:
    provider: str
    concurrency: int = 500
    claim_idle: float = 5.0
    heartbeat: float = 1.0
    rate_limit_retries: int = 3
    default_retry_after: float = 1.0
    max_retry_after: float = 60.0


class ProviderLimit:
    """At most `concurrency` calls in flight to one provider, and none while it asked us to wait."""

    def __init__(self, concurrency: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._slots = asyncio.Semaphore(concurrency)
        self._clock = clock
        self._resume_at = 0.0

    def back_off(self, seconds: float) -> None:
        self._resume_at = max(self._resume_at, self._clock() + seconds)

    async def __aenter__(self) -> None:
        while (wait := self._resume_at - self._clock()) > 0:
            await asyncio.sleep(wait)
        await self._slots.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self._slots.release()


class ModelGateway:
    def __init__(
        self,
        redis: Redis,
        model: AsyncChatModel,
        continue_goal: Callable[[str, int], None],
        config: GatewayConfig,
        consumer: str,
    ) -> None:
        self._redis = redis
        self._model = model
        self._continue_goal = continue_goal  # synchronous (RQ): run on a few threads
        self._config = config
        self._consumer = consumer
        self._limit = ProviderLimit(config.concurrency)
        self._entries: dict[str, asyncio.Task] = {}  # stream entry id -> its handler
        self._requests: set[str] = set()  # request ids being answered here
        self._room = asyncio.Event()
        self._threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="gateway-enqueue")
        self._claim_cursor = "0-0"

    @property
    def in_flight(self) -> int:
        return len(self._entries)

    async def run(self, stop: asyncio.Event) -> None:
        await self._ensure_group()
        loops = [asyncio.create_task(self._read(stop)), asyncio.create_task(self._maintain(stop))]
        await stop.wait()
        for task in [*loops, *self._entries.values()]:
            task.cancel()  # unacknowledged entries stay pending: another gateway claims them
        await asyncio.gather(*loops, *self._entries.values(), return_exceptions=True)
        self._threads.shutdown(wait=True)

    async def _ensure_group(self) -> None:
        try:
            await self._redis.xgroup_create(REQUESTS_STREAM, GATEWAY_GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def _read(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            free = self._config.concurrency - self.in_flight
            if free <= 0:
                self._room.clear()
                await self._room.wait()
                continue
            try:
                batches = await self._redis.xreadgroup(GATEWAY_GROUP, self._consumer, {REQUESTS_STREAM: ">"},
                                                       count=free, block=1000)
            except RedisError:
                log.warning("model gateway: Redis unavailable, retrying")
                await asyncio.sleep(1)
                continue
            for _, entries in batches or []:
                for entry_id, fields in entries:
                    self._start(entry_id, fields)

    async def _maintain(self, stop: asyncio.Event) -> None:
        """Keep our own entries fresh, and claim those a dead gateway left behind."""
        while not stop.is_set():
            try:
                mine = list(self._entries)
                for i in range(0, len(mine), 500):
                    await self._redis.xclaim(REQUESTS_STREAM, GATEWAY_GROUP, self._consumer, 0, mine[i:i + 500],
                                             justid=True)
                free = self._config.concurrency - self.in_flight
                if free > 0:
                    cursor, claimed, *_ = await self._redis.xautoclaim(
                        REQUESTS_STREAM, GATEWAY_GROUP, self._consumer, int(self._config.claim_idle * 1000),
                        start_id=self._claim_cursor, count=free)
                    self._claim_cursor = _text(cursor)
                    for entry_id, fields in claimed:
                        if fields and _text(entry_id) not in self._entries:
                            log.info("model gateway: took over request entry %s", _text(entry_id))
                            self._start(entry_id, fields)
            except RedisError:
                log.warning("model gateway: Redis unavailable, retrying")
            await asyncio.sleep(self._config.heartbeat)

    def _start(self, entry_id: Any, fields: dict) -> None:
        key = _text(entry_id)
        task = asyncio.create_task(self._handle(key, fields))
        self._entries[key] = task

        def finished(_: asyncio.Task) -> None:
            self._entries.pop(key, None)
            self._room.set()

        task.add_done_callback(finished)

    async def _handle(self, entry_id: str, fields: dict) -> None:
        try:
            request = ModelRequest.parse_trusted(fields.get(b"request") or fields.get("request") or b"")
        except ValueError:  # ValidationError is one too
            log.error("model gateway: dropping unreadable request entry %s", entry_id)
            await self._acknowledge(entry_id)
            return
        if request.id in self._requests:
            await self._acknowledge(entry_id)  # the same request twice: the other entry answers it
            return
        self._requests.add(request.id)
        try:
            outcome = await self._answer(request)
            if outcome.kind != "discarded":
                await asyncio.get_running_loop().run_in_executor(
                    self._threads, self._continue_goal, request.goal_id, request.step)
            await self._acknowledge(entry_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            # Left pending: claimed again (here or elsewhere) after `claim_idle`.
            log.exception("model gateway: request %s failed; it will be retried", request.id)
        finally:
            self._requests.discard(request.id)

    async def _answer(self, request: ModelRequest) -> ModelOutcome:
        stored = await self._redis.get(OUTCOME.format(request.id))
        if stored:
            return ModelOutcome.model_validate_json(stored)
        if not await self._goal_waits_for(request):
            return await self._store(ModelOutcome(request_id=request.id, kind="discarded"), TokenUsage(), 0, 0)
        outcome, usage, limited = await self._ask(request)
        if not await self._goal_waits_for(request):
            # Paused, cancelled or changed while the model thought: the goal asks again if it goes on.
            outcome = ModelOutcome(request_id=request.id, kind="discarded")
        return await self._store(outcome, usage, 1 + limited, limited)

    async def _ask(self, request: ModelRequest) -> tuple[ModelOutcome, TokenUsage, int]:
        limited = 0
        for _ in range(self._config.rate_limit_retries + 1):
            async with self._limit:
                try:
                    reply = await self._model.complete(request.messages, request.tools)
                except ModelRateLimited as exc:
                    limited += 1
                    wait = exc.retry_after if exc.retry_after is not None else self._config.default_retry_after
                    self._limit.back_off(min(wait, self._config.max_retry_after))
                    error: ModelError = exc
                    continue
                except ModelError as exc:
                    log.warning("model gateway: request %s failed: %s", request.id, exc)
                    return ModelOutcome(request_id=request.id, kind="error", failure=ModelFailure.of(exc)), \
                        TokenUsage(), limited
            return ModelOutcome(request_id=request.id, kind="reply", reply=reply), reply.usage, limited
        log.warning("model gateway: request %s still rate limited after %d tries", request.id, limited)
        return ModelOutcome(request_id=request.id, kind="error", failure=ModelFailure.of(error)), TokenUsage(), limited

    async def _goal_waits_for(self, request: ModelRequest) -> bool:
        raw = await self._redis.get(GOAL_KEY.format(request.goal_id))
        if raw is None:
            return False
        goal = json.loads(raw)  # only three fields are needed: no full validation
        wait = goal.get("waiting_model") or {}
        return goal.get("status") == "running" and goal.get("step") == request.step and \
            wait.get("request_id") == request.id

    async def _store(self, outcome: ModelOutcome, usage: TokenUsage, calls: int, limited: int) -> ModelOutcome:
        usage_key = USAGE.format(self._config.provider)
        pipe = self._redis.pipeline(transaction=True)
        pipe.set(OUTCOME.format(outcome.request_id), outcome.model_dump_json(), nx=True, ex=OUTCOME_TTL)
        pipe.delete(PENDING.format(outcome.request_id))
        if calls:
            pipe.hincrby(usage_key, "requests", calls)
            pipe.hincrby(usage_key, "prompt_tokens", usage.prompt_tokens)
            pipe.hincrby(usage_key, "completion_tokens", usage.completion_tokens)
            pipe.hincrby(usage_key, "errors", 1 if outcome.kind == "error" else 0)
            pipe.hincrby(usage_key, "rate_limited", limited)
        first, *_ = await pipe.execute()
        if first:
            return outcome
        stored = await self._redis.get(OUTCOME.format(outcome.request_id))  # another delivery got there first
        return ModelOutcome.model_validate_json(stored) if stored else outcome

    async def _acknowledge(self, entry_id: str) -> None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.xack(REQUESTS_STREAM, GATEWAY_GROUP, entry_id)
        pipe.xdel(REQUESTS_STREAM, entry_id)  # prompts are big: keep the stream to what is pending
        await pipe.execute()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
