"""The RQ job functions. Each takes one JSON payload and holds its unit's lease."""

from __future__ import annotations

import time
from typing import Any, Callable

from redis import Redis
from rq import get_current_job

from deputy.core import metrics
from deputy.queue.context import WorkerContext, current
from deputy.queue.dispatch import action_unit, goal_unit
from deputy.queue.inflight import Inflight, Lease
from deputy.core.payloads import (
    ActionJob,
    AddConnectorJob,
    ApprovalExpiryJob,
    EraseUserJob,
    ForgetConnectionJob,
    GoalStepJob,
    HandOffCodeJob,
    RuleRequestJob,
    UndoJob,
)


@metrics.STEP_SECONDS.time()
def run_goal_step(payload: dict[str, Any]) -> str:
    job = GoalStepJob.model_validate(payload)

    def work(context: WorkerContext) -> str:
        if context.runner is None:
            raise RuntimeError("goal steps run on agent workers (`deputy worker`)")
        return context.runner.run_step(job.goal_id, job.step).value

    return _holding(goal_unit(job.goal_id), work)


def execute_action(payload: dict[str, Any]) -> str:
    job = ActionJob.model_validate(payload)

    def work(context: WorkerContext) -> str:
        if context.executor is None:
            raise RuntimeError("actions run on the executor (`deputy executor`)")
        context.executor.handle(job)
        return "handled"

    return _holding(action_unit(job.action_id), work)


def expire_approval(payload: dict[str, Any]) -> str:
    _service("executor", "the executor (`deputy executor`)").expire(ApprovalExpiryJob.model_validate(payload).approval_id)
    return "checked"


def undo_action(payload: dict[str, Any]) -> str:
    _service("executor", "the executor (`deputy executor`)").undo(UndoJob.model_validate(payload).action_id)
    return "checked"


def propose_rule(payload: dict[str, Any]) -> str:
    return _service("rule_proposer", "agent workers (`deputy worker`)").propose(RuleRequestJob.model_validate(payload))


def forget_connection(payload: dict[str, Any]) -> str:
    return _service("connections", "the executor (`deputy executor`)").forget(
        ForgetConnectionJob.model_validate(payload)
    )


def erase_user(payload: dict[str, Any]) -> str:
    return _service("connections", "the executor (`deputy executor`)").erase(EraseUserJob.model_validate(payload))


def add_connector(payload: dict[str, Any]) -> str:
    return _service("custom_connectors", "the executor (`deputy executor`)").add(AddConnectorJob.model_validate(payload))


def enter_handoff_code(payload: dict[str, Any]) -> str:
    return _service("handoffs", "the executor (`deputy executor`)").enter(HandOffCodeJob.model_validate(payload))


def _service(name: str, where: str) -> Any:
    """A service of this worker process; a job sent to the wrong kind of worker fails loudly."""
    service = getattr(current(), name)
    if service is None:
        raise RuntimeError(f"this job runs on {where}")
    return service


def _holding(unit: str, work: Callable[[WorkerContext], str], patience: float = 1.0) -> str:
    context = current()
    deadline = time.monotonic() + patience
    while True:
        with Lease(context.redis, unit, context.lease_ttl) as held:
            if held:
                outcome = work(context)
                break
        # Another job holds this unit. Usually it is just finishing: the model gateway can
        # answer (and enqueue this job) before the job that asked has let go of the unit.
        if time.monotonic() >= deadline:
            return "duplicate"  # a live job holds this unit; it will hand on the work
        time.sleep(0.005)
    _release_unit(context.redis, unit)
    return outcome


def _release_unit(redis: Redis, unit: str) -> None:
    # Only if the unit still points at this job: a step that enqueued its successor has
    # already handed the unit on.
    rq_job = get_current_job()
    if rq_job is not None:
        Inflight(redis).complete(unit, rq_job.id)
