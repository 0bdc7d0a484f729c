"""Erasing everything Deputy stores about a user (`/delete_me`), and nothing of anyone else.

Run by the executor. It learns what the user owns (goals, actions, approvals, memories),
then has every store delete what it keeps about them: each store declares its own keys
(`deputy.core.records.erasure`), and `STORES` lists them all. Queued jobs and outbox messages go too.
Everything lives in Redis; `data_dir` is only swept for files an older Deputy kept on this
machine's disk.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Sequence

from pydantic import BaseModel
from redis import Redis
from rq import get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.serializers import JSONSerializer

from deputy.agent.goals import erase_user_goals, user_goal_ids
from deputy.agent.model.model_outcomes import erase_user_model_outcomes
from deputy.agent.uploads import Uploads
from deputy.connectors.travel.trip_store import TripStore
from deputy.connectors.web.states import erase_browser_state
from deputy.core.accounts.accounts import erase_user_account_traces
from deputy.core.accounts.connect_links import erase_user_links
from deputy.core.accounts.web_sessions import erase_user_web_sessions
from deputy.core.records.erasure import Eraser, Owned, erase_user_namespace
from deputy.core.records.outbox import erase_user_deliveries, erase_user_messages
from deputy.core.accounts.quota_store import erase_user_quotas
from deputy.core.records.send_window_store import erase_user_sends
from deputy.core.records.undo_store import erase_user_undos
from deputy.core.accounts.surfaces import erase_user_surfaces
from deputy.core.accounts.user_settings import erase_user_settings
from deputy.agent.goal_provenance import erase_user_contacts
from deputy.memory.store import erase_user_memory, user_memory_ids
from deputy.sentinel.stores.action_store import erase_user_actions, user_action_ids
from deputy.sentinel.stores.approvals import erase_user_approvals, user_approval_ids
from deputy.sentinel.stores.audit import erase_user_audit
from deputy.sentinel.stores.rule_store import erase_user_rules
from deputy.vault import erase_credentials
from deputy.vault.payments import erase_user_payment_tokens
from deputy.executor.payments import erase_user_payments

STORES: tuple[Eraser, ...] = (
    erase_user_namespace,
    erase_user_goals,
    erase_user_model_outcomes,
    erase_user_actions,
    erase_user_approvals,
    erase_user_audit,
    erase_user_rules,
    erase_user_memory,
    erase_user_settings,
    erase_user_contacts,
    erase_user_links,
    erase_user_web_sessions,
    erase_user_deliveries,
    erase_user_sends,
    erase_user_undos,
    erase_user_payment_tokens,
    erase_user_payments,
    erase_user_quotas,
    erase_user_account_traces,
    erase_user_surfaces,
    lambda redis, owned: erase_credentials(redis, owned.user_id),
    lambda redis, owned: Uploads(redis).erase(owned.user_id),
    lambda redis, owned: erase_browser_state(redis, owned.user_id),
    lambda redis, owned: TripStore(redis).erase(owned.user_id),
)
"""Every store the executor reaches; the entry point adds the queue's own (in-flight units)."""


class ErasureReport(BaseModel):
    goals: int
    actions: int
    approvals: int
    keys: int
    jobs: int
    outbox_entries: int


def erase_user(
    redis: Redis, user_id: int, data_dir: Path | None = None, stores: Sequence[Eraser] = STORES
) -> ErasureReport:
    owned = Owned(
        user_id=user_id,
        goal_ids=user_goal_ids(redis, user_id),
        action_ids=user_action_ids(redis, user_id),
        approval_ids=user_approval_ids(redis, user_id),
        memory_ids=user_memory_ids(redis, user_id),
    )
    jobs = _delete_jobs(redis, str(user_id), [*owned.goal_ids, *owned.action_ids, *owned.approval_ids])
    entries = erase_user_messages(redis, user_id)
    deleted = sum(erase(redis, owned) for erase in stores)
    if data_dir is not None:
        shutil.rmtree(data_dir / "users" / str(user_id), ignore_errors=True)
    return ErasureReport(goals=len(owned.goal_ids), actions=len(owned.action_ids), approvals=len(owned.approval_ids),
                         keys=deleted, jobs=jobs, outbox_entries=entries)


def _delete_jobs(redis: Redis, uid: str, owned_ids: list[str]) -> int:
    """Queued, scheduled and finished jobs about the user (by id or by their payload)."""
    owned = set(owned_ids)
    running = get_current_job()
    count = 0
    for key in redis.scan_iter("rq:results:*"):
        if any(o in key.decode() for o in owned):
            redis.delete(key)
    for key in redis.scan_iter("rq:job:*"):
        job_id = key.decode().removeprefix("rq:job:")
        if ":" in job_id or (running is not None and job_id == running.id):
            continue  # the erasure's own job is discarded by RQ when it ends (result_ttl=0)
        try:
            job = Job.fetch(job_id, connection=redis, serializer=JSONSerializer)
            payload = job.args[0] if job.args and isinstance(job.args[0], dict) else {}
        except (NoSuchJobError, ValueError, TypeError):
            continue
        mentions = {str(payload.get(k)) for k in ("user_id", "goal_id", "action_id", "approval_id")}
        if uid in mentions or owned & mentions or any(o in job_id for o in owned):
            job.delete()
            count += 1
    return count
