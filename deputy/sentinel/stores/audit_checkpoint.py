"""The sealed checkpoint: the one record that stands for a user's oldest audit entries once they are folded.

A trail keeps its newest entries (`DEPUTY_AUDIT_KEEP`); the older ones are folded into a checkpoint
per user: how many there were, how many of each kind, the times of the first and the last, and the
seal of the last one, which the oldest kept entry names as its `prev`, so the chain still verifies
from the checkpoint on. The checkpoint is sealed with the audit key like an entry, over the user's id
and every field: someone who can write Redis but holds no key cannot change its counts or its last
seal, or move it to another user; replacing it with an older sealed one leaves the oldest kept entry
pointing past it, and deleting it leaves that entry pointing at a seal that is nowhere.

Everything here is pure: `deputy.sentinel.stores.audit` reads and writes the record.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from datetime import datetime, timezone
from typing import Sequence

from pydantic import BaseModel, ValidationError

CHECKPOINT = "deputy:audit:{}:checkpoint"


class Checkpoint(BaseModel):
    """What is left of a user's folded entries."""

    folded: int
    """How many entries were folded, since the trail began."""
    last: str
    """The seal of the last folded entry: the `prev` of the oldest kept one."""
    kinds: dict[str, int]
    """How many folded entries of each kind."""
    first_at: float
    last_at: float
    """When the first and the last folded entries were written."""
    seal: str
    """An HMAC under the audit key over the user's id and the fields above."""

    def fields(self) -> dict[str, str]:
        """The record as Redis keeps it (a hash)."""
        return {"folded": str(self.folded), "last": self.last, "kinds": json.dumps(self.kinds, sort_keys=True),
                "first_at": repr(self.first_at), "last_at": repr(self.last_at), "seal": self.seal}

    def sealed_by(self, key: bytes, user_id: int) -> bool:
        """Whether this is the record the holder of `key` sealed for this user, unchanged."""
        return hmac.compare_digest(self.seal, _seal(key, user_id, self.fields()))

    def span(self) -> tuple[datetime, datetime]:
        return (datetime.fromtimestamp(self.first_at, tz=timezone.utc),
                datetime.fromtimestamp(self.last_at, tz=timezone.utc))


def read_checkpoint(raw: dict[bytes, bytes] | dict[str, str]) -> Checkpoint | None:
    """The checkpoint stored as `raw` (None when there is none); `ValueError` when it is not one."""
    if not raw:
        return None
    text = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
            for k, v in raw.items()}
    try:
        return Checkpoint(folded=int(text["folded"]), last=text["last"], kinds=json.loads(text["kinds"]),
                          first_at=float(text["first_at"]), last_at=float(text["last_at"]), seal=text["seal"])
    except (KeyError, ValueError, ValidationError, UnicodeDecodeError) as error:
        raise ValueError(f"not a checkpoint: {error}") from None


def folded_into(key: bytes, user_id: int, checkpoint: Checkpoint | None,
                entries: Sequence[tuple[str, float, str]]) -> Checkpoint:
    """The checkpoint once `entries` ((kind, time, seal) of the oldest kept entries, in order, at least
    one) are folded into `checkpoint` (or into nothing, the first time), sealed with `key`."""
    kinds = Counter(checkpoint.kinds if checkpoint else {})
    kinds.update(kind for kind, _, _ in entries)
    unsealed = Checkpoint(folded=(checkpoint.folded if checkpoint else 0) + len(entries), last=entries[-1][2],
                          kinds=dict(kinds), first_at=checkpoint.first_at if checkpoint else entries[0][1],
                          last_at=entries[-1][1], seal="")
    return unsealed.model_copy(update={"seal": _seal(key, user_id, unsealed.fields())})


def _seal(key: bytes, user_id: int, fields: dict[str, str]) -> str:
    # "checkpoint" first: an entry's sealed text starts with the user's id, so neither seal passes for the other.
    message = "\n".join(("checkpoint", str(user_id), *(fields[name] for name in
                                                       ("folded", "last", "kinds", "first_at", "last_at"))))
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()
