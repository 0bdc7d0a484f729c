"""Erasing a user (`/delete_me`): what every store is told, and the one rule they share.

The erasure first learns what the user owns (their goals, actions, approvals and
memories, each from the store that keeps it), then asks each store to delete what it keeps
about that user and those ids. A store's keys are declared in the store's own module, next
to the code that writes them; only the stores themselves know their key patterns.

One convention covers many stores at once: every key under the user's namespace
(`deputy:user:<id>:`) belongs to that user and goes with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

from redis import Redis

USER_NAMESPACE = "deputy:user:{}:"


@dataclass(frozen=True)
class Owned:
    """The user being erased and the ids of what they own, found before anything is deleted."""

    user_id: int
    goal_ids: tuple[str, ...] = ()
    action_ids: tuple[str, ...] = ()
    approval_ids: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()


class Eraser(Protocol):
    """A store's own way to delete what it keeps about a user; returns how many keys went."""

    def __call__(self, redis: Redis, owned: Owned) -> int: ...


def delete_keys(redis: Redis, keys: Iterable[str | bytes]) -> int:
    """Delete `keys` (any iterable, possibly empty); returns how many existed."""
    batch = list(keys)
    return redis.delete(*batch) if batch else 0


def erase_user_namespace(redis: Redis, owned: Owned) -> int:
    """Every key under `deputy:user:<id>:`, whichever store wrote it."""
    return delete_keys(redis, redis.scan_iter(USER_NAMESPACE.format(owned.user_id) + "*"))


def ids_owned_by(redis: Redis, key_format: str, user_id: int, owner_of: Callable[[dict[str, str]], object]) -> tuple[str, ...]:
    """The ids of the hashes stored at `key_format.format(id)` whose owner (`owner_of`) is the user."""
    prefix = key_format.split("{}", 1)[0]
    found = []
    for key in redis.scan_iter(key_format.format("*")):
        if redis.type(key) != b"hash":
            continue
        raw = {k.decode(): v.decode() for k, v in redis.hgetall(key).items()}
        try:
            if str(owner_of(raw)) == str(user_id):
                found.append(key.decode()[len(prefix):])
        except (KeyError, ValueError):
            continue
    return tuple(found)
