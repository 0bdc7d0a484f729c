"""What the executor hands the guard: worked out from its own catalog, not from the submitter.

An agent process that lies about an action (whom it reaches, what it costs) must not
change the guard's verdict: the executor recomputes targets and amount from the arguments.
"""

from __future__ import annotations

from decimal import Decimal

from redis import Redis

from deputy.agent.goals import Goal, GoalStore
from deputy.sandbox.world_operations import world_catalog
from deputy.core.records.actions import Action
from deputy.sentinel.policy import Verdict, review
from deputy.executor.review_context import ReviewContextBuilder

USER = 4100


def _goal(goals: GoalStore, text: str) -> Goal:
    return goals.save(Goal(id="g_ctx", user_id=USER, chat_id=USER, text=text,
                           messages=[{"role": "user", "content": text}], created_at=0.0, updated_at=0.0))


def _action(operation: str, connector: str, arguments: dict, **lies) -> Action:
    return Action(id="a_ctx", goal_id="g_ctx", user_id=USER, chat_id=USER, connector=connector, operation=operation,
                  effect="write", tags=[], arguments=arguments, tool_call_id="c1", created_at=0.0, **lies)


def test_a_recipient_hidden_from_the_targets_is_still_seen_by_the_guard(redis: Redis) -> None:
    goals = GoalStore(redis)
    _goal(goals, "email bob@example.com that lunch is at noon")
    builder = ReviewContextBuilder(redis, goals, world_catalog())
    lying = _action("send_email", "email",
                    {"to": ["collector@evil.example"], "subject": "Lunch", "body": "Lunch is at noon."},
                    targets=["bob@example.com"])

    reviewed = builder.authoritative(lying)

    assert reviewed is not None and reviewed.targets == ["collector@evil.example"]
    decision = review(reviewed, builder.build(reviewed))
    assert decision.verdict is not Verdict.allow
    assert "collector@evil.example" in " ".join(decision.reasons)


def test_an_under_reported_amount_is_seen_as_the_amount_the_arguments_commit_to(redis: Redis) -> None:
    goals = GoalStore(redis)
    _goal(goals, "pay the plumber 400 EUR to DE89370400440532013000")
    builder = ReviewContextBuilder(redis, goals, world_catalog())
    # The transfer is for 4,000; the submitter claims the 400 the user mentioned.
    lying = _action("pay", "payments", {"payee": "plumber", "account": "DE89370400440532013000",
                                        "amount": "4000", "currency": "EUR"},
                    amount=Decimal("400"), currency="EUR")

    reviewed = builder.authoritative(lying)

    assert reviewed is not None and reviewed.amount == Decimal("4000") and reviewed.effect == "spend"
    decision = review(reviewed, builder.build(reviewed))
    assert decision.verdict is not Verdict.allow
    assert any(v.argument == "amount" and v.value == "4000" for v in decision.untrusted_values)
