"""`Dispatch` over RQ: register the unit of work, then enqueue its job (JSON payloads)."""

from __future__ import annotations

import math
import time
from datetime import datetime, timezone
from typing import Any, Callable

from pydantic import BaseModel
from redis import Redis
from rq import Queue, get_current_job
from rq.serializers import JSONSerializer

from deputy.agent.goals import GoalStore
from deputy.core.records.erasure import Owned
from deputy.queue import job_paths
from deputy.queue.fair_rq import OWNER_META, FairQueue, erase_owner
from deputy.queue.inflight import Inflight, Registration, job_meta, new_job_id
from deputy.core.records.payloads import (
    ACTIONS_QUEUE,
    AGENT_QUEUE,
    ActionJob,
    AddConnectorJob,
    ApprovalExpiryJob,
    UndoJob,
    EraseUserJob,
    ForgetConnectionJob,
    GoalStepJob,
    HandOffCodeJob,
    RuleRequestJob,
)

# Finished jobs are only kept briefly: goal state lives in Deputy's own records.
RESULT_TTL = 60
FAILURE_TTL = 24 * 3600


def make_queues(redis: Redis) -> dict[str, Queue]:
    """The agent's and the executor's queues: each serves the users with work waiting in turn."""
    return {
        name: FairQueue(name, connection=redis, serializer=JSONSerializer) for name in (AGENT_QUEUE, ACTIONS_QUEUE)
    }


def not_before(when: float) -> datetime:
    """When to schedule a job so that it never runs before `when`.

    RQ keeps scheduled times in whole seconds, cut down (its registry's score is
    `timegm(utctimetuple())`), and runs a job once the current whole second reaches it: a
    job for 12:00:05.9 may run at 12:00:05.0. An approval's expiry that runs early finds the
    card not yet expired and does nothing, and nothing would ever expire it, so every time
    is rounded up to the next whole second.
    """
    return datetime.fromtimestamp(math.ceil(when), tz=timezone.utc)


def goal_unit(goal_id: str) -> str:
    return f"goal:{goal_id}"


def action_unit(action_id: str) -> str:
    return f"action:{action_id}"


def erase_user_units(redis: Redis, owned: Owned) -> int:
    """The in-flight records and leases of the user's goals and actions, and their place in the queues' turns."""
    erase_owner(redis, [AGENT_QUEUE, ACTIONS_QUEUE], owned.user_id)
    return Inflight(redis).forget([*map(goal_unit, owned.goal_ids), *map(action_unit, owned.action_ids)])


class RQDispatch:
    def __init__(self, redis: Redis, clock: Callable[[], float] = time.time) -> None:
        self._queues = make_queues(redis)
        self._inflight = Inflight(redis)
        self._goals = GoalStore(redis)
        self._clock = clock

    def step(
        self, goal_id: str, step: int, delay: float = 0, pipeline: Any = None, owner: int | None = None
    ) -> None:
        """Enqueue the goal's step; with `pipeline` (sync or asyncio, in MULTI mode), only queue the writes on it.

        `owner` (the goal's user) places the step in turn with other users' work; without it the
        goal's stored record says whose it is, so a goal created in the same `pipeline` must name it.
        """
        payload = GoalStepJob(goal_id=goal_id, step=step)
        self._enqueue(goal_unit(goal_id), AGENT_QUEUE, job_paths.RUN_GOAL_STEP.path, payload, f"s-{goal_id}-{step}", delay, pipeline,
                      self._owner(goal_id, owner))

    def action(self, action_id: str, goal_id: str, step: int, approval_id: str | None = None,
               delay: float = 0) -> None:
        """Enqueue the action's job; with `delay`, scheduled (a message's send window ending)."""
        payload = ActionJob(action_id=action_id, goal_id=goal_id, step=step, approval_id=approval_id)
        self._enqueue(action_unit(action_id), ACTIONS_QUEUE, job_paths.EXECUTE_ACTION.path, payload, f"x-{action_id}", delay,
                      owner=self._owner(goal_id, None))

    def expire_approval(self, approval_id: str, when: float) -> None:
        """At `when`, expire the approval if it is still unanswered (needs a scheduler)."""
        payload = ApprovalExpiryJob(approval_id=approval_id).model_dump(mode="json")
        self._queues[ACTIONS_QUEUE].enqueue_at(
            not_before(when), job_paths.EXPIRE_APPROVAL.path, payload,
            job_id=new_job_id(f"e-{approval_id}"), result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL,
        )

    def undo(self, action_id: str) -> None:
        """Have the executor take back a write the user pressed Undo on."""
        payload = UndoJob(action_id=action_id).model_dump(mode="json")
        self._queues[ACTIONS_QUEUE].enqueue(
            job_paths.UNDO_ACTION.path, payload, job_id=new_job_id(f"u-{action_id}"), result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL
        )

    def rule_request(self, user_id: int, chat_id: int, sentence: str) -> None:
        payload = RuleRequestJob(user_id=user_id, chat_id=chat_id, sentence=sentence).model_dump(mode="json")
        self._queues[AGENT_QUEUE].enqueue(
            job_paths.PROPOSE_RULE.path, payload, job_id=new_job_id("r"), result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL
        )

    def forget_connection(self, user_id: int, chat_id: int, service: str) -> None:
        payload = ForgetConnectionJob(user_id=user_id, chat_id=chat_id, service=service).model_dump(mode="json")
        self._queues[ACTIONS_QUEUE].enqueue(
            job_paths.FORGET_CONNECTION.path, payload, job_id=new_job_id("f"), result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL
        )

    def erase_user(self, user_id: int, chat_id: int) -> None:
        payload = EraseUserJob(user_id=user_id, chat_id=chat_id).model_dump(mode="json")
        self._queues[ACTIONS_QUEUE].enqueue(
            job_paths.ERASE_USER.path, payload, job_id=new_job_id("d"), result_ttl=0, failure_ttl=FAILURE_TTL,
            description="erase one user's data",
        )

    def add_connector(self, user_id: int, chat_id: int, kind: str, url: str) -> None:
        payload = AddConnectorJob(user_id=user_id, chat_id=chat_id, kind=kind, url=url).model_dump(mode="json")
        self._queues[ACTIONS_QUEUE].enqueue(
            job_paths.ADD_CONNECTOR.path, payload, job_id=new_job_id("c"), result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL
        )

    def handoff_code(self, user_id: int, handoff_id: str) -> None:
        """Have the executor type the code the user sent into the page that asked for it."""
        payload = HandOffCodeJob(user_id=user_id, handoff_id=handoff_id).model_dump(mode="json")
        self._queues[ACTIONS_QUEUE].enqueue(
            job_paths.ENTER_HANDOFF_CODE.path, payload, job_id=new_job_id("h"), result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL
        )

    def idle(self, goal_id: str) -> None:
        self._inflight.complete(goal_unit(goal_id))

    def carry_on(self, goal_id: str, step: int) -> None:
        job = get_current_job()
        if job is None:  # not inside a job: hand it to one
            self.step(goal_id, step)
            return
        payload = GoalStepJob(goal_id=goal_id, step=step).model_dump(mode="json")
        # The unit now means this step, still held by this job (its lease); the job's end
        # releases it, and the watchdog redoes this step if the job dies first.
        self._inflight.register(Registration(unit=goal_unit(goal_id), queue=AGENT_QUEUE, func=job_paths.RUN_GOAL_STEP.path,
                                             payload=payload, job_id=job.id, registered_at=self._clock(),
                                             owner=job.meta.get(OWNER_META)))

    def _owner(self, goal_id: str, given: int | None) -> int | None:
        return given if given is not None else self._goals.owner(goal_id)

    def _enqueue(
        self, unit: str, queue: str, func: str, payload: BaseModel, prefix: str, delay: float, pipeline: Any = None,
        owner: int | None = None,
    ) -> None:
        registration = Registration(
            unit=unit,
            queue=queue,
            func=func,
            payload=payload.model_dump(mode="json"),
            job_id=new_job_id(prefix),
            registered_at=self._clock(),
            owner=owner,
        )
        # Registered first: if we die before the enqueue, the watchdog finds no job and enqueues it.
        self._inflight.register(registration, pipeline)
        kwargs = {"job_id": registration.job_id, "result_ttl": RESULT_TTL, "failure_ttl": FAILURE_TTL,
                  "meta": job_meta(unit, owner)}
        if pipeline is not None:
            kwargs["pipeline"] = pipeline
        if delay > 0:
            self._queues[queue].enqueue_at(not_before(self._clock() + delay), func, registration.payload, **kwargs)
        else:
            self._queues[queue].enqueue(func, registration.payload, **kwargs)
