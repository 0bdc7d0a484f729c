"""Confidential keys: sealing needs no passphrase, opening needs the unlock, and nothing else opens."""

from __future__ import annotations

import pytest
from redis import Redis

from deputy.core.confidential import ConfidentialKeys, Locked, WaitingWork, WrongPassphrase
from deputy.core.confidential.sealing import CannotOpen, new_private_key, open_sealed, public_of, seal
from deputy.testing.stack import wait_for
from tests_support import everything_in_redis

USER = 5150
PASSPHRASE = "a long and private passphrase"
UNLOCK_KEY = b"k" * 32


def test_a_sealed_value_opens_only_with_its_own_private_key() -> None:
    private, other = new_private_key(), new_private_key()
    token = seal(public_of(private), "the hidden words".encode())
    assert "hidden" not in token
    assert open_sealed(private, token) == b"the hidden words"
    with pytest.raises(CannotOpen):
        open_sealed(other, token)
    with pytest.raises(CannotOpen):
        open_sealed(private, token[:-4] + "AAAA")


def test_values_written_while_locked_open_after_the_unlock_and_never_before(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, UNLOCK_KEY)
    assert keys.seal_text(USER, "plain") == "plain", "a user who is not confidential is left as is"
    assert keys.turn_on(USER, PASSPHRASE)
    assert not keys.turn_on(USER, "another passphrase"), "the first key pair stays"
    assert keys.is_locked(USER)
    sealed = keys.seal_text(USER, "my diary entry")
    with pytest.raises(Locked) as locked:
        keys.open_text(USER, sealed)
    assert "/unlock" in locked.value.user_message
    keys.unlock(USER, PASSPHRASE, 3600)
    assert keys.open_text(USER, sealed) == "my diary entry"
    assert keys.open_text(USER, "a clear value") == "a clear value"
    # A process without the operator's unlock key cannot open, even while the user is unlocked.
    with pytest.raises(Locked):
        ConfidentialKeys(redis, b"z" * 32).open_text(USER, sealed)
    assert keys.lock(USER)
    with pytest.raises(Locked):
        keys.open_text(USER, sealed)
    dump = everything_in_redis(redis)
    assert PASSPHRASE not in dump and "my diary entry" not in dump


def test_a_wrong_passphrase_is_refused_and_changes_nothing(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, UNLOCK_KEY)
    keys.turn_on(USER, PASSPHRASE)
    with pytest.raises(WrongPassphrase) as wrong:
        keys.unlock(USER, "not the passphrase", 3600)
    assert "does not unlock" in wrong.value.user_message
    assert keys.is_locked(USER)
    with pytest.raises(ValueError):
        ConfidentialKeys(redis, UNLOCK_KEY).turn_on(USER + 1, "short")


def test_the_end_of_the_unlock_period_locks_again(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, UNLOCK_KEY)
    keys.turn_on(USER, PASSPHRASE)
    keys.unlock(USER, PASSPHRASE, 8 * 3600)
    assert 8 * 3600 - 5 < keys.unlocked_until(USER, 0) <= 8 * 3600
    sealed = keys.seal_text(USER, "words")
    assert keys.open_text(USER, sealed) == "words"
    # The period ends (Redis expires the unlocked copy): locked again, by Redis alone.
    redis.pexpire(f"deputy:user:{USER}:confidential:unlocked", 1)
    wait_for(lambda: keys.is_locked(USER), what="the unlock to expire")
    assert keys.unlocked_until(USER, 0) is None
    with pytest.raises(Locked):
        keys.open_text(USER, sealed)


def test_work_parked_while_locked_is_handed_back_once_and_the_user_told_once(redis: Redis) -> None:
    class Recorder:
        def __init__(self) -> None:
            self.calls: list[tuple] = []

        def step(self, goal_id, step):
            self.calls.append(("step", goal_id, step))

        def action(self, action_id, goal_id, step, approval_id=None):
            self.calls.append(("action", action_id, goal_id, step, approval_id))

        def expire_approval(self, approval_id, when):
            self.calls.append(("expire", approval_id))

    waiting = WaitingWork(redis)
    waiting.park_step(USER, "g_1", 3)
    waiting.park_step(USER, "g_1", 3)
    waiting.park_action(USER, "a_1", {"action_id": "a_1", "goal_id": "g_2", "step": 1, "approval_id": None})
    waiting.park_expiry(USER, "ap_1")
    waiting.park_answer(USER, "g_3", "cf1.first")
    waiting.park_answer(USER, "g_3", "cf1.second")
    assert waiting.first_notice(USER) and not waiting.first_notice(USER)
    recorder = Recorder()
    answers: list[tuple[str, str]] = []
    assert waiting.resume(USER, recorder, 0, lambda goal_id, sealed: answers.append((goal_id, sealed))) == 5
    assert sorted(recorder.calls, key=str) == sorted([("step", "g_1", 3), ("action", "a_1", "g_2", 1, None),
                                                      ("expire", "ap_1")], key=str)
    assert answers == [("g_3", "cf1.first"), ("g_3", "cf1.second")], "answers arrive in the order typed"
    assert waiting.resume(USER, recorder, 0) == 0
    assert waiting.first_notice(USER), "a new locked spell is told again"
