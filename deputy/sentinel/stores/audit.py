"""The audit trail: an append-only, sealed and chained record per user.

Each entry carries `prev`, the seal of the entry before it, and `hash`, its own seal: an
HMAC-SHA256, under a key Redis never sees (`audit_key`, from the operator's secret), over
the user's id, `prev` and the entry's fields exactly as stored. So someone who can write
Redis but does not hold the key cannot edit an entry (its seal no longer matches), forge
one (they cannot compute a seal; a plain SHA-256 "recomputed" is not one), insert, delete
or reorder entries (the next entry's `prev` no longer names the seal before it) or move a
user's entries to another user (the user id is sealed). `check` walks the whole chain and
names the first entry that fails. The user's tip (the last seal) is kept beside the stream,
so dropping the newest entries is caught too, unless the tamperer also rewinds the tip to
an older seal they saw: only a tip remembered outside Redis (`deputy audit verify` prints
it) catches that.

The trail is kept to a window: its newest `keep` entries (`DEPUTY_AUDIT_KEEP`, plus a slack of a
tenth); older entries are folded into the user's sealed checkpoint (`audit_fold`,
`audit_checkpoint`), which the oldest kept entry links to, so `check` verifies the checkpoint's seal
and then the chain from it.

Entries hold summaries chosen by the caller; callers never pass secrets.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from typing import Any

import redis as redis_lib
from pydantic import BaseModel
from redis import Redis

from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.records.erasure import Owned, delete_keys
from deputy.sentinel.stores.audit_chain import GENESIS, STREAM, TIP, sealed_fields, walk
from deputy.sentinel.stores.audit_checkpoint import CHECKPOINT, Checkpoint, read_checkpoint
from deputy.sentinel.stores import audit_fold

log = logging.getLogger(__name__)

_LABEL = b"deputy-audit-seal-v2"

DEFAULT_KEEP = 200
"""Entries a trail keeps by default (`DEPUTY_AUDIT_KEEP`): twenty pages of /audit."""

DEVELOPMENT_KEY = hashlib.sha256(b"deputy-audit development key: for tests and tools, never for production").digest()
"""The key of an `AuditLog` given none: tests and read-only tools. Every process that writes a real
trail passes the operator's key (`Settings.audit_key_value()`)."""


def audit_key(material: str | bytes) -> bytes:
    """The sealing key derived from the operator's key material (DEPUTY_AUDIT_KEY, or one derived
    from DEPUTY_SECRET): a separate label, so the key is never the secret itself."""
    raw = material.encode() if isinstance(material, str) else material
    return hmac.new(raw, _LABEL, hashlib.sha256).digest()


class AuditEntry(BaseModel):
    id: str
    kind: str
    at: float
    detail: dict[str, Any]
    prev: str
    hash: str
    """The entry's seal (an HMAC under the audit key), which the next entry's `prev` names."""


class AuditCheck(BaseModel):
    """What `AuditLog.check` found for one user's trail."""

    user_id: int
    entries: int
    tip: str
    """The seal of the last entry (or of nothing): compare it with one noted earlier to catch a rewind."""
    folded: int = 0
    """Entries before the kept ones, counted in the sealed checkpoint (whose seal was checked)."""
    bad_entry: str | None = None
    """The stream id of the first entry that fails, if one does."""
    bad_position: int | None = None
    """Its 1-based position in the whole trail, folded entries included; 0 when the checkpoint fails."""
    problem: str | None = None

    @property
    def intact(self) -> bool:
        return self.problem is None

    @property
    def where(self) -> str:
        """Where the first problem is, in words."""
        if self.bad_position == 0:
            return "the sealed summary of earlier entries"
        return f"entry {self.bad_position:,}" if self.bad_position else "its start"


# KEYS: tip, stream; ARGV: the tip the entry was chained to ('' for none), then the entry's fields.
# Returns the trail's length once appended (to see whether a fold is due), 0 when the tip had moved.
# The goal intake embeds this script in its own (deputy.bot.intake_scripts): keep it a body over KEYS and ARGV.
APPEND_IF_TIP = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[2], '*', 'kind', ARGV[2], 'at', ARGV[3], 'detail', ARGV[4], 'prev', ARGV[5], 'hash', ARGV[6])
redis.call('SET', KEYS[1], ARGV[6])
return redis.call('XLEN', KEYS[2])
"""

_LINK_PROBLEMS = {
    "malformed": "it is malformed (fields are missing)",
    "seal": "its seal does not match its content: it was edited, forged or moved from another user",
    "link": "it does not follow the entry before it: an entry was deleted, inserted or moved",
}
# What it means when the oldest kept entry does not follow what comes before it.
_NOT_AFTER_CHECKPOINT = ("it does not follow the sealed summary of earlier entries: the summary was replaced "
                         "with another, or the entries after it were deleted")
_NOT_AFTER_ANYTHING = ("it follows an entry that is not there: the sealed summary of earlier entries was "
                       "deleted, or the entries before it were")


def tip_key(user_id: int) -> str:
    """Where the seal of the user's last entry is kept (read it to chain an entry with `queue_append`)."""
    return TIP.format(user_id)


def queue_append(pipe: Any, key: bytes, user_id: int, tip: bytes | str | None, kind: str, at: float, /,
                 public: bytes | None = None, **detail: Any) -> None:
    """Queue, on a (sync or asyncio) pipeline, one entry sealed with `key` and chained to `tip`,
    the tip read beforehand.

    It is appended only if the tip has not moved since; the pipeline's result for it is the trail's
    length if it was (when `fold_due`, fold it: `audit_fold.fold_async`), 0 if someone else appended
    first (then append it again).
    """
    prev = (tip.decode() if isinstance(tip, bytes) else tip) or GENESIS
    fields = sealed_fields(key, user_id, prev, kind, at, detail, public)
    pipe.eval(APPEND_IF_TIP, 2, TIP.format(user_id), STREAM.format(user_id),
              "" if prev == GENESIS else prev, *fields.values())


def audited_users(redis: Redis) -> list[int]:
    """Every user with a trail, a tip or a checkpoint in `redis` (a trail whose stream was deleted still
    has its tip)."""
    users: set[int] = set()
    for raw in redis.scan_iter(match="deputy:audit:*", count=500):
        parts = (raw.decode() if isinstance(raw, bytes) else raw).split(":")
        if len(parts) in (3, 4) and parts[2].lstrip("-").isdigit() and (len(parts) == 3 or
                                                                         parts[3] in ("tip", "checkpoint")):
            users.add(int(parts[2]))
    return sorted(users)


class AuditLog:
    """A user's trail, kept to its newest `keep` entries and a sealed checkpoint of the ones before; a
    confidential user's entry details are sealed to their key (`Locked` to read while locked), and `check`
    verifies the chain either way."""

    def __init__(self, redis: Redis, key: bytes | None = None, keys: ConfidentialKeys | None = None,
                 keep: int = DEFAULT_KEEP) -> None:
        if keep < 1:
            raise ValueError("a trail keeps at least its newest entry")
        self._redis = redis
        self._key = key if key is not None else DEVELOPMENT_KEY
        self._keys = keys if keys is not None else confidential_keys(redis)
        self._keep = keep

    @property
    def key(self) -> bytes:
        return self._key

    @property
    def keep(self) -> int:
        return self._keep

    def append(self, user_id: int, kind: str, at: float, /, **detail: Any) -> str:
        """Append one entry; returns its seal."""
        tip_key, stream = TIP.format(user_id), STREAM.format(user_id)
        public = self._keys.public_key(user_id)
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(tip_key)
                    raw = pipe.get(tip_key)
                    prev = raw.decode() if raw else GENESIS
                    fields = sealed_fields(self._key, user_id, prev, kind, at, detail, public)
                    pipe.multi()
                    pipe.xadd(stream, fields)
                    pipe.set(tip_key, fields["hash"])
                    pipe.xlen(stream)
                    *_, length = pipe.execute()
                    break
                except redis_lib.WatchError:
                    continue
        if audit_fold.fold_due(length, self._keep):
            self.fold(user_id)
        return fields["hash"]

    def fold(self, user_id: int) -> int:
        """Fold the entries beyond the window into the user's checkpoint (`audit_fold`); returns how many.

        The entry that made it due is already appended: a fold that fails (Redis went away) is logged
        and left to a later append, never reported as a failed append.
        """
        try:
            return audit_fold.fold(self._redis, self._key, user_id, self._keep)
        except redis_lib.RedisError:
            log.warning("could not fold the audit trail of user %s; a later entry will", user_id, exc_info=True)
            return 0

    def queue_append(self, pipe: Any, user_id: int, tip: bytes | str | None, kind: str, at: float, /,
                     **detail: Any) -> None:
        """`queue_append` with this log's key."""
        queue_append(pipe, self._key, user_id, tip, kind, at, self._keys.public_key(user_id), **detail)

    def checkpoint(self, user_id: int) -> Checkpoint | None:
        """The user's checkpoint of folded entries as stored (None if there is none, or it is not one:
        `check` says whether it is intact)."""
        try:
            return read_checkpoint(self._redis.hgetall(CHECKPOINT.format(user_id)))
        except ValueError:
            return None

    def entries(self, user_id: int, count: int | None = None) -> list[AuditEntry]:
        rows = self._redis.xrange(STREAM.format(user_id), count=count)
        return [self._entry(user_id, entry_id, fields) for entry_id, fields in rows]

    def _entry(self, user_id: int, entry_id: bytes, fields: dict[bytes, bytes]) -> AuditEntry:
        entry = _entry(entry_id, fields)
        if set(entry.detail) == {"sealed"} and isinstance(entry.detail["sealed"], str):
            entry.detail = json.loads(self._keys.open_text(user_id, entry.detail["sealed"]))
        return entry

    def page(self, user_id: int, before: str | None = None, after: str | None = None,
             size: int = 10) -> list[AuditEntry]:
        """Up to `size` entries in order: the newest (no bound), the ones just older than stream id
        `before`, or the ones just newer than `after`."""
        stream = STREAM.format(user_id)
        if after is not None:
            rows = self._redis.xrange(stream, min=f"({after}", count=size)
        else:
            rows = list(reversed(self._redis.xrevrange(stream, max=f"({before}" if before else "+", count=size)))
        return [self._entry(user_id, entry_id, fields) for entry_id, fields in rows]

    def reseal(self, user_id: int) -> int:
        """Rewrite the user's trail with every detail sealed to their key (turning confidential mode on).

        The entries keep their kind, time and order; the chain is made anew over the sealed forms, from
        the checkpoint of folded entries (which holds no detail), so `check` still verifies it (a tip
        noted before this no longer matches). Returns how many entries.
        """
        stream, tip, checkpoint_key = STREAM.format(user_id), TIP.format(user_id), CHECKPOINT.format(user_id)
        public = self._keys.public_key(user_id)
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(tip, stream, checkpoint_key)
                    rows = [_entry(entry_id, fields) for entry_id, fields in pipe.xrange(stream)]
                    try:
                        checkpoint = read_checkpoint(pipe.hgetall(checkpoint_key))
                    except ValueError:
                        checkpoint = None  # left as found, for `check` to name
                    prev = checkpoint.last if checkpoint is not None else GENESIS
                    chained = []
                    for row in rows:
                        detail = row.detail
                        if set(detail) == {"sealed"}:
                            detail = json.loads(self._keys.open_text(user_id, detail["sealed"]))
                        fields = sealed_fields(self._key, user_id, prev, row.kind, row.at, detail, public)
                        chained.append(fields)
                        prev = fields["hash"]
                    pipe.multi()
                    pipe.delete(stream)
                    for fields in chained:
                        pipe.xadd(stream, fields)
                    if chained:
                        pipe.set(tip, prev)
                    pipe.execute()
                    return len(chained)
                except redis_lib.WatchError:
                    continue

    def count(self, user_id: int) -> int:
        """How many entries are kept (the checkpoint counts the folded ones)."""
        return int(self._redis.xlen(STREAM.format(user_id)))

    def check(self, user_id: int) -> AuditCheck:
        """Verify the user's whole trail: the checkpoint's seal, every kept entry's seal and link from
        it, and the tip."""
        # One transaction: a fold or an append between the reads would look like tampering.
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(CHECKPOINT.format(user_id))
            pipe.xrange(STREAM.format(user_id))
            pipe.get(TIP.format(user_id))
            raw_checkpoint, rows, raw_tip = pipe.execute()
        try:
            checkpoint = read_checkpoint(raw_checkpoint)
        except ValueError:
            checkpoint = None
        if raw_checkpoint and (checkpoint is None or not checkpoint.sealed_by(self._key, user_id)):
            return AuditCheck(user_id=user_id, entries=0, tip=GENESIS, bad_position=0,
                              problem="its seal does not match its content: it was edited, forged or moved "
                                      "from another user")
        folded = checkpoint.folded if checkpoint is not None else 0
        start = checkpoint.last if checkpoint is not None else GENESIS
        linked, broken = walk(self._key, user_id, start, rows)
        last = linked[-1].seal if linked else start
        if broken is not None:
            problem = _LINK_PROBLEMS[broken.failure]
            if broken.failure == "link" and not linked:
                problem = _NOT_AFTER_CHECKPOINT if checkpoint is not None else _NOT_AFTER_ANYTHING
            return AuditCheck(user_id=user_id, entries=len(linked) + 1, tip=last, folded=folded,
                              bad_entry=broken.id, bad_position=folded + len(linked) + 1, problem=problem)
        tip = raw_tip.decode() if raw_tip else GENESIS
        if tip != last:
            return AuditCheck(user_id=user_id, entries=len(linked), tip=last, folded=folded,
                              bad_entry=linked[-1].id if linked else None, bad_position=folded + len(linked),
                              problem="it is not the recorded last entry: newer entries were deleted, "
                                      "or the tip was changed")
        return AuditCheck(user_id=user_id, entries=len(linked), tip=last, folded=folded)

    def verify(self, user_id: int) -> bool:
        """True when every entry is sealed, linked to the one before, and the last is the tip."""
        return self.check(user_id).intact


def _entry(entry_id: bytes, fields: dict[bytes, bytes]) -> AuditEntry:
    return AuditEntry(
        id=entry_id.decode(),
        kind=fields[b"kind"].decode(),
        at=float(fields[b"at"]),
        detail=json.loads(fields[b"detail"]),
        prev=fields[b"prev"].decode(),
        hash=fields[b"hash"].decode(),
    )


def erase_user_audit(redis: Redis, owned: Owned) -> int:
    """The user's trail, its tip and its checkpoint: erasing a user is the one time a trail is cut."""
    return delete_keys(redis, (STREAM.format(owned.user_id), TIP.format(owned.user_id),
                               CHECKPOINT.format(owned.user_id)))
