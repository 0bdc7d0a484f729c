"""`deputy worker`: an agent worker. It runs goal steps with the model and holds no credentials.

Here, and only here, settings become the agent's objects: the model (through the gateway when
`DEPUTY_MODEL_GATEWAY` is on), the goal runner and the rule proposer. Its RQ job functions are
below; `deputy.queue.job_paths` names them for the processes that enqueue them. This process never
loads the vault, the executor or a connector's runner (`tests/test_process_loads.py`).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from typing import Any

import openai
from redis import Redis
from rq import get_current_job

from deputy.agent.goals import GoalStore
from deputy.agent.memory_tools import MemoryTools
from deputy.workspace.confined_run import RunLimits
from deputy.workspace.files import Workspace
from deputy.agent.model.chat_model import ChatModel, OpenAIChatModel
from deputy.agent.model.model_requests import ModelRequests
from deputy.agent.model.text_tools import TextToolsOptions
from deputy.agent.model.text_tools_model import TextToolsChatModel
from deputy.agent.reading import injection_scanner
from deputy.agent.rule_proposer import RuleProposer
from deputy.agent.runner import GoalRunner, RunnerLimits
from deputy.agent.steps import StepOutcome
from deputy.agent.watch.check_budget import CheckBudget
from deputy.apps.gateway import OPENAI_BASE_URL
from deputy.apps.worker_process import LEASE_SECONDS, WorkerContext, holding, install, open_redis, service, serve_engine, serve_worker
from deputy.connectors.custom import CustomConnectors, UserCatalogs
from deputy.core.accounts.quotas import Quotas
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.confidential import Locked, install_unlock_key
from deputy.core.infrastructure import metrics
from deputy.core.infrastructure.clock import process_clock
from deputy.core.infrastructure.metrics import MeteredModel, provider_of
from deputy.core.records.handoff import HandOffStore
from deputy.core.records.outbox import Outbox
from deputy.core.records.payloads import AGENT_QUEUE, GoalStepJob, RuleRequestJob
from deputy.memory import MemoryStore
from deputy.memory.meaning import LazyEmbedder
from deputy.queue.dispatch import RQDispatch, goal_unit
from deputy.queue.fair_rq import OWNER_META
from deputy.queue.inflight import Inflight
from deputy.runtime.operations import build_catalog, imported_apis
from deputy.sentinel.detectors import default_detector
from deputy.sentinel.stores.action_store import ActionStore
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.settings import Settings

log = logging.getLogger(__name__)


@metrics.STEP_SECONDS.time()
def run_goal_step(payload: dict[str, Any]) -> str:
    """The RQ job of one goal step (agent queue), holding the goal's lease."""
    job = GoalStepJob.model_validate(payload)

    def work(context: WorkerContext) -> str:
        if context.runner is None:
            raise RuntimeError("goal steps run on agent workers (`deputy worker`)")
        rq_job = get_current_job()
        owner = rq_job.meta.get(OWNER_META) if rq_job is not None else None
        outcome = context.runner.run_step(job.goal_id, job.step, owner=owner if isinstance(owner, int) else None)
        if outcome is StepOutcome.stale:
            current = left_behind(context.redis, job.goal_id)
            if current is not None:
                log.warning("goal %s: step %d was saved but not handed on; running it", job.goal_id, current)
                outcome = context.runner.run_step(job.goal_id, current)
        return outcome.value

    return holding(goal_unit(job.goal_id), work)


def left_behind(redis: Redis, goal_id: str) -> int | None:
    """The step of a goal whose last job saved it and stopped before handing it on, else None.

    A step checkpoints the goal, then queues (or registers itself for) the next step. A job
    killed, or failed by a Redis restart, between the two leaves the unit still naming it; the
    watchdog's re-run then finds the goal a step further than its own and would drop it as
    stale. Nobody else has taken the unit, so this job is the goal's only one: it takes the step.
    """
    registration = Inflight(redis).get(goal_unit(goal_id))
    current_job = get_current_job()
    if registration is None or current_job is None or registration.job_id != current_job.id:
        return None
    try:
        goal = GoalStore(redis).get(goal_id)
    except Locked:
        return None  # parked until unlocked by the step's own run
    return goal.step if goal is not None else None


def propose_rule(payload: dict[str, Any]) -> str:
    """The RQ job that turns a sentence the user gave `/rules` into a rule to confirm (agent queue)."""
    return service("rule_proposer", "agent workers (`deputy worker`)").propose(RuleRequestJob.model_validate(payload))


def build_model(settings: Settings, helper: bool = False) -> ChatModel:
    """The planner model, or with `helper` the (possibly cheaper) model for helper tasks."""
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "no-key-needed"
    base_url = (settings.helper_base_url or settings.openai_base_url) if helper else settings.openai_base_url
    client = openai.OpenAI(api_key=key, base_url=base_url, timeout=settings.model_timeout, max_retries=1)
    # `client.chat` imports the SDK's chat modules on first use. Touched here, in the worker's
    # parent, so work horses forked per job inherit them instead of importing them every step.
    assert client.chat.completions is not None
    model = MeteredModel(OpenAIChatModel(client, settings.helper_model_name() if helper else settings.model,
                                         constrain_calls=settings.constrain_tool_calls),
                         provider_of(base_url or OPENAI_BASE_URL))
    # Local models write tool calls as text, and small ones choose better from few tools (deputy.agent.model.text_tools).
    return TextToolsChatModel(model, TextToolsOptions(max_tools=settings.max_tools,
                                                      force_tool_call=settings.force_tool_call,
                                                      decide_first=settings.decide_first))


def build_runner(redis: Redis, settings: Settings, apis: list) -> GoalRunner:
    delays = settings.retry_delays()
    limits = RunnerLimits(max_model_attempts=len(delays) + 1, retry_delays=delays or (1.0,))
    quotas = Quotas(redis, settings.plan_book())
    return GoalRunner(
        GoalStore(redis),
        ActionStore(redis),
        build_model(settings),
        Outbox(redis),
        RQDispatch(redis),  # RQ schedules on real time, so its delays do too
        build_catalog(apis),
        clock=process_clock(),  # real time, or an end-to-end test's clock (DEPUTY_TEST_CLOCK_FILE)
        limits=limits,
        user_catalogs=UserCatalogs(build_catalog(apis), CustomConnectors(redis)),
        memory=MemoryTools(MemoryStore(redis, LazyEmbedder()), Outbox(redis),
                           AuditLog(redis, settings.audit_key_value(), keep=settings.audit_keep)),
        scanner=injection_scanner(default_detector()),
        settings=UserSettingsStore(redis),
        checks=CheckBudget(redis, settings.checks_per_day, quotas),
        handoffs=HandOffStore(redis),
        gateway=ModelRequests(redis) if settings.model_gateway else None,
        quotas=quotas,
        model_name=settings.model,
        workspace=Workspace(redis, limits=settings.workspace_limits()),
        code_limits=RunLimits(cpu_seconds=settings.code_cpu_seconds, wall_seconds=settings.code_cpu_seconds * 1.5 + 5,
                              memory_mb=settings.code_memory_mb),
    )


def serve(settings: Settings, burst: bool = False) -> None:
    """Run an agent worker: goal steps and rule proposals, with a watchdog beside it."""
    redis = open_redis(settings)
    install_unlock_key(settings.unlock_key_value())
    if settings.audit_key is None and settings.secret is None:
        log.warning("neither DEPUTY_AUDIT_KEY nor DEPUTY_SECRET is set: this worker's audit entries "
                    "will not verify against the other processes' key")
    context = WorkerContext(redis=redis, lease_ttl=LEASE_SECONDS)
    context.runner = build_runner(redis, settings, imported_apis(settings))
    context.rule_proposer = RuleProposer(build_model(settings, helper=True), RuleStore(redis), Outbox(redis),
                                         quotas=Quotas(redis, settings.plan_book()),
                                         model_name=settings.helper_model_name())
    install(context)
    start_suggestions(settings)
    if settings.step_engine:
        serve_engine(settings, redis, AGENT_QUEUE, burst=burst)
        return
    # Without a fork per job a step costs a few ms instead of ~20; fine for agent workers whose
    # steps wait on nothing slow (model calls through the gateway).
    serve_worker(settings, redis, AGENT_QUEUE, fork=settings.worker_fork, burst=burst)


def start_suggestions(settings: Settings) -> subprocess.Popen | None:
    """Suggestions from interests, in a process of their own beside this worker (none without sources).

    A round embeds new listings for minutes of CPU. As a thread of this worker it held the
    interpreter while RQ forked the process for each job, and steps stalled (a fork taken while
    another thread holds a lock can hang the child). Its own process starts clean, reads listings
    through the egress guard, and holds nothing of this worker's. One worker of the cluster runs
    each round (a lease in Redis).
    """
    if not settings.suggestion_sources() or settings.suggestion_minutes <= 0:
        return None
    return subprocess.Popen([sys.executable, "-m", "deputy.apps.suggestions", str(os.getpid())])
