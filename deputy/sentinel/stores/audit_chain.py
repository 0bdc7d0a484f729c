"""How a trail's entries are sealed and linked: where they live, the seal of one entry, and the walk
that verifies a run of them (for `AuditLog.check`, and for a fold, which folds only what verifies)."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any, Iterable, Literal

from deputy.core.confidential.sealing import seal

STREAM = "deputy:audit:{}"
TIP = "deputy:audit:{}:tip"
GENESIS = "0" * 64
"""The `prev` of a trail's first entry."""


def entry_seal(key: bytes, user_id: int, prev: str, kind: str, at: str, detail: str) -> str:
    message = "\n".join((str(user_id), prev, kind, at, detail)).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def sealed_fields(key: bytes, user_id: int, prev: str, kind: str, at: float, detail: dict[str, Any],
                  public: bytes | None = None) -> dict[str, str]:
    """One entry as stored, chained to `prev` and sealed over exactly these strings.

    With a confidential user's `public` key the detail is stored encrypted to it (the kind and time
    stay readable); the HMAC covers the encrypted form, so the chain verifies without the user's key.
    """
    at_text, detail_text = repr(at), json.dumps(detail, sort_keys=True)
    if public is not None:
        detail_text = json.dumps({"sealed": seal(public, detail_text.encode())})
    return {"kind": kind, "at": at_text, "detail": detail_text, "prev": prev,
            "hash": entry_seal(key, user_id, prev, kind, at_text, detail_text)}


@dataclass(frozen=True)
class Linked:
    """An entry that verified: sealed with the key and naming the seal before it."""

    id: str
    kind: str
    at: float
    seal: str


@dataclass(frozen=True)
class Break:
    """The first entry of a run that did not verify, and how."""

    id: str
    failure: Literal["malformed", "seal", "link"]


def walk(key: bytes, user_id: int, prev: str,
         rows: Iterable[tuple[bytes, dict[bytes, bytes]]]) -> tuple[list[Linked], Break | None]:
    """The entries of `rows` (stream id, fields, in order) that verify, each linked to the one before
    from `prev`, up to the first that does not; and that one (None when every entry verifies)."""
    linked: list[Linked] = []
    for raw_id, fields in rows:
        entry_id = raw_id.decode()
        try:
            kind, at, detail, named, sealed = (fields[name].decode() for name in
                                               (b"kind", b"at", b"detail", b"prev", b"hash"))
            when = float(at)
        except (KeyError, UnicodeDecodeError, ValueError):
            return linked, Break(entry_id, "malformed")
        if not hmac.compare_digest(sealed, entry_seal(key, user_id, named, kind, at, detail)):
            return linked, Break(entry_id, "seal")
        if named != prev:
            return linked, Break(entry_id, "link")
        linked.append(Linked(entry_id, kind, when, sealed))
        prev = sealed
    return linked, None
