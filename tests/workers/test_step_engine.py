"""The step engine runs many goals' steps at once off RQ's queue, and keeps every guarantee of a job.

On a real Redis with the real runner, dispatch and watchdog: goals whose steps all wait at once
finish on one engine (one RQ worker would serve them one by one), a goal of several steps hands
itself on, a failing job does not stop the others, a step put off for later runs when due, and a
step whose engine died after taking it is run again by the watchdog and the goal still ends once.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from redis import Redis

from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.model.testing import FunctionModel, text, tool_call, user_texts
from deputy.agent.runner import GoalRunner
from deputy.apps.worker_process import WorkerContext, give_up, install, run_scheduler
from deputy.connectors.catalog import Catalog
from deputy.core.records.ids import new_id
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox, OutboxMessage
from deputy.core.records.payloads import AGENT_QUEUE
from deputy.queue.dispatch import RQDispatch, goal_unit, make_queues
from deputy.queue.inflight import Inflight, Watchdog, intermediate_key
from deputy.queue.step_engine import EngineConfig, StepEngine, live_engines
from deputy.core.infrastructure.redis_clients import async_client
from deputy.sentinel.stores.action_store import ActionStore


pytestmark = pytest.mark.usefixtures("asyncio_garbage_collected")


def _runner(redis: Redis, model: FunctionModel) -> GoalRunner:
    return GoalRunner(GoalStore(redis), ActionStore(redis), model, Outbox(redis), RQDispatch(redis), Catalog(),
                      clock=time.time)


def _start(redis: Redis, user_id: int, words: str) -> Goal:
    now = time.time()
    goal = GoalStore(redis).save(Goal(id=new_id("g"), user_id=user_id, chat_id=user_id, text=words,
                                      messages=[{"role": "user", "content": words}], created_at=now, updated_at=now))
    RQDispatch(redis).step(goal.id, goal.step)
    return goal


def _run_engine(redis: Redis, url: str, threads: int = 8, burst: bool = True, stop: asyncio.Event | None = None,
                timeout: float = 60) -> StepEngine:
    async def run() -> StepEngine:
        client = async_client(url)
        engine = StepEngine(client, redis, EngineConfig(queue=AGENT_QUEUE, name="engine-test", threads=threads))
        try:
            await asyncio.wait_for(engine.run(stop or asyncio.Event(), burst=burst), timeout)
        finally:
            await client.aclose()
        return engine

    return asyncio.run(run())


def _answers(redis: Redis) -> dict[int, list[str]]:
    told: dict[int, list[str]] = {}
    for _, fields in redis.xrange(OUTBOX_STREAM):
        message = OutboxMessage.model_validate_json(fields[b"json"])
        told.setdefault(message.chat_id, []).append(message.text)
    return told


def test_goals_whose_steps_wait_at_the_same_time_all_finish_on_one_engine(redis: Redis, redis_server) -> None:
    # Each goal's model call waits until six calls are in progress at once: only an engine running
    # six steps side by side gets past it (one RQ worker runs one step at a time and would never).
    together = threading.Barrier(6, timeout=20)

    def decide(messages, tools):
        together.wait()
        return text(f"Done: {user_texts(messages)[0]}")

    install(WorkerContext(redis=redis, lease_ttl=3.0, runner=_runner(redis, FunctionModel(decide))))
    goals = [_start(redis, 100 + i, f"task {i}") for i in range(6)]
    engine = _run_engine(redis, redis_server.url, threads=6)

    told = _answers(redis)
    for i, goal in enumerate(goals):
        assert told[goal.chat_id] == [f"Done: task {i}"]
        assert GoalStore(redis).get(goal.id).status is GoalStatus.done
    assert engine.counts.failed == 0 and max(engine.counts.batches) > 1
    assert Inflight(redis).get(goal_unit(goals[0].id)) is None  # every unit handed back
    assert redis.llen(intermediate_key(AGENT_QUEUE)) == 0


def test_a_goal_of_several_steps_is_handed_on_from_step_to_step(redis: Redis, redis_server) -> None:
    def decide(messages, tools):
        planned = sum(1 for m in messages if m.get("role") == "tool")
        if planned < 3:
            return tool_call("update_plan", steps=[{"title": f"part {planned}", "status": "done"}])
        return text("Three parts done.")

    install(WorkerContext(redis=redis, lease_ttl=3.0, runner=_runner(redis, FunctionModel(decide))))
    goal = _start(redis, 7, "look three times")
    _run_engine(redis, redis_server.url)

    stored = GoalStore(redis).get(goal.id)
    assert stored.status is GoalStatus.done and stored.step >= 3
    assert _answers(redis)[7][-1] == "Three parts done."
    assert Inflight(redis).get(goal_unit(goal.id)) is None


def test_a_job_that_fails_is_marked_failed_and_the_others_still_run(redis: Redis, redis_server) -> None:
    def decide(messages, tools):
        if "break" in user_texts(messages)[0]:
            raise RuntimeError("a bug in a step")
        return text("fine")

    install(WorkerContext(redis=redis, lease_ttl=3.0, runner=_runner(redis, FunctionModel(decide))))
    broken = _start(redis, 1, "break please")
    fine = [_start(redis, 2 + i, "all good") for i in range(3)]
    engine = _run_engine(redis, redis_server.url)

    told = _answers(redis)
    assert all(told[goal.chat_id] == ["fine"] for goal in fine)
    assert engine.counts.failed >= 1
    failed = redis.zrange(f"rq:failed:{AGENT_QUEUE}", 0, -1)
    assert failed and b"a bug in a step" in redis.hget(b"rq:job:" + failed[0], "exc_info")
    assert broken.chat_id not in told or "fine" not in told[broken.chat_id]


def test_a_step_put_off_for_later_runs_when_its_time_comes(redis: Redis, redis_server) -> None:
    install(WorkerContext(redis=redis, lease_ttl=3.0, runner=_runner(redis, FunctionModel(lambda m, t: text("later")))))
    now = time.time()
    goal = GoalStore(redis).save(Goal(id=new_id("g"), user_id=5, chat_id=5, text="later",
                                      messages=[{"role": "user", "content": "later"}], created_at=now, updated_at=now))
    RQDispatch(redis).step(goal.id, 0, delay=1.5)
    stop_threads = threading.Event()
    scheduler = threading.Thread(target=run_scheduler, args=(redis, AGENT_QUEUE, "sched-test", stop_threads, 0.2))
    scheduler.start()
    try:
        async def run() -> None:
            halt = asyncio.Event()
            client = async_client(redis_server.url)
            engine = StepEngine(client, redis, EngineConfig(queue=AGENT_QUEUE, name="engine-test", idle_wait=0.2))
            task = asyncio.create_task(engine.run(halt))
            assert await asyncio.to_thread(_told_within, redis, 5, 15)
            assert live_engines(redis, AGENT_QUEUE) == 1
            halt.set()
            await task
            await client.aclose()

        asyncio.run(run())
    finally:
        stop_threads.set()
        scheduler.join()
    assert _answers(redis)[5] == ["later"]
    assert live_engines(redis, AGENT_QUEUE) == 0  # a stopped engine takes itself off the list


def _told_within(redis: Redis, chat_id: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if chat_id in _answers(redis):
            return True
        time.sleep(0.05)
    return False


def test_a_step_whose_engine_died_after_taking_it_runs_again_and_the_goal_ends_once(redis: Redis, redis_server) -> None:
    calls: list[str] = []

    def decide(messages, tools):
        calls.append(user_texts(messages)[0])
        return text("answered")

    install(WorkerContext(redis=redis, lease_ttl=1.0, runner=_runner(redis, FunctionModel(decide))))
    goal = _start(redis, 9, "one answer")

    # An engine takes the step (it is moved off the queue and marked started) and dies before running it.
    async def take_and_die() -> None:
        client = async_client(redis_server.url)
        dead = StepEngine(client, redis, EngineConfig(queue=AGENT_QUEUE, name="engine-dead"))
        assert len(await dead._take(1)) == 1
        await client.aclose()

    asyncio.run(take_and_die())
    assert redis.llen(f"rq:queue:{AGENT_QUEUE}") == 0 and redis.llen(intermediate_key(AGENT_QUEUE)) == 1

    watchdog = Watchdog(redis, make_queues(redis), 1.0, give_up(redis), clock=time.time)
    deadline = time.monotonic() + 15
    while not redis.llen(f"rq:queue:{AGENT_QUEUE}"):
        assert time.monotonic() < deadline, "the watchdog never queued the step again"
        watchdog.sweep()
        time.sleep(0.2)
    _run_engine(redis, redis_server.url)

    assert _answers(redis)[9] == ["answered"]
    assert calls == ["one answer"]
    assert GoalStore(redis).get(goal.id).status is GoalStatus.done
    assert redis.llen(intermediate_key(AGENT_QUEUE)) == 0


def test_a_job_record_gone_before_it_was_taken_is_skipped(redis: Redis, redis_server) -> None:
    install(WorkerContext(redis=redis, lease_ttl=3.0, runner=_runner(redis, FunctionModel(lambda m, t: text("ok")))))
    gone = _start(redis, 3, "a")
    kept = _start(redis, 4, "b")
    job_id = redis.lindex(f"rq:queue:{AGENT_QUEUE}", 0)
    redis.delete(b"rq:job:" + job_id)
    engine = _run_engine(redis, redis_server.url)
    assert _answers(redis).get(4) == ["ok"]
    assert engine.counts.failed == 0
    assert redis.llen(intermediate_key(AGENT_QUEUE)) == 0


@pytest.mark.parametrize("threads", [1, 4])
def test_with_any_number_of_threads_each_goal_is_answered_once(redis: Redis, redis_server, threads: int) -> None:
    install(WorkerContext(redis=redis, lease_ttl=3.0,
                          runner=_runner(redis, FunctionModel(lambda m, t: text(f"hi {user_texts(m)[0]}")))))
    goals = [_start(redis, 200 + i, f"n{i}") for i in range(25)]
    _run_engine(redis, redis_server.url, threads=threads)
    told = _answers(redis)
    assert [told[g.chat_id] for g in goals] == [[f"hi n{i}"] for i in range(25)]


def test_a_step_that_runs_far_too_long_is_named_in_the_log_once(redis: Redis, redis_server, caplog) -> None:
    def decide(messages, tools):
        time.sleep(0.8)
        return text("slow but done")

    install(WorkerContext(redis=redis, lease_ttl=3.0, runner=_runner(redis, FunctionModel(decide))))
    _start(redis, 11, "take your time")

    async def run() -> None:
        client = async_client(redis_server.url)
        engine = StepEngine(client, redis, EngineConfig(queue=AGENT_QUEUE, name="engine-test", slow_after=0.2,
                                                        heartbeat=0.05))
        await engine.run(asyncio.Event(), burst=True)
        await client.aclose()

    with caplog.at_level("WARNING", logger="deputy.queue.step_engine"):
        asyncio.run(run())
    slow = [r.getMessage() for r in caplog.records if "holds a thread" in r.getMessage()]
    assert len(slow) == 1 and "s-g_" in slow[0]
    assert _answers(redis)[11] == ["slow but done"]


def test_steps_go_on_when_redis_forgets_its_scripts_between_them_and_each_job_is_marked_finished(
    redis: Redis, redis_server
) -> None:
    # A job's end is written in the same round trip as the next take: a take that finds its script gone
    # (Redis restarted or failed over) still records the end before it sends the script whole.
    def decide(messages, tools):
        redis.script_flush()
        planned = sum(1 for m in messages if m.get("role") == "tool")
        if planned < 3:
            return tool_call("update_plan", steps=[{"title": f"part {planned}", "status": "done"}])
        return text("Done after forgetting.")

    install(WorkerContext(redis=redis, lease_ttl=3.0, runner=_runner(redis, FunctionModel(decide))))
    goal = _start(redis, 8, "forget and go on")
    engine = _run_engine(redis, redis_server.url)

    assert _answers(redis)[8][-1] == "Done after forgetting."
    assert engine.counts.failed == 0 and engine.counts.finished == engine.counts.taken >= 1
    jobs = [key for key in redis.scan_iter("rq:job:s-*")]
    assert jobs and all(redis.hget(key, "status") == b"finished" for key in jobs)
    assert redis.llen(intermediate_key(AGENT_QUEUE)) == 0
    assert Inflight(redis).get(goal_unit(goal.id)) is None
