"""A confidential user's goal record: an envelope of ids and states in clear, the rest sealed.

Scripts and peekers that never need the user's words keep working on the envelope: the
save's compare-and-set reads `revision`, the model gateway `status`, `step` and
`waiting_model`, the quota script `status`. Everything the user or the model said (the
goal's text, messages, plan, results, monitor) is in `sealed`, which only the user's key
opens.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from deputy.core.confidential import ConfidentialKeys
from deputy.core.confidential.keys import Opener
from deputy.core.confidential.sealing import seal

CLEAR_FIELDS = {
    "schema_version", "revision", "id", "user_id", "chat_id", "status", "step", "parent_id", "depth", "children",
    "waiting_model", "pending_action_id", "paused_from", "created_at", "updated_at",
}
_SEALED = b'"sealed":'


def record_json(goal: BaseModel, public: bytes | None, exclude: set[str] | None = None) -> str:
    """The JSON stored for a goal: the whole goal but the fields in `exclude` (kept elsewhere), or (with the
    user's public key) its envelope."""
    if public is None:
        return goal.model_dump_json(exclude=exclude)
    envelope = goal.model_dump(mode="json", include=CLEAR_FIELDS)
    envelope["sealed"] = seal(public, goal.model_dump_json(exclude=exclude).encode())
    return json.dumps(envelope, separators=(",", ":"))


def plain_json(raw: bytes, keys: ConfidentialKeys, opener: Opener | None = None) -> bytes:
    """The goal's full JSON from what was stored; `Locked` when it is sealed and the user is locked.
    `opener`: the user's, when the caller read their unlocked key itself (`ConfidentialKeys.held_opener`)."""
    if _SEALED not in raw:
        return raw
    envelope = json.loads(raw)
    if "sealed" not in envelope:
        return raw
    if opener is None:
        opener = keys.opener(int(envelope["user_id"]), int(envelope.get("chat_id") or envelope["user_id"]))
    return opener(envelope["sealed"])
