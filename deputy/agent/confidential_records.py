"""Turning confidential mode on for a user who already has data: seal what is stored in clear.

Every store seals on write once the user has a public key, so re-saving each record through
its store is the whole migration; lists and hashes kept beside a record (what a goal read, the
workspace's files) have their clear elements sealed in place. Run right after the key pair is made, while unlocked.
"""

from __future__ import annotations

from redis import Redis

from deputy.agent.goal_provenance import reseal_contacts
from deputy.agent.goals import GoalStore, user_goal_ids
from deputy.agent.model.model_outcomes import seal_user_model_outcomes
from deputy.agent.uploads import UPLOAD_TTL_SECONDS
from deputy.connectors.custom import CustomConnectors
from deputy.connectors.travel.trip_store import TripStore
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.sealing import is_sealed
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.memory.store import MemoryStore
from deputy.core.records.receipts import ReceiptStore
from deputy.sentinel.stores.action_store import ActionStore, user_action_ids
from deputy.sentinel.stores.approvals import ApprovalStore, user_approval_ids
from deputy.sentinel.stores.mandates import MandateStore
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.workspace.files import Workspace

_UPLOADS = "deputy:upload:{}:*"


def seal_existing(redis: Redis, user_id: int, keys: ConfidentialKeys | None = None) -> int:
    """Seal the user's records that are still in clear; returns how many were sealed."""
    keys = keys if keys is not None else confidential_keys(redis)
    sealed = 0
    goals = GoalStore(redis, keys)
    goal_ids = list(user_goal_ids(redis, user_id))
    sealed += seal_user_model_outcomes(redis, keys, user_id, goal_ids)
    for goal_id in goal_ids:
        if goals.update(goal_id, lambda goal: goal) is not None:
            sealed += 1
        sealed += goals.reseal_reads(goal_id, user_id)  # what it read, kept beside the record
        for key in redis.scan_iter(f"deputy:goal:{goal_id}:result:*"):
            sealed += _reseal(redis, keys, user_id, key)
    memory = MemoryStore(redis, keys=keys)
    for item in memory.list(user_id):
        memory.save(user_id, item)
        sealed += 1
    rules = RuleStore(redis, keys=keys)
    for rule in rules.list(user_id):
        rules.add(user_id, rule)
        sealed += 1
    settings = UserSettingsStore(redis, keys)
    if redis.exists(settings.key(user_id)):
        settings.save(user_id, settings.get(user_id))
        sealed += 1
    for key in redis.scan_iter(_UPLOADS.format(int(user_id))):
        sealed += _reseal(redis, keys, user_id, key, binary=True)
    sealed += Workspace(redis, keys).reseal(user_id)
    actions, approvals = ActionStore(redis, keys), ApprovalStore(redis, keys)
    sealed += sum(actions.reseal(action_id) for action_id in user_action_ids(redis, user_id))
    sealed += sum(approvals.reseal(approval_id) for approval_id in user_approval_ids(redis, user_id))
    sealed += MandateStore(redis, keys).reseal(user_id) + ReceiptStore(redis, keys).reseal(user_id)
    sealed += reseal_contacts(redis, user_id)
    sealed += TripStore(redis, keys).reseal(user_id)
    connectors = CustomConnectors(redis)
    for connector in connectors.list(user_id):
        connectors.add(user_id, connector)
        sealed += 1
    return sealed


def _reseal(redis: Redis, keys: ConfidentialKeys, user_id: int, key: bytes, binary: bool = False) -> int:
    value = redis.get(key)
    if value is None or is_sealed(value):
        return 0
    ttl = redis.ttl(key)
    stored = keys.seal_bytes(user_id, value)
    redis.set(key, stored, ex=ttl if ttl and ttl > 0 else (UPLOAD_TTL_SECONDS if binary else None))
    return 1
