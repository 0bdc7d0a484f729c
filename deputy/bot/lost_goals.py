"""Goals Deputy acknowledged and then lost with Redis's data: the user is told which, and
can start each again.

Redis is the only shared state, so when it comes back empty (restarted without
persistence, or a failover to an empty replica) nothing in it says what was lost. What
outlives it is the memory of the bot process that said "On it.": it remembers the goals it
acknowledged (id, chat, text) until they finish, for at most a day.

Data loss is told apart from a goal simply ending by an **epoch** key: a random token the
first bot sets (SET NX) and every bot remembers. If the token it remembers is gone or
replaced, Redis lost its data; every remembered goal whose record is gone then was lost,
and its user gets a message naming it, with a Start again button. The goal's text waits
for that press in Redis (now working again) under a random id, for a week.

Limits: a bot that restarted together with Redis remembers nothing, so its users are not
told; writes lost in a failover whose replica kept the epoch go unnoticed; a confidential
user is told "a goal" was lost and asked to send it again (their words are never kept in
clear in Redis, so there is no Start again).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import redis.asyncio as aioredis

from deputy.agent.goals import goal_key
from deputy.bot.buttons import InvalidButton
from deputy.bot.services import BotServices
from deputy.bot.texts import shorten
from deputy.core.confidential.keys import public_key_field
from deputy.core.records.outbox import Button, Outbox, OutboxMessage

log = logging.getLogger(__name__)

EPOCH = "deputy:epoch"
_LOST = "deputy:lost:{}"  # a lost goal the user was told of: its text, until Start again or a week passes
LOST_SECONDS = 7 * 24 * 3600
REMEMBER_SECONDS = 24 * 3600
MAX_REMEMBERED = 10_000
CHECK_EVERY = 5.0
RESTART = "lr"  # the Start again button's kind
_FINISHED = {"done", "failed", "cancelled"}

# KEYS: goal records. Returns each one's status, '' where the record is gone.
_STATUSES = """
local out = {}
for i, key in ipairs(KEYS) do
  local record = redis.call('GET', key)
  out[i] = record and (string.match(record, '"status":"(%a+)"') or '?') or ''
end
return out
"""


@dataclass(frozen=True)
class Acknowledged:
    goal_id: str
    user_id: int
    chat_id: int
    text: str
    at: float


class LostGoals:
    """The goals this process acknowledged and has not seen finish; `check` finds those Redis lost."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._goals: dict[str, Acknowledged] = {}
        self._epoch: bytes | None = None

    def remember(self, goal_id: str, user_id: int, chat_id: int, text: str) -> None:
        if len(self._goals) >= MAX_REMEMBERED:
            self._goals.pop(next(iter(self._goals)))  # the oldest first
        self._goals[goal_id] = Acknowledged(goal_id, user_id, chat_id, text, self._clock())

    async def check(self, redis: aioredis.Redis) -> list[Acknowledged]:
        """Forget the goals that finished; return (and forget) those lost with Redis's data."""
        current = await redis.get(EPOCH)
        lost_data = self._epoch is not None and current != self._epoch
        if current is None or self._epoch is None or lost_data:
            await redis.set(EPOCH, secrets.token_hex(8), nx=True)
            self._epoch = await redis.get(EPOCH)
        cutoff = self._clock() - REMEMBER_SECONDS
        for goal_id in [g for g, ack in self._goals.items() if ack.at < cutoff]:
            del self._goals[goal_id]
        if not self._goals:
            return []
        ids = list(self._goals)
        statuses = await redis.eval(_STATUSES, len(ids), *[goal_key(goal_id) for goal_id in ids])
        lost = []
        for goal_id, status in zip(ids, statuses):
            status = status.decode() if isinstance(status, bytes) else str(status)
            if status in _FINISHED or (status == "" and not lost_data):  # ended, or erased on purpose
                del self._goals[goal_id]
            elif status == "":
                lost.append(self._goals.pop(goal_id))
        return lost


def lost_message(ack: Acknowledged, ident: str) -> OutboxMessage:
    lost = "my storage was reset before I finished it, and nothing of it was kept."
    if not ack.text:
        return OutboxMessage(chat_id=ack.chat_id, text=f"⚠️ I lost a goal you gave me: {lost} Please send it again.",
                             dedupe_key=f"lost:{ack.goal_id}")
    return OutboxMessage(
        chat_id=ack.chat_id,
        text=f"⚠️ I lost “{shorten(ack.text)}”: {lost} Tap Start again and I'll begin it afresh.",
        buttons=[[Button(text="Start again", sign=f"{RESTART}:{ident}")]],
        dedupe_key=f"lost:{ack.goal_id}",
    )


async def tell(services: BotServices, redis: aioredis.Redis, lost: list[Acknowledged]) -> None:
    """Keep each lost goal's text for its Start again button and tell its user."""
    outbox = Outbox(services.redis)
    for ack in lost:
        if await redis.hget(*public_key_field(ack.user_id)):  # confidential: their words are never kept in clear
            ack = replace(ack, text="")
        ident = secrets.token_urlsafe(9)
        await redis.set(_LOST.format(ident), json.dumps({"user_id": ack.user_id, "text": ack.text}), ex=LOST_SECONDS)
        await asyncio.to_thread(outbox.put, lost_message(ack, ident))
        log.warning("goal %s was lost with Redis's data; its user is told", ack.goal_id)


async def watch(services: BotServices, goals: LostGoals, redis: aioredis.Redis, every: float = CHECK_EVERY) -> None:
    """Check for lost goals every `every` seconds until cancelled."""
    while True:
        try:
            lost = await goals.check(redis)
            if lost:
                await tell(services, redis, lost)
        except aioredis.RedisError as exc:  # Redis is away: the next round looks again
            log.info("could not check for lost goals: %s", exc)
        await asyncio.sleep(every)


async def take_restart(services: BotServices, redis: aioredis.Redis, data: str, user_id: int) -> str | None:
    """The text of the lost goal a Start again press is for ('' when it was started already);
    None when the press is not a Start again button."""
    if not services.buttons.is_ours(data):
        return None
    try:
        kind, ident = services.buttons.verify(data, user_id)
    except InvalidButton:
        return None
    if kind != RESTART:
        return None
    raw = await redis.getdel(_LOST.format(ident))
    record = json.loads(raw) if raw else None
    if record is None or record.get("user_id") != user_id:
        return ""
    return record["text"] or ""
