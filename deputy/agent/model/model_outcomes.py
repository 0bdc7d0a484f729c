"""A user's stored model replies, erased with them and sealed when they turn confidential mode on.

The gateway keeps each reply under `deputy:model:outcome:<R>` for days (`model_requests`),
and a reply holds what the user's goal was about: memory text, an email's recipient and
body. Request ids start with the goal's id (`m-<goal>-<step>-<random>`), so a user's replies
are found from their goal ids; requests still waiting on the stream carry the goal id too.
"""

from __future__ import annotations

import json

from redis import Redis

from deputy.agent.model.model_requests import OUTCOME, PENDING, REQUESTS_STREAM
from deputy.core.confidential import ConfidentialKeys
from deputy.core.records.erasure import Owned, delete_keys


def _outcome_keys(redis: Redis, goal_ids: tuple[str, ...] | list[str]) -> list[bytes]:
    return [key for goal_id in goal_ids for pattern in (OUTCOME, PENDING)
            for key in redis.scan_iter(pattern.format(f"m-{goal_id}-*"))]


def _waiting_requests(redis: Redis, goal_ids: set[str]) -> list[bytes]:
    found = []
    for entry_id, fields in redis.xrange(REQUESTS_STREAM):
        try:
            if json.loads(fields.get(b"request", b"{}")).get("goal_id") in goal_ids:
                found.append(entry_id)
        except ValueError:
            continue
    return found


def erase_user_model_outcomes(redis: Redis, owned: Owned) -> int:
    """The replies, pending marks and still-waiting requests of the user's goals."""
    erased = delete_keys(redis, _outcome_keys(redis, owned.goal_ids))
    waiting = _waiting_requests(redis, set(owned.goal_ids)) if owned.goal_ids else []
    if waiting:
        erased += redis.xdel(REQUESTS_STREAM, *waiting)
    return erased


def seal_user_model_outcomes(redis: Redis, keys: ConfidentialKeys, user_id: int, goal_ids: list[str]) -> int:
    """Each reply still in clear, sealed the way the gateway seals a confidential user's (its kind readable)."""
    if keys.public_key(user_id) is None:
        return 0
    sealed = 0
    for key in _outcome_keys(redis, goal_ids):
        raw = redis.get(key)
        if raw is None or not key.startswith(OUTCOME.format("").encode()) or b'"sealed"' in raw:
            continue
        try:
            outcome = json.loads(raw)
        except ValueError:
            continue
        if outcome.get("kind") == "discarded":
            continue  # holds nothing of the user
        envelope = {"request_id": outcome.get("request_id"), "kind": outcome.get("kind"), "user_id": int(user_id),
                    "sealed": keys.seal_text(user_id, raw.decode())}
        ttl = redis.ttl(key)
        redis.set(key, json.dumps(envelope), ex=ttl if ttl and ttl > 0 else None)
        sealed += 1
    return sealed
