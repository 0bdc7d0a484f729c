"""The RQ job functions. Each takes one JSON payload and holds its unit's lease."""

from __future__ import annotations

from typing import Any

from rq import get_current_job

from workers.context import current
from workers.dispatch import action_unit, goal_unit
from workers.inflight import Inflight, Lease
from workers.payloads import ActionJob, GoalStepJob


def run_goal_step(payload: dict[str, Any]) -> str:
    job = GoalStepJob.model_validate(payload)
    context = current()
    if context.runner is None:
        raise RuntimeError("goal steps run on agent workers (`deputy worker`)")
    unit = goal_unit(job.goal_id)
    with Lease(context.redis, unit, context.lease_ttl) as held:
        if not held:
            return "duplicate"  # another live job is on this goal; it will hand on the work
        outcome = context.runner.run_step(job.goal_id, job.step).value
    _release_unit(context.redis, unit)
    return outcome


def execute_action(payload: dict[str, Any]) -> str:
    job = ActionJob.model_validate(payload)
    context = current()
    if context.executor is None:
        raise RuntimeError("actions run on the executor (`deputy executor`)")
    unit = action_unit(job.action_id)
    with Lease(context.redis, unit, context.lease_ttl) as held:
        if not held:
            return "duplicate"
        context.executor.handle(job)
    _release_unit(context.redis, unit)
    return "handled"


def _release_unit(redis, unit: str) -> None:
    # Only if the unit still points at this job: a step that enqueued its successor has
    # already handed the unit on.
    rq_job = get_current_job()
    if rq_job is not None:
        Inflight(redis).complete(unit, rq_job.id)
