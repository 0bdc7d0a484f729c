"""An RQ queue that serves its users in turn instead of first come, first served.

RQ workers take the job at the head of a Redis list. A plain queue appends at the tail,
so a user with a hundred goals in progress puts a hundred steps ahead of the next user's
one. `FairQueue` keeps RQ's list, its workers and its bookkeeping unchanged and only
chooses *where* a new job goes in the list, by start-time fair queueing:

- the queue's virtual time is the tag of the job at its head;
- a user's new job is tagged `max(virtual time, that user's last tag) + 1`;
- it is inserted before the first queued job with a greater tag.

So each user holding jobs in the queue gets one in every round: a user who arrives while
another has a thousand queued waits behind at most one job of each other user, never
behind the thousand. A user's own jobs keep their order. Jobs without an owner (pushed by
RQ's scheduler, retries at the front, maintenance) go where RQ puts them.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from rq import Queue
from rq.job import Job

OWNER_META = "owner"
"""The job's `meta` field that names whose work it is (a user id)."""

_TAGS = "deputy:fair:{}:tags"  # zset: queued job id -> tag
_LAST = "deputy:fair:{}:last"  # zset: owner -> the tag of their latest job
_NOW = "deputy:fair:{}:now"  # the virtual time, kept while the queue is empty
_MAX_STALE_PIVOTS = 64

# Scores are `tag + n / 2**20` for the n-th job of a round, so that jobs of one round keep the
# order they came in (a sorted set orders equal scores by name); formatted with %.17g because
# Lua would otherwise print them with 14 digits and lose the fraction.
# KEYS: queue list, tags zset, last zset, now string. ARGV: job id, owner.
# The goal intake embeds this script in its own (deputy.bot.intake_scripts): keep it a body over KEYS and ARGV.
PUSH_SCRIPT = f"""
local function num(x) return string.format('%.17g', x) end
local head = redis.call('LINDEX', KEYS[1], 0)
local now = tonumber(redis.call('GET', KEYS[4]) or '0')
if head then
  local head_score = redis.call('ZSCORE', KEYS[2], head)
  if head_score then
    now = tonumber(head_score)
    -- Jobs before the head have been taken.
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. num(now))
  end
else
  -- Every queued job has been taken: the virtual time moves on to the last one's tag, so a user
  -- whose jobs just ran does not start the next round ahead of one who waited.
  local last = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
  if last then now = math.max(now, math.floor(tonumber(last))) end
  redis.call('DEL', KEYS[2])
end
local round = math.floor(now)
-- Owners whose last job is behind the head start afresh.
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. round)
redis.call('SET', KEYS[4], num(now))
local tag = math.max(round, tonumber(redis.call('ZSCORE', KEYS[3], ARGV[2]) or round)) + 1
local score = tag
local latest = redis.call('ZREVRANGEBYSCORE', KEYS[2], '(' .. (tag + 1), tag, 'WITHSCORES', 'LIMIT', 0, 1)
if latest[2] then score = tonumber(latest[2]) + 1 / 1048576 end
local placed = false
for _ = 1, {_MAX_STALE_PIVOTS} do
  local pivot = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. num(score), '+inf', 'LIMIT', 0, 1)[1]
  if not pivot then break end
  if redis.call('LINSERT', KEYS[1], 'BEFORE', pivot, ARGV[1]) > 0 then
    placed = true
    break
  end
  -- Taken by a worker (or removed) since it was queued: forget it and look again.
  redis.call('ZREM', KEYS[2], pivot)
end
if not placed then redis.call('RPUSH', KEYS[1], ARGV[1]) end
redis.call('ZADD', KEYS[2], num(score), ARGV[1])
redis.call('ZADD', KEYS[3], tag, ARGV[2])
return tag
"""

_pushing_owner: ContextVar[str | None] = ContextVar("pushing_owner", default=None)


def fair_keys(queue_key: str) -> list[str]:
    name = queue_key.removeprefix(Queue.redis_queue_namespace_prefix)
    return [queue_key, _TAGS.format(name), _LAST.format(name), _NOW.format(name)]


def erase_owner(redis: Any, queue_names: list[str], owner: int) -> int:
    """Forget `owner`'s place in the turns of these queues (their id is all the turns keep of them)."""
    pipe = redis.pipeline(transaction=False)
    for name in queue_names:
        pipe.zrem(_LAST.format(name), str(owner))
    return sum(pipe.execute())


class FairQueue(Queue):
    """`rq.Queue` whose jobs carrying an owner in their meta are placed in turn between owners."""

    def _enqueue_async_job(self, job: Job, pipeline: Any = None, at_front: bool = False, unique: bool = False) -> Job:
        owner = job.meta.get(OWNER_META)
        token = _pushing_owner.set(None if owner is None else str(owner))
        try:
            return super()._enqueue_async_job(job, pipeline=pipeline, at_front=at_front, unique=unique)
        finally:
            _pushing_owner.reset(token)

    def push_job_id(self, job_id: str, pipeline: Any = None, at_front: bool = False) -> None:
        owner = _pushing_owner.get()
        if owner is None or at_front:
            super().push_job_id(job_id, pipeline=pipeline, at_front=at_front)
            return
        connection = pipeline if pipeline is not None else self.connection
        # EVAL, not EVALSHA: inside a MULTI (sync or asyncio) a missing script cannot be loaded
        # half way, and the script is short.
        connection.eval(PUSH_SCRIPT, 4, *fair_keys(self.key), job_id, owner)

    def empty(self) -> None:
        super().empty()
        self.connection.delete(*fair_keys(self.key)[1:])
