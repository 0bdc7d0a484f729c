"""`RuleStore` against a real Redis: rules per user, and proposals confirmed at most once.

What a user relies on: their rules are theirs alone (nobody else can list, remove or
confirm them); a confirmation button turns a proposal into one rule however often or
concurrently it is pressed; and an old proposal cannot be confirmed after it expired.
"""

from __future__ import annotations

import threading
import time
from decimal import Decimal

from redis import Redis

from deputy.sentinel.stores.rule_store import RuleStore
from deputy.sentinel.rules import UserRule

ALICE, BOB = 101, 202


def make_rule(rule_id: str, created_at: float = 1.0, **conditions: object) -> UserRule:
    return UserRule(
        id=rule_id,
        verdict="ask",
        scope={"effects": ["spend"]},
        conditions={"amount_above": Decimal("50.00"), "currency": "USD", **conditions},
        text="never spend more than $50 without asking",
        created_at=created_at,
    )


def test_rules_are_listed_oldest_first_and_survive_the_round_trip(redis: Redis) -> None:
    store = RuleStore(redis)
    later = make_rule("r_b", created_at=2.0, time_of_day={"start": "22:00", "end": "07:00"}, weekdays=["sunday"])
    store.add(ALICE, later)
    store.add(ALICE, make_rule("r_a", created_at=1.0))
    assert [r.id for r in store.list(ALICE)] == ["r_a", "r_b"]
    assert store.get(ALICE, "r_b") == later
    assert store.get(ALICE, "r_b").conditions.amount_above == Decimal("50.00")  # type: ignore[union-attr]
    # The documented layout: one hash per user, rule id -> JSON.
    assert set(redis.hkeys(f"deputy:rules:{ALICE}")) == {b"r_a", b"r_b"}


def test_remove_and_remove_all(redis: Redis) -> None:
    store = RuleStore(redis)
    for rule_id in ("r_1", "r_2", "r_3"):
        store.add(ALICE, make_rule(rule_id))
    assert store.remove(ALICE, "r_2") is True
    assert store.remove(ALICE, "r_2") is False
    assert [r.id for r in store.list(ALICE)] == ["r_1", "r_3"]
    assert store.remove_all(ALICE) == 2
    assert store.list(ALICE) == []
    assert store.remove_all(ALICE) == 0


def test_users_are_isolated(redis: Redis) -> None:
    store = RuleStore(redis)
    store.add(ALICE, make_rule("r_alice"))
    store.add(BOB, make_rule("r_bob"))
    assert [r.id for r in store.list(ALICE)] == ["r_alice"]
    assert store.get(BOB, "r_alice") is None
    assert store.remove(BOB, "r_alice") is False
    store.remove_all(BOB)
    assert [r.id for r in store.list(ALICE)] == ["r_alice"]

    proposal = store.propose(ALICE, make_rule("r_new"))
    assert store.pending(BOB, proposal) is None
    assert store.confirm(BOB, proposal) is None
    assert store.discard(BOB, proposal) is False
    assert store.list(BOB) == []
    assert store.confirm(ALICE, proposal) == make_rule("r_new")


def test_a_confirmed_proposal_becomes_a_rule(redis: Redis) -> None:
    store = RuleStore(redis)
    rule = make_rule("r_new")
    proposal = store.propose(ALICE, rule)
    assert store.list(ALICE) == []  # not enforced until confirmed
    assert store.pending(ALICE, proposal) == rule
    assert store.confirm(ALICE, proposal) == rule
    assert store.list(ALICE) == [rule]
    assert store.pending(ALICE, proposal) is None
    assert store.confirm(ALICE, proposal) is None


def test_a_discarded_proposal_cannot_be_confirmed(redis: Redis) -> None:
    store = RuleStore(redis)
    proposal = store.propose(ALICE, make_rule("r_new"))
    assert store.discard(ALICE, proposal) is True
    assert store.discard(ALICE, proposal) is False
    assert store.confirm(ALICE, proposal) is None
    assert store.list(ALICE) == []


def test_confirm_counts_once_under_concurrent_presses(redis: Redis) -> None:
    store = RuleStore(redis)
    proposal = store.propose(ALICE, make_rule("r_new"))
    presses = 16
    barrier = threading.Barrier(presses)
    results: list[UserRule | None] = []
    lock = threading.Lock()

    def press() -> None:
        barrier.wait()
        result = store.confirm(ALICE, proposal)
        with lock:
            results.append(result)

    threads = [threading.Thread(target=press) for _ in range(presses)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(results) == presses
    assert [r.id for r in results if r is not None] == ["r_new"]
    assert [r.id for r in store.list(ALICE)] == ["r_new"]


def test_proposals_expire(redis: Redis) -> None:
    store = RuleStore(redis, proposal_ttl=0.05)
    proposal = store.propose(ALICE, make_rule("r_new"))
    deadline = time.monotonic() + 5
    while store.pending(ALICE, proposal) is not None:
        assert time.monotonic() < deadline, "the proposal never expired"
        time.sleep(0.01)
    assert store.confirm(ALICE, proposal) is None
    assert store.list(ALICE) == []


def test_a_fresh_proposal_is_not_expired_early(redis: Redis) -> None:
    store = RuleStore(redis, proposal_ttl=600)
    proposal = store.propose(ALICE, make_rule("r_new"))
    ttl_ms = redis.pttl(f"deputy:rule_proposal:{ALICE}:{proposal}")
    assert 590_000 < ttl_ms <= 600_000
