"""What the model gateway needs of a goal, read from the head of its record.

For every model call the gateway checks, before and after the call, that the goal still waits for that
very request (not paused, cancelled or moved on), and the sweep checks the calls it holds every second. A
goal's record holds its transcript and grows to tens of KB; reading and parsing it whole for each check
cost the gateway more than the call itself. The record's first fields are its ids, status, step and the
request it waits for (in the clear even for a confidential user's sealed record), so the first
`HEAD_BYTES` say it all. A record whose head does not read that way (written by an older Deputy) is read
whole.
"""

from __future__ import annotations

import json
import re
from typing import Any

HEAD_BYTES = 512

_HEAD = re.compile(
    rb'^\{"schema_version":\d+,"revision":-?\d+,"id":"[^"]*","user_id":(-?\d+),"chat_id":(-?\d+),'
    rb'"status":"(\w+)","step":(-?\d+),"waiting_model":(?:null|\{"request_id":"([^"]*)","step":(-?\d+)\})'
)


def read_head(head: bytes | None) -> dict[str, Any] | None:
    """The fields the gateway uses, from a record's first `HEAD_BYTES`; None when the head does not read so."""
    found = _HEAD.match(head or b"")
    if found is None:
        return None
    user_id, chat_id, status, step, request_id, wait_step = found.groups()
    waiting = None if request_id is None else {"request_id": request_id.decode(), "step": int(wait_step)}
    return {"user_id": int(user_id), "chat_id": int(chat_id), "status": status.decode(), "step": int(step),
            "waiting_model": waiting}


def read_whole(raw: bytes | None) -> dict[str, Any] | None:
    """The same fields from a whole record (an envelope's clear fields for a sealed one)."""
    return None if raw is None else json.loads(raw)


async def goal_heads(redis: Any, keys: list[str]) -> list[dict[str, Any] | None]:
    """Each goal's fields (None: no such goal), in two round trips at most: heads, then whole records where needed."""
    return (await goal_heads_and(redis, keys))[0]


async def goal_heads_and(redis: Any, keys: list[str], *also: tuple[Any, ...]) -> tuple[list[dict[str, Any] | None], list]:
    """`goal_heads`, with other reads sent in the same round trip (each a command and its arguments, run before the
    heads are read): the goals' fields, and the other reads' results."""
    pipe = redis.pipeline(transaction=False)
    for command in also:
        pipe.execute_command(*command)
    for key in keys:
        pipe.getrange(key, 0, HEAD_BYTES - 1)
    results = await pipe.execute()
    others, heads = results[:len(also)], results[len(also):]
    found = [read_head(head) for head in heads]
    odd = [i for i, (head, fields) in enumerate(zip(heads, found)) if head and fields is None]
    if odd:
        pipe = redis.pipeline(transaction=False)
        for i in odd:
            pipe.get(keys[i])
        for i, raw in zip(odd, await pipe.execute()):
            found[i] = read_whole(raw)
    return found, others
