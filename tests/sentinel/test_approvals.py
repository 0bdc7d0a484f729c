"""Approval requests: signed button data and the single, owner-only, expiring decision.

A user relies on three things: only their own Approve/Deny buttons work for them, each
request counts once however many times (or however fast) it is pressed, and a request
that has expired can no longer be approved.
"""

from __future__ import annotations

import threading
import time

import pytest
from redis import Redis

from deputy.sentinel.stores.approvals import (
    ApprovalRequest,
    ApprovalSigner,
    ApprovalStatus,
    ApprovalStore,
    Choice,
    ForgedPress,
    PressOutcome,
    new_approval_id,
)

OWNER = 101
STRANGER = 202
SECRET = "test-secret-0123456789"
# Records carry a Redis expiry derived from `expires_at`, so times are realistic, but fixed.
NOW = float(int(time.time()))


@pytest.fixture
def signer() -> ApprovalSigner:
    return ApprovalSigner(SECRET)


@pytest.fixture
def store(redis: Redis) -> ApprovalStore:
    return ApprovalStore(redis)


def make_request(approval_id: str | None = None, *, ttl: float = 3600) -> ApprovalRequest:
    return ApprovalRequest(
        id=approval_id or new_approval_id(),
        action_id="a_1",
        goal_id="g_1",
        user_id=OWNER,
        chat_id=OWNER,
        fingerprint="f" * 64,
        reasons=["it sends a message on your behalf to alice@example.org"],
        created_at=NOW,
        expires_at=NOW + ttl,
    )


# -- ApprovalSigner ---------------------------------------------------------------------


@pytest.mark.parametrize("choice", list(Choice))
@pytest.mark.parametrize("approval_id", [new_approval_id(), "AbCdEfGhIjKl", "x" * 16], ids=["new", "letters", "long"])
def test_button_data_fits_telegram_and_verifies_for_the_owner(
    signer: ApprovalSigner, approval_id: str, choice: Choice
) -> None:
    data = signer.button_data(approval_id, choice, user_id=2**52)
    assert len(data.encode()) <= 64, "Telegram rejects callback_data over 64 bytes"
    assert signer.verify(data, 2**52) == (approval_id, choice)


def test_button_data_does_not_verify_for_another_user(signer: ApprovalSigner) -> None:
    """Data copied from the owner's card into another account is worthless there."""
    data = signer.button_data("abc123", Choice.approve, OWNER)
    with pytest.raises(ForgedPress):
        signer.verify(data, STRANGER)


def test_button_data_signed_with_another_secret_does_not_verify(signer: ApprovalSigner) -> None:
    data = ApprovalSigner("some-other-secret").button_data("abc123", Choice.approve, OWNER)
    with pytest.raises(ForgedPress):
        signer.verify(data, OWNER)


def _tampered(signer: ApprovalSigner) -> dict[str, str]:
    prefix, approval_id, choice, signature = signer.button_data("abc123", Choice.deny, OWNER).split(":")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    return {
        "other-id": f"{prefix}:abc124:{choice}:{signature}",
        "deny-turned-approve": f"{prefix}:{approval_id}:y:{signature}",
        "unknown-choice": f"{prefix}:{approval_id}:maybe:{signature}",
        "signature-changed": f"{prefix}:{approval_id}:{choice}:{flipped}",
        "signature-truncated": f"{prefix}:{approval_id}:{choice}:{signature[:-1]}",
        "signature-empty": f"{prefix}:{approval_id}:{choice}:",
        "wrong-prefix": f"ap2:{approval_id}:{choice}:{signature}",
        "no-prefix": f"{approval_id}:{choice}:{signature}",
        "extra-field": f"{prefix}:{approval_id}:{choice}:{signature}:{OWNER}",
        "empty": "",
        "garbage": "definitely not a button",
        "colons": ":::",
        "very-long": f"{prefix}:{'a' * 100_000}:{choice}:{signature}",
        "unicode-id": f"{prefix}:ab€123:{choice}:{signature}",
        "unicode-choice": f"{prefix}:{approval_id}:ÿ:{signature}",
        "nul-bytes": f"{prefix}:{approval_id}\x00:{choice}:{signature}",
    }


@pytest.mark.parametrize("case", list(_tampered(ApprovalSigner(SECRET))))
def test_tampered_or_malformed_data_is_a_forged_press(signer: ApprovalSigner, case: str) -> None:
    with pytest.raises(ForgedPress):
        signer.verify(_tampered(signer)[case], OWNER)


@pytest.mark.parametrize("data", ["ap1:abc123:y:sïgnature", "ap1:abc123:y:🙂", "ap1:abc\ud800:y:AAAA"])
def test_non_ascii_data_is_a_forged_press(signer: ApprovalSigner, data: str) -> None:
    """Any string a client can send must be rejected as forged, not crash the press handler."""
    with pytest.raises(ForgedPress):
        signer.verify(data, OWNER)


# -- ApprovalStore ----------------------------------------------------------------------


def test_create_then_get_returns_the_pending_request(store: ApprovalStore) -> None:
    request = make_request()
    store.create(request)
    assert store.get(request.id) == (request, ApprovalStatus.pending)
    assert store.get("no-such-approval") is None


@pytest.mark.parametrize(("choice", "status"), [(Choice.approve, ApprovalStatus.approved), (Choice.deny, ApprovalStatus.denied)])
def test_the_owner_decides_once(store: ApprovalStore, choice: Choice, status: ApprovalStatus) -> None:
    request = make_request()
    store.create(request)
    result = store.decide(request.id, OWNER, choice, NOW + 1)
    assert (result.outcome, result.status, result.request) == (PressOutcome.decided, status, request)
    assert store.get(request.id) == (request, status)


def test_a_second_press_is_already_decided_and_changes_nothing(store: ApprovalStore) -> None:
    request = make_request()
    store.create(request)
    store.decide(request.id, OWNER, Choice.approve, NOW + 1)
    for choice in (Choice.approve, Choice.deny):
        again = store.decide(request.id, OWNER, choice, NOW + 2)
        assert (again.outcome, again.status) == (PressOutcome.already_decided, ApprovalStatus.approved)
    assert store.get(request.id)[1] is ApprovalStatus.approved


def test_another_user_cannot_decide_and_the_owner_still_can(store: ApprovalStore) -> None:
    request = make_request()
    store.create(request)
    assert store.decide(request.id, STRANGER, Choice.approve, NOW + 1).outcome is PressOutcome.not_owner
    assert store.get(request.id)[1] is ApprovalStatus.pending
    assert store.decide(request.id, OWNER, Choice.deny, NOW + 2).outcome is PressOutcome.decided


def test_an_unknown_request_is_not_found(store: ApprovalStore) -> None:
    result = store.decide("no-such-approval", OWNER, Choice.approve, NOW)
    assert (result.outcome, result.request) == (PressOutcome.not_found, None)


def test_a_press_after_expiry_is_expired_and_the_request_stays_expired(store: ApprovalStore) -> None:
    late = make_request(ttl=600)
    store.create(late)
    result = store.decide(late.id, OWNER, Choice.approve, late.expires_at + 1)
    assert (result.outcome, result.status) == (PressOutcome.expired, ApprovalStatus.expired)
    # Neither a later press nor one claiming an earlier time can revive it.
    for now in (late.expires_at + 60, NOW):
        again = store.decide(late.id, OWNER, Choice.approve, now)
        assert again.status is ApprovalStatus.expired
    assert store.get(late.id)[1] is ApprovalStatus.expired


def test_a_press_at_the_expiry_instant_still_counts(store: ApprovalStore) -> None:
    request = make_request(ttl=600)
    store.create(request)
    result = store.decide(request.id, OWNER, Choice.approve, request.expires_at)
    assert (result.outcome, result.status) == (PressOutcome.decided, ApprovalStatus.approved)


def test_every_press_on_an_expired_request_is_told_it_expired(store: ApprovalStore) -> None:
    request = make_request(ttl=600)
    store.create(request)
    store.decide(request.id, OWNER, Choice.approve, request.expires_at + 1)
    again = store.decide(request.id, OWNER, Choice.approve, request.expires_at + 2)
    assert (again.outcome, again.status) == (PressOutcome.expired, ApprovalStatus.expired)


def test_racing_presses_record_exactly_one_decision(redis: Redis, store: ApprovalStore) -> None:
    """20 presses (approve and deny mixed) arriving together: one counts, the rest learn it was decided."""
    request = make_request()
    store.create(request)
    choices = [Choice.approve if i % 2 else Choice.deny for i in range(20)]
    start = threading.Barrier(len(choices))
    results: list = [None] * len(choices)

    def press(i: int) -> None:
        own_store = ApprovalStore(redis)
        start.wait()
        results[i] = own_store.decide(request.id, OWNER, choices[i], NOW + 1)

    threads = [threading.Thread(target=press, args=(i,)) for i in range(len(choices))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    winners = [i for i, r in enumerate(results) if r.outcome is PressOutcome.decided]
    assert len(winners) == 1
    final = ApprovalStatus.approved if choices[winners[0]] is Choice.approve else ApprovalStatus.denied
    assert store.get(request.id)[1] is final
    losers = [r for r in results if r.outcome is not PressOutcome.decided]
    assert all(r.outcome is PressOutcome.already_decided and r.status is final for r in losers)
