"""Each Telegram update handled exactly once by any number of bot replicas (webhook mode).

Telegram (or the emulator) POSTs an update to the load balancer, which picks a replica;
if the answer is not 2xx, the update is POSTed again later, maybe to another replica.
Before handling an update, a replica claims its ``update_id`` in Redis:

- the claim is a **lease** (``SET NX`` with a short TTL, renewed while the update is being
  handled): if the replica dies mid-way, the lease lapses and Telegram's next retry is
  taken by whichever replica it reaches; a retry that finds a live lease is answered 503
  ("try later") and handled by nobody;
- once handled, the claim becomes a **done-marker** kept for a day: a replayed or retried
  update is acknowledged without being handled again.

An update handled by a replica that died mid-way is handled again, so what it did before
dying must not be done twice. Each update's **seed** is derived from the update itself
(:func:`update_seed`: the bot, the update id, the chat and the message's date; a WhatsApp
message's id), so every copy of one update, however it arrives (a webhook retry, a
re-fetched poll, a replayed record), names the same goal, and a handler that finds that
goal already stored does not create it again.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import hashlib
import logging
from dataclasses import dataclass
from enum import Enum

import redis.asyncio as aioredis

from deputy.core.infrastructure.lua_scripts import LuaScript

log = logging.getLogger(__name__)

LEASE_MS = 10_000
"""How long a claim outlives its replica: a dead replica's update is retried after this."""
RENEW_EVERY = LEASE_MS / 1000 / 3
DONE_SECONDS = 24 * 3600
"""Telegram stops retrying an update long before a day has passed."""

_CLAIM = "deputy:update:{}:{}"
_SEED = "deputy:update:{}:{}:seed"

# KEYS: the claim, the seed. ARGV: owner, lease ms, a new seed, seconds to keep the seed.
# Returns {'done'} | {'busy'} | {'claimed', seed} | {'retry', seed of the earlier attempt}.
_CLAIM_SCRIPT = """
local v = redis.call('GET', KEYS[1])
if v == 'done' then return {'done'} end
if v then return {'busy'} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local seed = redis.call('GET', KEYS[2])
if seed then return {'retry', seed} end
redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4])
return {'claimed', ARGV[3]}
"""
# KEYS: the claim. ARGV: owner, lease ms. Extends the lease only if it is still ours.
_RENEW_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
# KEYS: the claim, the seed, and (polling) the hash of updates received and not yet handled.
# ARGV: seconds to keep the done-marker, and (polling) the update's field in that hash.
_DONE_SCRIPT = """
redis.call('SET', KEYS[1], 'done', 'EX', ARGV[1])
redis.call('DEL', KEYS[2])
if KEYS[3] then redis.call('HDEL', KEYS[3], ARGV[2]) end
return 1
"""
_RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


_DONE = LuaScript(_DONE_SCRIPT)


class Verdict(Enum):
    claimed = "claimed"  # ours to handle
    busy = "busy"  # another replica holds a live lease: answer "try later"
    done = "done"  # handled before: acknowledge, do nothing


@dataclass(frozen=True)
class Delivery:
    """The update being handled in this task (set by the webhook server, read by handlers)."""

    update_id: int | str  # a Telegram update id, or a WhatsApp message id (wamid)
    seed: str
    retried: bool  # an earlier attempt (on a replica that died) may have done part of the work

    def goal_id(self) -> str:
        """The id of the goal this update creates: the same on every attempt."""
        return f"g_{self.seed}"


def identity_seed(*parts: object) -> str:
    """72 bits naming one incoming message: the same parts, the same seed, on every copy of it."""
    digest = hashlib.sha256("\x00".join(str(part) for part in parts).encode()).digest()
    return base64.urlsafe_b64encode(digest[:9]).decode()


def update_seed(bot_id: int | str, update: dict) -> str:
    """The seed of a Telegram update (its JSON): its id, and its chat and date where it has them.

    The chat and the date keep two different updates apart should Telegram ever reuse an id
    (it picks a random one after a week without updates; a restarted emulator counts from 1).
    """
    inner = next((v for k, v in update.items() if k != "update_id" and isinstance(v, dict)), {})
    message = inner.get("message") if isinstance(inner.get("message"), dict) else inner
    chat = (message.get("chat") or {}).get("id", "") if isinstance(message.get("chat"), dict) else ""
    return identity_seed("telegram", bot_id, update.get("update_id"), chat, message.get("date", ""))


_CURRENT: contextvars.ContextVar[Delivery | None] = contextvars.ContextVar("deputy_delivery", default=None)


def current_delivery() -> Delivery | None:
    """The update being handled (set by the webhook server, or by `deputy.bot.durable_polling`)."""
    return _CURRENT.get()


class UpdateClaims:
    """Leases and done-markers on update ids, in Redis (keys per bot, as ids are per bot)."""

    def __init__(self, redis: aioredis.Redis, bot_id: int | str, lease_ms: int = LEASE_MS) -> None:
        self._redis = redis
        self._bot_id = bot_id
        self._lease_ms = lease_ms
        self._claim = redis.register_script(_CLAIM_SCRIPT)
        self._renew = redis.register_script(_RENEW_SCRIPT)
        self._release = redis.register_script(_RELEASE_SCRIPT)

    def _keys(self, update_id: int | str) -> list[str]:
        return [_CLAIM.format(self._bot_id, update_id), _SEED.format(self._bot_id, update_id)]

    def marker_key(self, update_id: int | str) -> str:
        """Where the update's lease, then its done-marker, is kept."""
        return self._keys(update_id)[0]

    async def claim(self, update_id: int | str, owner: str, seed: str) -> tuple[Verdict, Delivery | None]:
        """Claim the update; `seed` names what it creates (see `update_seed`).

        A seed stored by an earlier attempt wins, so an attempt before an upgrade keeps its name."""
        result = await self._claim(keys=self._keys(update_id), args=[owner, self._lease_ms, seed, DONE_SECONDS])
        kind = result[0].decode()
        if kind in ("done", "busy"):
            return Verdict(kind), None
        return Verdict.claimed, Delivery(update_id, result[1].decode(), retried=kind == "retry")

    async def keep(self, update_id: int | str, owner: str) -> None:
        """Renew the lease until cancelled; a lease lost (a stall longer than the lease) is logged."""
        while True:
            await asyncio.sleep(self._lease_ms / 1000 / 3)
            try:
                if not await self._renew(keys=self._keys(update_id)[:1], args=[owner, self._lease_ms]):
                    log.warning("lost the claim on update %s while handling it", update_id)
                    return
            except aioredis.RedisError as exc:
                log.warning("could not renew the claim on update %s: %s", update_id, exc)

    async def done(self, update_id: int | str, received: str | None = None) -> None:
        """Mark the update handled (one command); with `received`, also forget it from that hash of
        updates received and not yet handled (`deputy.bot.durable_polling`)."""
        keys, args = self._keys(update_id), [DONE_SECONDS]
        if received is not None:
            keys, args = [*keys, received], [*args, str(update_id)]
        await _DONE(self._redis, keys, args)

    async def is_done(self, update_id: int | str) -> bool:
        return await self._redis.get(self._keys(update_id)[0]) == b"done"

    async def release(self, update_id: int | str, owner: str) -> None:
        """Give the update back at once (handling failed before doing anything): the retry may take it."""
        await self._release(keys=self._keys(update_id)[:1], args=[owner])


def delivering(delivery: Delivery) -> contextvars.Token:
    """Make `delivery` the current one for this task (undo with `_CURRENT.reset(token)`)."""
    return _CURRENT.set(delivery)


def delivered(token: contextvars.Token) -> None:
    _CURRENT.reset(token)
