"""/export: everything Deputy stores about a user, as one JSON document, without secrets."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from redis import Redis

from deputy.agent.goal_provenance import contacts
from deputy.agent.goals import GoalStore
from deputy.core.records.receipts import ReceiptStore
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.memory import MemoryStore
from deputy.workspace.files import Workspace
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.sentinel.rules import describe
from deputy.core.accounts.credential_index import list_credentials


def export_user(redis: Redis, user_id: int, now: float) -> bytes:
    """`activity` is the audit trail's kept entries; `activity_earlier`, the sealed checkpoint of the
    entries folded before them (counts by kind, first and last time, the last one's seal), or null."""
    goals = GoalStore(redis)
    audit = AuditLog(redis)
    checkpoint = audit.checkpoint(user_id)
    goal_ids = [g.decode() for g in redis.zrange(f"deputy:user:{user_id}:goals", 0, -1)]
    document = {
        "exported_at": datetime.fromtimestamp(now, tz=timezone.utc).isoformat(),
        "user_id": user_id,
        "settings": UserSettingsStore(redis).get(user_id).model_dump(mode="json"),
        "memory": [m.model_dump(mode="json") for m in MemoryStore(redis).list(user_id)],
        "rules": [{"reading": describe(r), **r.model_dump(mode="json")} for r in RuleStore(redis).list(user_id)],
        "connections": [c.model_dump(mode="json") for c in list_credentials(redis, user_id)],
        "contacts": contacts(redis, user_id),
        "goals": [g.model_dump(mode="json") for gid in goal_ids if (g := goals.get(gid)) is not None],
        "activity": [e.model_dump(mode="json") for e in audit.entries(user_id)],
        "activity_earlier": checkpoint.model_dump(mode="json") if checkpoint is not None else None,
        "receipts": [r.model_dump(mode="json") for r in ReceiptStore(redis).list(user_id)],
        "workspace": Workspace(redis).export(user_id),
    }
    return json.dumps(document, indent=2, ensure_ascii=False).encode()
