"""The audit trail: an append-only, sealed and chained log per user.

What a user relies on: the log shows what happened in order, each user's log is their
own, and any later edit, deletion, reordering, insertion or forgery by someone who can
write Redis (but holds no key) is detected by `verify`/`check` and by `deputy audit verify`.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from typing import Any

import pytest
from redis import Redis

from deputy.core.confidential import ConfidentialKeys, Locked
from deputy.sentinel.stores.audit import AuditLog, audit_key

USER = 101
OTHER = 202
T0 = 1_700_000_000.0
STREAM = f"deputy:audit:{USER}"
TIP = f"deputy:audit:{USER}:tip"


KEY_MATERIAL = "operator-audit-key-for-tests"
KEY = audit_key(KEY_MATERIAL)


@pytest.fixture
def audit(redis: Redis) -> AuditLog:
    return AuditLog(redis, KEY)


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
        log = AuditLog(redis, KEY)
        start.wait()
        for i in range(per_thread):
            log.append(USER, "review", T0 + i, writer=n, i=i)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    audit = AuditLog(redis, KEY)
    entries = audit.entries(USER)
    assert len(entries) == threads_count * per_thread
    assert {(e.detail["writer"], e.detail["i"]) for e in entries} == {
        (n, i) for n in range(threads_count) for i in range(per_thread)
    }
    assert audit.verify(USER)


# -- against someone who can write Redis but holds no key --------------------------------


def forge(redis: Redis, stream: str, kind: str, at: float, detail: dict[str, Any], prev: str, *,
          user: int = USER) -> str:
    """Append an entry the way a tamperer who read this code would: links right, hash recomputed without a key."""
    fields = {"kind": kind, "at": repr(at), "detail": json.dumps(detail, sort_keys=True), "prev": prev}
    fields["hash"] = chained_hash(prev, kind, at, detail)
    redis.xadd(stream, fields)
    return fields["hash"]


def test_a_forged_entry_with_a_recomputed_unkeyed_hash_is_detected(redis: Redis, audit: AuditLog) -> None:
    hashes = fill(audit)
    forged = forge(redis, STREAM, "review", T0 + 9, {"action_id": "a_x", "verdict": "allow"}, hashes[-1])
    redis.set(TIP, forged)  # the tamperer moves the tip along too
    check = audit.check(USER)
    assert not check.intact and check.bad_position == 5 and "seal" in check.problem


def test_an_inserted_entry_is_detected(redis: Redis, audit: AuditLog) -> None:
    """Inserting between two entries: whatever seal the insert carries, the next entry no longer follows."""
    hashes = fill(audit)
    rows = redis.xrange(STREAM)
    for entry_id, _ in rows[2:]:
        redis.xdel(STREAM, entry_id)
    forge(redis, STREAM, "review", T0 + 1.5, {"action_id": "a_in", "verdict": "allow"}, hashes[1])
    for _, fields in rows[2:]:
        redis.xadd(STREAM, fields)
    check = audit.check(USER)
    assert not check.intact and check.bad_position == 3


def test_reordering_entries_is_detected(redis: Redis, audit: AuditLog) -> None:
    fill(audit)
    rows = redis.xrange(STREAM)
    for entry_id, _ in rows[1:]:
        redis.xdel(STREAM, entry_id)
    for _, fields in [rows[2], rows[1], rows[3]]:
        redis.xadd(STREAM, fields)
    check = audit.check(USER)
    assert not check.intact and check.bad_position == 2 and "does not follow" in check.problem


def test_check_names_the_first_edited_or_deleted_entry(redis: Redis, audit: AuditLog) -> None:
    fill(audit, count=6)
    rewrite_from(redis, 4, {"verdict": "allow"})
    check = audit.check(USER)
    assert (check.bad_position, check.bad_entry) == (5, redis.xrange(STREAM)[4][0].decode())
    assert "edited" in check.problem and check.entries == 5


def test_another_users_entries_copied_in_do_not_verify(redis: Redis, audit: AuditLog) -> None:
    fill(audit, OTHER, 3)
    for _, fields in redis.xrange(f"deputy:audit:{OTHER}"):
        redis.xadd(STREAM, fields)
    redis.set(TIP, redis.get(f"deputy:audit:{OTHER}:tip"))
    assert audit.verify(OTHER) and not audit.verify(USER)


def test_without_the_key_a_trail_does_not_verify(redis: Redis, audit: AuditLog) -> None:
    fill(audit)
    assert audit.verify(USER)
    assert not AuditLog(redis, audit_key("some other key")).verify(USER)
    assert not AuditLog(redis).verify(USER)  # the development key is not the operator's


def test_a_deleted_trail_whose_tip_remains_is_detected(redis: Redis, audit: AuditLog) -> None:
    fill(audit)
    redis.delete(STREAM)
    assert not audit.check(USER).intact


# -- paging (what /audit shows) ---------------------------------------------------------


def test_paging_older_then_newer_shows_every_entry_exactly_once(redis: Redis, audit: AuditLog) -> None:
    fill(audit, count=23)
    pages = [audit.page(USER, size=10)]
    while True:
        older = audit.page(USER, before=pages[-1][0].id, size=10)
        if not older:
            break
        pages.append(older)
    seen = [e.detail["action_id"] for page in reversed(pages) for e in page]
    assert seen == [f"a_{i}" for i in range(23)] and [len(p) for p in pages] == [10, 10, 3]
    # An entry appended while paging does not shift older pages; Newer from the oldest page walks forward.
    audit.append(USER, "review", T0 + 99, action_id="a_new")
    forward, after = [], pages[-1][-1].id
    forward += [e.detail["action_id"] for e in pages[-1]]
    while page := audit.page(USER, after=after, size=10):
        forward += [e.detail["action_id"] for e in page]
        after = page[-1].id
    assert forward == [f"a_{i}" for i in range(23)] + ["a_new"]


# -- `deputy audit verify`, as the operator runs it ---------------------------------------


def run_verify(redis: Redis, *args: str, key: str = KEY_MATERIAL) -> subprocess.CompletedProcess:
    connection = redis.connection_pool.connection_kwargs
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")},
           "REDIS_URL": f"redis://{connection['host']}:{connection['port']}/{connection.get('db', 0)}",
           "DEPUTY_AUDIT_KEY": key, "DEPUTY_DATA_DIR": os.devnull + "-unused"}
    return subprocess.run([sys.executable, "-m", "deputy.cli", "audit", "verify", *args], env=env,
                          capture_output=True, text=True, timeout=60)


def test_the_command_checks_every_user_and_names_the_first_bad_entry(redis: Redis, audit: AuditLog) -> None:
    fill(audit, USER, 4)
    fill(audit, OTHER, 2)
    ok = run_verify(redis)
    assert ok.returncode == 0, ok.stderr
    assert f"user {USER}: 4 entries, intact" in ok.stdout and f"user {OTHER}: 2 entries, intact" in ok.stdout
    assert "Checked 2 user(s), 6 entries: every trail is intact." in ok.stdout

    middle = redis.xrange(STREAM)[1][0].decode()
    rewrite_from(redis, 1, {"verdict": "allow"}, rehash=True)
    bad = run_verify(redis)
    edited = redis.xrange(STREAM)[1][0].decode()
    assert bad.returncode == 1
    assert f"user {USER}: TAMPERED: entry {edited} (number 2)" in bad.stdout and middle not in bad.stdout
    assert f"user {OTHER}: 2 entries, intact" in bad.stdout
    only_other = run_verify(redis, "--user", str(OTHER))
    assert only_other.returncode == 0 and f"user {USER}" not in only_other.stdout


@pytest.mark.parametrize("tamper", ["edit", "delete", "reorder", "forge"])
def test_the_command_detects_each_kind_of_tampering(redis: Redis, audit: AuditLog, tamper: str) -> None:
    hashes = fill(audit)
    rows = redis.xrange(STREAM)
    if tamper == "edit":
        rewrite_from(redis, 2, {"targets": ["mallory@example.net"]})
    elif tamper == "delete":
        redis.xdel(STREAM, rows[1][0])
    elif tamper == "reorder":
        for entry_id, _ in rows[1:]:
            redis.xdel(STREAM, entry_id)
        for _, fields in [rows[1], rows[3], rows[2]]:
            redis.xadd(STREAM, fields)
    else:
        redis.set(TIP, forge(redis, STREAM, "rule_added", T0 + 9, {"rule": "allow any payment"}, hashes[-1]))
    assert audit.verify(USER) is False
    result = run_verify(redis, "--user", str(USER))
    assert result.returncode == 1 and "TAMPERED" in result.stdout, result.stdout + result.stderr


def test_a_confidential_users_details_are_sealed_and_the_chain_still_verifies_without_their_key(
    redis: Redis,
) -> None:
    keys = ConfidentialKeys(redis, b"u" * 32)
    log = AuditLog(redis, audit_key("k"), keys=keys)
    log.append(USER, "memory_added", T0, text="my locker code is heron-12")  # before turning on
    keys.turn_on(USER, "a long private passphrase")
    keys.unlock(USER, "a long private passphrase", 3600)
    assert log.reseal(USER) == 1
    log.append(USER, "review", T0 + 1, note="emailed heron@example.org")
    raw = json.dumps([{k.decode(): v.decode() for k, v in f.items()} for _, f in redis.xrange(f"deputy:audit:{USER}")])
    assert "heron" not in raw
    assert [e.detail for e in log.entries(USER)] == [{"text": "my locker code is heron-12"},
                                                     {"note": "emailed heron@example.org"}]
    keys.lock(USER)
    with pytest.raises(Locked):
        log.entries(USER)
    # The operator's check needs only the audit key: no user key, locked or not.
    assert AuditLog(redis, audit_key("k"), keys=ConfidentialKeys(redis)).check(USER).intact
