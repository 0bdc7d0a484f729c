"""The goal intake: a text message becomes a stored goal with its first step enqueued, in two commands.

This is the bot's hot path, so its Redis work is batched into two Lua scripts sent by their
SHA1 (`deputy.bot.intake_scripts`) on the asynchronous client (redis.asyncio): the event loop
keeps serving other users' updates while it waits.

1. `pending` (`LOOK`): in the order the handler asks, a memory the user is correcting (taken),
   else a goal the user is editing (taken), else the send window being edited (taken); if
   none, the goal waiting for the user's answer, the audit tip to chain the next entry to,
   and what a new goal needs (`NewGoal`: is this message's goal stored already, the account,
   the time zone, the confidential key, a page waiting for a code, the record of the latest
   goal, which it may follow up: `deputy.bot.follow_ups`).
2. `admit` (`ADMIT`): one atomic script takes the goal's place in the user's plan and, only if
   there is room, stores the goal and its index entry, appends the `goal_created` audit entry
   (only if the tip has not moved; appended again after if it has), registers the in-flight
   unit, writes RQ's job and queue push, and makes the goal the user's latest. A message that is acknowledged always has its
   goal stored and its first step queued; a refused one has nothing stored or counted.
   When the entry takes the trail past its window, the oldest entries are folded afterwards
   (two more round trips, once every `keep / 10` entries).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field, replace
from typing import Any

import redis.asyncio as aioredis
from redis import Redis, RedisError
from redis.connection import SSLConnection

from deputy.agent.follow_ups import LAST_GOAL_TTL, last_goal_key
from deputy.agent.goal_reads import READS_SUFFIX
from deputy.agent.goals import Goal, GoalStore, awaiting_key, goal_key
from deputy.bot.edited_messages import queue_fed
from deputy.bot.intake_scripts import ADMIT, LOOK, NESTED
from deputy.core.accounts.accounts import Accounts
from deputy.core.accounts.quotas import Quotas, Started
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.confidential.keys import public_key_field
from deputy.core.infrastructure.redis_clients import async_client
from deputy.core.infrastructure.script_writes import ScriptWrites, encode
from deputy.core.records.handoff import open_key
from deputy.sentinel.stores.audit import DEFAULT_KEEP, DEVELOPMENT_KEY, queue_append, tip_key
from deputy.sentinel.stores.audit_fold import fold_async, fold_due
from deputy.queue.dispatch import RQDispatch


log = logging.getLogger(__name__)

@dataclass(frozen=True)
class NewGoal:
    """What starting the message's goal needs, read with the rest (`GoalIntake.pending`)."""

    goal_id: str
    stored: bool  # a copy of this message was handled already: its goal exists
    account: dict  # the account hash as Redis returns it (plan, suspension)
    settings: bytes | None  # the user's settings record (their time zone)
    public: bytes | None  # a confidential user's public key: their goal is sealed to it
    handoff: str | None  # the page waiting for a code from the user, if any
    last_goal: bytes | None = None  # the record of the user's latest goal, which this one may follow up
    last_goal_reads: list[bytes] = field(default_factory=list)  # that goal's reads list (`goal_reads.reads_key`)


@dataclass(frozen=True)
class Pending:
    """What the user's message may be for, besides a new goal."""

    taken: str | None  # the key that was taken, if any
    value: str | None  # its value (the memory or goal being edited)
    awaiting: str | None  # the goal waiting for the user's answer (only read when nothing was taken)
    tip: bytes  # the user's audit tip (empty when nothing was taken and the trail is empty)
    new_goal: NewGoal | None = None  # read when nothing was taken


@dataclass(frozen=True)
class Admission:
    goal: Goal | None  # the stored goal; None when the plan refused it (nothing stored or counted)
    started: Started | None  # the plan's answer (refusal, limits now near); None when no plan is enforced


# A round trip takes well under a millisecond, so a few connections serve every update in
# flight; a handler that finds them all busy waits its turn. Opening a connection costs a
# few milliseconds of CPU (redis-py's handshake), so the pool does not grow with bursts.
MAX_CONNECTIONS = 8
CONNECTION_WAIT = 20.0  # seconds, then the handler fails and the user is told to try again


class LoopRedis:
    """A redis.asyncio client for the running event loop: its connections belong to the loop that opened them."""

    def __init__(self, redis_url: str) -> None:
        self._url = redis_url
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: aioredis.Redis | None = None

    def get(self) -> aioredis.Redis:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # Retries on a fresh connection when Redis restarted under a pooled one (deputy.core.infrastructure.redis_clients).
            self._loop, self._client = loop, async_client(self._url, MAX_CONNECTIONS, CONNECTION_WAIT)
        return self._client


def url_of(redis: Redis) -> str:
    """A URL for the server a synchronous client talks to (when the bot was given a client, not a URL)."""
    pool = redis.connection_pool
    kw = pool.connection_kwargs
    auth = ""
    if kw.get("password") is not None:
        auth = f"{kw.get('username') or ''}:{kw['password']}@"
    if "path" in kw:
        return f"unix://{auth}{kw['path']}?db={kw.get('db', 0)}"
    scheme = "rediss" if issubclass(pool.connection_class, SSLConnection) else "redis"
    return f"{scheme}://{auth}{kw.get('host', '127.0.0.1')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"


class GoalIntake:
    def __init__(self, redis: LoopRedis, dispatch: RQDispatch, audit_key: bytes = DEVELOPMENT_KEY,
                 quotas: Quotas | None = None, audit_keep: int = DEFAULT_KEEP) -> None:
        self._redis = redis
        self._dispatch = dispatch
        self._audit_key = audit_key
        self._quotas = quotas
        self._audit_keep = audit_keep

    async def pending(self, user_id: int, takes: list[str], goal_id: str) -> Pending:
        """Take the first of `takes` that is set; if none is, read the awaited goal, the audit tip
        and what starting goal `goal_id` needs."""
        keys = [*takes, awaiting_key(user_id), tip_key(user_id), goal_key(goal_id), Accounts.key(user_id),
                UserSettingsStore.key(user_id), public_key_field(user_id)[0], open_key(user_id), last_goal_key(user_id)]
        result = await LOOK(self._redis.get(), keys, [len(takes), goal_key(""), READS_SUFFIX])
        index = int(result[0])
        if index:
            return Pending(takes[index - 1], result[1].decode(), None, b"")
        awaiting, tip, stored, account, settings, public, handoff, last, last_reads = result[1:]
        fields = dict(zip(account[::2], account[1::2]))
        new_goal = NewGoal(goal_id, bool(stored), fields, settings or None, public or None,
                           handoff.decode() if handoff else None, last or None, list(last_reads))
        return Pending(None, None, awaiting.decode() or None, tip, new_goal)

    def client(self) -> aioredis.Redis:
        """The asyncio client of the running loop, for other small hot-path work (message floods)."""
        return self._redis.get()

    async def tip(self, user_id: int) -> bytes:
        return await self._redis.get().get(tip_key(user_id)) or b""

    async def admit(self, goal: Goal, pending: Pending, fed_message: int | None = None, **audit: Any) -> Admission:
        """Take the goal's place in the user's plan and, if there is room, store it, audit it (chained to
        the tip `pending` read) and enqueue its first step: one atomic script.

        `pending` is the answer of `pending` for `goal.id`; `fed_message`, the message the goal's text
        came from (an edit of it before the goal's first turn rewords the goal)."""
        new = pending.new_goal
        if new is None or new.goal_id != goal.id:
            raise ValueError("admit needs what `pending` read for this goal")
        place = None
        if self._quotas is not None:
            place = self._quotas.goal_place(goal.user_id, goal.id, new.account, new.settings, goal.created_at)
            if place.refusal is not None:
                return Admission(None, Started(place.refusal, [], place.span.zone))
        writes = ScriptWrites(NESTED)
        pipe = writes.pipeline
        saved = GoalStore.queue_create(pipe, goal, new.public)
        queue_append(pipe, self._audit_key, goal.user_id, pending.tip, "goal_created", goal.created_at, new.public,
                     goal_id=goal.id, **audit)
        self._dispatch.step(saved.id, saved.step, pipeline=pipe, owner=saved.user_id)
        pipe.set(last_goal_key(goal.user_id), goal.id, ex=LAST_GOAL_TTL)  # the next message may follow it up
        if place is not None:
            pipe.sadd(Accounts.users_key(), goal.user_id)  # the operator's `deputy users` lists them
        if fed_message is not None:
            queue_fed(pipe, goal.user_id, fed_message, goal.id, 0)
        quota_args = encode(place.args) if place is not None else []
        client = self._redis.get()
        reply = await ADMIT(client, [goal_key(goal.id), *(place.keys if place is not None else [])],
                            [len(quota_args), *quota_args, *writes.args()])
        status = reply[0].decode()
        if status == "exists":
            # Another copy of this message stored it, or this very script ran and its reply was lost
            # (the client sent it again on a fresh connection): either way it is stored and queued.
            return Admission(saved, None if place is None else Started(None, [], place.span.zone))
        started = None if place is None else self._quotas.place_taken(place, reply[1])
        if status == "refused":
            return Admission(None, started)
        appended = reply[2][0]  # the embedded scripts' results, in order: the audit append's comes first
        while not appended:  # a worker appended to this user's trail since `pending` read the tip
            appended = await self._append(goal.user_id, new.public, "goal_created", goal.created_at,
                                          goal_id=goal.id, **audit)
        if fold_due(int(appended), self._audit_keep):
            await self._fold(goal.user_id)
        if started is not None and started.near:
            started = replace(started, near=await Quotas.afirst_notices(client, place, started.near))
        return Admission(saved, started)

    async def _append(self, user_id: int, public: bytes | None, kind: str, at: float, /, **detail: Any) -> int:
        """Append an entry chained to the current tip: the trail's length, or 0 if the tip moved meanwhile."""
        client = self._redis.get()
        pipe = client.pipeline(transaction=False)
        queue_append(pipe, self._audit_key, user_id, await self.tip(user_id), kind, at, public, **detail)
        [appended] = await pipe.execute()
        return int(appended)

    async def _fold(self, user_id: int) -> None:
        # The goal is stored and queued by now: a fold that fails is left to a later entry, not the user.
        try:
            await fold_async(self._redis.get(), self._audit_key, user_id, self._audit_keep)
        except RedisError:
            log.warning("could not fold the audit trail of user %s; a later entry will", user_id, exc_info=True)
