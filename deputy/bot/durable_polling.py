"""Long polling that loses no update when the bot process dies.

PTB's Updater confirms a batch of updates to Telegram with its *next* getUpdates call
(offset = last id + 1), which it makes as soon as the batch is in the update queue, long
before the handlers are done with it. A bot killed in between would never answer those
messages: Telegram will not send them again.

So every update the Updater fetches is written to Redis (a per-bot hash of updates
received and not yet handled) *in* :meth:`ReceivedQueue.put`, which the Updater awaits
for each update before it polls again; :class:`DurableApplication` removes it once
`process_update` has finished with it, setting the same done-marker as webhook mode.
At start-up, whatever a dead process left in the hash is queued again, ahead of anything
new, and handled as a retry. A process that died after recording an update but before its
next getUpdates never confirmed it, so Telegram hands it out again too: that copy is
dropped as it arrives (it is in the hash already, or marked done), and the goal of any
copy is named after the update itself (:func:`deputy.bot.update_claims.update_seed`), so one
message is one goal however many copies of it reach the bot.

Only one process may poll a bot at a time (Telegram refuses a second getUpdates), so
no lease is needed: the hash is only read at start-up, before this process polls.
"""

from __future__ import annotations

import asyncio
import json
import logging

import redis.asyncio as aioredis
from telegram import Update
from telegram.ext import Application

from deputy.bot.secret_gate import without_secrets
from deputy.bot.update_claims import Delivery, UpdateClaims, delivered, delivering, update_seed

log = logging.getLogger(__name__)

_RECEIVED = "deputy:polling:{}:received"  # update_id -> {"seed", "update"}: fetched, not yet handled

# KEYS: the received hash, the update's done-marker. ARGV: the update id, its record.
# 1 if recorded now; 0 if this update is recorded already or was handled (another copy of it).
_RECORD = """
if redis.call('GET', KEYS[2]) == 'done' then return 0 end
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
"""


class ReceivedQueue(asyncio.Queue):
    """The application's update queue: an update is in Redis before the Updater may confirm it."""

    def __init__(self) -> None:
        super().__init__()
        self._redis: aioredis.Redis | None = None
        self._claims: UpdateClaims | None = None
        self._key = ""
        self._bot_id = 0
        self._deliveries: dict[int, Delivery] = {}

    def attach(self, redis: aioredis.Redis, bot_id: int) -> None:
        """Start recording (from post_init: the bot id is known, polling has not begun)."""
        self._redis = redis
        self._claims = UpdateClaims(redis, bot_id)
        self._key = _RECEIVED.format(bot_id)
        self._bot_id = bot_id

    async def put(self, item: object) -> None:
        if self._redis is not None and self._claims is not None and isinstance(item, Update):
            data = item.to_dict()
            delivery = Delivery(item.update_id, update_seed(self._bot_id, data), retried=False)
            # Written down before any handler runs, so never with a secret in it (see deputy.bot.secret_gate).
            record = json.dumps({"seed": delivery.seed, "update": without_secrets(data)})
            try:
                # EVAL, not EVALSHA: a write that reaches Redis is run, even after a restart
                # emptied Redis's script cache and the process died before it could load it again.
                marker = self._claims.marker_key(item.update_id)
                if not await self._redis.eval(_RECORD, 2, self._key, marker, str(item.update_id), record):
                    # Fetched again because a dead process never confirmed it: the copy replayed
                    # from the hash (or already handled) is the one that counts.
                    log.info("update %s was received before; this copy is dropped", item.update_id)
                    return
                self._deliveries[item.update_id] = delivery
            except aioredis.RedisError as exc:
                # Better to answer now than to stall every user; only a crash before handling loses it.
                log.warning("could not record update %s before confirming it: %s", item.update_id, exc)
        await super().put(item)

    async def replay(self, application: Application) -> int:
        """Queue again what a dead process received and did not finish; returns how many."""
        assert self._redis is not None and self._claims is not None, "attach first"
        left = await self._redis.hgetall(self._key)
        replayed = 0
        for raw_id in sorted(left, key=int):
            update_id = int(raw_id)
            if await self._claims.is_done(update_id):  # handled; died before forgetting it
                await self._redis.hdel(self._key, raw_id)
                continue
            record = json.loads(left[raw_id])
            self._deliveries[update_id] = Delivery(update_id, record["seed"], retried=True)
            super().put_nowait(Update.de_json(record["update"], application.bot))
            replayed += 1
        if replayed:
            log.info("handling %s update(s) received before a restart and never handled", replayed)
        return replayed

    def delivery(self, update: object) -> Delivery | None:
        if isinstance(update, Update):
            return self._deliveries.get(update.update_id)
        return None

    async def handled(self, update_id: int) -> None:
        assert self._redis is not None and self._claims is not None
        try:
            await self._claims.done(update_id, received=self._key)  # marked done and forgotten at once
        except aioredis.RedisError as exc:
            log.warning("could not record update %s as handled: %s", update_id, exc)
        self._deliveries.pop(update_id, None)


class DurableApplication(Application):
    """Handles each polled update under its delivery (seed, retried) and then forgets it."""

    async def process_update(self, update: object) -> None:
        queue = self.update_queue
        delivery = queue.delivery(update) if isinstance(queue, ReceivedQueue) else None
        if delivery is None:  # webhook mode (its server sets the delivery), or not recorded
            await super().process_update(update)
            return
        token = delivering(delivery)
        try:
            await super().process_update(update)
        finally:
            delivered(token)
        await queue.handled(delivery.update_id)
