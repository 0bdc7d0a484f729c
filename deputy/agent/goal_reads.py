"""What a goal read from outside, kept beside its record: one append-only Redis list per goal.

The guard traces every value of an action to where it came from, so a goal keeps each piece
of outside content it read (`Goal.untrusted`, up to `MAX_ITEM_CHARS` each). Kept inside the
record, that ledger was most of it and made every checkpoint grow with the goal (half a
megabyte at step 200), rewritten whole at every step. So the items live in a list at
`reads_key(goal_id)`, one JSON `UntrustedItem` per element (sealed, for a confidential
user, each to their public key), and the record only counts them (`Goal.reads_stored`).

A save appends the items beyond that count, in the same script or transaction as the record
(`SAVE`, or the store's MULTI), so the list and the count always move together and nothing is
ever rewritten: an item once read stays traced for as long as the goal exists. `GoalStore.get`
reads the record and fetches the list only when something looks at what the goal read
(`deputy.agent.stored_reads`); `LOAD` reads both in one command, for callers that need both at
once. A record written before the list existed carries its items inline; it loads as it is and
moves them to the list at its next save.
"""

from __future__ import annotations

from collections.abc import Sequence

from deputy.core.confidential.keys import Opener
from deputy.core.confidential.sealing import seal
from deputy.core.infrastructure.lua_scripts import LuaScript
from deputy.sentinel.provenance import UntrustedItem

READS_SUFFIX = ":reads"
"""A goal's reads list is at its record's key with this suffix (scripts that find goals by id add it)."""

# KEYS: the goal's record, its reads list. Returns {record or false, the list's elements}.
LOAD = LuaScript("""#!lua flags=no-writes
return {redis.call('GET', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}
""")

# KEYS: the goal's record, its reads list, its user's awaited-answer key. ARGV: the revision the saver loaded
# (-1: a new goal), the new record, the goal's id, '1' if it now waits for the user's answer, then the reads to
# append. Returns 1, or 0 if the record changed since it was loaded (nothing written). The awaited-answer key
# names the goal while it waits for the user, and is cleared when the goal it names stops waiting.
SAVE = LuaScript("""
local raw = redis.call('GET', KEYS[1])
if raw then
  -- The revision is the record's second field: read from its head, not by decoding a record of tens of KB.
  local current = string.match(string.sub(raw, 1, 128), '^{"schema_version":%d+,"revision":(%-?%d+),')
  if not current then current = tostring(cjson.decode(raw)['revision']) end
  if current ~= ARGV[1] then return 0 end
elseif ARGV[1] ~= '-1' then
  return 0
else
  redis.call('DEL', KEYS[2])  -- a new goal starts with nothing read, whatever an erased one left
end
redis.call('SET', KEYS[1], ARGV[2])
for i = 5, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
if ARGV[4] == '1' then
  redis.call('SET', KEYS[3], ARGV[3])
elseif redis.call('GET', KEYS[3]) == ARGV[3] then
  redis.call('DEL', KEYS[3])
end
return 1
""")


class ReadsNotLoaded(RuntimeError):
    """A goal parsed without its reads list was about to be saved: its new reads would be lost."""


def reads_key(goal_id: str) -> str:
    """The Redis key of the list of what goal `goal_id` read from outside."""
    return f"deputy:goal:{goal_id}{READS_SUFFIX}"


def encode_reads(items: Sequence[UntrustedItem], public: bytes | None) -> list[str]:
    """The list elements for `items`: their JSON, sealed to `public` when the user has a confidential key."""
    encoded = [item.model_dump_json() for item in items]
    return [seal(public, e.encode()) for e in encoded] if public is not None else encoded


def decode_reads(elements: Sequence[bytes | str], opener: Opener) -> list[UntrustedItem]:
    """The items in stored list elements, opened with `opener` (clear ones pass through it unchanged)."""
    return [UntrustedItem.model_validate_json(opener(e)) for e in elements]


__all__ = ["LOAD", "READS_SUFFIX", "ReadsNotLoaded", "SAVE", "decode_reads", "encode_reads", "reads_key"]
