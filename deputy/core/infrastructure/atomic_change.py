"""Read, decide, write one Redis value under WATCH: two processes deciding at once, one wins."""

from __future__ import annotations

from typing import Callable, TypeVar

import redis as redis_lib
from redis import Redis

T = TypeVar("T")


def change_atomically(redis: Redis, key: str, decide: Callable[[bytes | None], tuple[str, T]], ex: int) -> T:
    """`decide` gets the stored value (None if missing) and returns (new value, result), or raises
    to change nothing; it may run more than once when another writer got in between."""
    with redis.pipeline() as pipe:
        while True:
            try:
                pipe.watch(key)
                written, result = decide(pipe.get(key))
                pipe.multi()
                pipe.set(key, written, ex=ex)
                pipe.execute()
                return result
            except redis_lib.WatchError:
                continue
