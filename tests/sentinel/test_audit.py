"""The audit trail: an append-only, hash-chained log per user.

What a user relies on: the log shows what happened in order, each user's log is their
own, and any later edit or deletion of an entry is detected by `verify`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

import pytest
from redis import Redis

from sentinel.audit import AuditLog

USER = 101
OTHER = 202
T0 = 1_700_000_000.0
STREAM = f"deputy:audit:{USER}"
TIP = f"deputy:audit:{USER}:tip"


@pytest.fixture
def audit(redis: Redis) -> AuditLog:
    return AuditLog(redis)


def fill(audit: AuditLog, user: int = USER, count: int = 4) -> list[str]:
    return [
        audit.append(user, "review", T0 + i, action_id=f"a_{i}", verdict="ask", targets=["alice@example.org"])
        for i in range(count)
    ]


def chained_hash(prev: str, kind: str, at: float, detail: dict[str, Any]) -> str:
    """What someone who knows the scheme would compute to make a forged entry look right."""
    body = json.dumps({"kind": kind, "at": at, "detail": detail}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()


def rewrite_from(redis: Redis, index: int, edit: dict[str, Any], *, rehash: bool = False) -> None:
    """Replace entry `index` with an edited copy, re-adding the later entries after it.

    Stream ids only grow, so the only way to change an entry "in place" is to delete it and
    everything after it and append them again; that is what a tamperer with Redis access does.
    """
    rows = redis.xrange(STREAM)
    for entry_id, _ in rows[index:]:
        redis.xdel(STREAM, entry_id)
    for position, (_, fields) in enumerate(rows[index:]):
        fields = dict(fields)
        if position == 0:
            detail = {**json.loads(fields[b"detail"]), **edit}
            fields[b"detail"] = json.dumps(detail, sort_keys=True).encode()
            if rehash:
                fields[b"hash"] = chained_hash(
                    fields[b"prev"].decode(), fields[b"kind"].decode(), float(fields[b"at"]), detail
                ).encode()
        redis.xadd(STREAM, fields)


def test_appended_entries_come_back_in_order_and_verify(audit: AuditLog) -> None:
    assert audit.entries(USER) == [] and audit.verify(USER)
    hashes = fill(audit)
    entries = audit.entries(USER)
    assert [e.hash for e in entries] == hashes
    assert [e.detail["action_id"] for e in entries] == ["a_0", "a_1", "a_2", "a_3"]
    assert [e.at for e in entries] == [T0, T0 + 1, T0 + 2, T0 + 3]
    assert entries[0].detail == {"action_id": "a_0", "verdict": "ask", "targets": ["alice@example.org"]}
    assert [e.prev for e in entries[1:]] == hashes[:-1]
    assert audit.verify(USER)


def test_re_adding_unchanged_entries_still_verifies(redis: Redis, audit: AuditLog) -> None:
    """Control for the tampering tests: moving entries to new stream ids alone is not an edit."""
    fill(audit)
    rewrite_from(redis, 1, {})
    assert audit.verify(USER)


@pytest.mark.parametrize("index", [0, 1, 3])
def test_editing_an_entry_is_detected(redis: Redis, audit: AuditLog, index: int) -> None:
    fill(audit)
    rewrite_from(redis, index, {"verdict": "allow"})
    assert [e.detail["verdict"] for e in audit.entries(USER)][index] == "allow"
    assert not audit.verify(USER)


@pytest.mark.parametrize("index", [0, 1])
def test_editing_an_entry_and_rehashing_it_still_breaks_the_chain(redis: Redis, audit: AuditLog, index: int) -> None:
    """A forger who recomputes the edited entry's hash breaks the link of the entry after it."""
    fill(audit)
    rewrite_from(redis, index, {"verdict": "allow"}, rehash=True)
    assert not audit.verify(USER)


def test_editing_and_rehashing_the_last_entry_is_caught_by_the_tip(redis: Redis, audit: AuditLog) -> None:
    fill(audit)
    rewrite_from(redis, 3, {"verdict": "allow"}, rehash=True)
    assert not audit.verify(USER)


def test_changing_the_tip_is_detected(redis: Redis, audit: AuditLog) -> None:
    fill(audit)
    redis.set(TIP, "f" * 64)
    assert not audit.verify(USER)


def test_deleting_a_middle_entry_is_detected(redis: Redis, audit: AuditLog) -> None:
    fill(audit)
    middle_id = redis.xrange(STREAM)[2][0]
    redis.xdel(STREAM, middle_id)
    assert len(audit.entries(USER)) == 3
    assert not audit.verify(USER)


def test_deleting_the_last_entry_is_detected(redis: Redis, audit: AuditLog) -> None:
    fill(audit)
    redis.xdel(STREAM, redis.xrevrange(STREAM, count=1)[0][0])
    assert not audit.verify(USER)


def test_each_user_has_a_separate_log(redis: Redis, audit: AuditLog) -> None:
    fill(audit, USER, 3)
    fill(audit, OTHER, 2)
    assert len(audit.entries(USER)) == 3 and len(audit.entries(OTHER)) == 2
    assert audit.entries(OTHER)[0].prev == "0" * 64, "another user's entries must not link into this chain"
    redis.xdel(f"deputy:audit:{OTHER}", redis.xrange(f"deputy:audit:{OTHER}")[0][0])
    assert not audit.verify(OTHER)
    assert audit.verify(USER)


def test_concurrent_appends_keep_one_valid_chain(redis: Redis) -> None:
    threads_count, per_thread = 8, 25
    start = threading.Barrier(threads_count)

    def writer(n: int) -> None:
        log = AuditLog(redis)
        start.wait()
        for i in range(per_thread):
            log.append(USER, "review", T0 + i, writer=n, i=i)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    audit = AuditLog(redis)
    entries = audit.entries(USER)
    assert len(entries) == threads_count * per_thread
    assert {(e.detail["writer"], e.detail["i"]) for e in entries} == {
        (n, i) for n in range(threads_count) for i in range(per_thread)
    }
    assert audit.verify(USER)
