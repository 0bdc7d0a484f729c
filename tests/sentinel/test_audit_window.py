"""The audit trail's window: a trail keeps its newest entries and folds the rest into a sealed checkpoint.

What an operator and a user rely on: a busy user's trail costs the same in Redis after 500 entries
as after 20; every entry ever appended is either kept or counted in the checkpoint, never both and
never lost, even with several writers at once; the chain still verifies across the fold; and
changing, deleting, reordering or replacing anything (the checkpoint included) is still caught and
named by `check`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from redis import Redis

from deputy.core.confidential import ConfidentialKeys
from deputy.core.records.erasure import Owned
from deputy.sentinel.stores.audit import DEFAULT_KEEP, AuditLog, audit_key, audited_users, erase_user_audit
from deputy.sentinel.stores.audit_fold import window_slack
from deputy.settings import Settings

USER, OTHER = 101, 202
T0 = 1_700_000_000.0
KEEP = 10
STREAM, TIP, CHECKPOINT = f"deputy:audit:{USER}", f"deputy:audit:{USER}:tip", f"deputy:audit:{USER}:checkpoint"
KEY = audit_key("operator-audit-key-for-tests")
KINDS = ("goal_created", "review", "approval_requested", "approval_decided", "action_succeeded")


@pytest.fixture
def audit(redis: Redis) -> AuditLog:
    return AuditLog(redis, KEY, keep=KEEP)


def fill(audit: AuditLog, count: int, user: int = USER, start: int = 0) -> None:
    for i in range(start, start + count):
        audit.append(user, KINDS[i % len(KINDS)], T0 + 60 * i, action_id=f"a_{i}", verdict="ask",
                     targets=["alice@example.org"])


def footprint(redis: Redis, user: int = USER) -> int:
    """Bytes Redis holds for the user's trail: stream, tip and checkpoint (MEMORY USAGE, every node counted)."""
    keys = (f"deputy:audit:{user}", f"deputy:audit:{user}:tip", f"deputy:audit:{user}:checkpoint")
    return sum(int(redis.memory_usage(key, samples=0) or 0) for key in keys)


def test_the_default_window_is_the_settings_default() -> None:
    assert Settings.model_fields["audit_keep"].default == DEFAULT_KEEP == 200


# -- the window ----------------------------------------------------------------------------


def test_a_busy_trail_keeps_its_window_and_its_footprint_stays_flat(redis: Redis, audit: AuditLog) -> None:
    unwindowed = AuditLog(redis, KEY, keep=10**9)  # the control: a trail that is never folded
    sizes, control, appended = [], [], 0
    for total in (20, 50, 100, 200, 500):
        fill(audit, total - appended, start=appended)
        fill(unwindowed, total - appended, user=OTHER, start=appended)
        appended = total
        kept, checkpoint = audit.count(USER), audit.checkpoint(USER)
        assert KEEP <= kept <= KEEP + window_slack(KEEP)
        assert checkpoint is not None and checkpoint.folded + kept == total, "every entry kept or counted, once"
        sizes.append(footprint(redis))
        control.append(footprint(redis, OTHER))
    assert max(sizes) <= 1.25 * sizes[0], f"the trail's bytes grew with the entries appended: {sizes}"
    assert control[-1] > 10 * control[0], f"the control trail should grow with its entries: {control}"
    assert unwindowed.count(OTHER) == 500


def test_the_chain_verifies_across_the_fold_and_the_checkpoint_sums_what_was_folded(redis: Redis,
                                                                                   audit: AuditLog) -> None:
    fill(audit, 37)
    checkpoint, kept = audit.checkpoint(USER), audit.entries(USER)
    assert checkpoint is not None
    assert kept[0].prev == checkpoint.last, "the oldest kept entry links to the last folded one"
    assert [e.detail["action_id"] for e in kept] == [f"a_{i}" for i in range(checkpoint.folded, 37)]
    folded_kinds = [KINDS[i % len(KINDS)] for i in range(checkpoint.folded)]
    assert checkpoint.kinds == {kind: folded_kinds.count(kind) for kind in set(folded_kinds)}
    assert (checkpoint.first_at, checkpoint.last_at) == (T0, T0 + 60 * (checkpoint.folded - 1))
    check = audit.check(USER)
    assert check.intact and (check.folded, check.entries) == (checkpoint.folded, len(kept))
    assert check.tip == kept[-1].hash
    assert not AuditLog(redis, audit_key("another key")).check(USER).intact, "the checkpoint is keyed too"


def test_a_short_trail_is_not_folded(redis: Redis, audit: AuditLog) -> None:
    fill(audit, KEEP + window_slack(KEEP))
    assert audit.checkpoint(USER) is None and audit.count(USER) == KEEP + window_slack(KEEP)
    assert redis.exists(CHECKPOINT) == 0


def test_a_trail_written_before_the_window_is_folded_at_its_next_entry(redis: Redis) -> None:
    fill(AuditLog(redis, KEY, keep=10**9), 300)  # the same key, no window: as an older Deputy wrote it
    audit = AuditLog(redis, KEY, keep=KEEP)
    fill(audit, 1, start=300)
    checkpoint = audit.checkpoint(USER)
    assert audit.count(USER) == KEEP and checkpoint is not None and checkpoint.folded == 301 - KEEP
    assert audit.verify(USER)


# -- writers at once -------------------------------------------------------------------------


def test_threads_appending_at_once_lose_nothing_and_count_nothing_twice(redis: Redis) -> None:
    writers, each = 4, 60
    start = threading.Barrier(writers)

    def write(n: int) -> None:
        log = AuditLog(redis, KEY, keep=KEEP)  # one client, one connection per thread from its pool
        start.wait()
        for i in range(each):
            log.append(USER, "review", T0 + i, writer=n, i=i)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    audit = AuditLog(redis, KEY, keep=KEEP)
    checkpoint, kept = audit.checkpoint(USER), audit.entries(USER)
    assert checkpoint is not None and checkpoint.folded + len(kept) == writers * each
    assert checkpoint.kinds == {"review": checkpoint.folded}
    assert len({(e.detail["writer"], e.detail["i"]) for e in kept}) == len(kept)
    assert audit.check(USER).intact


_WRITER = """
import sys
from redis import Redis
from deputy.sentinel.stores.audit import AuditLog, audit_key
host, port, name, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
redis = Redis(host=host, port=port)
log = AuditLog(redis, audit_key("operator-audit-key-for-tests"), keep=10)
redis.blpop("test:start", timeout=60)
for i in range(count):
    log.append(101, "review", 1.0 + i, writer=name, i=i)
"""


def test_processes_appending_at_once_lose_nothing_and_count_nothing_twice(redis: Redis) -> None:
    connection = redis.connection_pool.connection_kwargs
    each = 150
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, connection["host"], str(connection["port"]), name,
                                 str(each)], env=env) for name in ("one", "two")]
    redis.rpush("test:start", "go", "go")  # both start on the same signal, whenever each is ready
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]

    audit = AuditLog(redis, KEY, keep=KEEP)
    checkpoint, kept = audit.checkpoint(USER), audit.entries(USER)
    assert checkpoint is not None and checkpoint.folded + len(kept) == 2 * each
    assert checkpoint.kinds == {"review": checkpoint.folded}
    assert audit.check(USER).intact


# -- tampering -------------------------------------------------------------------------------


def readd(redis: Redis, rows: list, stream: str = STREAM) -> None:
    for _, fields in rows:
        redis.xadd(stream, fields)


def edit_kept(redis: Redis, index: int) -> None:
    """Change kept entry `index`'s detail, the only way a stream allows: delete it and what follows, add them back."""
    rows = redis.xrange(STREAM)
    redis.xdel(STREAM, *[entry_id for entry_id, _ in rows[index:]])
    first = dict(rows[index][1])
    first[b"detail"] = first[b"detail"].replace(b'"ask"', b'"allow"')
    readd(redis, [(None, first), *rows[index + 1:]])


def delete_kept(redis: Redis, index: int) -> None:
    redis.xdel(STREAM, redis.xrange(STREAM)[index][0])


def reorder_kept(redis: Redis) -> None:
    rows = redis.xrange(STREAM)
    redis.xdel(STREAM, *[entry_id for entry_id, _ in rows[2:]])
    readd(redis, [rows[3], rows[2], *rows[4:]])


def change_checkpoint(redis: Redis, field: str, value: str) -> None:
    redis.hset(CHECKPOINT, field, value)


@pytest.mark.parametrize("tamper, position, words", [
    ("edit the oldest kept entry", 1, "seal does not match"),
    ("edit a kept entry", 4, "seal does not match"),
    ("delete the oldest kept entry", 1, "does not follow the sealed summary"),
    ("delete a kept entry", 4, "does not follow the entry before it"),
    ("reorder kept entries", 3, "does not follow the entry before it"),
    ("delete the newest entry", None, "not the recorded last entry"),
])
def test_tampering_with_kept_entries_is_caught_and_named(redis: Redis, audit: AuditLog, tamper: str,
                                                         position: int | None, words: str) -> None:
    fill(audit, 40)
    folded = audit.checkpoint(USER).folded
    kept = audit.count(USER)
    if tamper.startswith("edit"):
        edit_kept(redis, position - 1)
    elif tamper == "delete the newest entry":
        delete_kept(redis, -1)
        position = kept - 1
    elif tamper.startswith("delete"):
        delete_kept(redis, position - 1)
    else:
        reorder_kept(redis)
    check = audit.check(USER)
    assert not check.intact and words in check.problem
    assert check.bad_position == folded + position and check.where == f"entry {folded + position}"
    assert check.folded == folded


def test_changing_the_checkpoints_counts_is_caught_and_named(redis: Redis, audit: AuditLog) -> None:
    fill(audit, 40)
    checkpoint = audit.checkpoint(USER)
    change_checkpoint(redis, "folded", str(checkpoint.folded - 5))
    check = audit.check(USER)
    assert not check.intact and check.bad_position == 0 and "seal does not match" in check.problem
    assert check.where == "the sealed summary of earlier entries"


@pytest.mark.parametrize("field, value", [
    ("kinds", json.dumps({"review": 1})),
    ("first_at", repr(T0 + 3600)),
    ("last", "f" * 64),
    ("seal", "0" * 64),
])
def test_changing_any_field_of_the_checkpoint_is_caught(redis: Redis, audit: AuditLog, field: str,
                                                        value: str) -> None:
    fill(audit, 40)
    change_checkpoint(redis, field, value)
    check = audit.check(USER)
    assert not check.intact and check.bad_position == 0


def test_replacing_the_checkpoint_with_an_older_sealed_one_is_caught(redis: Redis, audit: AuditLog) -> None:
    fill(audit, 20)
    older = redis.hgetall(CHECKPOINT)
    fill(audit, 20, start=20)
    folded = audit.checkpoint(USER).folded
    redis.delete(CHECKPOINT)
    redis.hset(CHECKPOINT, mapping=older)  # genuinely sealed, but for fewer entries
    check = audit.check(USER)
    assert not check.intact and "does not follow the sealed summary" in check.problem
    assert check.bad_position == int(older[b"folded"]) + 1 != folded + 1


def test_another_users_checkpoint_copied_in_is_caught(redis: Redis, audit: AuditLog) -> None:
    fill(audit, 40)
    fill(audit, 40, user=OTHER)
    redis.delete(CHECKPOINT)
    redis.hset(CHECKPOINT, mapping=redis.hgetall(f"deputy:audit:{OTHER}:checkpoint"))
    check = audit.check(USER)
    assert not check.intact and check.bad_position == 0
    assert audit.check(OTHER).intact


def test_deleting_the_checkpoint_is_caught_at_the_entry_that_links_to_it(redis: Redis, audit: AuditLog) -> None:
    fill(audit, 40)
    redis.delete(CHECKPOINT)
    check = audit.check(USER)
    assert not check.intact and check.bad_position == 1 and check.entries == 1
    assert "follows an entry that is not there" in check.problem and "summary of earlier entries" in check.problem


def test_a_malformed_checkpoint_is_caught(redis: Redis, audit: AuditLog) -> None:
    fill(audit, 40)
    redis.hdel(CHECKPOINT, "kinds")
    assert audit.check(USER).bad_position == 0 and audit.checkpoint(USER) is None


# -- a fold never seals over a change ------------------------------------------------------------


def test_an_edited_entry_is_never_folded_away(redis: Redis, audit: AuditLog) -> None:
    fill(audit, 40)
    folded = audit.checkpoint(USER).folded
    edit_kept(redis, 2)  # the entries before it are due to be folded next
    fill(audit, 60, start=40)
    checkpoint, check = audit.checkpoint(USER), audit.check(USER)
    assert checkpoint.folded == folded + 2, "what verified before the edited entry was folded, nothing after"
    assert not check.intact and check.bad_position == folded + 3 and "seal does not match" in check.problem


def test_a_changed_checkpoint_is_left_as_found(redis: Redis, audit: AuditLog) -> None:
    fill(audit, 40)
    change_checkpoint(redis, "folded", "3")
    fill(audit, 30, start=40)
    assert redis.hget(CHECKPOINT, "folded") == b"3" and audit.count(USER) > KEEP + window_slack(KEEP)
    assert audit.check(USER).bad_position == 0


# -- the rest of the trail's life ----------------------------------------------------------------


def test_turning_confidential_mode_on_rechains_from_the_checkpoint(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, b"u" * 32)
    log = AuditLog(redis, KEY, keys=keys, keep=KEEP)
    fill(log, 30)
    keys.turn_on(USER, "a long private passphrase")
    keys.unlock(USER, "a long private passphrase", 3600)
    assert log.reseal(USER) == log.count(USER)
    fill(log, 15, start=30)
    check = log.check(USER)
    assert check.intact and check.folded + check.entries == 45
    assert b"alice" not in b"".join(f[b"detail"] for _, f in redis.xrange(STREAM))


def test_erasing_the_user_takes_the_checkpoint_and_the_operator_finds_it(redis: Redis, audit: AuditLog) -> None:
    fill(audit, 40)
    fill(audit, 40, user=OTHER)
    redis.delete(STREAM, TIP)
    assert USER in audited_users(redis), "a checkpoint left alone still names its user for `deputy audit verify`"
    erase_user_audit(redis, Owned(user_id=USER))
    assert not list(redis.scan_iter(f"deputy:audit:{USER}*"))
    assert audit.check(OTHER).intact and audit.checkpoint(OTHER) is not None


def test_the_operators_command_counts_folded_entries_and_names_a_changed_checkpoint(redis: Redis,
                                                                                  audit: AuditLog) -> None:
    fill(audit, 40)
    folded, kept = audit.checkpoint(USER).folded, audit.count(USER)
    connection = redis.connection_pool.connection_kwargs
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")},
           "REDIS_URL": f"redis://{connection['host']}:{connection['port']}/0",
           "DEPUTY_AUDIT_KEY": "operator-audit-key-for-tests", "DEPUTY_DATA_DIR": os.devnull + "-unused"}

    def verify() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "deputy.cli", "audit", "verify"], env=env, capture_output=True,
                              text=True, timeout=60)

    ok = verify()
    assert ok.returncode == 0, ok.stderr
    assert f"user {USER}: {kept} entries, after {folded} folded into a sealed checkpoint, intact" in ok.stdout
    change_checkpoint(redis, "folded", str(folded + 100))
    bad = verify()
    assert bad.returncode == 1 and f"user {USER}: TAMPERED: its checkpoint of folded entries" in bad.stdout
