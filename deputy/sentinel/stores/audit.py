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

Entries hold summaries chosen by the caller; callers never pass secrets.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import redis as redis_lib
from pydantic import BaseModel
from redis import Redis

from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.sealing import seal
from deputy.core.records.erasure import Owned, delete_keys

_STREAM = "deputy:audit:{}"
_TIP = "deputy:audit:{}:tip"
_GENESIS = "0" * 64
_LABEL = b"deputy-audit-seal-v2"

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
    bad_entry: str | None = None
    """The stream id of the first entry that fails, if one does."""
    bad_position: int | None = None
    """Its 1-based position in the trail."""
    problem: str | None = None

    @property
    def intact(self) -> bool:
        return self.problem is None


# KEYS: tip, stream; ARGV: the tip the entry was chained to ('' for none), then the entry's fields.
# The goal intake embeds this script in its own (deputy.bot.intake_scripts): keep it a body over KEYS and ARGV.
APPEND_IF_TIP = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[2], '*', 'kind', ARGV[2], 'at', ARGV[3], 'detail', ARGV[4], 'prev', ARGV[5], 'hash', ARGV[6])
redis.call('SET', KEYS[1], ARGV[6])
return 1
"""


def _seal(key: bytes, user_id: int, prev: str, kind: str, at: str, detail: str) -> str:
    message = "\n".join((str(user_id), prev, kind, at, detail)).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def _fields(key: bytes, user_id: int, prev: str, kind: str, at: float, detail: dict[str, Any],
            public: bytes | None = None) -> dict[str, str]:
    """One entry as stored, chained to `prev` and sealed over exactly these strings.

    With a confidential user's `public` key the detail is stored encrypted to it (the kind and time
    stay readable); the HMAC covers the encrypted form, so the chain verifies without the user's key.
    """
    at_text, detail_text = repr(at), json.dumps(detail, sort_keys=True)
    if public is not None:
        detail_text = json.dumps({"sealed": seal(public, detail_text.encode())})
    return {"kind": kind, "at": at_text, "detail": detail_text, "prev": prev,
            "hash": _seal(key, user_id, prev, kind, at_text, detail_text)}


def tip_key(user_id: int) -> str:
    """Where the seal of the user's last entry is kept (read it to chain an entry with `queue_append`)."""
    return _TIP.format(user_id)


def queue_append(pipe: Any, key: bytes, user_id: int, tip: bytes | str | None, kind: str, at: float, /,
                 public: bytes | None = None, **detail: Any) -> None:
    """Queue, on a (sync or asyncio) pipeline, one entry sealed with `key` and chained to `tip`,
    the tip read beforehand.

    It is appended only if the tip has not moved since; the pipeline's result for it is 1 if it
    was, 0 if someone else appended first (then append it again with `AuditLog.append`).
    """
    prev = (tip.decode() if isinstance(tip, bytes) else tip) or _GENESIS
    fields = _fields(key, user_id, prev, kind, at, detail, public)
    pipe.eval(APPEND_IF_TIP, 2, _TIP.format(user_id), _STREAM.format(user_id),
              "" if prev == _GENESIS else prev, *fields.values())


def audited_users(redis: Redis) -> list[int]:
    """Every user with a trail or a tip in `redis` (a trail whose stream was deleted still has its tip)."""
    users: set[int] = set()
    for raw in redis.scan_iter(match="deputy:audit:*", count=500):
        parts = (raw.decode() if isinstance(raw, bytes) else raw).split(":")
        if len(parts) in (3, 4) and parts[2].lstrip("-").isdigit() and (len(parts) == 3 or parts[3] == "tip"):
            users.add(int(parts[2]))
    return sorted(users)


class AuditLog:
    """A user's trail; a confidential user's entry details are sealed to their key (`Locked` to read while
    locked), and `check` verifies the chain either way."""

    def __init__(self, redis: Redis, key: bytes | None = None, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._key = key if key is not None else DEVELOPMENT_KEY
        self._keys = keys if keys is not None else confidential_keys(redis)

    @property
    def key(self) -> bytes:
        return self._key

    def append(self, user_id: int, kind: str, at: float, /, **detail: Any) -> str:
        """Append one entry; returns its seal."""
        tip_key, stream = _TIP.format(user_id), _STREAM.format(user_id)
        public = self._keys.public_key(user_id)
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(tip_key)
                    raw = pipe.get(tip_key)
                    prev = raw.decode() if raw else _GENESIS
                    fields = _fields(self._key, user_id, prev, kind, at, detail, public)
                    pipe.multi()
                    pipe.xadd(stream, fields)
                    pipe.set(tip_key, fields["hash"])
                    pipe.execute()
                    return fields["hash"]
                except redis_lib.WatchError:
                    continue

    def queue_append(self, pipe: Any, user_id: int, tip: bytes | str | None, kind: str, at: float, /,
                     **detail: Any) -> None:
        """`queue_append` with this log's key."""
        queue_append(pipe, self._key, user_id, tip, kind, at, self._keys.public_key(user_id), **detail)

    def entries(self, user_id: int, count: int | None = None) -> list[AuditEntry]:
        rows = self._redis.xrange(_STREAM.format(user_id), count=count)
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
        stream = _STREAM.format(user_id)
        if after is not None:
            rows = self._redis.xrange(stream, min=f"({after}", count=size)
        else:
            rows = list(reversed(self._redis.xrevrange(stream, max=f"({before}" if before else "+", count=size)))
        return [self._entry(user_id, entry_id, fields) for entry_id, fields in rows]

    def reseal(self, user_id: int) -> int:
        """Rewrite the user's trail with every detail sealed to their key (turning confidential mode on).

        The entries keep their kind, time and order; the chain is made anew over the sealed forms, so
        `check` still verifies it (a tip noted before this no longer matches). Returns how many entries.
        """
        stream, tip = _STREAM.format(user_id), _TIP.format(user_id)
        public = self._keys.public_key(user_id)
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(tip, stream)
                    rows = [_entry(entry_id, fields) for entry_id, fields in pipe.xrange(stream)]
                    prev = _GENESIS
                    chained = []
                    for row in rows:
                        detail = row.detail
                        if set(detail) == {"sealed"}:
                            detail = json.loads(self._keys.open_text(user_id, detail["sealed"]))
                        fields = _fields(self._key, user_id, prev, row.kind, row.at, detail, public)
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
        return int(self._redis.xlen(_STREAM.format(user_id)))

    def check(self, user_id: int) -> AuditCheck:
        """Walk the user's whole trail: every seal, every link, and the tip."""
        prev, position, last_id = _GENESIS, 0, None
        for entry_id, fields in self._redis.xrange(_STREAM.format(user_id)):
            position += 1
            entry_id = entry_id.decode()

            def bad(problem: str) -> AuditCheck:
                return AuditCheck(user_id=user_id, entries=position, tip=prev, bad_entry=entry_id,
                                  bad_position=position, problem=problem)

            try:
                kind, at, detail, linked, seal = (fields[name].decode() for name in
                                                  (b"kind", b"at", b"detail", b"prev", b"hash"))
            except (KeyError, UnicodeDecodeError):
                return bad("it is malformed (fields are missing)")
            if not hmac.compare_digest(seal, _seal(self._key, user_id, linked, kind, at, detail)):
                return bad("its seal does not match its content: it was edited, forged or moved from another user")
            if linked != prev:
                return bad("it does not follow the entry before it: an entry was deleted, inserted or moved")
            prev, last_id = seal, entry_id
        raw = self._redis.get(_TIP.format(user_id))
        tip = raw.decode() if raw else _GENESIS
        if tip != prev:
            return AuditCheck(user_id=user_id, entries=position, tip=prev, bad_entry=last_id, bad_position=position,
                              problem="it is not the recorded last entry: newer entries were deleted, "
                                      "or the tip was changed")
        return AuditCheck(user_id=user_id, entries=position, tip=prev)

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
    """The user's trail and its tip: erasing a user is the one time a trail is cut."""
    return delete_keys(redis, (_STREAM.format(owned.user_id), _TIP.format(owned.user_id)))
