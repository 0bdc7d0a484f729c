"""Negotiation mandates in Redis, stored with their goal and written only by code.

One hash per negotiating goal, under the user's namespace (so erasing the user erases it):
`deputy:user:{user_id}:negotiation:{goal_id}` with `mandate` (what the user confirmed) and
`state` (offers and rounds, recorded by the executor after each message ran). The agent
never writes here: the bot stores what the user typed and confirmed with a tap; the model
cannot set or widen a mandate.
"""

from __future__ import annotations

from typing import Callable

from redis import Redis, WatchError

from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.sentinel.negotiation.mandate import Mandate, MandateStatus
from deputy.sentinel.negotiation.state import NegotiationState

_KEY = "deputy:user:{}:negotiation:{}"
_GOALS = "deputy:user:{}:negotiations"


class MandateStore:
    """Negotiation mandates; a confidential user's mandate and state are sealed to their key."""

    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)

    def put(self, user_id: int, goal_id: str, mandate: Mandate) -> None:
        """Store (or replace) the user's mandate for a goal; the state so far is kept."""
        key = _KEY.format(user_id, goal_id)
        with self._redis.pipeline() as pipe:
            pipe.hset(key, "mandate", self._keys.seal_text(user_id, mandate.model_dump_json()))
            pipe.hsetnx(key, "state", self._keys.seal_text(user_id, NegotiationState().model_dump_json()))
            pipe.sadd(_GOALS.format(user_id), goal_id)
            pipe.execute()

    def get(self, user_id: int, goal_id: str) -> tuple[Mandate, NegotiationState] | None:
        found = self._redis.hmget(_KEY.format(user_id, goal_id), "mandate", "state")
        if found[0] is None:
            return None
        opened = self._keys.opener(user_id)
        state = NegotiationState.model_validate_json(opened(found[1])) if found[1] else NegotiationState()
        return Mandate.model_validate_json(opened(found[0])), state

    def reseal(self, user_id: int) -> int:
        """Seal the user's mandates (confidential mode was just turned on); returns how many."""
        return sum(self._update(user_id, goal_id, lambda m, s: (m, s)) is not None for goal_id in self.goal_ids(user_id))

    def goal_ids(self, user_id: int) -> list[str]:
        return sorted(g.decode() if isinstance(g, bytes) else g for g in self._redis.smembers(_GOALS.format(user_id)))

    def digest_mark(self, user_id: int, goal_id: str, now: float) -> float:
        """When the negotiation's last digest went out (before its first recorded round, until one has)."""
        key = _KEY.format(user_id, goal_id)
        self._redis.hsetnx(key, "digest_at", repr(now - 1))  # a second early: that first round is in the first digest
        return float(self._redis.hget(key, "digest_at") or now)

    def last_digest(self, user_id: int, goal_id: str) -> float | None:
        """When the negotiation's last digest went out, if one did (or its first round was recorded)."""
        found = self._redis.hget(_KEY.format(user_id, goal_id), "digest_at")
        return float(found) if found else None

    def mark_digest(self, user_id: int, goal_id: str, now: float) -> None:
        self._redis.hset(_KEY.format(user_id, goal_id), "digest_at", repr(now))

    def first_offer_of(self, user_id: int, goal_id: str, what: str) -> bool:
        """True the first time `what` (a counterpart's stopping point) is offered as a change for this goal."""
        return bool(self._redis.sadd(_KEY.format(user_id, goal_id) + ":offered", what))

    def set_status(self, user_id: int, goal_id: str, status: MandateStatus) -> Mandate | None:
        """Confirm, pause, resume or stop a negotiation; None if the goal has no mandate."""
        def change(mandate: Mandate, state: NegotiationState) -> tuple[Mandate, NegotiationState]:
            return mandate.model_copy(update={"status": status}), state
        changed = self._update(user_id, goal_id, change)
        return changed[0] if changed else None

    def update_state(self, user_id: int, goal_id: str,
                     change: Callable[[Mandate, NegotiationState], NegotiationState]) -> NegotiationState | None:
        changed = self._update(user_id, goal_id, lambda m, s: (m, change(m, s)))
        return changed[1] if changed else None

    def _update(self, user_id: int, goal_id: str,
                change: Callable[[Mandate, NegotiationState], tuple[Mandate, NegotiationState]],
                ) -> tuple[Mandate, NegotiationState] | None:
        key = _KEY.format(user_id, goal_id)
        for _ in range(20):
            with self._redis.pipeline() as pipe:
                try:
                    pipe.watch(key)
                    found = pipe.hmget(key, "mandate", "state")
                    if found[0] is None:
                        pipe.unwatch()
                        return None
                    opened = self._keys.opener(user_id)
                    mandate = Mandate.model_validate_json(opened(found[0]))
                    state = NegotiationState.model_validate_json(opened(found[1])) if found[1] else NegotiationState()
                    mandate, state = change(mandate, state)
                    pipe.multi()
                    pipe.hset(key, mapping={"mandate": self._keys.seal_text(user_id, mandate.model_dump_json()),
                                            "state": self._keys.seal_text(user_id, state.model_dump_json())})
                    pipe.execute()
                    return mandate, state
                except WatchError:
                    continue
        raise RuntimeError("the negotiation record kept changing; try again")
