"""The audit trail: an append-only, hash-chained record per user.

Each entry's `hash` is SHA-256 over the previous entry's hash and this entry's canonical
JSON, so editing or deleting an entry in the middle breaks every later link (`verify`).
Entries hold summaries chosen by the caller; callers never pass secrets.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import redis as redis_lib
from pydantic import BaseModel
from redis import Redis

_STREAM = "deputy:audit:{}"
_TIP = "deputy:audit:{}:tip"
_GENESIS = "0" * 64


class AuditEntry(BaseModel):
    id: str
    kind: str
    at: float
    detail: dict[str, Any]
    prev: str
    hash: str


# KEYS: tip, stream; ARGV: the tip the entry was chained to ('' for none), then the entry's fields.
_APPEND_IF_TIP = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[2], '*', 'kind', ARGV[2], 'at', ARGV[3], 'detail', ARGV[4], 'prev', ARGV[5], 'hash', ARGV[6])
redis.call('SET', KEYS[1], ARGV[6])
return 1
"""


def _digest(prev: str, kind: str, at: float, detail: dict[str, Any]) -> str:
    body = json.dumps({"kind": kind, "at": at, "detail": detail}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()


def _fields(prev: str, kind: str, at: float, detail: dict[str, Any]) -> dict[str, str]:
    """One entry as stored, chained to `prev`."""
    return {"kind": kind, "at": repr(at), "detail": json.dumps(detail, sort_keys=True), "prev": prev,
            "hash": _digest(prev, kind, at, detail)}


def tip_key(user_id: int) -> str:
    """Where the hash of the user's last entry is kept (read it to chain an entry with `queue_append`)."""
    return _TIP.format(user_id)


def queue_append(pipe: Any, user_id: int, tip: bytes | str | None, kind: str, at: float, /, **detail: Any) -> None:
    """Queue, on a (sync or asyncio) pipeline, one entry chained to `tip`, the tip read beforehand.

    It is appended only if the tip has not moved since; the pipeline's result for it is 1 if it
    was, 0 if someone else appended first (then append it again with `AuditLog.append`).
    """
    prev = (tip.decode() if isinstance(tip, bytes) else tip) or _GENESIS
    fields = _fields(prev, kind, at, detail)
    pipe.eval(_APPEND_IF_TIP, 2, _TIP.format(user_id), _STREAM.format(user_id),
              "" if prev == _GENESIS else prev, *fields.values())


class AuditLog:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def append(self, user_id: int, kind: str, at: float, /, **detail: Any) -> str:
        """Append one entry; returns its hash."""
        tip_key, stream = _TIP.format(user_id), _STREAM.format(user_id)
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(tip_key)
                    raw = pipe.get(tip_key)
                    prev = raw.decode() if raw else _GENESIS
                    fields = _fields(prev, kind, at, detail)
                    pipe.multi()
                    pipe.xadd(stream, fields)
                    pipe.set(tip_key, fields["hash"])
                    pipe.execute()
                    return fields["hash"]
                except redis_lib.WatchError:
                    continue

    def entries(self, user_id: int, count: int | None = None) -> list[AuditEntry]:
        rows = self._redis.xrange(_STREAM.format(user_id), count=count)
        return [
            AuditEntry(
                id=entry_id.decode(),
                kind=fields[b"kind"].decode(),
                at=float(fields[b"at"]),
                detail=json.loads(fields[b"detail"]),
                prev=fields[b"prev"].decode(),
                hash=fields[b"hash"].decode(),
            )
            for entry_id, fields in rows
        ]

    def verify(self, user_id: int) -> bool:
        """True when every entry links to the one before and matches its content."""
        prev = _GENESIS
        for entry in self.entries(user_id):
            if entry.prev != prev or entry.hash != _digest(prev, entry.kind, entry.at, entry.detail):
                return False
            prev = entry.hash
        tip = self._redis.get(_TIP.format(user_id))
        return (tip.decode() if tip else _GENESIS) == prev
