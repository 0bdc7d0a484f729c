"""The user's rules, enforced deterministically: `evaluate_rules`, `narrow_rule_for`, `describe`.

What a user relies on: a rule does what its confirmed reading says and nothing more; the
strictest matching rule wins; an amount in another currency never slips under a limit;
"Always allow this" covers exactly that operation and those recipients.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from deputy.core.records.effects import EffectClass
from deputy.core.records.actions import Action
from deputy.sentinel.policy import Verdict
from deputy.sentinel.rules import (
    RequestedVerdict,
    RuleInput,
    RuleSpec,
    UserRule,
    describe,
    evaluate_rules,
    narrow_rule_for,
    target_matches,
)

ALLOW, ASK, DENY = RequestedVerdict.allow, RequestedVerdict.ask, RequestedVerdict.deny
# A Wednesday, noon UTC.
NOON = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)


def rule(rule_id: str, text: str, verdict: str, scope: dict[str, Any] | None = None, **conditions: Any) -> UserRule:
    return UserRule(id=rule_id, text=text, verdict=verdict, scope=scope or {}, conditions=conditions, created_at=1.0)


SPEND_50 = rule("spend50", "never spend more than $50 without asking", "ask", {"effects": ["spend"]},
                amount_above="50", currency="USD")
OUTSIDE_CONTACTS = rule("contacts", "always ask before emailing anyone outside my contacts", "ask",
                        {"effects": ["communicate"]}, targets_in_contacts=False)
WORK_CALENDAR = rule("workcal", "you may add events to my work calendar without asking", "allow",
                     {"effects": ["write"], "connectors": ["calendar"]}, target_in=["Work"])
EXPLICIT = rule("explicit", "do whatever I explicitly ask without confirming", "allow",
                {"effects": ["communicate", "spend", "write"]}, only_if_user_requested=True)
NO_SUNDAY_BOOKINGS = rule("sunday", "never book anything on Sundays", "deny", {"connectors": ["bookings"]},
                          weekdays=["sunday"])
NOT_BOB = rule("bob", "don't let Deputy contact my ex, bob@x.com", "deny", {"effects": ["communicate"]},
               target_in=["bob@x.com"])
SMALL_BUYS = rule("small", "you may buy things up to €20 without asking", "allow", amount_at_most="20", currency="EUR")
NIGHT_OUTSIDE = rule("night", "ask before emailing outside example.com at night", "ask", {"effects": ["communicate"]},
                     target_not_in=["*.example.com"], time_of_day={"start": "22:00", "end": "07:00"})

EMAIL: dict[str, Any] = {"effect": "communicate", "connector": "email", "operation": "send_email"}
PAY: dict[str, Any] = {"effect": "spend", "connector": "shop", "operation": "checkout", "targets": ["shop.example"]}
CAL: dict[str, Any] = {"effect": "write", "connector": "calendar", "operation": "create_event"}
BOOK: dict[str, Any] = {"effect": "spend", "connector": "bookings", "operation": "reserve", "targets": ["bistro"]}


def inp(base: dict[str, Any], **overrides: Any) -> RuleInput:
    return RuleInput.model_validate({"when": NOON, **base, **overrides})


CASES = [
    # never spend more than $50 without asking: strictly over the limit, Decimal exact.
    ("over the limit asks", [SPEND_50], inp(PAY, amount=Decimal("50.01"), currency="USD"), ASK),
    ("at the limit is not over", [SPEND_50], inp(PAY, amount=Decimal("50.00"), currency="usd"), None),
    ("under the limit", [SPEND_50], inp(PAY, amount=Decimal("49.99"), currency="USD"), None),
    ("another currency never slips under", [SPEND_50], inp(PAY, amount=Decimal(1), currency="EUR"), ASK),
    ("an unknown amount counts as over", [SPEND_50], inp(PAY), ASK),
    ("an email is not a payment", [SPEND_50], inp(EMAIL, targets=["a@b.c"]), None),
    # an allow limit in EUR: only provably small EUR amounts.
    ("small EUR buy allowed", [SMALL_BUYS], inp(PAY, amount=Decimal(20), currency="EUR"), ALLOW),
    ("a cent over is not", [SMALL_BUYS], inp(PAY, amount=Decimal("20.01"), currency="EUR"), None),
    ("USD does not count as EUR", [SMALL_BUYS], inp(PAY, amount=Decimal(5), currency="USD"), None),
    ("unknown amount is not allowed", [SMALL_BUYS], inp(PAY), None),
    # always ask before emailing anyone outside my contacts
    ("stranger asks", [OUTSIDE_CONTACTS], inp(EMAIL, targets=["x@y.z"], targets_in_contacts=False), ASK),
    ("contacts only", [OUTSIDE_CONTACTS], inp(EMAIL, targets=["x@y.z"], targets_in_contacts=True), None),
    # you may add events to my work calendar without asking
    ("work calendar", [WORK_CALENDAR], inp(CAL, targets=["WORK"]), ALLOW),
    ("work and personal", [WORK_CALENDAR], inp(CAL, targets=["work", "personal"]), None),
    ("personal calendar", [WORK_CALENDAR], inp(CAL, targets=["personal"]), None),
    ("no target named", [WORK_CALENDAR], inp(CAL), None),
    ("another connector", [WORK_CALENDAR], inp(CAL, connector="notes", targets=["work"]), None),
    # do whatever I explicitly ask
    ("requested email", [EXPLICIT], inp(EMAIL, targets=["a@b.c"], user_requested=True), ALLOW),
    ("requested payment", [EXPLICIT], inp(PAY, amount=Decimal(500), currency="USD", user_requested=True), ALLOW),
    ("not requested", [EXPLICIT], inp(EMAIL, targets=["a@b.c"], user_requested=False), None),
    ("account change out of scope", [EXPLICIT], inp({**EMAIL, "effect": "account"}, user_requested=True), None),
    # don't let Deputy contact my ex
    ("bob among others", [NOT_BOB], inp(EMAIL, targets=["alice@x.com", "Bob@X.com"]), DENY),
    ("without bob", [NOT_BOB], inp(EMAIL, targets=["alice@x.com"]), None),
    ("bob's colleague", [NOT_BOB], inp(EMAIL, targets=["bobby@x.com"]), None),
    # precedence: deny > ask > allow, whatever the order
    ("ask beats allow", [EXPLICIT, SPEND_50], inp(PAY, amount=Decimal(60), currency="USD", user_requested=True), ASK),
    ("allow below the limit", [EXPLICIT, SPEND_50],
     inp(PAY, amount=Decimal(40), currency="USD", user_requested=True), ALLOW),
    ("deny beats all", [EXPLICIT, OUTSIDE_CONTACTS, NOT_BOB],
     inp(EMAIL, targets=["bob@x.com"], user_requested=True), DENY),
    ("deny first or last", [NOT_BOB, OUTSIDE_CONTACTS, EXPLICIT],
     inp(EMAIL, targets=["bob@x.com"], user_requested=True), DENY),
]


@pytest.mark.parametrize(("name", "rules", "rule_input", "expected"), CASES, ids=[c[0] for c in CASES])
def test_example_rules(name: str, rules: list[UserRule], rule_input: RuleInput, expected: RequestedVerdict) -> None:
    assert evaluate_rules(rules, rule_input).verdict is expected


def test_reasons_name_the_deciding_rules_in_the_users_words() -> None:
    outcome = evaluate_rules(
        [EXPLICIT, SPEND_50, OUTSIDE_CONTACTS],
        inp(PAY, amount=Decimal(75), currency="USD", user_requested=True),
    )
    assert outcome.verdict is ASK
    assert outcome.reasons == ["Your rule “never spend more than $50 without asking” says to ask you first."]
    # The overruled allow rule is still reported, for the audit trail.
    assert [(m.rule_id, m.verdict) for m in outcome.matches] == [("explicit", ALLOW), ("spend50", ASK)]


def test_a_currency_mismatch_says_why_it_asks() -> None:
    outcome = evaluate_rules([SPEND_50], inp(PAY, amount=Decimal(10), currency="EUR"))
    assert "EUR" in outcome.reasons[0] and "USD" in outcome.reasons[0]


def test_no_rule_means_no_opinion() -> None:
    assert evaluate_rules([], inp(EMAIL)).verdict is None
    assert evaluate_rules([NOT_BOB], inp(EMAIL, targets=["alice@x.com"])).reasons == []


def test_a_rule_without_text_is_named_by_its_reading() -> None:
    unnamed = SPEND_50.model_copy(update={"text": ""})
    reason = evaluate_rules([unnamed], inp(PAY, amount=Decimal(99), currency="USD")).reasons[0]
    assert reason.startswith("Your rule “Ask me before any payment over 50.00 USD.")


def test_an_allow_rule_never_matches_a_credential_action() -> None:
    allow_all = rule("all", "do anything", "allow")
    vault = inp({"effect": "credential", "connector": "vault", "operation": "reveal"}, user_requested=True)
    assert evaluate_rules([allow_all], vault).verdict is None
    assert evaluate_rules([allow_all, rule("no", "never", "deny", {"effects": ["credential"]})], vault).verdict is DENY


def test_rule_verdicts_map_onto_the_policy_verdicts() -> None:
    assert {Verdict(v.value) for v in RequestedVerdict} == set(Verdict)


# -- weekdays and times, in the user's time zone ------------------------------------------


@pytest.mark.parametrize(
    ("when_utc", "zone", "expected"),
    [
        ("2026-03-01T12:00:00+00:00", None, DENY),  # Sunday in UTC
        ("2026-03-01T12:00:00+00:00", "UTC", DENY),
        ("2026-03-02T02:00:00+00:00", "America/New_York", DENY),  # Monday UTC, Sunday 21:00 in New York
        ("2026-03-02T02:00:00+00:00", "UTC", None),
        ("2026-02-28T16:00:00+00:00", "Asia/Tokyo", DENY),  # Saturday UTC, Sunday 01:00 in Tokyo
        ("2026-03-01T16:00:00+00:00", "Asia/Tokyo", None),  # Sunday UTC, Monday 01:00 in Tokyo
        ("2026-03-01T12:00:00-05:00", None, DENY),  # an aware local time is read as given
    ],
)
def test_weekdays_are_the_users_days(when_utc: str, zone: str | None, expected: RequestedVerdict) -> None:
    booking = inp(BOOK, when=datetime.fromisoformat(when_utc), timezone=zone)
    assert evaluate_rules([NO_SUNDAY_BOOKINGS], booking).verdict is expected


@pytest.mark.parametrize(
    ("when_utc", "zone", "expected"),
    [
        ("2026-03-04T23:00:00+00:00", "UTC", ASK),
        ("2026-03-04T06:59:00+00:00", "UTC", ASK),
        ("2026-03-04T07:00:00+00:00", "UTC", None),  # the end is not part of the window
        ("2026-03-04T22:00:00+00:00", "UTC", ASK),  # the start is
        ("2026-03-04T12:00:00+00:00", "UTC", None),
        ("2026-03-04T14:00:00+00:00", "Asia/Tokyo", ASK),  # 23:00 in Tokyo
        ("2026-03-04T12:00:00+00:00", "Asia/Tokyo", None),  # 21:00 in Tokyo
        ("2026-03-05T06:30:00+00:00", "America/Los_Angeles", ASK),  # 22:30 the evening before
        ("2026-03-05T05:30:00+00:00", "America/Los_Angeles", None),  # 21:30 the evening before
    ],
)
def test_time_windows_wrap_midnight_on_the_users_clock(when_utc: str, zone: str, expected: RequestedVerdict) -> None:
    email = inp(EMAIL, targets=["x@elsewhere.org"], when=datetime.fromisoformat(when_utc), timezone=zone)
    assert evaluate_rules([NIGHT_OUTSIDE], email).verdict is expected


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValidationError):
        inp(EMAIL, when=datetime(2026, 3, 4, 12, 0))


def test_the_time_window_rule_still_needs_an_outside_recipient() -> None:
    late = datetime(2026, 3, 4, 23, 0, tzinfo=UTC)
    inside = inp(EMAIL, targets=["ann@example.com", "bo@mail.example.com"], when=late)
    assert evaluate_rules([NIGHT_OUTSIDE], inside).verdict is None


# -- target patterns -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "target", "expected"),
    [
        ("*.example.com", "ann@example.com", True),
        ("*.example.com", "ann@mail.example.com", True),
        ("*.example.com", "example.com", True),
        ("*.example.com", "https://shop.example.com/cart", True),
        ("*.example.com", "ann@notexample.com", False),
        ("*.example.com", "ann@example.com.evil.org", False),
        ("example.com", "ann@example.com", True),
        ("example.com", "ann@mail.example.com", False),
        ("bob@x.com", "bob@x.com", True),
        ("bob@x.com", "bob@x.com.evil.org", False),
        ("bob@x.com", "x.com", False),
        ("work", "work", True),
        ("work", "homework", False),
    ],
)
def test_target_patterns(pattern: str, target: str, expected: bool) -> None:
    assert target_matches(pattern, target) is expected


@pytest.mark.parametrize("pattern", ["*", "*.", "bob*", "*@x.com", "b*b@x.com", "", "  "])
def test_loose_wildcards_are_refused(pattern: str) -> None:
    """Only a leading `*.` is a wildcard; `*` alone would turn a narrow rule into 'anyone'."""
    with pytest.raises(ValidationError):
        RuleSpec(verdict="allow", conditions={"target_in": [pattern]})


def test_patterns_and_targets_are_normalised() -> None:
    spec = RuleSpec(verdict="deny", conditions={"target_in": [" Mailto:Bob@X.com ", "@Corp.COM", "My  Work "]})
    assert spec.conditions.target_in == ["bob@x.com", "corp.com", "my work"]
    assert inp(EMAIL, targets=["  BOB@x.com."]).targets == ["bob@x.com"]


# -- schema --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        {"verdict": "allow", "scope": {"effects": ["credential"]}},
        {"verdict": "ask", "conditions": {"amount_above": "50"}},  # no currency
        {"verdict": "ask", "conditions": {"amount_above": "50", "amount_at_most": "50", "currency": "USD"}},
        {"verdict": "ask", "conditions": {"amount_above": "-1", "currency": "USD"}},
        {"verdict": "ask", "conditions": {"amount_above": "NaN", "currency": "USD"}},
        {"verdict": "ask", "conditions": {"currency": "dollars", "amount_above": "1"}},
        {"verdict": "ask", "conditions": {"time_of_day": {"start": "09:00", "end": "09:00"}}},
        {"verdict": "ask", "conditions": {"time_of_day": {"start": "09:00:30", "end": "10:00"}}},
        {"verdict": "ask", "conditions": {"time_of_day": {"start": "09:00+02:00", "end": "10:00"}}},
        {"verdict": "ask", "conditions": {"weekdays": ["funday"]}},
        {"verdict": "sometimes"},
        {"verdict": "ask", "priority": 1},
        {"verdict": "ask", "scope": {"connectors": ["email; drop"]}},
    ],
)
def test_invalid_rules_are_refused(spec: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        RuleSpec.model_validate(spec)


def test_an_amount_rule_naming_no_effect_is_about_payments() -> None:
    spec = RuleSpec(verdict="ask", conditions={"amount_above": 50, "currency": "usd"})
    assert spec.scope.effects == [EffectClass.spend]
    assert spec.conditions.currency == "USD"


# -- "Always allow this" ----------------------------------------------------------------------


def make_action(**overrides: Any) -> Action:
    fields: dict[str, Any] = {
        "id": "a1", "goal_id": "g1", "user_id": 7, "chat_id": 7, "connector": "email", "operation": "send_email",
        "effect": EffectClass.communicate, "arguments": {"to": ["Alice@Example.org"]},
        "targets": ["Alice@Example.org"], "tool_call_id": "c1", "created_at": 1_700_000_000.0,
    }
    return Action(**{**fields, **overrides})


def test_always_allow_this_covers_exactly_that_operation_and_target() -> None:
    narrow = narrow_rule_for(make_action(), rule_id="r_narrow", now=5.0)
    assert (narrow.id, narrow.source, narrow.created_at, narrow.verdict) == ("r_narrow", "always_allow_button", 5.0, ALLOW)
    same = {**EMAIL, "targets": ["alice@example.org"]}
    assert evaluate_rules([narrow], inp(same)).verdict is ALLOW
    assert evaluate_rules([narrow], inp(same, targets=["ALICE@example.org"])).verdict is ALLOW
    for other in (
        inp(same, targets=["bob@example.org"]),
        inp(same, targets=["alice@example.org", "bob@example.org"]),
        inp(same, targets=["alice@example.org.evil.io"]),
        inp(same, targets=[]),
        inp(same, operation="forward_email"),
        inp(same, connector="sms"),
        inp(same, effect="spend"),
    ):
        assert evaluate_rules([narrow], other).verdict is None, other


def test_always_allow_this_never_beats_a_stricter_rule() -> None:
    narrow = narrow_rule_for(make_action(targets=["bob@x.com"]))
    assert evaluate_rules([narrow, NOT_BOB], inp(EMAIL, targets=["bob@x.com"])).verdict is DENY


def test_always_allow_this_is_refused_for_secrets_and_for_actions_without_target() -> None:
    with pytest.raises(ValueError):
        narrow_rule_for(make_action(effect=EffectClass.credential, connector="vault", operation="reveal"))
    with pytest.raises(ValueError):
        narrow_rule_for(make_action(targets=[]))


# -- plain-English readings ----------------------------------------------------------------

READINGS = [
    (SPEND_50, ("Ask me before any payment over 50.00 USD. An amount in another currency or of unknown size counts "
     "too, since I can't compare it.")),
    (OUTSIDE_CONTACTS, "Ask me before any message, when anyone involved is not in my contacts."),
    (WORK_CALENDAR, ("Don't ask me before any change to my data in calendar, when every recipient or target is work. "
     "Deputy's built-in protections still apply.")),
    (EXPLICIT, ("Don't ask me before any message or any payment or any change to my data, when I asked for it myself "
     "(who and how much come from my own words). Deputy's built-in protections still apply.")),
    (NO_SUNDAY_BOOKINGS, "Never allow any action in bookings, when it is Sunday for me."),
    (NOT_BOB, "Never allow any message, when any recipient or target is bob@x.com."),
    (SMALL_BUYS, ("Don't ask me before any payment of at most 20.00 EUR. An amount in another currency or of unknown "
     "size never counts. Deputy's built-in protections still apply.")),
    (NIGHT_OUTSIDE, ("Ask me before any message, when any recipient or target is not an address or site at example.com "
     "(or a subdomain), between 22:00 and 07:00 (my local time).")),
]


@pytest.mark.parametrize(("user_rule", "reading"), READINGS, ids=[r.id for r, _ in READINGS])
def test_each_rule_reads_unambiguously(user_rule: UserRule, reading: str) -> None:
    assert describe(user_rule) == reading


def test_readings_never_round_a_limit() -> None:
    spec = RuleSpec(verdict="ask", conditions={"amount_above": "0.005", "currency": "EUR"})
    assert "over 0.005 EUR" in describe(spec)


def test_rules_survive_a_json_round_trip() -> None:
    for user_rule, _ in READINGS:
        assert UserRule.model_validate_json(user_rule.model_dump_json()) == user_rule


@pytest.mark.parametrize("zone", ["Mars/Base", "../etc/passwd", ""])
def test_an_unknown_time_zone_is_refused_when_the_input_is_built(zone: str) -> None:
    with pytest.raises(ValidationError):
        inp(EMAIL, timezone=zone)
