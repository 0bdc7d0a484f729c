"""Erasing everything Deputy stores about a user (`/delete_me`), and nothing of anyone else.

Run by the executor. It finds the user's goals, actions and approvals, deletes every
record keyed by them, removes their queued jobs and their outbox messages, and the
user-level records (audit trail included). Credentials, uploaded files and browser state
are erased by their own stores (`ERASERS`), which know their keys. Everything lives in
Redis; `data_dir` is only swept for files an older Deputy kept on this machine's disk.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

from pydantic import BaseModel
from redis import Redis
from rq import get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.serializers import JSONSerializer

from agent.uploads import Uploads
from connectors.web.states import erase_browser_state
from vault import erase_credentials

ERASERS: tuple[Callable[[Redis, int], int], ...] = (
    erase_credentials,
    lambda redis, user_id: Uploads(redis).erase(user_id),
    erase_browser_state,
)
"""Each store's own way to delete everything it keeps for a user."""


class ErasureReport(BaseModel):
    goals: int
    actions: int
    approvals: int
    keys: int
    jobs: int
    outbox_entries: int


def erase_user(redis: Redis, user_id: int, data_dir: Path | None = None) -> ErasureReport:
    uid = str(user_id)
    goal_ids = [g.decode() for g in redis.zrange(f"deputy:user:{uid}:goals", 0, -1)]
    action_ids = _owned(redis, "deputy:action:*", uid, lambda raw: json.loads(raw["record"])["user_id"])
    approval_ids = _owned(redis, "deputy:approval:*", uid, lambda raw: raw["user_id"])
    memory_ids = [m.decode() for m in redis.hkeys(f"deputy:memory:{uid}")]

    keys: set[bytes] = set()
    for gid in goal_ids:
        keys |= {f"deputy:goal:{gid}".encode(), f"deputy:lease:goal:{gid}".encode()}
        keys |= set(redis.scan_iter(f"deputy:goal:{gid}:*"))
        keys |= set(redis.scan_iter(f"deputy:sent:{gid}:*"))
    for aid in action_ids:
        keys |= {f"deputy:action:{aid}".encode(), f"deputy:lease:action:{aid}".encode()}
    for pid in approval_ids:
        keys |= {f"deputy:approval:{pid}".encode(), f"deputy:msgref:card:{pid}".encode(),
                 f"deputy:sent:card:{pid}".encode(), f"deputy:sent:expired:{pid}".encode()}
    keys |= {f"deputy:sent:memory:{mid}".encode() for mid in memory_ids}
    for pattern in (f"deputy:photo:{uid}:*", f"deputy:user:{uid}:*", f"deputy:rule_proposal:{uid}:*",
                    f"deputy:ptok:idem:{uid}:*"):
        keys |= set(redis.scan_iter(pattern))
    for name in ("audit", "rules", "settings", "memory", "contacts"):
        keys.add(f"deputy:{name}:{uid}".encode())
    keys.add(f"deputy:audit:{uid}:tip".encode())
    keys |= {k for k in redis.scan_iter("deputy:connect:*") if _json_user(redis.get(k)) == uid}
    keys |= {k for k in redis.scan_iter("deputy:ptok:ptok_*") if _hash_user(redis.hgetall(k)) == uid}

    stored = sum(erase(redis, user_id) for erase in ERASERS)
    owned_ids = [*goal_ids, *action_ids, *approval_ids]
    jobs = _delete_jobs(redis, uid, owned_ids)
    for unit in [*(f"goal:{g}" for g in goal_ids), *(f"action:{a}" for a in action_ids)]:
        redis.hdel("deputy:inflight", unit)
    entries = _delete_outbox(redis, user_id)
    deleted = (redis.delete(*keys) if keys else 0) + stored
    if data_dir is not None:
        shutil.rmtree(data_dir / "users" / uid, ignore_errors=True)
    return ErasureReport(goals=len(goal_ids), actions=len(action_ids), approvals=len(approval_ids), keys=deleted,
                         jobs=jobs, outbox_entries=entries)


def _owned(redis: Redis, pattern: str, uid: str, owner_of) -> list[str]:
    found = []
    for key in redis.scan_iter(pattern):
        if redis.type(key) != b"hash":
            continue
        raw = {k.decode(): v.decode() for k, v in redis.hgetall(key).items()}
        try:
            if str(owner_of(raw)) == uid:
                found.append(key.decode().split(":", 2)[2])
        except (KeyError, ValueError):
            continue
    return found


def _json_user(raw: bytes | None) -> str | None:
    try:
        return str(json.loads(raw)["user_id"]) if raw else None
    except (ValueError, KeyError, TypeError):
        return None


def _hash_user(raw: dict[bytes, bytes]) -> str | None:
    value = raw.get(b"user_id")
    return value.decode() if value else None


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


def _delete_outbox(redis: Redis, user_id: int) -> int:
    doomed = [entry_id for entry_id, fields in redis.xrange("deputy:outbox")
              if _json_chat(fields.get(b"json")) == user_id]
    if doomed:
        redis.xdel("deputy:outbox", *doomed)
    held = [m for m in redis.zrange("deputy:outbox:held", 0, -1) if _json_chat(m.split(b"|", 1)[-1]) == user_id]
    if held:
        redis.zrem("deputy:outbox:held", *held)
    return len(doomed) + len(held)


def _json_chat(raw: bytes | None) -> int | None:
    try:
        return int(json.loads(raw)["chat_id"]) if raw else None
    except (ValueError, KeyError, TypeError):
        return None
