"""Work that waits for a locked user to unlock: goal steps, monitor checks and actions.

A worker that meets `Locked` parks its job here (and tells the user once per locked
spell); unlocking hands every parked job back to the queues, so nothing is lost. Kept
under the user's namespace: ids and step numbers only, none of the user's words.
"""

from __future__ import annotations

import json
from typing import Any

from redis import Redis

_WAITING = "deputy:user:{}:confidential:waiting"
_TOLD = "deputy:user:{}:confidential:told"


class WaitingWork:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def park_step(self, user_id: int, goal_id: str, step: int) -> None:
        self._redis.hset(_WAITING.format(int(user_id)), f"step:{goal_id}", json.dumps({"step": step}))

    def park_action(self, user_id: int, action_id: str, job: dict[str, Any]) -> None:
        self._redis.hset(_WAITING.format(int(user_id)), f"action:{action_id}", json.dumps(job))

    def park_expiry(self, user_id: int, approval_id: str) -> None:
        """A card whose time ran out while locked: it expires (and the goal goes on) after the unlock."""
        self._redis.hset(_WAITING.format(int(user_id)), f"expire:{approval_id}", "{}")

    def count(self, user_id: int) -> int:
        return int(self._redis.hlen(_WAITING.format(int(user_id))))

    def parked_goals(self, user_id: int) -> set[str]:
        return {k.decode().split(":", 1)[1] for k in self._redis.hkeys(_WAITING.format(int(user_id)))
                if k.startswith(b"step:")}

    def take(self, user_id: int) -> tuple[list[tuple[str, int]], list[dict[str, Any]], list[str]]:
        """Every parked job, removed: (goal id, step) pairs, action job payloads and approval ids to expire."""
        pipe = self._redis.pipeline(transaction=True)
        pipe.hgetall(_WAITING.format(int(user_id)))
        pipe.delete(_WAITING.format(int(user_id)), _TOLD.format(int(user_id)))
        found, _ = pipe.execute()
        steps, actions, expiries = [], [], []
        for key, value in found.items():
            kind, ident = key.decode().split(":", 1)
            payload = json.loads(value)
            if kind == "step":
                steps.append((ident, int(payload["step"])))
            elif kind == "expire":
                expiries.append(ident)
            else:
                actions.append(payload)
        return steps, actions, expiries

    def resume(self, user_id: int, dispatch: Any, now: float) -> int:
        """Hand every parked job back to `dispatch` (its `step`, `action`, `expire_approval`); how many."""
        steps, actions, expiries = self.take(user_id)
        for goal_id, step in steps:
            dispatch.step(goal_id, step)
        for job in actions:
            dispatch.action(job["action_id"], job["goal_id"], int(job["step"]), job.get("approval_id"))
        for approval_id in expiries:
            dispatch.expire_approval(approval_id, now)
        return len(steps) + len(actions) + len(expiries)

    def first_notice(self, user_id: int) -> bool:
        """True once per locked spell: whether to tell the user their work waits."""
        return bool(self._redis.set(_TOLD.format(int(user_id)), b"1", nx=True))
