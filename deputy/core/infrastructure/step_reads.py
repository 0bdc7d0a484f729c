"""The small records a goal step reads of its user, fetched in one round trip when it starts.

A step reads its user's settings, account, connectors, signed-in services, public key and memories,
each in a round trip of its own from the store that owns it, some of them twice. With the model behind
the gateway those round trips were most of a step's own cost. The runner names them when the step
starts (`StepReads.fetch`: one pipeline); while the step runs, each store's read asks `read(command,
fetch)` first and gets the value fetched, or reads Redis as before when the step did not fetch it (or
when no step runs: the bot, the executor, the gateway).

The values belong to one step on one thread (the step engine runs several at once) and end with it. A
store that writes one of these records drops it (`forget`), so a step always reads its own writes; a
change made meanwhile by another process is seen as if the step had started a moment earlier, which the
goal's compare-and-set save already allows for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from redis import Redis

T = TypeVar("T")
Command = tuple[str, ...]
"""A read as sent: its name and arguments, e.g. ("HGET", "deputy:keys:7", "public")."""

_local = threading.local()


@contextmanager
def one_step() -> Iterator[None]:
    """The extent of one step on this thread: values fetched inside are gone after it (nested: the outer's)."""
    if getattr(_local, "values", None) is not None:
        yield
        return
    _local.values = {}
    try:
        yield
    finally:
        _local.values = None


def fetch(redis: Redis, commands: list[Command]) -> None:
    """Read these in one round trip for the step running on this thread (nothing happens outside a step).
    A read that fails is left for its store to make (and to fail) itself."""
    values = getattr(_local, "values", None)
    wanted = [command for command in commands if values is not None and command not in values]
    if not wanted:
        return
    pipe = redis.pipeline(transaction=False)
    for command in wanted:
        pipe.execute_command(*command)
    for command, value in zip(wanted, pipe.execute(raise_on_error=False)):
        if not isinstance(value, Exception):
            values[command] = value  # type: ignore[index]


def read(command: Command, fetch_now: Callable[[], T]) -> T:
    """The value this step fetched for `command`, else `fetch_now()`."""
    values = getattr(_local, "values", None)
    if values is not None and command in values:
        return values[command]
    return fetch_now()


def read_many(commands: list[Command], fetch_now: Callable[[], list[T]]) -> list[T]:
    """The values this step fetched for all of `commands`, else `fetch_now()` (which reads them together)."""
    values = getattr(_local, "values", None)
    if values is not None and all(command in values for command in commands):
        return [values[command] for command in commands]
    return fetch_now()


def forget(key: str) -> None:
    """The step changed `key`: its later reads go to Redis."""
    values: dict[Command, Any] | None = getattr(_local, "values", None)
    if values:
        for command in [c for c in values if len(c) > 1 and c[1] == key]:
            del values[command]
