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


def _digest(prev: str, kind: str, at: float, detail: dict[str, Any]) -> str:
    body = json.dumps({"kind": kind, "at": at, "detail": detail}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()


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
                    digest = _digest(prev, kind, at, detail)
                    pipe.multi()
                    pipe.xadd(
                        stream,
                        {"kind": kind, "at": repr(at), "detail": json.dumps(detail, sort_keys=True), "prev": prev,
                         "hash": digest},
                    )
                    pipe.set(tip_key, digest)
                    pipe.execute()
                    return digest
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
