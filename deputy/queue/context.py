"""The dependencies of the job functions in this worker process.

RQ imports job functions by name, so they cannot take constructor arguments. The entry
point (`deputy worker` / `deputy executor`) builds everything explicitly from settings and
installs it here once, before the worker starts; forked work horses inherit it.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis import Redis

from deputy.agent.runner import GoalRunner
from deputy.executor.connections import Connections
from deputy.executor.custom_connectors import CustomConnectorService
from deputy.executor.executor import Executor
from deputy.executor.handoffs import HandOffService
from deputy.agent.rule_proposer import RuleProposer


@dataclass
class WorkerContext:
    redis: Redis
    lease_ttl: float
    runner: GoalRunner | None = None
    executor: Executor | None = None
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
