"""The memory store: one Redis hash per user, each item with where it came from.

An item learned from untrusted content (an email, a web page) is `pending` until the user
accepts it, and is never used before; once accepted it is used, but it stays marked as
coming from outside, so the guard still treats values in it as untrusted.

An item's text is the model's wording even when the user said it: what the guard trusts
of a memory is only `said`, the user's own words it rests on (the sentences they typed,
or the text they wrote themselves when correcting it in /memory).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from enum import Enum

from typing import Any

from pydantic import BaseModel, Field, model_validator
from redis import Redis

from deputy.core.infrastructure import step_reads
from deputy.memory.meaning import Embedder, EmbedderUnavailable
from deputy.memory.ranking import by_meaning_and_words, rank
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.keys import Opener
from deputy.core.records.erasure import Owned, delete_keys

_KEY = "deputy:memory:{}"
MAX_ITEMS = 500
WHOLE = 12
"""Up to this many usable memories, every one goes into the prompt: no ranking can then leave
out the allergy a meal plan needs. Past it, the most relevant by meaning and by words."""


class MemoryKind(str, Enum):
    preference = "preference"
    fact = "fact"
    person = "person"


class MemoryTrust(str, Enum):
    user = "user"  # the user said it
    pending = "pending"  # learned from outside content; not used until accepted
    accepted = "accepted"  # learned from outside content, accepted by the user


CORRECTED = "you corrected it"
"""The source of a memory whose text the user wrote themselves."""


class MemoryItem(BaseModel):
    schema_version: int = 2
    id: str = Field(default_factory=lambda: "m_" + secrets.token_urlsafe(6))
    text: str = Field(min_length=1, max_length=500)
    kind: MemoryKind = MemoryKind.fact
    trust: MemoryTrust = MemoryTrust.user
    source: str = Field(default="you said so", max_length=200)
    said: list[str] = Field(default_factory=list, description="The user's own words this memory rests on.")
    created_at: float
    updated_at: float

    @model_validator(mode="before")
    @classmethod
    def _from_v1(cls, data: Any) -> Any:
        # Schema 1 kept no words of the user: only a text the user corrected is known to be theirs
        # (a model's wording of what it heard is not).
        if isinstance(data, dict) and int(data.get("schema_version", 2)) < 2:
            said = [data["text"]] if data.get("trust") == "user" and data.get("source") == CORRECTED else []
            return {**data, "schema_version": 2, "said": said}
        return data

    def user_words(self) -> list[str]:
        """What the guard may treat as the user's word: never an outside memory, nor the model's wording."""
        return list(self.said) if self.trust is MemoryTrust.user else []

    @property
    def usable(self) -> bool:
        return self.trust is not MemoryTrust.pending


class MemoryStore:
    """A confidential user's items are sealed; reading them while locked raises `Locked`."""

    def __init__(self, redis: Redis, embedder: Embedder | None = None, keys: ConfidentialKeys | None = None) -> None:
        """`embedder` (see `deputy.memory.meaning`) recalls by meaning; without it, by shared words only."""
        self._redis = redis
        self._embedder = embedder
        self._keys = keys if keys is not None else confidential_keys(redis)

    @property
    def redis(self) -> Redis:
        return self._redis

    def _sealed(self, user_id: int, item: MemoryItem) -> str:
        return self._keys.seal_text(user_id, item.model_dump_json())

    def add(self, user_id: int, item: MemoryItem) -> MemoryItem | None:
        """Store `item`; None when the user already has MAX_ITEMS memories."""
        key = _KEY.format(user_id)
        step_reads.forget(key)
        if self._redis.hlen(key) >= MAX_ITEMS:
            return None
        self._redis.hset(key, item.id, self._sealed(user_id, item))
        return item

    def get(self, user_id: int, item_id: str) -> MemoryItem | None:
        raw = self._redis.hget(_KEY.format(user_id), item_id)
        return MemoryItem.model_validate_json(self._keys.opener(user_id)(raw)) if raw else None

    @staticmethod
    def key(user_id: int) -> str:
        """The hash of the user's memories (for a reader fetching it with other keys)."""
        return _KEY.format(user_id)

    def list(self, user_id: int) -> list[MemoryItem]:
        key = _KEY.format(user_id)
        return self.parse_list(step_reads.read(("HVALS", key), lambda: self._redis.hvals(key)), self._keys.opener(user_id))

    @staticmethod
    def parse_list(values: list[bytes], opener: Opener,
                   parse: Callable[[bytes], MemoryItem] = MemoryItem.model_validate_json) -> list[MemoryItem]:
        """The memories in the values of the hash at `key`, as `list` gives them; read by the caller. `parse`
        opens one item's JSON (a reader that only reads them may share parsed items)."""
        items = [parse(opener(v)) for v in values]
        return sorted(items, key=lambda i: (i.kind.value, i.created_at))

    def save(self, user_id: int, item: MemoryItem) -> None:
        step_reads.forget(_KEY.format(user_id))
        self._redis.hset(_KEY.format(user_id), item.id, self._sealed(user_id, item))

    def forget(self, user_id: int, item_id: str) -> bool:
        step_reads.forget(_KEY.format(user_id))
        return bool(self._redis.hdel(_KEY.format(user_id), item_id))

    def forget_all(self, user_id: int) -> None:
        step_reads.forget(_KEY.format(user_id))
        self._redis.delete(_KEY.format(user_id))

    def relevant(self, user_id: int, query: str, limit: int = 6) -> list[MemoryItem]:
        """The usable memories that matter most for `query` (never pending ones): all of a small memory,
        else the `limit` best by meaning and words together (the keyword matches first)."""
        usable = [i for i in self.list(user_id) if i.usable]

        def boost(item: MemoryItem) -> float:
            return 0.3 if item.kind is MemoryKind.preference else 0.0

        if len(usable) <= WHOLE:
            matched = rank(query, usable, lambda i: i.text, boost, limit=len(usable))
            return matched + [i for i in usable if i not in matched]
        if self._embedder is not None:
            try:
                return by_meaning_and_words(query, usable, lambda i: i.text, self._embedder, boost, limit=limit)
            except EmbedderUnavailable:
                pass
        return rank(query, usable, lambda i: i.text, boost, limit=limit)

    def matching(self, user_id: int, query: str, limit: int = 5) -> list[MemoryItem]:
        """Memories (pending included) matching `query`, for forgetting by description."""
        return rank(query, self.list(user_id), lambda i: i.text, limit=limit)


def user_memory_ids(redis: Redis, user_id: int) -> tuple[str, ...]:
    return tuple(m.decode() for m in redis.hkeys(_KEY.format(user_id)))


def erase_user_memory(redis: Redis, owned: Owned) -> int:
    return delete_keys(redis, (_KEY.format(owned.user_id),))
