"""Every RQ job Deputy enqueues or schedules, named in one place by the process that runs it.

RQ stores a job as the dotted path of its function, so a process can queue work for another
without importing it: the bot and the agent worker queue the executor's jobs but must never load
the executor (it opens the vault). A `JobPath` is that dotted path as a typed value; every
enqueue in Deputy goes through one, and `tests/test_job_paths.py` imports each one and checks that
no code enqueues a bare string.

`MOVED` maps the paths of jobs queued or scheduled by an older Deputy (before its packages moved
under `deputy/`) to their functions today; `DeputyJob` reads it when a worker runs such a job. A
scheduled job can wait a long time (a card's expiry reminder, months), so the map stays until
every Deputy that may have queued an old path has been upgraded past one full year.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rq.job import Job
from rq.utils import import_attribute


@dataclass(frozen=True)
class JobPath:
    """The function an RQ job runs, as `module` and `function`: RQ stores `module.function`."""

    module: str
    function: str

    @property
    def path(self) -> str:
        return f"{self.module}.{self.function}"

    def load(self) -> Callable[..., Any]:
        return import_attribute(self.path)

    def __str__(self) -> str:
        return self.path


AGENT_WORKER = "deputy.apps.agent_worker"
EXECUTOR = "deputy.apps.executor"

RUN_GOAL_STEP = JobPath(AGENT_WORKER, "run_goal_step")
PROPOSE_RULE = JobPath(AGENT_WORKER, "propose_rule")
EXECUTE_ACTION = JobPath(EXECUTOR, "execute_action")
EXPIRE_APPROVAL = JobPath(EXECUTOR, "expire_approval")
UNDO_ACTION = JobPath(EXECUTOR, "undo_action")
FORGET_CONNECTION = JobPath(EXECUTOR, "forget_connection")
ERASE_USER = JobPath(EXECUTOR, "erase_user")
ADD_CONNECTOR = JobPath(EXECUTOR, "add_connector")
ENTER_HANDOFF_CODE = JobPath(EXECUTOR, "enter_handoff_code")
REMIND_CARD_EXPIRY = JobPath(EXECUTOR, "remind_card_expiry")

ALL: tuple[JobPath, ...] = (
    RUN_GOAL_STEP, PROPOSE_RULE, EXECUTE_ACTION, EXPIRE_APPROVAL, UNDO_ACTION, FORGET_CONNECTION, ERASE_USER,
    ADD_CONNECTOR, ENTER_HANDOFF_CODE, REMIND_CARD_EXPIRY,
)

MOVED: dict[str, JobPath] = {
    "workers.jobs.run_goal_step": RUN_GOAL_STEP,
    "workers.jobs.propose_rule": PROPOSE_RULE,
    "workers.jobs.execute_action": EXECUTE_ACTION,
    "workers.jobs.expire_approval": EXPIRE_APPROVAL,
    "workers.jobs.undo_action": UNDO_ACTION,
    "workers.jobs.forget_connection": FORGET_CONNECTION,
    "workers.jobs.erase_user": ERASE_USER,
    "workers.jobs.add_connector": ADD_CONNECTOR,
    "workers.jobs.enter_handoff_code": ENTER_HANDOFF_CODE,
    "executor.card_reminders.remind": REMIND_CARD_EXPIRY,
}


def current_path(func_name: str) -> str:
    """The path a job's stored function name means today (itself unless it moved)."""
    moved = MOVED.get(func_name)
    return moved.path if moved is not None else func_name


class DeputyJob(Job):
    """An RQ job that still runs when it names a function by the path it had before it moved."""

    @property
    def func(self) -> Any:
        name = self.func_name
        if self.instance is None and name in MOVED:
            return MOVED[name].load()
        return super().func
