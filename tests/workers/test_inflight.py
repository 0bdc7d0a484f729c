"""Crash recovery: in-flight units, leases and the watchdog, on real RQ queues.

What a user relies on: if the worker running their goal dies, the goal is picked up again
within seconds, exactly once, and a goal that keeps killing workers is eventually given
up (with a message) instead of looping forever. Healthy work is never duplicated.
"""

from __future__ import annotations

import time

import pytest
from redis import Redis
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from deputy.testing.stack import wait_for
from deputy.queue.job_paths import RUN_GOAL_STEP
from deputy.queue.dispatch import RQDispatch, goal_unit, make_queues
from deputy.queue.inflight import (
    MAX_QUEUED_RECHECK,
    Inflight,
    Lease,
    Registration,
    UnitState,
    Watchdog,
    intermediate_key,
    lease_held,
)
from deputy.core.records.payloads import AGENT_QUEUE
from deputy.core.infrastructure.clock import ManualClock

LEASE_TTL = 10.0
GOAL = "g_watched"
UNIT = goal_unit(GOAL)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000.0)


@pytest.fixture
def queues(redis: Redis) -> dict[str, Queue]:
    return make_queues(redis)


@pytest.fixture
def inflight(redis: Redis) -> Inflight:
    return Inflight(redis)


@pytest.fixture
def given_up() -> list[Registration]:
    return []


@pytest.fixture
def watchdog(redis: Redis, queues: dict[str, Queue], clock: ManualClock, given_up: list[Registration]) -> Watchdog:
    return make_watchdog(redis, queues, clock, given_up)


def make_watchdog(
    redis: Redis, queues: dict[str, Queue], clock: ManualClock, given_up: list[Registration], max_attempts: int = 5
) -> Watchdog:
    return Watchdog(redis, queues, LEASE_TTL, on_give_up=given_up.append, max_attempts=max_attempts, clock=clock)


@pytest.fixture
def registration(redis: Redis, clock: ManualClock, inflight: Inflight) -> Registration:
    """A goal step dispatched the normal way: registered, then enqueued on `agent`."""
    RQDispatch(redis, clock=clock).step(GOAL, 3)
    return inflight.get(UNIT)


def mark_started(redis: Redis, job_id: str) -> None:
    """What a worker does when it picks the job up; if it then dies, the job stays `started`."""
    Job.fetch(job_id, connection=redis, serializer=JSONSerializer).set_status(JobStatus.STARTED)


def dequeue(redis: Redis, queues: dict[str, Queue]) -> Job:
    """What an RQ worker does first (BLMOVE into the queue's intermediate list); if it dies
    right then, the job is neither in the queue nor started, and still says `queued`."""
    job, _ = Queue.dequeue_any([queues[AGENT_QUEUE]], None, connection=redis, serializer=JSONSerializer)
    assert job.get_status() == JobStatus.QUEUED
    assert redis.lrange(intermediate_key(AGENT_QUEUE), 0, -1) == [job.id.encode()]
    return job


def kill_and_wait_out(watchdog: Watchdog, clock: ManualClock) -> list[str]:
    """First sweep notices the dead unit; the next, a lease period later, acts."""
    assert watchdog.sweep() == []
    clock.advance(LEASE_TTL)
    return watchdog.sweep()


# -- the watchdog -----------------------------------------------------------------------


def test_a_queued_unit_is_left_alone(
    watchdog: Watchdog, clock: ManualClock, registration: Registration, inflight: Inflight, queues: dict[str, Queue]
) -> None:
    """Work waiting for a free worker is not dead, however long it waits."""
    for _ in range(3):
        assert watchdog.sweep() == []
        clock.advance(LEASE_TTL * 10)
    assert inflight.get(UNIT) == registration
    assert queues[AGENT_QUEUE].job_ids == [registration.job_id]


def test_a_started_unit_without_a_lease_is_revived_after_a_lease_period(
    redis: Redis, watchdog: Watchdog, clock: ManualClock, registration: Registration, inflight: Inflight,
    queues: dict[str, Queue],
) -> None:
    mark_started(redis, registration.job_id)

    assert watchdog.sweep() == [], "a job may be between its start and taking its lease"
    clock.advance(LEASE_TTL - 0.5)
    assert watchdog.sweep() == []
    clock.advance(0.5)
    assert watchdog.sweep() == [UNIT]

    revived = inflight.get(UNIT)
    assert revived.job_id != registration.job_id
    assert revived.attempts == registration.attempts + 1
    assert (revived.queue, revived.func) == (AGENT_QUEUE, RUN_GOAL_STEP.path)
    assert revived.payload == registration.payload == {"schema_version": 1, "goal_id": GOAL, "step": 3}
    assert revived.job_id in queues[AGENT_QUEUE].job_ids
    job = Job.fetch(revived.job_id, connection=redis, serializer=JSONSerializer)
    assert (job.func_name, list(job.args), job.get_status()) == (RUN_GOAL_STEP.path, [registration.payload], JobStatus.QUEUED)


def test_a_job_dequeued_by_a_worker_that_died_before_starting_it_is_revived(
    redis: Redis, watchdog: Watchdog, clock: ManualClock, registration: Registration, inflight: Inflight,
    queues: dict[str, Queue],
) -> None:
    """Killed between BLMOVE and the job's start: the work is done again within seconds."""
    dequeue(redis, queues)
    assert inflight.states([UNIT]) == {UNIT: UnitState.dequeued}

    assert kill_and_wait_out(watchdog, clock) == [UNIT]
    revived = inflight.get(UNIT)
    assert queues[AGENT_QUEUE].job_ids == [revived.job_id]
    assert redis.lrange(intermediate_key(AGENT_QUEUE), 0, -1) == [], "the dead worker's copy is gone"
    assert inflight.states([UNIT]) == {UNIT: UnitState.queued}


def test_a_job_dequeued_after_a_long_wait_is_watched_at_once(
    redis: Redis, watchdog: Watchdog, clock: ManualClock, registration: Registration, inflight: Inflight,
    queues: dict[str, Queue],
) -> None:
    """A unit that waited long is looked at rarely; once dequeued, its next look is not put off."""
    for _ in range(4):
        watchdog.sweep()
        clock.advance(MAX_QUEUED_RECHECK / 2)
    assert redis.zscore("deputy:inflight:due", UNIT) > clock() + 5, "a long wait is looked at rarely"
    dequeue(redis, queues)
    assert kill_and_wait_out(watchdog, clock) == [UNIT]


def test_every_state_of_a_unit_is_known(
    redis: Redis, clock: ManualClock, registration: Registration, inflight: Inflight, queues: dict[str, Queue]
) -> None:
    assert inflight.states([UNIT, goal_unit("g_never")]) == {UNIT: UnitState.queued, goal_unit("g_never"): UnitState.done}
    job = dequeue(redis, queues)
    assert inflight.states([UNIT]) == {UNIT: UnitState.dequeued}
    redis.lrem(intermediate_key(AGENT_QUEUE), 0, job.id)
    mark_started(redis, job.id)
    assert inflight.states([UNIT]) == {UNIT: UnitState.suspect}
    with Lease(redis, UNIT, ttl=30):
        assert inflight.states([UNIT]) == {UNIT: UnitState.running}
    inflight.complete(UNIT, job.id)
    assert inflight.states([UNIT]) == {UNIT: UnitState.done}


def test_a_unit_whose_job_never_reached_the_queue_is_revived(
    watchdog: Watchdog, clock: ManualClock, inflight: Inflight, queues: dict[str, Queue]
) -> None:
    """Registered, then the dispatcher died before enqueueing: the work still happens."""
    inflight.register(
        Registration(
            unit=UNIT, queue=AGENT_QUEUE, func=RUN_GOAL_STEP.path, payload={"goal_id": GOAL, "step": 0},
            job_id="s-g_watched-0-deadbeef", registered_at=clock(),
        )
    )
    assert kill_and_wait_out(watchdog, clock) == [UNIT]
    assert queues[AGENT_QUEUE].job_ids == [inflight.get(UNIT).job_id]


def test_a_unit_with_a_live_lease_is_left_alone(
    redis: Redis, watchdog: Watchdog, clock: ManualClock, registration: Registration, inflight: Inflight
) -> None:
    """A slow but alive job keeps its unit, even long after it started."""
    mark_started(redis, registration.job_id)
    with Lease(redis, UNIT, ttl=30) as held:
        assert held
        for _ in range(3):
            assert watchdog.sweep() == []
            clock.advance(LEASE_TTL * 10)
    assert inflight.get(UNIT) == registration


def test_a_lease_that_comes_back_restarts_the_grace_period(
    redis: Redis, watchdog: Watchdog, clock: ManualClock, registration: Registration
) -> None:
    mark_started(redis, registration.job_id)
    assert watchdog.sweep() == []
    with Lease(redis, UNIT, ttl=30):
        clock.advance(LEASE_TTL)
        assert watchdog.sweep() == []
    # Dead only from now on: one full lease period must pass again.
    assert watchdog.sweep() == []
    clock.advance(LEASE_TTL / 2)
    assert watchdog.sweep() == []
    clock.advance(LEASE_TTL / 2)
    assert watchdog.sweep() == [UNIT]


def test_a_unit_handed_to_a_new_job_gets_a_fresh_grace_period(
    redis: Redis, watchdog: Watchdog, clock: ManualClock, registration: Registration, inflight: Inflight
) -> None:
    mark_started(redis, registration.job_id)
    assert watchdog.sweep() == []
    # The step finished and enqueued its successor (which a worker has just started).
    RQDispatch(redis, clock=clock).step(GOAL, 4)
    successor = inflight.get(UNIT)
    mark_started(redis, successor.job_id)
    clock.advance(LEASE_TTL)
    assert watchdog.sweep() == []
    assert inflight.get(UNIT) == successor


def test_two_watchdogs_revive_a_dead_unit_once(
    redis: Redis, queues: dict[str, Queue], clock: ManualClock, registration: Registration, inflight: Inflight,
    given_up: list[Registration],
) -> None:
    first, second = (make_watchdog(redis, queues, clock, given_up) for _ in range(2))
    mark_started(redis, registration.job_id)
    assert first.sweep() == [] and second.sweep() == []
    clock.advance(LEASE_TTL)

    assert first.sweep() + second.sweep() == [UNIT]
    revived = inflight.get(UNIT)
    assert revived.attempts == 1
    assert [j for j in queues[AGENT_QUEUE].job_ids if j != registration.job_id] == [revived.job_id]


def test_a_unit_that_keeps_dying_is_given_up_once(
    redis: Redis, queues: dict[str, Queue], clock: ManualClock, registration: Registration, inflight: Inflight,
    given_up: list[Registration],
) -> None:
    first, second = (make_watchdog(redis, queues, clock, given_up, max_attempts=2) for _ in range(2))
    for attempt in (1, 2):
        mark_started(redis, inflight.get(UNIT).job_id)
        # A revived unit was last seen queued: the next look comes at most this much later.
        clock.advance(MAX_QUEUED_RECHECK)
        assert first.sweep() == [] and second.sweep() == []
        clock.advance(LEASE_TTL)
        assert first.sweep() + second.sweep() == [UNIT]
        assert inflight.get(UNIT).attempts == attempt
    assert given_up == []

    last = inflight.get(UNIT)
    mark_started(redis, last.job_id)
    clock.advance(MAX_QUEUED_RECHECK)
    assert first.sweep() == [] and second.sweep() == []
    clock.advance(LEASE_TTL)
    assert first.sweep() + second.sweep() == []

    assert given_up == [last]
    assert inflight.get(UNIT) is None
    jobs_before = queues[AGENT_QUEUE].count
    clock.advance(LEASE_TTL * 10)
    assert first.sweep() + second.sweep() == []
    assert given_up == [last] and queues[AGENT_QUEUE].count == jobs_before


# -- leases -----------------------------------------------------------------------------


def test_a_lease_is_renewed_while_held_and_released_on_exit(redis: Redis) -> None:
    ttl = 0.3
    with Lease(redis, UNIT, ttl=ttl) as held:
        assert held
        started, renewals, last_pttl = time.monotonic(), 0, redis.pttl(f"deputy:lease:{UNIT}")

        def renewed_past_ttl() -> bool:
            nonlocal renewals, last_pttl
            pttl = redis.pttl(f"deputy:lease:{UNIT}")
            assert pttl > 0, "the lease lapsed while its holder was alive"
            if pttl > last_pttl:
                renewals += 1
            last_pttl = pttl
            return renewals >= 4 and time.monotonic() - started > 2 * ttl

        wait_for(renewed_past_ttl, timeout=5, interval=0.01, what="lease renewals")
        assert lease_held(redis, UNIT)
    assert not lease_held(redis, UNIT)


def test_a_lease_is_released_when_the_job_raises(redis: Redis) -> None:
    with pytest.raises(RuntimeError), Lease(redis, UNIT, ttl=30):
        raise RuntimeError("step crashed")
    assert not lease_held(redis, UNIT)


def test_a_held_unit_cannot_be_leased_twice(redis: Redis) -> None:
    """Two jobs for the same goal: the second sees the lease and steps aside."""
    with Lease(redis, UNIT, ttl=30) as first:
        assert first
        with Lease(redis, UNIT, ttl=30) as second:
            assert not second
        assert lease_held(redis, UNIT), "the loser's exit must not release the holder's lease"
        with Lease(redis, goal_unit("g_other"), ttl=30) as other:
            assert other, "leases are per unit"
    with Lease(redis, UNIT, ttl=30) as again:
        assert again


def test_a_sweep_only_looks_at_due_units(redis: Redis, watchdog: Watchdog, clock: ManualClock) -> None:
    """Thousands of goals waiting in the queue do not make every sweep read them all."""
    dispatch = RQDispatch(redis, clock=clock)
    for i in range(300):
        dispatch.step(f"g_many_{i}", 0)
    assert watchdog.sweep() == []
    assert redis.zcount("deputy:inflight:due", "-inf", clock()) == 0, "all were looked at and put off"
    clock.advance(LEASE_TTL / 2)
    assert redis.zcount("deputy:inflight:due", "-inf", clock()) == 0
    # Work completed meanwhile leaves the index for good.
    Inflight(redis).complete(goal_unit("g_many_0"))
    clock.advance(MAX_QUEUED_RECHECK)
    watchdog.sweep()
    assert redis.zscore("deputy:inflight:due", goal_unit("g_many_0")) is None
    assert redis.zcard("deputy:inflight:due") == 299


def test_a_delayed_step_whose_time_passed_with_no_scheduler_is_queued(
    redis: Redis, watchdog: Watchdog, clock: ManualClock, inflight: Inflight, queues: dict[str, Queue]
) -> None:
    """A retry put off for a few seconds still runs when no RQ scheduler moves it (its lock
    stayed with a killed worker): the goal does not wait silently."""
    clock.now = time.time()
    RQDispatch(redis, clock=clock).step(GOAL, 4, delay=5)
    job_id = inflight.get(UNIT).job_id
    assert queues[AGENT_QUEUE].job_ids == []
    watchdog.sweep()
    assert queues[AGENT_QUEUE].job_ids == [], "not before its time"
    clock.advance(5 + 2 * LEASE_TTL + 1)
    watchdog.sweep()
    assert queues[AGENT_QUEUE].job_ids == [job_id]
    assert inflight.get(UNIT).job_id == job_id, "the same job, not a second one"
    assert inflight.states([UNIT]) == {UNIT: UnitState.queued}


def test_a_delayed_step_lost_when_redis_failed_while_the_watchdog_queued_it_is_queued_next_sweep(
    redis: Redis, watchdog: Watchdog, clock: ManualClock, inflight: Inflight, queues: dict[str, Queue],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model call's retry, scheduled while Redis stalled and RQ's scheduler died with it: the
    watchdog took the job out of the scheduled registry, then Redis failed before the job was
    queued. The retry still runs; the goal is not left acknowledged and silent."""
    clock.now = time.time()
    RQDispatch(redis, clock=clock).step(GOAL, 4, delay=5)
    job_id = inflight.get(UNIT).job_id
    queue = queues[AGENT_QUEUE]
    real_enqueue = queue.enqueue_job
    failures = iter([RedisTimeoutError("Timeout reading from socket")])

    def enqueue_once_failing(job: Job, *args: object, **kwargs: object) -> Job:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return real_enqueue(job, *args, **kwargs)

    monkeypatch.setattr(queue, "enqueue_job", enqueue_once_failing)
    clock.advance(5 + 2 * LEASE_TTL + 1)
    with pytest.raises(RedisError):
        watchdog.sweep()  # its run loop logs this and sweeps again
    assert queue.job_ids == [] and queue.scheduled_job_registry.get_job_ids() == [], "lost in between"

    clock.advance(MAX_QUEUED_RECHECK + 1)
    watchdog.sweep()
    assert queue.job_ids == [job_id]
    assert inflight.states([UNIT]) == {UNIT: UnitState.queued}
    clock.advance(MAX_QUEUED_RECHECK + 1)
    watchdog.sweep()
    assert queue.job_ids == [job_id], "queued once"


def test_a_job_ending_marks_its_unit_done_only_if_the_unit_still_names_it(
    redis: Redis, registration: Registration, inflight: Inflight
) -> None:
    handed_on = Lease(redis, UNIT, ttl=30)
    assert handed_on.take()
    assert not handed_on.release(completing="s-some-other-job"), "a unit handed to the next job stays registered"
    assert not lease_held(redis, UNIT) and inflight.get(UNIT) == registration

    ending = Lease(redis, UNIT, ttl=30)
    assert ending.take()
    assert ending.release(completing=registration.job_id)
    assert not lease_held(redis, UNIT) and inflight.get(UNIT) is None
    assert redis.zscore("deputy:inflight:due", UNIT) is None


def test_taking_a_lease_brings_a_put_off_units_next_look_closer(
    redis: Redis, registration: Registration
) -> None:
    far = time.time() + 3600
    redis.zadd("deputy:inflight:due", {UNIT: far})
    with Lease(redis, UNIT, ttl=30) as held:
        assert held
        assert redis.zscore("deputy:inflight:due", UNIT) < far
    with Lease(redis, UNIT, ttl=30):
        with Lease(redis, UNIT, ttl=30) as second:
            assert not second


def test_many_leases_held_at_once_are_all_renewed_and_each_released_alone(redis: Redis) -> None:
    ttl = 0.3
    leases = [Lease(redis, goal_unit(f"g_many_{i}"), ttl=ttl) for i in range(5)]
    assert all(lease.take() for lease in leases)
    started = time.monotonic()
    wait_for(lambda: time.monotonic() - started > 3 * ttl, timeout=5, interval=0.02, what="three lease periods")
    assert all(lease_held(redis, goal_unit(f"g_many_{i}")) for i in range(5)), "every held lease outlived its ttl"
    leases[0].release()
    assert not lease_held(redis, goal_unit("g_many_0"))
    started = time.monotonic()
    wait_for(lambda: time.monotonic() - started > 2 * ttl, timeout=5, interval=0.02, what="two lease periods")
    assert all(lease_held(redis, goal_unit(f"g_many_{i}")) for i in range(1, 5))
    assert not lease_held(redis, goal_unit("g_many_0")), "a released lease is not renewed back"
    for lease in leases[1:]:
        lease.release()
