"""Submitted actions and their states: idempotent submission, compare-and-set transitions.

What a user relies on: an email the agent asked for is recorded once however often the
step is retried, and once approved it runs at most once even when several executors
race for it.
"""

from __future__ import annotations

import threading

import pytest
from redis import Redis

from deputy.core.records.effects import EffectClass
from deputy.sentinel.action_lifecycle import ActionEvent
from deputy.sentinel.stores.action_store import ActionStore
from deputy.core.records.actions import Action, ActionState

ACTION_ID = "a_0123456789abcdef0123"


@pytest.fixture
def store(redis: Redis) -> ActionStore:
    return ActionStore(redis)


def make_action(action_id: str = ACTION_ID, to: str = "alice@example.org") -> Action:
    return Action(
        id=action_id,
        goal_id="g_1",
        user_id=101,
        chat_id=101,
        connector="email",
        operation="send_email",
        effect=EffectClass.communicate,
        arguments={"to": [to], "subject": "Running late", "body": "Ten minutes late.", "cc": []},
        targets=[to],
        tool_call_id="call_1",
        created_at=1_700_000_000.0,
    )


def test_submit_stores_the_action_as_submitted(store: ActionStore) -> None:
    action = make_action()
    assert store.submit(action) is True
    record = store.get(action.id)
    assert record is not None
    assert (record.action, record.state, record.outcome, record.approval_id) == (
        action, ActionState.submitted, None, None
    )


def test_submitting_again_is_a_no_op(store: ActionStore) -> None:
    """A retried step re-submits the same id; the first version and its state stand."""
    original = make_action()
    store.submit(original)
    store.transition(original.id, (ActionState.submitted,), ActionState.awaiting_approval, approval_id="ap_1")
    assert store.submit(make_action(to="mallory@evil.example")) is False
    record = store.get(original.id)
    assert record.action == original
    assert record.state is ActionState.awaiting_approval
    assert record.approval_id == "ap_1"


def test_get_of_an_unknown_action_is_none(store: ActionStore) -> None:
    assert store.get("a_missing") is None


def test_transition_moves_only_from_allowed_states(store: ActionStore) -> None:
    store.submit(make_action())
    assert store.transition(ACTION_ID, (ActionState.awaiting_approval,), ActionState.executing) is False
    assert store.get(ACTION_ID).state is ActionState.submitted

    assert store.transition(ACTION_ID, (ActionState.submitted, ActionState.awaiting_approval), ActionState.executing)
    assert store.get(ACTION_ID).state is ActionState.executing
    # Claimed once: the same claim does not succeed again.
    assert store.transition(ACTION_ID, (ActionState.submitted, ActionState.awaiting_approval), ActionState.executing) is False

    assert store.transition(ACTION_ID, (ActionState.executing,), ActionState.succeeded, outcome="Email sent.")
    assert store.transition(ACTION_ID, (ActionState.executing,), ActionState.failed, outcome="boom") is False
    record = store.get(ACTION_ID)
    assert (record.state, record.outcome) == (ActionState.succeeded, "Email sent.")


def test_transition_records_the_approval_and_keeps_earlier_fields(store: ActionStore) -> None:
    store.submit(make_action())
    store.transition(ACTION_ID, (ActionState.submitted,), ActionState.awaiting_approval, approval_id="ap_1")
    store.transition(ACTION_ID, (ActionState.awaiting_approval,), ActionState.executing)
    record = store.get(ACTION_ID)
    assert (record.state, record.approval_id, record.outcome) == (ActionState.executing, "ap_1", None)


def test_transition_of_an_unknown_action_does_nothing(redis: Redis, store: ActionStore) -> None:
    assert store.transition("a_missing", (ActionState.submitted,), ActionState.executing) is False
    assert store.get("a_missing") is None
    assert redis.keys("deputy:action:*") == []


def test_racing_claims_have_exactly_one_winner(redis: Redis, store: ActionStore) -> None:
    """20 executors claim the same approved action at once: only one may run it."""
    store.submit(make_action())
    store.transition(ACTION_ID, (ActionState.submitted,), ActionState.awaiting_approval, approval_id="ap_1")
    claimers = 20
    start = threading.Barrier(claimers)
    wins: list[bool] = []
    lock = threading.Lock()

    def claim() -> None:
        own = ActionStore(redis)
        start.wait()
        won = own.transition(ACTION_ID, (ActionState.submitted, ActionState.awaiting_approval), ActionState.executing)
        with lock:
            wins.append(won)

    threads = [threading.Thread(target=claim) for _ in range(claimers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(wins) == [False] * (claimers - 1) + [True]
    assert store.get(ACTION_ID).state is ActionState.executing


def test_a_submit_interrupted_after_the_record_is_completed_by_the_retry(redis: Redis, store: ActionStore) -> None:
    """A worker killed between submit's two writes must not leave the goal's email stuck forever."""
    action = make_action()
    # Exactly the first write submit() makes, then the worker dies.
    redis.hsetnx(f"deputy:action:{action.id}", "record", action.model_dump_json())
    store.submit(action)  # the retried step submits again
    record = store.get(action.id)
    assert record is not None and record.state is ActionState.submitted


def claimed(store: ActionStore, token: str = "claim-1") -> None:
    store.submit(make_action())
    store.transition(ACTION_ID, (ActionState.submitted,), ActionState.awaiting_approval, approval_id="ap_1")
    assert store.claim(ACTION_ID, token)


def test_a_claim_whose_executor_died_before_starting_goes_back_to_its_approval(store: ActionStore) -> None:
    """Nothing began: the action waits to run again under the approval it already has."""
    claimed(store)
    assert store.lost(store.get(ACTION_ID)) is ActionState.awaiting_approval
    record = store.get(ACTION_ID)
    assert (record.state, record.approval_id, record.claim, record.progress) == (
        ActionState.awaiting_approval, "ap_1", None, None)
    assert store.claim(ACTION_ID, "claim-2"), "it can be claimed again"


def test_a_claim_whose_executor_died_after_starting_has_an_unknown_outcome(store: ActionStore) -> None:
    claimed(store)
    assert store.progress(ACTION_ID, "claim-1", "the mail server accepted the connection")
    stale = store.get(ACTION_ID)
    assert store.lost(stale) is ActionState.outcome_unknown
    assert store.lost(stale) is None, "two watchdogs' jobs: one of them decides"
    record = store.get(ACTION_ID)
    assert record.progress == "the mail server accepted the connection"
    assert not store.claim(ACTION_ID, "claim-3"), "never claimed again without the user's Try again"
    assert store.claim(ACTION_ID, "claim-3", ActionEvent.retry)
    assert store.get(ACTION_ID).progress is None


def test_only_the_current_claim_records_progress_and_results(store: ActionStore) -> None:
    claimed(store, "old")
    assert store.lost(store.get(ACTION_ID)) is ActionState.awaiting_approval
    assert store.claim(ACTION_ID, "new")
    assert not store.progress(ACTION_ID, "old", "started")
    assert not store.finish(ACTION_ID, "old", ActionEvent.succeed, "Email sent.")
    assert store.finish(ACTION_ID, "new", ActionEvent.succeed, "Email sent.")
    record = store.get(ACTION_ID)
    assert (record.state, record.outcome, record.claim) == (ActionState.succeeded, "Email sent.", None)


def test_a_readings_items_are_kept_with_its_outcome_and_sealed_for_a_confidential_user(redis: Redis) -> None:
    from deputy.core.confidential import ConfidentialKeys
    from deputy.core.records.read_items import ItemSpan

    keys = ConfidentialKeys(redis, b"k" * 32)
    store = ActionStore(redis, keys)
    outcome = "2 email(s):\n- INBOX/2 | sam@friends.example | Dinner\n- INBOX/1 | x@evil.example | Invoice"
    items = [ItemSpan(origin="the email from sam@friends.example, 'Dinner', INBOX/2", start=12, end=50),
             ItemSpan(origin="the email from x@evil.example, 'Invoice', INBOX/1", start=51, end=len(outcome),
                      author="x@evil.example")]
    claimed(store)
    assert store.finish(ACTION_ID, "claim-1", ActionEvent.succeed, outcome, "INBOX in your mailbox", items)
    assert store.get(ACTION_ID).untrusted_items == items

    assert keys.turn_on(101, "a long and private passphrase")
    keys.unlock(101, "a long and private passphrase", 3600)
    other = make_action("a_confidential_000000000")
    store.submit(other)
    store.transition(other.id, (ActionState.submitted,), ActionState.awaiting_approval, approval_id="ap_2")
    assert store.claim(other.id, "claim-2")
    assert store.finish(other.id, "claim-2", ActionEvent.succeed, outcome, "INBOX in your mailbox", items)
    assert store.get(other.id).untrusted_items == items
    # Who wrote to a confidential user, and about what, is not kept in clear.
    assert b"x@evil.example" not in redis.hget(f"deputy:action:{other.id}", "untrusted_items")
    assert b"x@evil.example" in redis.hget(f"deputy:action:{ACTION_ID}", "untrusted_items")
