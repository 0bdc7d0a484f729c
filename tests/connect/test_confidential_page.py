"""The private page for confidential mode: a wrong passphrase is refused politely, and not forever."""

from __future__ import annotations

from redis import Redis

from deputy.credential_page.confidential_page import MAX_TRIES, TURN_ON, UNLOCK, ConfidentialPage
from deputy.core.confidential import ConfidentialKeys
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox, OutboxMessage

USER = 8808
PASSPHRASE = "a passphrase I will remember"


def page(redis: Redis, resumed: list[int], sealed: list[int]) -> ConfidentialPage:
    return ConfidentialPage(ConfidentialKeys(redis, b"u" * 32), Outbox(redis), lambda *a, **k: None,
                            resumed.append, sealed.append, lambda: 1000.0)


def chat(redis: Redis) -> list[OutboxMessage]:
    return [OutboxMessage.model_validate_json(f[b"json"]) for _, f in redis.xrange(OUTBOX_STREAM)]


def test_turning_on_needs_the_warning_ticked_and_then_seals_and_unlocks(redis: Redis) -> None:
    resumed: list[int] = []
    sealed: list[int] = []
    confidential = page(redis, resumed, sealed)
    refused = confidential.submit(TURN_ON, USER, USER, {"passphrase": PASSPHRASE, "again": PASSPHRASE,
                                                        "period": "8 hours"})
    assert refused.status == 400 and "tick the box" in refused.body and not refused.done
    short = confidential.submit(TURN_ON, USER, USER, {"passphrase": "short", "again": "short", "understood": "yes"})
    assert "at least" in short.body
    done = confidential.submit(TURN_ON, USER, USER, {"passphrase": PASSPHRASE, "again": PASSPHRASE,
                                                     "period": "8 hours", "understood": "yes"})
    assert done.done and sealed == [USER]
    [message] = chat(redis)
    assert "unlocked for 8 hours" in message.text and message.buttons[0][0].sign == "lk:me"
    assert not ConfidentialKeys(redis).is_locked(USER)


def test_wrong_passphrases_are_refused_then_unlocking_pauses_after_too_many(redis: Redis) -> None:
    resumed: list[int] = []
    confidential = page(redis, resumed, [])
    keys = ConfidentialKeys(redis, b"u" * 32)
    keys.turn_on(USER, PASSPHRASE)
    for _ in range(MAX_TRIES):
        wrong = confidential.submit(UNLOCK, USER, USER, {"passphrase": "guess", "period": "1 hour"})
        assert wrong.status == 400 and "does not unlock" in wrong.body and not wrong.done
    paused = confidential.submit(UNLOCK, USER, USER, {"passphrase": PASSPHRASE, "period": "1 hour"})
    assert paused.status == 429 and "15 minutes" in paused.body
    assert keys.is_locked(USER) and resumed == []
    redis.delete(f"deputy:user:{USER}:confidential:failures")  # the 15 minutes have passed
    unlocked = confidential.submit(UNLOCK, USER, USER, {"passphrase": PASSPHRASE, "period": "1 hour"})
    assert unlocked.done and resumed == [USER] and not keys.is_locked(USER)
    odd = confidential.submit(UNLOCK, USER, USER, {"passphrase": PASSPHRASE, "period": "forever"})
    assert odd.status == 400 and "periods offered" in odd.body
