"""The model gateway: one asyncio process holding many model calls in flight at once.

Agent workers hand model calls over as `ModelRequest`s on a Redis stream
(`deputy.agent.model.model_requests`); a worker waiting on the model would serve one goal at a time,
the gateway serves hundreds. For each request it checks that the goal still waits for
it, waits for one of the endpoint's slots (`deputy.gateway.endpoint_slots`: at most `concurrency`
calls in flight, the rest served round robin between users, a 429 pausing all for as long
as Retry-After says), calls the model, stores the reply or a typed error under the request
id, counts the tokens, enqueues the goal's next step and only then acknowledges the
entry. Every second it checks that the goals of the calls it holds still wait: a call
nobody waits for (goal paused, cancelled, edited) leaves the queue, or if already sent,
its HTTP request is cancelled; a user whose goal waits for a slot is told where it stands
(`deputy.gateway.wait_notices`). When Redis comes back without the consumer group (restarted
empty, failed over to an empty replica) the gateway creates it again and carries on. A gateway that dies keeps its entries pending in the consumer group; any gateway
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
from functools import partial
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError, ResponseError

from deputy.agent.model.async_model import AsyncChatModel, ModelRateLimited
from deputy.agent.goals import GOAL_KEY
from deputy.agent.model.chat_model import ModelError, TokenUsage
from deputy.agent.model.model_requests import (
    GATEWAY_GROUP,
    OUTCOME,
    OUTCOME_TTL,
    PENDING,
    REQUESTS_STREAM,
    ModelFailure,
    ModelOutcome,
    ModelRequest,
)
from deputy.core.infrastructure import metrics
from deputy.core.confidential.keys import public_key_field
from deputy.core.confidential.sealing import seal
from deputy.core.records.outbox import OUTBOX_MAXLEN, OUTBOX_STREAM, OutboxMessage
from deputy.core.accounts.quotas import queue_tokens
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.gateway.endpoint_slots import EndpointSlots
from deputy.gateway.goal_heads import goal_heads, goal_heads_and
from deputy.gateway.wait_notices import NOTICE_AFTER, WORKING, waiting_text, worth_telling

log = logging.getLogger(__name__)

USAGE = "deputy:model:usage:{}"
SWEEP_BATCH = 64


@dataclass(frozen=True)
class GatewayConfig:
    provider: str
    concurrency: int = 500  # calls in flight to the endpoint at once (its slots)
    held: int = 500  # requests taken from the stream at once: waiting for a slot or in flight
    requests_per_minute: float | None = None
    claim_idle: float = 5.0
    heartbeat: float = 1.0
    rate_limit_retries: int = 3
    default_retry_after: float = 1.0
    max_retry_after: float = 60.0
    notice_after: float = NOTICE_AFTER
    model: str | None = None  # counted in users' plans by this name (a helper model apart from the main one)


@dataclass(frozen=True)
class _UserReads:
    """What storing a reply needs of its user, read with the goal's last check: their public key (a confidential
    user's reply is sealed to it) and their settings record (their time zone: tokens count in their own day)."""

    public: bytes | None = None
    settings: bytes | None = None


@dataclass
class _Held:
    """A request this gateway is answering: whose it is and how far it got."""

    request: ModelRequest
    user_id: int
    chat_id: int
    since: float
    call: asyncio.Task | None = None
    calls: int = 0  # sent to the endpoint so many times
    told: int | None = None  # the "goals ahead" count the user was last told


class ModelGateway:
    def __init__(
        self,
        redis: Redis,
        model: AsyncChatModel,
        continue_goal: Callable[..., None],
        config: GatewayConfig,
        consumer: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._redis = redis
        self._model = model
        # Synchronous (RQ), run on a few threads: (goal id, step, owner=the goal's user when the request names it).
        self._continue_goal = continue_goal
        self._config = config
        self._consumer = consumer
        self._clock = clock
        self._slots = EndpointSlots(config.concurrency, config.requests_per_minute, clock)
        self._entries: dict[str, asyncio.Task] = {}  # stream entry id -> its handler
        self._requests: set[str] = set()  # request ids being answered here
        self._held: dict[str, _Held] = {}  # request id -> the request waiting for a slot or in flight
        self._room = asyncio.Event()
        self._threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="gateway-enqueue")
        self._claim_cursor = "0-0"
        self._sweep_cursor = 0

    @property
    def in_flight(self) -> int:
        return len(self._entries)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self._ensure_group()
                break
            except RedisError:
                log.warning("model gateway: Redis unavailable, retrying")
                await asyncio.sleep(1)
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

    async def _redis_failed(self, exc: RedisError) -> None:
        """After a failed Redis call: re-create the consumer group if Redis lost it, else wait a moment."""
        if isinstance(exc, ResponseError) and "NOGROUP" in str(exc):
            log.warning("model gateway: the requests' consumer group is gone (Redis restarted empty?); "
                        "creating it again")
            self._claim_cursor = "0-0"
            try:
                await self._ensure_group()
                return
            except RedisError:
                pass
        else:
            log.warning("model gateway: Redis unavailable, retrying")
        await asyncio.sleep(1)

    async def _read(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            free = self._config.held - self.in_flight
            if free <= 0:
                self._room.clear()
                await self._room.wait()
                continue
            try:
                batches = await self._redis.xreadgroup(GATEWAY_GROUP, self._consumer, {REQUESTS_STREAM: ">"},
                                                       count=free, block=1000)
            except RedisError as exc:
                await self._redis_failed(exc)
                continue
            for _, entries in batches or []:
                for entry_id, fields in entries:
                    self._start(entry_id, fields)

    async def _maintain(self, stop: asyncio.Event) -> None:
        """Keep our own entries fresh, claim those a dead gateway left behind, check who still waits."""
        while not stop.is_set():
            try:
                mine = list(self._entries)
                for i in range(0, len(mine), 500):
                    await self._redis.xclaim(REQUESTS_STREAM, GATEWAY_GROUP, self._consumer, 0, mine[i:i + 500],
                                             justid=True)
                free = self._config.held - self.in_flight
                if free > 0:
                    cursor, claimed, *_ = await self._redis.xautoclaim(
                        REQUESTS_STREAM, GATEWAY_GROUP, self._consumer, int(self._config.claim_idle * 1000),
                        start_id=self._claim_cursor, count=free)
                    self._claim_cursor = _text(cursor)
                    for entry_id, fields in claimed:
                        if fields and _text(entry_id) not in self._entries:
                            log.info("model gateway: took over request entry %s", _text(entry_id))
                            self._start(entry_id, fields)
                await self._sweep()
            except RedisError as exc:
                await self._redis_failed(exc)
                continue
            await asyncio.sleep(self._config.heartbeat)

    async def _sweep(self) -> None:
        """Drop the calls nobody waits for any more; tell users whose goals wait for a slot where they stand.

        Only the head of each goal's record is read (`deputy.gateway.goal_heads`), and one heartbeat checks at
        most `SWEEP_BATCH` of the held calls, taking turns: with a thousand held each is checked every few
        seconds, and the gateway's CPU goes to model calls, not to checking them.
        """
        everyone = [h for h in self._held.values() if h.call is not None and not h.call.done()]
        if not everyone:
            return
        start = self._sweep_cursor % len(everyone)
        held = (everyone[start:] + everyone[:start])[:SWEEP_BATCH]
        self._sweep_cursor = start + len(held)
        goals = await goal_heads(self._redis, [GOAL_KEY.format(h.request.goal_id) for h in held])
        notices: list[OutboxMessage] = []
        for h, fields in zip(held, goals):
            if _waits_for(fields, h.request) is None:
                # Paused, cancelled or edited: out of the queue, or its HTTP request is cancelled.
                log.info("model gateway: request %s is no longer awaited; dropping it", h.request.id)
                assert h.call is not None
                h.call.cancel()
                continue
            ahead = self._slots.ahead(h.request.id)
            if ahead is not None and worth_telling(self._clock() - h.since, h.told, ahead, self._config.notice_after):
                notices.append(self._notice(h, waiting_text(ahead), first=h.told is None))
                h.told = ahead
        await self._send(notices)

    async def _stored_or_waiting(self, request: ModelRequest) -> tuple[bytes | None, dict | None]:
        """The outcome already stored for the request (a delivery again), and the goal if it still waits for it:
        one round trip."""
        heads, (stored,) = await goal_heads_and(self._redis, [GOAL_KEY.format(request.goal_id)],
                                                ("GET", OUTCOME.format(request.id)))
        return stored, _waits_for(heads[0], request)

    async def _still_waiting(self, request: ModelRequest, user_id: int) -> tuple[dict | None, _UserReads]:
        """After the call: the goal if it still waits for the request, and what storing the reply needs of the
        user, in one round trip."""
        if not user_id:
            return _waits_for((await goal_heads(self._redis, [GOAL_KEY.format(request.goal_id)]))[0], request), \
                _UserReads()
        heads, (public, settings) = await goal_heads_and(
            self._redis, [GOAL_KEY.format(request.goal_id)], ("HGET", *public_key_field(user_id)),
            ("GET", UserSettingsStore.key(user_id)))
        return _waits_for(heads[0], request), _UserReads(bytes(public) if public else None, settings)

    def _notice(self, held: _Held, text: str, first: bool) -> OutboxMessage:
        ref = _notice_ref(held)
        if first:
            return OutboxMessage(chat_id=held.chat_id, text=text, ref=ref, dedupe_key=ref)
        return OutboxMessage(chat_id=held.chat_id, text=text, edit_ref=ref)

    async def _send(self, messages: list[OutboxMessage]) -> None:
        if not messages:
            return
        pipe = self._redis.pipeline(transaction=False)
        for message in messages:
            pipe.xadd(OUTBOX_STREAM, {"json": message.model_dump_json()}, maxlen=OUTBOX_MAXLEN, approximate=True)
        await pipe.execute()

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
            outcome, finished = await self._answer(request, entry_id)
            if finished:
                return  # stored, the next step queued and the entry acknowledged in one transaction
            if outcome.kind != "discarded":
                await asyncio.get_running_loop().run_in_executor(
                    self._threads, partial(self._continue_goal, request.goal_id, request.step, owner=request.user_id))
            await self._acknowledge(entry_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            # Left pending: claimed again (here or elsewhere) after `claim_idle`.
            log.exception("model gateway: request %s failed; it will be retried", request.id)
        finally:
            self._requests.discard(request.id)

    async def _answer(self, request: ModelRequest, entry_id: str) -> tuple[ModelOutcome, bool]:
        """The request's outcome, and whether its storing also queued the goal's next step and acknowledged the entry.

        A request that names its goal's user has it all done in the one transaction that stores the outcome:
        the goal can never be left with an answer and no step to read it, and it costs one round trip. A
        request from an older worker (no user named) is finished by the caller, as before."""
        finish = (entry_id, request) if request.user_id is not None else None
        stored, goal = await self._stored_or_waiting(request)
        if stored:
            return ModelOutcome.model_validate_json(stored), False
        if goal is None:
            discarded = ModelOutcome(request_id=request.id, kind="discarded")
            return await self._store(discarded, TokenUsage(), 0, 0, finish=finish), finish is not None
        held = _Held(request, int(goal.get("user_id") or 0), int(goal.get("chat_id") or 0), self._clock())
        held.call = asyncio.create_task(self._ask(request, held))
        self._held[request.id] = held
        try:
            await asyncio.wait({held.call})
        except asyncio.CancelledError:
            held.call.cancel()  # the gateway stops: the entry stays pending for the next one
            raise
        finally:
            self._held.pop(request.id, None)
        if held.told is not None:
            await self._take_back_notice(held)
        if held.call.cancelled():  # the sweep found that nobody waits for it any more
            return await self._store(ModelOutcome(request_id=request.id, kind="discarded"), TokenUsage(),
                                     held.calls, 0, finish=finish), finish is not None
        outcome, usage, limited = held.call.result()
        goal, user = await self._still_waiting(request, held.user_id)
        if goal is None:
            # Paused, cancelled or changed while the model thought: the goal asks again if it goes on.
            outcome = ModelOutcome(request_id=request.id, kind="discarded")
        return await self._store(outcome, usage, held.calls, limited, held.user_id, finish=finish, user=user), \
            finish is not None

    async def _ask(self, request: ModelRequest, held: _Held) -> tuple[ModelOutcome, TokenUsage, int]:
        limited = 0
        for _ in range(self._config.rate_limit_retries + 1):
            async with self._slots.turn(held.user_id, request.id):
                held.calls += 1
                if held.told is not None and held.calls == 1:
                    await self._tell_working(held)
                try:
                    # The model's timeout starts now that the call is sent: waiting for a slot is not failing.
                    reply = await self._model.complete(request.messages, request.tools)
                except ModelRateLimited as exc:
                    limited += 1
                    wait = exc.retry_after if exc.retry_after is not None else self._config.default_retry_after
                    self._slots.back_off(min(wait, self._config.max_retry_after))
                    error: ModelError = exc
                    continue
                except ModelError as exc:
                    log.warning("model gateway: request %s failed: %s", request.id, exc)
                    return ModelOutcome(request_id=request.id, kind="error", failure=ModelFailure.of(exc)), \
                        TokenUsage(), limited
            return ModelOutcome(request_id=request.id, kind="reply", reply=reply), reply.usage, limited
        log.warning("model gateway: request %s still rate limited after %d tries", request.id, limited)
        return ModelOutcome(request_id=request.id, kind="error", failure=ModelFailure.of(error)), TokenUsage(), limited

    async def _take_back_notice(self, held: _Held) -> None:
        """The call is over: its waiting notice goes, before the goal's next words (the next step's
        notice, a card, the answer), so a goal of many steps leaves no trail of notices behind."""
        ref = _notice_ref(held)
        try:
            await self._send([OutboxMessage(chat_id=held.chat_id, text="", delete_ref=ref, dedupe_key=f"{ref}:over")])
        except RedisError:
            log.warning("model gateway: could not take back a waiting notice (Redis unavailable)")

    async def _tell_working(self, held: _Held) -> None:
        try:
            await self._send([self._notice(held, WORKING, first=False)])
        except RedisError:
            log.warning("model gateway: could not tell a user that the model took up their goal (Redis unavailable)")

    async def _store(self, outcome: ModelOutcome, usage: TokenUsage, calls: int, limited: int,
                     user_id: int = 0, finish: tuple[str, ModelRequest] | None = None,
                     user: _UserReads = _UserReads()) -> ModelOutcome:
        """Store the outcome (the first stored wins); with `finish` (the entry and its request), in the same
        transaction queue the goal's next step (unless the outcome was set aside) and acknowledge the entry.
        `user`: what was read of `user_id` (`_still_waiting`), who is named only when there are tokens to count."""
        usage_key = USAGE.format(self._config.provider)
        pipe = self._redis.pipeline(transaction=True)
        pipe.multi()  # explicitly: RQ's enqueue on it expects a transaction already begun
        # The tokens count against the user's plan as they are used, in the same transaction as the outcome.
        queue_tokens(pipe, user_id, self._config.model, usage.prompt_tokens + usage.completion_tokens, time.time(),
                     user.settings)
        pipe.set(OUTCOME.format(outcome.request_id), _stored_form(outcome, user_id, user.public), nx=True,
                 ex=OUTCOME_TTL)
        pipe.delete(PENDING.format(outcome.request_id))
        if calls:
            pipe.hincrby(usage_key, "requests", calls)
            pipe.hincrby(usage_key, "prompt_tokens", usage.prompt_tokens)
            pipe.hincrby(usage_key, "completion_tokens", usage.completion_tokens)
            pipe.hincrby(usage_key, "errors", 1 if outcome.kind == "error" else 0)
            pipe.hincrby(usage_key, "rate_limited", limited)
            metrics.model_call(self._config.provider, calls, usage.prompt_tokens, usage.completion_tokens,
                               failed=outcome.kind == "error")
        if finish is not None:
            entry_id, request = finish
            if outcome.kind != "discarded":
                # Only queues the writes on the transaction (the owner is named: nothing is read).
                self._continue_goal(request.goal_id, request.step, owner=request.user_id, pipeline=pipe)
            pipe.xack(REQUESTS_STREAM, GATEWAY_GROUP, entry_id)
            pipe.xdel(REQUESTS_STREAM, entry_id)
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


def _stored_form(outcome: ModelOutcome, user_id: int, public: bytes | None) -> str:
    """The outcome as kept: a confidential user's reply sealed to their key (`public`; its kind stays readable)."""
    text = outcome.model_dump_json()
    if not user_id or outcome.kind == "discarded" or public is None:
        return text
    return json.dumps({"request_id": outcome.request_id, "kind": outcome.kind, "user_id": user_id,
                       "sealed": seal(public, text.encode())})


def _notice_ref(held: _Held) -> str:
    return f"model-wait:{held.request.id}"


def _waits_for(goal: dict | None, request: ModelRequest) -> dict | None:
    """The goal's fields if the goal still waits for this very request, else None."""
    if goal is None:
        return None
    wait = goal.get("waiting_model") or {}
    waits = goal.get("status") == "running" and goal.get("step") == request.step and \
        wait.get("request_id") == request.id
    return goal if waits else None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
