"""Undo on a memory change made in a goal (something remembered, or forgotten) for `UNDO_PERIOD`.

Memory changes are the agent's own, not actions, so they have no executor step: the answer that
says "📝 Remembered" (or "🗑 Forgot") carries an Undo button, and pressing it takes the change
back right where memory lives. The entry is the same one reversible writes use
(`deputy.core.records.undo_store`: begun atomically, so it works once), kept under the user's namespace, so it
goes when the user's data is erased and no other user's press can reach it. What it keeps (the
forgotten memory's text) is sealed to a confidential user's key like any memory.
"""

from __future__ import annotations

import secrets

from redis import Redis

from deputy.core.records.erasure import USER_NAMESPACE
from deputy.core.records.undo_store import UNDO_PERIOD, UndoEntry, UndoStore
from deputy.memory.store import MemoryItem, MemoryStore


def _undos(redis: Redis, user_id: int) -> UndoStore:
    return UndoStore(redis, key_format=USER_NAMESPACE.format(user_id) + "undo:{}")


def offer_undo(redis: Redis, user_id: int, chat_id: int, goal_id: str, now: float, *,
               remembered: MemoryItem | None = None, forgotten: list[MemoryItem] | None = None) -> str:
    """Keep how to take back what was just remembered or forgotten; returns the id for its Undo button."""
    revert = ({"kind": "forget", "id": remembered.id} if remembered is not None else
              {"kind": "restore", "items": [item.model_dump(mode="json") for item in forgotten or []]})
    undo_id = "mu_" + secrets.token_urlsafe(9)
    _undos(redis, user_id).create(UndoEntry(action_id=undo_id, user_id=user_id, chat_id=chat_id, goal_id=goal_id,
                                            until=now + UNDO_PERIOD, revert=revert))
    return undo_id


def undo(redis: Redis, user_id: int, undo_id: str, now: float) -> str:
    """Take the change back once; the sentence saying what happened. `UndoRefused` when it can't be now."""
    undos = _undos(redis, user_id)
    entry = undos.request(undo_id, now)
    memory = MemoryStore(redis)
    if entry.revert["kind"] == "forget":
        item = memory.get(user_id, entry.revert["id"])
        said = "It was already forgotten." if item is None else f"I no longer remember “{item.text}”."
        if item is not None:
            memory.forget(user_id, item.id)
    else:
        items = [MemoryItem.model_validate(raw) for raw in entry.revert["items"]]
        for item in items:
            memory.save(user_id, item)  # under its own id: the same memory, with where it came from
        said = "I remember again: " + "; ".join(f"“{item.text}”" for item in items) + "."
    undos.finished(undo_id, ok=True)
    return said
