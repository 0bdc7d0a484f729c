"""Assembles what Sentinel needs to review an action, from the executor's own sources.

The effect class and risk tags come from the executor's catalog (not from the submitted
action); trusted values from the user's own messages for the goal and their contacts;
untrusted values and injection warnings from the goal's ledger of outside content.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.goal_provenance import add_contact, provenance_context
from deputy.agent.guard_view import guard_view
from deputy.agent.time.said_times import said_times
from deputy.connectors.catalog import Catalog, InvalidArguments
from deputy.connectors.custom import UserCatalogs
from deputy.core.records.actions import Action
from deputy.core.accounts.approval_mode import ApprovalMode
from deputy.core.confidential.errors import Locked
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.sentinel.policy import ReviewContext, RuleVerdict, Verdict, requested_by_user
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.sentinel.rules import RuleInput, evaluate_rules
from deputy.sentinel.spending import merchant_of, spending_limit

RuleCheck = Callable[[Action, bool, bool, datetime], RuleVerdict]
"""(action, asked for by the user with every value traceable to them, all targets are contacts, now)
-> the rules' say."""


def stored_rules(store: RuleStore) -> RuleCheck:
    """The user's confirmed rules from `store`, evaluated by `deputy.sentinel.rules`."""

    def check(action: Action, user_requested: bool, in_contacts: bool, now: datetime) -> RuleVerdict:
        rules = store.list(action.user_id)
        if not rules:
            return RuleVerdict()
        rule_input = RuleInput(
            effect=action.effect,
            connector=action.connector,
            operation=action.operation,
            targets=action.targets,
            amount=action.amount,
            currency=action.currency,
            targets_in_contacts=in_contacts,
            user_requested=user_requested,
            when=now,
        )
        outcome = evaluate_rules(rules, rule_input)
        verdict = Verdict(outcome.verdict.value) if outcome.verdict is not None else None
        merchants = {merchant_of(t) for t in action.targets}
        limit = spending_limit(rules, rule_input, merchants.pop()) if len(merchants) == 1 else None
        return RuleVerdict(verdict=verdict, reasons=outcome.reasons, spending_limit=limit)

    return check


class ReviewContextBuilder:
    def __init__(
        self,
        redis: Redis,
        goals: GoalStore,
        catalog: Catalog,
        rules: RuleCheck | None = None,
        clock: Callable[[], float] | None = None,
        user_catalogs: UserCatalogs | None = None,
    ) -> None:
        self._user_catalogs = user_catalogs
        self._redis = redis
        self._goals = goals
        self._catalog = catalog
        self._rules = rules
        self._clock = clock

    @property
    def redis(self) -> Redis:
        return self._redis

    def authoritative(self, action: Action) -> Action | None:
        """The action with the effect and tags the catalog declares; None if unknown."""
        operation = self._catalog_of(action.user_id).find(action.connector, action.operation)
        if operation is None:
            return None
        # Targets and amount are worked out again from the arguments, as the runner did: the
        # guard never takes the submitter's word for whom an action reaches or what it costs.
        try:
            args = operation.validate(action.arguments)
        except InvalidArguments:
            return None
        money = operation.amount(args) if operation.amount is not None else None
        return action.model_copy(update={
            "effect": operation.spec.effect, "tags": operation.risk_tags(args), "targets": operation.targets(args),
            "amount": money[0] if money else None, "currency": money[1] if money else None,
        })

    def _catalog_of(self, user_id: int) -> Catalog:
        """The operations this user has: the built-in ones and the services they connected."""
        return self._user_catalogs.for_user(user_id) if self._user_catalogs else self._catalog

    def build(self, action: Action, approved_fingerprint: str | None = None) -> ReviewContext:
        goal = self._goals.get(action.goal_id)
        seen = guard_view(self._goals, goal)
        provenance = provenance_context(self._redis, self._goals, goal, action.user_id,
                                        self._catalog_of(action.user_id).services())
        now = datetime.fromtimestamp(self._clock() if self._clock else datetime.now().timestamp(), tz=timezone.utc)
        try:
            settings = UserSettingsStore(self._redis).get(action.user_id)
            mode, zone = settings.approval_mode, settings.timezone
        except Locked:  # sealed settings: the strictest choice until the user unlocks
            mode, zone = ApprovalMode.every_message, "UTC"
        context = ReviewContext(
            approved_fingerprint=approved_fingerprint,
            provenance=provenance,
            injection_warnings=seen.risk_notes,
            now=now,
            approval_mode=mode,
            said_times=said_times(provenance.user_words, goal.created_at if goal else now, zone),
        )
        if self._rules is not None:
            # Asked for in the user's own words, every value traced to them, nothing copied from outside.
            user_requested = requested_by_user(action, provenance)
            contacts = set(provenance.contacts)
            in_contacts = bool(action.targets) and all(t.strip().lower() in contacts for t in action.targets)
            context.rules = self._rules(action, user_requested, in_contacts, now)
        return context


__all__ = ["ReviewContextBuilder", "RuleCheck", "add_contact", "stored_rules"]
