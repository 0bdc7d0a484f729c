"""Outgoing messages waiting in their send window, in Redis (any process may die; the entry stays).

Every change reads, decides (`deputy.core.records.send_window.advance`) and writes under WATCH, so the
user's Undo and the delivery that came due cannot both win. A corrected text is sealed to a
confidential user's key like their other data.
"""

from __future__ import annotations

import json

from redis import Redis

from deputy.core.infrastructure.atomic_change import change_atomically
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.records.erasure import Owned, delete_keys
from deputy.core.records.send_window import EDIT_WAIT, HeldSend, Refused, SendEvent, advance

_KEY = "deputy:send:{}"
_EDITING = "deputy:user:{}:editing_send"
KEEP = 7 * 24 * 3600
"""How long a decided entry is kept: a delivery job that comes late still finds what happened."""


class SendWindowStore:
    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)

    def create(self, held: HeldSend) -> bool:
        """Store a new entry; False if the action already has one (a job run twice)."""
        return bool(self._redis.set(_KEY.format(held.action_id), self._dump(held), nx=True, ex=KEEP))

    def get(self, action_id: str) -> HeldSend | None:
        raw = self._redis.get(_KEY.format(action_id))
        return self._load(raw) if raw else None

    def apply(self, action_id: str, event: SendEvent, now: float, text: str | None = None,
              edit_wait: float = EDIT_WAIT) -> HeldSend:
        """The entry after `event`, written atomically; `Refused` (with a sentence) when it does not apply."""
        def decide(raw: bytes | None) -> tuple[str, HeldSend]:
            if not raw:
                raise Refused("I can't find that message any more.")
            after = advance(self._load(raw), event, now, text, edit_wait)
            return self._dump(after), after

        return change_atomically(self._redis, _KEY.format(action_id), decide, KEEP)

    def mark_editing(self, user_id: int, action_id: str) -> None:
        """The user's next chat message is the corrected text of this message."""
        self._redis.set(_EDITING.format(user_id), action_id, ex=EDIT_WAIT)

    def _dump(self, held: HeldSend) -> str:
        data = held.model_dump(mode="json")
        if held.edited_body is not None:
            data["edited_body"] = self._keys.seal_text(held.user_id, held.edited_body)
        return json.dumps(data)

    def _load(self, raw: bytes | str) -> HeldSend:
        data = json.loads(raw)
        if data.get("edited_body") is not None:
            data["edited_body"] = self._keys.open_text(int(data["user_id"]), data["edited_body"])
        return HeldSend.model_validate(data)


def editing_send_key(user_id: int) -> str:
    """Holds the action whose corrected text is the user's next message (taken by the bot's intake)."""
    return _EDITING.format(user_id)


def erase_user_sends(redis: Redis, owned: Owned) -> int:
    return delete_keys(redis, [_KEY.format(action_id) for action_id in owned.action_ids]
                       + [_EDITING.format(owned.user_id)])
