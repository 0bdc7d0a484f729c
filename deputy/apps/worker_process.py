"""What both worker processes (`deputy worker`, `deputy executor`) share: the services their job
functions use, each job holding its unit's lease, the watchdog, and the RQ worker loop.

RQ imports job functions by name, so they cannot take constructor arguments. Each app builds its
services explicitly from settings and installs them here once, before the worker starts; forked
work horses inherit them. The services are only named for type checkers: this module loads
neither the agent nor the executor, so each process loads only its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import socket
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from redis import Redis
from rq import SimpleWorker, Worker, get_current_job
from rq.scheduler import RQScheduler
from rq.serializers import JSONSerializer

from deputy.agent.goal_lifecycle import GoalEvent, advance, allowed
from deputy.agent.goals import GoalStore
from deputy.core.accounts.quotas import Quotas
from deputy.core.accounts.metrics_plans import PlanCollector
from deputy.core.infrastructure.redis_clients import async_client, probe_client, sync_client
from deputy.core.records.actions import ActionState
from deputy.core.records.outbox import Outbox
from deputy.queue.dispatch import RQDispatch, make_queues
from deputy.queue.inflight import Lease, Registration, Watchdog
from deputy.queue.job_paths import DeputyJob
from deputy.queue.metrics_queues import queue_collector
from deputy.queue.step_engine import EngineConfig, StepEngine
from deputy.runtime.health import LoopProbe, RQWorkerProbe, redis_check, serve_health
from deputy.sentinel.stores.action_store import ActionStore
from deputy.settings import Settings

if TYPE_CHECKING:
    from deputy.agent.rule_proposer import RuleProposer
    from deputy.agent.runner import GoalRunner
    from deputy.executor.connections import Connections
    from deputy.executor.custom_connectors import CustomConnectorService
    from deputy.executor.executor import Executor
    from deputy.executor.handoffs import HandOffService

log = logging.getLogger(__name__)

LEASE_SECONDS = 3.0
WATCHDOG_INTERVAL = 1.0


@dataclass
class WorkerContext:
    redis: Redis
    lease_ttl: float
    runner: "GoalRunner | None" = None
    executor: "Executor | None" = None
    rule_proposer: "RuleProposer | None" = None
    connections: "Connections | None" = None
    custom_connectors: "CustomConnectorService | None" = None
    handoffs: "HandOffService | None" = None


_current: WorkerContext | None = None


def install(context: WorkerContext) -> None:
    global _current
    _current = context


def current() -> WorkerContext:
    if _current is None:
        raise RuntimeError("this process has no worker context: start it with `deputy worker` or `deputy executor`")
    return _current


def service(name: str, where: str) -> Any:
    """A service of this worker process; a job sent to the wrong kind of worker fails loudly."""
    found = getattr(current(), name)
    if found is None:
        raise RuntimeError(f"this job runs on {where}")
    return found


def holding(unit: str, work: Callable[[WorkerContext], str], patience: float = 1.0) -> str:
    """Run `work` while this job holds the unit's lease, then hand the unit on."""
    context = current()
    deadline = time.monotonic() + patience
    while True:
        lease = Lease(context.redis, unit, context.lease_ttl)
        if lease.take():
            break
        # Another job holds this unit. Usually it is just finishing: the model gateway can
        # answer (and enqueue this job) before the job that asked has let go of the unit.
        if time.monotonic() >= deadline:
            return "duplicate"  # a live job holds this unit; it will hand on the work
        time.sleep(0.005)
    try:
        outcome = work(context)
    except BaseException:
        lease.release()  # the unit stays this job's: the watchdog runs it again
        raise
    # Done only if the unit still points at this job: a step that enqueued its successor has
    # already handed the unit on.
    rq_job = get_current_job()
    lease.release(completing=rq_job.id if rq_job is not None else None)
    return outcome


def give_up(redis: Redis) -> Callable[[Registration], None]:
    """What the watchdog does with a unit whose jobs kept dying: tell the user, keep the goal."""
    goals, outbox, actions, dispatch = GoalStore(redis), Outbox(redis), ActionStore(redis), RQDispatch(redis)

    def handle(registration: Registration) -> None:
        log.error("giving up on %s after %d attempts", registration.unit, registration.attempts)
        kind, _, ident = registration.unit.partition(":")
        if kind == "action":
            record = actions.get(ident)
            pending = (ActionState.submitted, ActionState.awaiting_approval, ActionState.executing)
            if record and actions.transition(ident, pending, ActionState.failed, outcome="Failed: internal error."):
                dispatch.step(record.action.goal_id, int(registration.payload["step"]))
            return

        def fail(goal):
            if not allowed(goal.status, GoalEvent.fail):
                return None  # finished already, or failed: nothing to stop
            goal.error = "internal error"
            return advance(goal, GoalEvent.fail)

        goal = goals.update(ident, fail)
        if goal is not None:
            outbox.send(
                goal.chat_id,
                "I ran into an internal problem with this goal and stopped after several tries. "
                "It is saved: send /retry to try again.",
                dedupe_key=f"{goal.id}:gave-up:{goal.revision}",
            )

    return handle


def plan_collector(settings: Settings) -> PlanCollector:
    """Users per plan and their use, on `/metrics` (read with a probe client, as the queues are)."""
    return PlanCollector(Quotas(probe_client(settings.redis_url), settings.plan_book()))


def serve_worker(settings: Settings, redis: Redis, queue_name: str, fork: bool, burst: bool = False) -> None:
    """Run an RQ worker on `queue_name` with a watchdog beside it, once the app installed its context."""
    watchdog_thread, stop = start_watchdog(settings)
    queues = make_queues(redis)
    worker_class = Worker if fork else SimpleWorker
    worker = worker_class([queues[queue_name]], connection=redis, serializer=JSONSerializer, job_class=DeputyJob)
    serve_health(settings.health_port, settings.health_host, RQWorkerProbe(worker, [watchdog_thread]),
                 {"redis": redis_check(settings.redis_url)}, [queue_collector(settings.redis_url),
                                                              plan_collector(settings)])
    try:
        # RQ's line per job (taken, done, result kept) is the queue's access log: shown at DEBUG only.
        queue_log_level = "DEBUG" if settings.log_level.upper() == "DEBUG" else "WARNING"
        worker.work(with_scheduler=True, burst=burst, logging_level=queue_log_level)
    finally:
        stop.set()


def serve_engine(settings: Settings, redis: Redis, queue_name: str, burst: bool = False) -> None:
    """Run the step engine on `queue_name` (`deputy.queue.step_engine`), with the watchdog and RQ's
    scheduler beside it, once the app installed its context. SIGTERM or SIGINT: running steps end, then it stops."""
    watchdog_thread, stop_threads = start_watchdog(settings)
    name = f"engine-{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
    scheduler_thread = threading.Thread(target=run_scheduler, args=(redis, queue_name, name, stop_threads),
                                        name="scheduler", daemon=True)
    scheduler_thread.start()
    loop_probe = LoopProbe()
    threads = [watchdog_thread, scheduler_thread]
    serve_health(settings.health_port, settings.health_host,
                 lambda: loop_probe() and all(thread.is_alive() for thread in threads),
                 {"redis": redis_check(settings.redis_url)},
                 [queue_collector(settings.redis_url), plan_collector(settings)])

    async def run() -> None:
        loop_probe.bind()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        jobs_redis = async_client(settings.redis_url, max_connections=8, timeout=None)
        engine = StepEngine(jobs_redis, redis, EngineConfig(queue=queue_name, name=name,
                                                             threads=settings.engine_threads))
        log.info("step engine %s: up to %d %s jobs at once", name, settings.engine_threads, queue_name)
        try:
            await engine.run(stop, burst=burst)
        finally:
            await jobs_redis.aclose()

    try:
        asyncio.run(run())
    finally:
        stop_threads.set()
        scheduler_thread.join(timeout=5)


def start_watchdog(settings: Settings) -> tuple[threading.Thread, threading.Event]:
    """The watchdog's thread (it queues again the units of workers that died), and the event that stops it."""
    watchdog_redis = sync_client(settings.redis_url)
    watchdog = Watchdog(watchdog_redis, make_queues(watchdog_redis), LEASE_SECONDS, give_up(watchdog_redis))
    stop = threading.Event()
    thread = threading.Thread(target=watchdog.run, args=(stop, WATCHDOG_INTERVAL), name="watchdog", daemon=True)
    thread.start()
    return thread, stop


def run_scheduler(redis: Redis, queue_name: str, name: str, stop: threading.Event, interval: float = 1.0) -> None:
    """RQ's scheduler for `queue_name` (steps put off for later), as an RQ worker would run it in a process of its own.

    One scheduler of the cluster holds the queue's lock and moves due jobs into the queue; the others
    try for the lock now and then, so one takes over when its holder stops.
    """
    scheduler = RQScheduler([queue_name], connection=redis, serializer=JSONSerializer, name=name)
    while not stop.is_set():
        try:
            if scheduler.should_reacquire_locks:
                scheduler.acquire_locks()
            if scheduler.acquired_locks:
                scheduler.heartbeat()
                scheduler.enqueue_scheduled_jobs()
        except Exception:  # a Redis blip: the next round tries again
            log.warning("scheduler round failed", exc_info=True)
        stop.wait(interval)
    try:
        scheduler.release_locks()
    except Exception:
        pass


def open_redis(settings: Settings) -> Redis:
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: point it at your Redis, e.g. redis://127.0.0.1:6379/0")
    return sync_client(settings.redis_url)  # survives Redis restarts
