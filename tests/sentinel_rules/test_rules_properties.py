"""Properties of `evaluate_rules` over arbitrary rule sets and actions.

What a user relies on: a rule that forbids something always wins, a permissive rule can
never undo a stricter one, the order rules were written in does not matter, and no rule
ever allows a credential action.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from typing import Any

import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st

from deputy.core.records.effects import EffectClass
from deputy.sentinel.rules import (
    RequestedVerdict,
    RuleInput,
    UserRule,
    Weekday,
    evaluate_rules,
    match_rule,
)

ALLOW, ASK, DENY = RequestedVerdict.allow, RequestedVerdict.ask, RequestedVerdict.deny
STRICTNESS = {ALLOW: 0, ASK: 1, DENY: 2}
# Small pools, so rules and actions overlap often enough for matches to be common.
CONNECTORS = ["email", "calendar", "shop", "bookings"]
OPERATIONS = ["send", "create", "pay", "reserve"]
PATTERNS = ["alice@x.com", "*.x.com", "x.com", "bob@y.org", "work", "shop.example"]
TARGETS = ["alice@x.com", "bob@y.org", "carol@sub.x.com", "work", "shop.example", "https://x.com/cart"]
AMOUNTS = [Decimal(v) for v in ("0", "0.01", "19.99", "20", "20.01", "50", "1000")]
ZONES = [None, "UTC", "America/New_York", "Asia/Tokyo", "Pacific/Kiritimati"]



def sublist(pool: list[Any]) -> st.SearchStrategy[list[Any]]:
    """Usually empty (no restriction), so that rules often match; else up to 3 items."""
    return st.just([]) | st.just([]) | st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=3)


# Strategies are built once: building them inside each draw dominates the run time.
EFFECT_LISTS, CONNECTOR_LISTS, OPERATION_LISTS = sublist(list(EffectClass)), sublist(CONNECTORS), sublist(OPERATIONS)
PATTERN_LISTS, TARGET_LISTS, WEEKDAY_LISTS = sublist(PATTERNS), sublist(TARGETS), sublist(list(Weekday))
VERDICTS, CONTACTS = st.sampled_from(list(RequestedVerdict)), st.sampled_from([None, None, True, False])
BOUNDS = st.just([]) | st.lists(st.sampled_from(AMOUNTS), unique=True, max_size=2)
BOUND_KINDS, CURRENCIES = st.sampled_from(["above", "at_most", "both"]), st.sampled_from(["USD", "EUR"])
HOURS, ONE_IN_FOUR = st.lists(st.integers(0, 23), min_size=2, max_size=2, unique=True), st.integers(0, 3)


@st.composite
def rules(draw: Any, verdict: RequestedVerdict | None = None) -> UserRule:
    verdict = verdict or draw(VERDICTS)
    effects = draw(EFFECT_LISTS)
    if verdict is ALLOW:
        effects = [e for e in effects if e is not EffectClass.credential]
    conditions: dict[str, Any] = {}
    bounds = sorted(draw(BOUNDS))
    if bounds:
        conditions["currency"] = draw(CURRENCIES)
        kind = draw(BOUND_KINDS)
        kind = kind if len(bounds) == 2 or kind != "both" else "above"
        if kind in ("above", "both"):
            conditions["amount_above"] = bounds[0]
        if kind in ("at_most", "both"):
            conditions["amount_at_most"] = bounds[-1]
    conditions["targets_in_contacts"] = draw(CONTACTS)
    conditions["target_in"] = draw(PATTERN_LISTS)
    conditions["target_not_in"] = draw(PATTERN_LISTS)
    conditions["weekdays"] = draw(WEEKDAY_LISTS)
    if draw(ONE_IN_FOUR) == 0:
        start, end = draw(HOURS)
        conditions["time_of_day"] = {"start": time(start), "end": time(end)}
    conditions["only_if_user_requested"] = draw(ONE_IN_FOUR) == 0
    return UserRule(
        id=f"r_{draw(st.integers(0, 10**6))}",
        verdict=verdict,
        scope={"effects": effects, "connectors": draw(CONNECTOR_LISTS), "operations": draw(OPERATION_LISTS)},
        conditions=conditions,
        created_at=0.0,
    )


@st.composite
def inputs(draw: Any) -> RuleInput:
    amount = draw(st.none() | st.sampled_from(AMOUNTS))
    return RuleInput(
        effect=draw(st.sampled_from(list(EffectClass))),
        connector=draw(st.sampled_from(CONNECTORS)),
        operation=draw(st.sampled_from(OPERATIONS)),
        targets=draw(TARGET_LISTS),
        amount=amount,
        currency=None if amount is None else draw(st.sampled_from(["USD", "EUR", "GBP"])),
        targets_in_contacts=draw(st.booleans()),
        user_requested=draw(st.booleans()),
        when=datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=draw(st.integers(0, 60 * 24 * 14))),
        timezone=draw(st.sampled_from(ZONES)),
    )


rule_lists = st.lists(rules(), max_size=6)


@settings(max_examples=300, deadline=None, database=None)
@given(rule_lists, inputs())
def test_the_outcome_is_the_strictest_matching_rule(rule_set: list[UserRule], rule_input: RuleInput) -> None:
    matching = [r.verdict for r in rule_set if match_rule(r, rule_input) is not None]
    outcome = evaluate_rules(rule_set, rule_input)
    assert outcome.verdict == (max(matching, key=STRICTNESS.__getitem__) if matching else None)
    if DENY in matching:
        assert outcome.verdict is DENY
    assert len(outcome.matches) == len(matching)
    assert all(outcome.reasons)


@settings(max_examples=300, deadline=None, database=None)
@given(rule_lists, inputs(), st.data())
def test_a_matching_deny_rule_always_wins(rule_set: list[UserRule], rule_input: RuleInput, data: Any) -> None:
    catch_all = UserRule(id="r_deny", verdict=DENY, scope={"effects": [rule_input.effect]}, created_at=0.0)
    position = data.draw(st.integers(0, len(rule_set)))
    outcome = evaluate_rules([*rule_set[:position], catch_all, *rule_set[position:]], rule_input)
    assert outcome.verdict is DENY
    assert any(m.rule_id == "r_deny" for m in outcome.matches)


@settings(max_examples=300, deadline=None, database=None)
@given(rule_lists, inputs(), st.lists(rules(ALLOW), min_size=1, max_size=3), st.data())
def test_adding_allow_rules_never_loosens_an_ask_or_deny(
    rule_set: list[UserRule], rule_input: RuleInput, extra: list[UserRule], data: Any
) -> None:
    before = evaluate_rules(rule_set, rule_input).verdict
    position = data.draw(st.integers(0, len(rule_set)))
    after = evaluate_rules([*rule_set[:position], *extra, *rule_set[position:]], rule_input).verdict
    if before in (ASK, DENY):
        assert after is before
    else:
        assert after in (None, ALLOW)


@settings(max_examples=200, deadline=None, database=None)
@given(rule_lists, inputs(), st.randoms(use_true_random=False))
def test_the_order_of_rules_does_not_matter(rule_set: list[UserRule], rule_input: RuleInput, rng: Any) -> None:
    shuffled = list(rule_set)
    rng.shuffle(shuffled)
    assert evaluate_rules(shuffled, rule_input).verdict == evaluate_rules(rule_set, rule_input).verdict


@settings(max_examples=200, deadline=None, database=None)
@given(rule_lists, inputs())
def test_no_rule_allows_a_credential_action(rule_set: list[UserRule], rule_input: RuleInput) -> None:
    secret = rule_input.model_copy(update={"effect": EffectClass.credential})
    assert evaluate_rules(rule_set, secret).verdict is not ALLOW


@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(rules(ALLOW), max_size=6), inputs())
def test_an_allow_rule_never_matches_an_amount_it_cannot_compare(rule_set: list[UserRule], rule_input: RuleInput) -> None:
    for rule in rule_set:
        limit = rule.conditions
        if limit.has_amount and (rule_input.amount is None or rule_input.currency != limit.currency):
            assert match_rule(rule, rule_input) is None
