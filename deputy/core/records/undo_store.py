"""Reversible writes that ran without a card, each with what its connector needs to take it back.

A calendar event created, moved or removed is shown with Undo for `UNDO_PERIOD`. Pressing it
moves the entry open → undoing atomically (a second press, or one after the period, is
refused with a sentence), and the executor reverts it through the connector, then records
undone or failed. What the connector keeps to revert (an event's earlier text) is sealed to a
confidential user's key.

    open ──request──▶ undoing ──finished(ok)──▶ undone
                        │ └───finished(failed)─▶ open (Undo can be pressed again)
                        └── request after STUCK s (its executor died) ──▶ undoing again
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from pydantic import BaseModel
from redis import Redis

from deputy.core.infrastructure.atomic_change import change_atomically
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.records.erasure import Owned, delete_keys

UNDO_PERIOD = 24 * 3600
STUCK = 120
"""An undo begun this long ago without an outcome was cut off: another press may start it again."""
_KEY = "deputy:undo:{}"


class UndoState(str, Enum):
    open = "open"
    undoing = "undoing"
    undone = "undone"


class UndoEntry(BaseModel):
    schema_version: int = 1
    action_id: str
    user_id: int
    chat_id: int
    goal_id: str
    state: UndoState = UndoState.open
    until: float
    requested_at: float | None = None
    revert: dict[str, Any]


class UndoRefused(Exception):
    """A plain sentence for the user saying why Undo does nothing now."""


def request(entry: UndoEntry, now: float) -> UndoEntry:
    if entry.state is UndoState.undone:
        raise UndoRefused("It was already undone.")
    if entry.state is UndoState.undoing and now < (entry.requested_at or 0) + STUCK:
        raise UndoRefused("I'm undoing it already.")
    if now >= entry.until:
        raise UndoRefused("It's too late to undo this from here; ask me to change it instead.")
    return entry.model_copy(update={"state": UndoState.undoing, "requested_at": now})


class UndoStore:
    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None, key_format: str = _KEY) -> None:
        """`key_format` places the entries elsewhere (a memory change's, under its user's namespace)."""
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)
        self._key = key_format

    def create(self, entry: UndoEntry) -> None:
        self._redis.set(self._key.format(entry.action_id), self._dump(entry), nx=True, ex=UNDO_PERIOD + STUCK)

    def get(self, action_id: str) -> UndoEntry | None:
        raw = self._redis.get(self._key.format(action_id))
        return self._load(raw) if raw else None

    def request(self, action_id: str, now: float) -> UndoEntry:
        """Begin undoing it; `UndoRefused` when that is not possible now."""
        def decide(raw: bytes | None) -> tuple[str, UndoEntry]:
            if not raw:
                raise UndoRefused("It's too late to undo this from here; ask me to change it instead.")
            after = request(self._load(raw), now)
            return self._dump(after), after

        return change_atomically(self._redis, self._key.format(action_id), decide, UNDO_PERIOD + STUCK)

    def finished(self, action_id: str, ok: bool) -> None:
        def decide(raw: bytes | None) -> tuple[str, None]:
            if not raw:
                raise UndoRefused("gone")
            entry = self._load(raw)
            return self._dump(entry.model_copy(update={
                "state": UndoState.undone if ok else UndoState.open, "requested_at": None})), None

        try:
            change_atomically(self._redis, self._key.format(action_id), decide, UNDO_PERIOD + STUCK)
        except UndoRefused:
            pass  # erased meanwhile: nothing to record

    def _dump(self, entry: UndoEntry) -> str:
        data = entry.model_dump(mode="json")
        data["revert"] = self._keys.seal_text(entry.user_id, json.dumps(entry.revert))
        return json.dumps(data)

    def _load(self, raw: bytes | str) -> UndoEntry:
        data = json.loads(raw)
        data["revert"] = json.loads(self._keys.open_text(int(data["user_id"]), data["revert"]))
        return UndoEntry.model_validate(data)


def erase_user_undos(redis: Redis, owned: Owned) -> int:
    return delete_keys(redis, [_KEY.format(action_id) for action_id in owned.action_ids])
