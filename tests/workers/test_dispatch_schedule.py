"""Delayed jobs never run before their time, although RQ schedules in whole seconds."""

from __future__ import annotations

from redis import Redis
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from deputy.core.records.payloads import ACTIONS_QUEUE, AGENT_QUEUE
from deputy.queue.dispatch import RQDispatch


def _scheduled_at(redis: Redis, queue: str) -> list[float]:
    registry = ScheduledJobRegistry(queue, connection=redis, serializer=JSONSerializer)
    return [score for _, score in redis.zrange(registry.key, 0, -1, withscores=True)]


def test_a_cards_expiry_is_scheduled_no_earlier_than_the_card_expires(redis: Redis) -> None:
    # A card that expires 0.9 s into a second: RQ would have run its expiry at the start of
    # that second, found the card not yet expired, and nothing would ever have expired it.
    expires_at = 1_900_000_000.9
    RQDispatch(redis).expire_approval("ap1", expires_at)
    [when] = _scheduled_at(redis, ACTIONS_QUEUE)
    assert when >= expires_at and when - expires_at < 1


def test_a_delayed_step_waits_at_least_its_delay(redis: Redis) -> None:
    now = 1_900_000_000.6
    RQDispatch(redis, clock=lambda: now).step("g_sched", 3, delay=2.0)
    [when] = _scheduled_at(redis, AGENT_QUEUE)
    assert when >= now + 2.0 and when - (now + 2.0) < 1
