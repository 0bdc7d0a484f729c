"""Work that waits for a locked user to unlock: goal steps, monitor checks, actions, card expiries
and answers the user typed for a waiting goal.

A worker that meets `Locked` parks its job here (and tells the user once per locked
spell); unlocking hands every parked job back, so nothing is lost. Kept under the user's
namespace: ids and step numbers, and an answer only sealed to the user's key.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from redis import Redis

_WAITING = "deputy:user:{}:confidential:waiting"
_TOLD = "deputy:user:{}:confidential:told"


@dataclass
class Parked:
    steps: list[tuple[str, int]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    expiries: list[str] = field(default_factory=list)
    answers: list[tuple[str, str]] = field(default_factory=list)
    """(goal id, the answer sealed to the user's key), in the order they were typed."""

    def __len__(self) -> int:
        return len(self.steps) + len(self.actions) + len(self.expiries) + len(self.answers)


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

    def park_answer(self, user_id: int, goal_id: str, sealed_text: str) -> None:
        """The user's answer to a goal that asked them something, typed while locked (already sealed)."""
        self._redis.hset(_WAITING.format(int(user_id)), f"answer:{time.time_ns()}",
                         json.dumps({"goal_id": goal_id, "text": sealed_text}))

    def count(self, user_id: int) -> int:
        return int(self._redis.hlen(_WAITING.format(int(user_id))))

    def parked_goals(self, user_id: int) -> set[str]:
        return {k.decode().split(":", 1)[1] for k in self._redis.hkeys(_WAITING.format(int(user_id)))
                if k.startswith(b"step:")}

    def take(self, user_id: int) -> Parked:
        """Every parked job, removed."""
        pipe = self._redis.pipeline(transaction=True)
        pipe.hgetall(_WAITING.format(int(user_id)))
        pipe.delete(_WAITING.format(int(user_id)), _TOLD.format(int(user_id)))
        found, _ = pipe.execute()
        parked = Parked()
        for key, value in sorted(found.items()):
            kind, ident = key.decode().split(":", 1)
            payload = json.loads(value)
            if kind == "step":
                parked.steps.append((ident, int(payload["step"])))
            elif kind == "expire":
                parked.expiries.append(ident)
            elif kind == "answer":
                parked.answers.append((payload["goal_id"], payload["text"]))
            else:
                parked.actions.append(payload)
        return parked

    def resume(self, user_id: int, dispatch: Any, now: float,
               answer: Callable[[str, str], None] | None = None) -> int:
        """Hand every parked job back: steps, actions and expiries to `dispatch` (its `step`, `action`,
        `expire_approval`), answers to `answer(goal id, sealed text)`. Returns how many."""
        parked = self.take(user_id)
        for goal_id, sealed in parked.answers:
            if answer is not None:
                answer(goal_id, sealed)
        for goal_id, step in parked.steps:
            dispatch.step(goal_id, step)
        for job in parked.actions:
            dispatch.action(job["action_id"], job["goal_id"], int(job["step"]), job.get("approval_id"))
        for approval_id in parked.expiries:
            dispatch.expire_approval(approval_id, now)
        return len(parked)

    def first_notice(self, user_id: int) -> bool:
        """True once per locked spell: whether to tell the user their work waits."""
        return bool(self._redis.set(_TOLD.format(int(user_id)), b"1", nx=True))
