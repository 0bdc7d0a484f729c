"""Folding: keeping a trail to its window by moving its oldest entries into the sealed checkpoint.

A trail keeps its newest `keep` entries (`DEPUTY_AUDIT_KEEP`) and grows past them by a slack of a
tenth; the append that goes beyond the slack folds the oldest entries, down to `keep`, into the
checkpoint (`audit_checkpoint`). So a fold comes once every `keep / 10` appends, and Redis holds at
most `keep` plus the slack entries per user, whatever their history.

A fold reads the checkpoint and the entries beyond the window at one instant, verifies them, seals
the new checkpoint with the audit key (which Redis never sees, so this happens here), and writes it
with one compare-and-swap script: only if the checkpoint is still the one read and the trail still
starts with exactly the entries read. Two writers folding at once: one wins, the other finds nothing
left to fold; an entry is never folded twice or lost. Only what verifies is folded: a checkpoint
whose seal fails, or an entry that is not sealed and linked, stays as found (with every entry after
it), so `AuditLog.check` still names it; a fold never seals over a change.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Sequence

from redis import Redis

from deputy.sentinel.stores.audit_chain import GENESIS, STREAM, walk
from deputy.sentinel.stores.audit_checkpoint import CHECKPOINT, folded_into, read_checkpoint

# KEYS: checkpoint, stream; ARGV: entries to keep, most entries to read. The checkpoint and the
# entries beyond the window, read at one instant, so the entries read are the ones that follow it.
_READ = """
local excess = math.min(redis.call('XLEN', KEYS[2]) - tonumber(ARGV[1]), tonumber(ARGV[2]))
local checkpoint = redis.call('HGETALL', KEYS[1])
if excess <= 0 then return {checkpoint, {}} end
return {checkpoint, redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', excess)}
"""
# A fold's work stays bounded: a long trail written before the window is folded over a few appends,
# and a trail with a changed entry near its start (never folded past) costs each append one such read.
_MOST = 1000

# KEYS: checkpoint, stream; ARGV: the seal of the checkpoint the fold was made from ('' for none), the
# number n of entries folded, their n stream ids, then the new checkpoint's fields and values.
# Folds only if nothing moved since `_READ`: the same checkpoint, and the trail still starting with
# exactly those entries (stream ids are never reused, so the same ids are the same entries).
# Returns n, or 0 when another writer folded first (or someone changed the trail).
_SWAP = """
if (redis.call('HGET', KEYS[1], 'seal') or '') ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[2])
local head = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', n)
if #head ~= n then return 0 end
for i = 1, n do
  if head[i][1] ~= ARGV[2 + i] then return 0 end
end
redis.call('XDEL', KEYS[2], unpack(ARGV, 3, 2 + n))
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3 + n))
return n
"""
_ATTEMPTS = 5  # a swap fails only when another writer folded meanwhile, so a retry finds nothing left


def window_slack(keep: int) -> int:
    """How far past `keep` a trail grows before it is folded."""
    return max(1, keep // 10)


def fold_due(length: int, keep: int) -> bool:
    """Whether a trail of `length` kept entries is due a fold."""
    return length > keep + window_slack(keep)


def fold(redis: Redis, key: bytes, user_id: int, keep: int) -> int:
    """Fold the user's entries beyond the newest `keep` into their checkpoint, sealed with `key`;
    returns how many were folded."""
    keys = (CHECKPOINT.format(user_id), STREAM.format(user_id))
    for _ in range(_ATTEMPTS):
        swap = _swap_arguments(key, user_id, redis.eval(_READ, 2, *keys, keep, _MOST))
        if swap is None:
            return 0
        if folded := int(redis.eval(_SWAP, 2, *keys, *swap)):
            return folded
    return 0


async def fold_async(redis: Any, key: bytes, user_id: int, keep: int) -> int:
    """`fold` on a redis.asyncio client."""
    keys = (CHECKPOINT.format(user_id), STREAM.format(user_id))
    for _ in range(_ATTEMPTS):
        swap = _swap_arguments(key, user_id, await redis.eval(_READ, 2, *keys, keep, _MOST))
        if swap is None:
            return 0
        if folded := int(await redis.eval(_SWAP, 2, *keys, *swap)):
            return folded
    return 0


def _swap_arguments(key: bytes, user_id: int, read: Sequence[Any]) -> list[str] | None:
    """`_SWAP`'s arguments for what `_READ` returned, or None when nothing verifies to be folded."""
    raw_checkpoint, rows = read
    try:
        checkpoint = read_checkpoint(_pairs(raw_checkpoint))
    except ValueError:
        return None
    if checkpoint is not None and not checkpoint.sealed_by(key, user_id):
        return None
    linked, _ = walk(key, user_id, checkpoint.last if checkpoint is not None else GENESIS,
                     ((raw_id, _pairs(flat)) for raw_id, flat in rows))
    if not linked:
        return None
    sealed = folded_into(key, user_id, checkpoint, [(entry.kind, entry.at, entry.seal) for entry in linked])
    return [checkpoint.seal if checkpoint is not None else "", str(len(linked)), *(entry.id for entry in linked),
            *chain.from_iterable(sealed.fields().items())]


def _pairs(flat: Sequence[bytes]) -> dict[bytes, bytes]:
    """A field list as a script returns it ([name, value, name, value, ...]) as a dict."""
    return dict(zip(flat[::2], flat[1::2]))
