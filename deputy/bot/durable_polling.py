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

Only one process polls a bot at a time: the one holding the poller lease
(:mod:`deputy.bot.polling_turn`). The hash is read when a process takes the lease, before its
first getUpdates, so what a dead poller left is handled by exactly one process: the one
that polls next. Handing over never handles an update twice:

- a poller stopped gracefully handles what it fetched *before* releasing the lease, and the
  next one replays only what is still in the hash then (nothing, or what a crash left);
- an update is recorded only while the lease is this process's (checked in the same Lua
  script): a poller that lost it records nothing more and leaves the batch unconfirmed
  (:class:`HandedOver`), so the next poller is handed it by Telegram;
- what a process fetched and had not begun to handle when it lost the lease is dropped from
  its queue: the process that took over replayed it from the hash. Only a handler already
  running when its process stalled for longer than the lease (5 s) can run twice, exactly as
  after a crash at that point, and the update's seed keeps it to one goal.

Behind Redis Sentinel a promotion loses the last writes the old primary acknowledged and had
not yet passed to its replica. Two steps keep an update through it:

- the batch's records are confirmed on a replica (`WAIT`, :mod:`deputy.queue.replication`)
  before the next getUpdates confirms the batch (:meth:`ReceivedQueue.confirm_recorded`, called
  by `deputy.bot.polling_turn.TurnGatedRequest`), so Telegram is not told of an update that a
  promotion could lose;
- what a handler wrote and the record's removal reach the replica in the order they were made,
  so a promotion that lost part of a handler's work brought its record back too. The poller
  sweeps the hash every few seconds (:meth:`ReceivedQueue.sweep`) and handles again, as a
  retry, a record it is not handling and that is older than `STRANDED_AFTER`: an approval
  pressed a moment before the primary died is carried out, not left waiting for good.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from telegram import Update
from telegram.ext import Application

from telegram.error import TimedOut

from deputy.bot.polling_turn import PollingTurn
from deputy.bot.secret_gate import without_secrets
from deputy.bot.update_claims import Delivery, UpdateClaims, delivered, delivering, update_seed
from deputy.queue.replication import async_replica_confirmation

log = logging.getLogger(__name__)

STRANDED_AFTER = 20.0
"""Seconds after which a record this process is not handling counts as stranded (its handler's
work was lost in a failover). Longer than a record takes from being written to being queued."""
SWEEP_EVERY = 5.0
UNREPLICATED_PAUSE = 30.0

_RECEIVED = "deputy:polling:{}:received"  # update_id -> {"seed", "update"}: fetched, not yet handled

# KEYS: the received hash, the update's done-marker[, the poller lease]. ARGV: the update id,
# its record[, this process's name in the lease]. 1 if recorded now; 0 if this update is
# recorded already or was handled (another copy of it); -1 if another process polls now.
_RECORD = """
if KEYS[3] then
  local poller = redis.call('GET', KEYS[3])
  if poller and poller ~= ARGV[3] then return -1 end
end
if redis.call('GET', KEYS[2]) == 'done' then return 0 end
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
"""


class HandedOver(TimedOut):
    """Another process polls now: this batch is not recorded, so it must not be confirmed.

    Raised from the queue's `put`, in the Updater's polling loop, before the Updater moves its
    offset past the batch; PTB retries a timed-out poll at once and quietly, and the retry
    waits for this process's turn (`deputy.bot.polling_turn`)."""


class ReceivedQueue(asyncio.Queue):
    """The application's update queue: an update is in Redis before the Updater may confirm it."""

    def __init__(self) -> None:
        super().__init__()
        self._redis: aioredis.Redis | None = None
        self._claims: UpdateClaims | None = None
        self._key = ""
        self._bot_id = 0
        self._deliveries: dict[int, Delivery] = {}
        self._turn: PollingTurn | None = None
        # Polled updates in the queue (by object: a replay queues a second object for one id) ->
        # the era they were queued in and their delivery. Losing the lease starts a new era and
        # drops the older ones' updates not yet begun; taking it again after it had lapsed makes
        # them check they were not handled meanwhile.
        self._queued: dict[int, tuple[int, Delivery, Update]] = {}
        self._era = 0
        self._dropped_before = 0
        self._checked_before = 0
        self._running: set[int] = set()
        self._unmarked: set[int] = set()  # handled here, not yet marked done (Redis did not answer)
        self._replicated: Callable[[], Awaitable[bool]] | None = None
        self._unconfirmed = False  # recorded since the last confirmation on a replica
        self._skip_replica_until = 0.0
        self._clock: Callable[[], float] = time.time

    def attach(self, redis: aioredis.Redis, bot_id: int, turn: PollingTurn | None = None) -> None:
        """Start recording (from post_init: the bot id is known, polling has not begun); with `turn`,
        only while this process holds the poller lease."""
        self._redis = redis
        self._claims = UpdateClaims(redis, bot_id)
        self._key = _RECEIVED.format(bot_id)
        self._bot_id = bot_id
        self._turn = turn
        self._replicated = async_replica_confirmation(redis)

    @property
    def turn(self) -> PollingTurn | None:
        """The poller lease this queue records under (None: it records without one)."""
        return self._turn

    async def put(self, item: object) -> None:
        if self._redis is not None and self._claims is not None and isinstance(item, Update):
            data = item.to_dict()
            delivery = Delivery(item.update_id, update_seed(self._bot_id, data), retried=False)
            # Written down before any handler runs, so never with a secret in it (see deputy.bot.secret_gate).
            record = json.dumps({"seed": delivery.seed, "update": without_secrets(data), "at": self._clock()})
            keys = [self._key, self._claims.marker_key(item.update_id)]
            args = [str(item.update_id), record]
            lease = self._turn.lease if self._turn is not None else None
            if lease is not None:
                keys, args = [*keys, lease.key], [*args, lease.name]
            try:
                # EVAL, not EVALSHA: a write that reaches Redis is run, even after a restart
                # emptied Redis's script cache and the process died before it could load it again.
                recorded = await self._redis.eval(_RECORD, len(keys), *keys, *args)
            except aioredis.RedisError as exc:
                # Better to answer now than to stall every user; only a crash before handling loses it.
                log.warning("could not record update %s before confirming it: %s", item.update_id, exc)
                recorded = None
            if recorded == -1 and self._turn is not None:
                self._turn.lost()
                raise HandedOver(f"update {item.update_id} was fetched after another process took over polling")
            if recorded == 0:
                # Fetched again because a dead process never confirmed it: the copy replayed
                # from the hash (or already handled) is the one that counts.
                log.info("update %s was received before; this copy is dropped", item.update_id)
                return
            if recorded is not None:
                self._keep_delivery(item, delivery)
                self._unconfirmed = True
        await super().put(item)

    async def confirm_recorded(self) -> None:
        """Before the next getUpdates, which confirms the batch to Telegram: behind Sentinel, wait
        (once per batch) until a replica has its records. A replica that did not answer in time is
        not waited for again for `UNREPLICATED_PAUSE` seconds, so users are not slowed down while
        it is away (a failover in that time can lose a batch, as without a replica)."""
        if not self._unconfirmed or self._replicated is None or self._clock() < self._skip_replica_until:
            return
        self._unconfirmed = False
        try:
            confirmed = await self._replicated()
        except aioredis.RedisError as exc:
            log.warning("could not confirm the updates reached a replica: %s", exc)
            confirmed = False
        if not confirmed:
            self._skip_replica_until = self._clock() + UNREPLICATED_PAUSE

    def _keep_delivery(self, update: Update, delivery: Delivery) -> None:
        self._deliveries[update.update_id] = delivery
        if self._turn is not None:
            self._queued[id(update)] = (self._era, delivery, update)  # held: its id() stays unique

    async def replay(self, application: Application, older_than: float | None = None) -> int:
        """Queue again what a dead process received and did not finish; returns how many.

        Updates this process has in hand (queued or being handled) are not queued twice; with
        `older_than`, only records written at least that many seconds ago are."""
        assert self._redis is not None and self._claims is not None, "attach first"
        left = await self._redis.hgetall(self._key)
        replayed = 0
        for raw_id in sorted(left, key=int):
            update_id = int(raw_id)
            if update_id in self._deliveries or update_id in self._unmarked:
                continue
            if await self._claims.is_done(update_id):  # handled; died before forgetting it
                await self._redis.hdel(self._key, raw_id)
                continue
            record = json.loads(left[raw_id])
            if older_than is not None and self._clock() - record.get("at", 0) < older_than:
                continue
            update = Update.de_json(record["update"], application.bot)
            self._keep_delivery(update, Delivery(update_id, record["seed"], retried=True))
            super().put_nowait(update)
            replayed += 1
        if replayed:
            log.info("handling %s update(s) received before a restart and never handled", replayed)
        return replayed

    async def sweep(self, application: Application) -> int:
        """While this process polls: mark done what it handled while Redis did not answer, then
        handle again what a failover stranded (see the module's docstring); returns how many."""
        if self._turn is not None and not self._turn.holding:
            return 0
        for update_id in sorted(self._unmarked):
            await self._mark_done(update_id)
        replayed = await self.replay(application, older_than=STRANDED_AFTER)
        if replayed:
            log.warning("handling again %s update(s) whose handling Redis lost (a failover?)", replayed)
        return replayed

    async def sweep_forever(self, application: Application) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                await self.sweep(application)
            except aioredis.RedisError as exc:
                log.info("could not look for stranded updates: %s", exc)

    async def taken(self, application: Application, retaken: bool = False) -> None:
        """This process holds the poller lease now: replay what was left. `retaken`: it had lapsed
        while this process held it, so another may have handled what this one has queued meanwhile."""
        if retaken:
            self._era += 1
            self._checked_before = self._era
        await self.replay(application)

    def lost(self) -> None:
        """Another process polls now and replayed what this one recorded: what is queued here and
        not begun is dropped when its turn comes (it is the other process's to handle)."""
        self._era += 1
        self._dropped_before = self._era
        self._deliveries = {i: d for i, d in self._deliveries.items() if i in self._running}

    async def begin(self, update: object) -> tuple[bool, Delivery | None]:
        """Whether this process handles the update now, and under which delivery (None: the update
        was not recorded, or came from elsewhere, e.g. the webhook server). Marks it begun."""
        queued = self._queued.pop(id(update), None)
        if queued is None or queued[2] is not update:
            delivery = self.delivery(update)
            if delivery is not None:
                self._running.add(delivery.update_id)
            return True, delivery
        era, delivery, _ = queued
        if self._turn is not None:
            await self._turn.confirm()  # after a stall past the lease's lifetime: asks Redis, may lose it
        mine = self._deliveries.get(delivery.update_id) is delivery
        if era < self._dropped_before or not mine:
            log.info("update %s is left to the process that took over polling", delivery.update_id)
            return False, None
        if era < self._checked_before and await self._is_done(delivery.update_id):
            self._deliveries.pop(delivery.update_id, None)
            return False, None
        self._running.add(delivery.update_id)
        return True, delivery

    async def _is_done(self, update_id: int) -> bool:
        assert self._claims is not None
        try:
            return await self._claims.is_done(update_id)
        except aioredis.RedisError:
            return False

    def delivery(self, update: object) -> Delivery | None:
        if isinstance(update, Update):
            return self._deliveries.get(update.update_id)
        return None

    async def handled(self, update_id: int) -> None:
        if not await self._mark_done(update_id):
            self._unmarked.add(update_id)  # the sweep marks it later rather than handle it again
        self._deliveries.pop(update_id, None)

    async def _mark_done(self, update_id: int) -> bool:
        assert self._redis is not None and self._claims is not None
        try:
            await self._claims.done(update_id, received=self._key)  # marked done and forgotten at once
        except aioredis.RedisError as exc:
            log.warning("could not record update %s as handled: %s", update_id, exc)
            return False
        self._unmarked.discard(update_id)
        return True

    def ended(self, update_id: int) -> None:
        """Its handler is over (handled, or stopped midway by a crash-like cancellation)."""
        self._running.discard(update_id)


class DurableApplication(Application):
    """Handles each polled update under its delivery (seed, retried) and then forgets it."""

    async def process_update(self, update: object) -> None:
        queue = self.update_queue
        if not isinstance(queue, ReceivedQueue):
            await super().process_update(update)
            return
        handle, delivery = await queue.begin(update)
        if not handle:  # another process polls now and handles it
            return
        if delivery is None:  # webhook mode (its server sets the delivery), or not recorded
            await super().process_update(update)
            return
        token = delivering(delivery)
        try:
            await super().process_update(update)
            await queue.handled(delivery.update_id)
        finally:
            delivered(token)
            queue.ended(delivery.update_id)
