"""Assembles what Sentinel needs to review an action, from the executor's own sources.

The effect class and risk tags come from the executor's catalog (not from the submitted
action); trusted values from the user's own messages for the goal and their contacts;
untrusted values and injection warnings from the goal's ledger of outside content.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

from redis import Redis

from agent.goals import GoalStore
from connectors.catalog import Catalog
from sentinel.actions import Action
from sentinel.policy import ReviewContext, RuleVerdict
from sentinel.provenance import ProvenanceContext

_CONTACTS = "deputy:contacts:{}"

RuleCheck = Callable[[Action, bool, datetime], RuleVerdict]
"""(action, every value traceable to the user, now) -> what the user's rules say."""


class ReviewContextBuilder:
    def __init__(
        self,
        redis: Redis,
        goals: GoalStore,
        catalog: Catalog,
        rules: RuleCheck | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._redis = redis
        self._goals = goals
        self._catalog = catalog
        self._rules = rules
        self._clock = clock

    def authoritative(self, action: Action) -> Action | None:
        """The action with the effect and tags the catalog declares; None if unknown."""
        operation = self._catalog.find(action.connector, action.operation)
        if operation is None:
            return None
        return action.model_copy(update={"effect": operation.spec.effect, "tags": sorted(operation.spec.tags)})

    def build(self, action: Action, approved_fingerprint: str | None = None) -> ReviewContext:
        goal = self._goals.get(action.goal_id)
        trusted: list[str] = []
        if goal is not None:
            trusted = [m["content"] for m in goal.messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
        provenance = ProvenanceContext(
            trusted_texts=trusted,
            contacts=sorted(c.decode() for c in self._redis.smembers(_CONTACTS.format(action.user_id))),
            untrusted=goal.untrusted if goal is not None else [],
        )
        now = datetime.fromtimestamp(self._clock() if self._clock else datetime.now().timestamp(), tz=timezone.utc)
        context = ReviewContext(
            approved_fingerprint=approved_fingerprint,
            provenance=provenance,
            injection_warnings=list(goal.risk_notes) if goal is not None else [],
            now=now,
        )
        if self._rules is not None:
            from sentinel.provenance import Trust, trace_action

            traced = trace_action(action.targets, action.arguments, action.amount, provenance)
            user_requested = all(v.trust is Trust.trusted for v in traced)
            context.rules = self._rules(action, user_requested, now)
        return context


def add_contact(redis: Redis, user_id: int, address: str) -> None:
    redis.sadd(_CONTACTS.format(user_id), address.strip().lower())
