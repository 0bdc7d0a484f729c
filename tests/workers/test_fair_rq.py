"""The agent's and the executor's queues serve users in turn: one user's backlog never holds up another's step."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis import Redis
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from deputy.agent.goals import Goal, GoalStore
from deputy.core.records.payloads import ACTIONS_QUEUE, AGENT_QUEUE
from deputy.core.records.erasure import Owned
from deputy.queue.dispatch import RQDispatch, erase_user_units, make_queues
from deputy.queue.fair_rq import OWNER_META, FairQueue

ran: list[str] = []


def record(name: str) -> None:
    ran.append(name)


def _queue(redis: Redis) -> FairQueue:
    return FairQueue("fairtest", connection=redis, serializer=JSONSerializer)


def _push(queue: FairQueue, owner: int, name: str) -> None:
    queue.enqueue(f"{__name__}.record", name, job_id=name, meta={OWNER_META: owner})


def _run_all(redis: Redis, queue: FairQueue) -> list[str]:
    ran.clear()
    SimpleWorker([queue], connection=redis, serializer=JSONSerializer).work(burst=True)
    return list(ran)


def test_a_user_arriving_behind_a_heavy_users_backlog_is_served_after_one_of_its_jobs(redis: Redis) -> None:
    queue = _queue(redis)
    for i in range(50):
        _push(queue, 1, f"heavy-{i}")
    for light in range(2, 6):
        _push(queue, light, f"light-{light}")

    order = _run_all(redis, queue)

    assert len(order) == 54
    # Every light user's job ran before the heavy user's third: one turn each, not first come first served.
    assert all(order.index(f"light-{n}") < order.index("heavy-2") for n in range(2, 6))
    # The heavy user's own jobs still run in the order they were sent.
    assert [name for name in order if name.startswith("heavy")] == [f"heavy-{i}" for i in range(50)]


def test_users_take_turns_while_a_worker_drains_the_queue(redis: Redis) -> None:
    queue = _queue(redis)
    for i in range(5):
        _push(queue, 1, f"a-{i}")
        _push(queue, 2, f"b-{i}")
    for i in range(5):
        _push(queue, 3, f"c-{i}")  # arrives last, with five jobs at once

    order = _run_all(redis, queue)

    # The late user gets a turn in every round of three instead of waiting for all ten others.
    late = [order.index(f"c-{i}") for i in range(5)]
    assert late[0] <= 3
    assert all(later - earlier <= 3 for earlier, later in zip(late, late[1:]))


def test_jobs_without_an_owner_still_run(redis: Redis) -> None:
    queue = _queue(redis)
    _push(queue, 1, "owned")
    queue.enqueue(f"{__name__}.record", "plain", job_id="plain")
    assert sorted(_run_all(redis, queue)) == ["owned", "plain"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.tuples(st.just("push"), st.integers(1, 4)), st.just(("take", 0))), max_size=60))
def test_no_job_is_lost_or_doubled_and_each_users_order_holds(redis: Redis, moves: list[tuple[str, int]]) -> None:
    redis.flushall()
    queue = _queue(redis)
    sent: dict[int, list[str]] = {}
    taken: list[str] = []
    for n, (move, owner) in enumerate(moves):
        if move == "push":
            name = f"{owner}-{n}"
            _push(queue, owner, name)
            sent.setdefault(owner, []).append(name)
            # Fairness: a user with nothing else queued waits behind at most two jobs of any one other user.
            ahead = queue.job_ids[: queue.job_ids.index(name)]
            if all(not job.startswith(f"{owner}-") for job in ahead):
                assert max(Counter(job.split("-")[0] for job in ahead).values(), default=0) <= 2
        else:
            job_id = redis.lpop(queue.key)  # a worker taking the head, as RQ does
            if job_id is not None:
                taken.append(job_id.decode())
    everything = taken + queue.job_ids
    assert sorted(everything) == sorted(name for names in sent.values() for name in names)
    for owner, names in sent.items():
        assert [job for job in everything if job.startswith(f"{owner}-")] == names


def test_dispatch_tags_a_goals_step_and_action_with_its_user(redis: Redis) -> None:
    goals = GoalStore(redis)
    heavy = [goals.save(Goal(id=f"g_heavy{i}", user_id=7, chat_id=7, text="x", created_at=0, updated_at=0)) for i in range(20)]
    light = goals.save(Goal(id="g_light", user_id=8, chat_id=8, text="y", created_at=0, updated_at=0))
    dispatch = RQDispatch(redis)
    for goal in heavy:
        dispatch.step(goal.id, 0)
        dispatch.action(f"a_{goal.id}", goal.id, 0)
    dispatch.step(light.id, 0)
    dispatch.action("a_light", light.id, 0)

    queues = make_queues(redis)
    for name in (AGENT_QUEUE, ACTIONS_QUEUE):
        jobs = queues[name].get_jobs()
        assert [job.meta[OWNER_META] for job in jobs[:3]].count(8) == 1
        assert jobs[-1].meta[OWNER_META] == 7


def test_erasing_a_user_forgets_their_place_in_the_turns(redis: Redis) -> None:
    goals = GoalStore(redis)
    goal = goals.save(Goal(id="g_gone", user_id=77, chat_id=77, text="x", created_at=0, updated_at=0))
    RQDispatch(redis).step(goal.id, 0)
    assert any(b"77" in redis.zrange(key, 0, -1) for key in redis.scan_iter("deputy:fair:*:last"))
    erase_user_units(redis, Owned(user_id=77, goal_ids=(goal.id,), action_ids=()))
    assert not any(b"77" in redis.zrange(key, 0, -1) for key in redis.scan_iter("deputy:fair:*:last"))
