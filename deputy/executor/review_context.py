"""Assembles what Sentinel needs to review an action, from the executor's own sources.

The effect class and risk tags come from the executor's catalog (not from the submitted
action); trusted values from the user's own messages for the goal and their contacts;
untrusted values and injection warnings from the goal's ledger of outside content. All of it
is read from Redis in one round trip (`deputy.executor.review_reads`), then opened and parsed
by the stores' own parsers.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache
from typing import Callable

from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.goal_provenance import add_contact, contacts_from, provenance_from
from deputy.agent.guard_view import guard_view
from deputy.agent.time.said_times import said_times
from deputy.connectors.catalog import Catalog, InvalidArguments
from deputy.connectors.custom import UserCatalogs
from deputy.core.records.actions import Action
from deputy.core.accounts.approval_mode import ApprovalMode
from deputy.core.confidential.errors import Locked
from deputy.core.confidential.sealing import is_sealed
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.executor.review_reads import StoredForReview, read_for_review
from deputy.memory import MemoryItem, MemoryStore
from deputy.sentinel.policy import ReviewContext, RuleVerdict, Verdict, requested_by_user
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.sentinel.rules import RuleInput, UserRule, evaluate_rules
from deputy.sentinel.spending import merchant_of, spending_limit

RuleCheck = Callable[[Action, bool, bool, datetime], RuleVerdict]
"""(action, asked for by the user with every value traceable to them, all targets are contacts, now)
-> the rules' say."""


class StoredRules:
    """The user's confirmed rules from a `RuleStore`, evaluated by `deputy.sentinel.rules`: a `RuleCheck`
    that also takes the rules as the caller read them, and only works out what needs them when there are any."""

    def __init__(self, store: RuleStore) -> None:
        self.store = store

    def __call__(self, action: Action, user_requested: bool, in_contacts: bool, now: datetime) -> RuleVerdict:
        return self.weigh(self.store.list(action.user_id), action, lambda: user_requested, in_contacts, now)

    def weigh(self, rules: list[UserRule], action: Action, user_requested: Callable[[], bool], in_contacts: bool,
              now: datetime) -> RuleVerdict:
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
            user_requested=user_requested(),
            when=now,
        )
        outcome = evaluate_rules(rules, rule_input)
        verdict = Verdict(outcome.verdict.value) if outcome.verdict is not None else None
        merchants = {merchant_of(t) for t in action.targets}
        limit = spending_limit(rules, rule_input, merchants.pop()) if len(merchants) == 1 else None
        return RuleVerdict(verdict=verdict, reasons=outcome.reasons, spending_limit=limit)


# The user's rules and memories change seldom, but are weighed at every action: each record is parsed once
# (keyed on its exact JSON, so a changed one is parsed anew) and the parsed objects are shared, read only.
# A confidential user's sealed records are opened and parsed each time: nothing opened outlives the decision.
_shared_rule = lru_cache(maxsize=4096)(UserRule.model_validate_json)
_shared_memory = lru_cache(maxsize=4096)(MemoryItem.model_validate_json)


def _parser(shared: Callable, plain: Callable, records: list[bytes]) -> Callable:
    return plain if any(is_sealed(r) for r in records) else shared


_DEFAULT_SETTINGS = UserSettings()
"""What a user who never changed a setting has (read only)."""


def stored_rules(store: RuleStore) -> StoredRules:
    """The user's confirmed rules from `store`, evaluated by `deputy.sentinel.rules`."""
    return StoredRules(store)


class ReviewContextBuilder:
    """The review's context from what Redis holds, read in one round trip (`deputy.executor.review_reads`)."""

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
        self._keys = goals.keys

    @property
    def redis(self) -> Redis:
        return self._redis

    def read(self, action: Action) -> StoredForReview:
        """What `authoritative` and `build` need from Redis for `action`, in one round trip."""
        return read_for_review(self._redis, action.goal_id, action.user_id)

    def authoritative(self, action: Action, stored: StoredForReview | None = None) -> Action | None:
        """The action with the effect and tags the catalog declares; None if unknown."""
        operation = self._catalog_of(action.user_id, stored).find(action.connector, action.operation)
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

    def _catalog_of(self, user_id: int, stored: StoredForReview | None = None) -> Catalog:
        """The operations this user has: the built-in ones and the services they connected."""
        if self._user_catalogs is None:
            return self._catalog
        return self._user_catalogs.for_user(user_id, stored.connectors if stored is not None else None)

    def build(self, action: Action, approved_fingerprint: str | None = None,
              stored: StoredForReview | None = None) -> ReviewContext:
        """The context for reviewing `action`, from `stored` (what `read` returned for it), else read now."""
        stored = stored if stored is not None else self.read(action)
        opener = self._keys.held_opener(action.user_id, stored.unlocked, action.chat_id)
        goals = [self._goals.parse(raw, opener, reads=reads) for raw, reads in zip(stored.goals, stored.reads)]
        goal = goals[0] if goals else None
        seen = guard_view(self._goals, goal, {g.id: g for g in goals[1:] if g is not None})
        memories = MemoryStore.parse_list(stored.memories, opener,
                                          _parser(_shared_memory, MemoryItem.model_validate_json, stored.memories))
        provenance = provenance_from(seen, memories, contacts_from(stored.contacts, opener),
                                     self._catalog_of(action.user_id, stored).services())
        now = datetime.fromtimestamp(self._clock() if self._clock else datetime.now().timestamp(), tz=timezone.utc)
        try:
            settings = UserSettingsStore.parse(stored.settings, opener) if stored.settings else _DEFAULT_SETTINGS
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
            contacts = set(provenance.contacts)
            in_contacts = bool(action.targets) and all(t.strip().lower() in contacts for t in action.targets)
            if isinstance(self._rules, StoredRules):
                # Asked for in the user's own words, every value traced to them, nothing copied from outside:
                # worked out only for a user who has rules to weigh it.
                rules = RuleStore.parse_list(stored.rules, opener,
                                             _parser(_shared_rule, UserRule.model_validate_json, stored.rules))
                context.rules = self._rules.weigh(rules, action, lambda: requested_by_user(action, provenance),
                                                  in_contacts, now)
            else:
                context.rules = self._rules(action, requested_by_user(action, provenance), in_contacts, now)
        return context


__all__ = ["ReviewContextBuilder", "RuleCheck", "StoredForReview", "StoredRules", "add_contact", "stored_rules"]
