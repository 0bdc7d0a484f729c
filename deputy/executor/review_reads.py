"""What the review of one action needs from Redis, read in one round trip.

The goal and the goals it was split from (their records and what each read from outside), the
user's memories, contacts, settings and rules, the fingerprint of the services they connected
and, for a confidential user, their unlocked key: one read-only Lua script (`READ`), so the
executor's decision waits on Redis once, however many stores it draws on, and a part of a split
goal costs no more than a goal. Nothing is opened
or parsed here; `ReviewContextBuilder` does that with the stores' own parsers.

Keys: the script gets the goal's and the user's keys in KEYS; the ancestors' keys it works out
from each record's `parent_id` (the first such field in a record is its own: every field before
it is a number, an id or a JSON string, in which no unescaped quote can stand), so it needs one
Redis (or Sentinel): Redis Cluster is not supported, as for the intake's scripts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from redis import Redis

from deputy.agent.goal_provenance import contacts_key
from deputy.agent.goal_reads import READS_SUFFIX
from deputy.agent.goals import GOAL_KEY, goal_key
from deputy.agent.guard_view import MAX_ANCESTORS
from deputy.connectors.custom import FINGERPRINT_LUA, CustomConnectors
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.confidential.keys import unlocked_key_name
from deputy.core.infrastructure.lua_scripts import LuaScript
from deputy.memory import MemoryStore
from deputy.sentinel.stores.rule_store import RuleStore

# KEYS: the goal, the memories, the contacts, the settings, the rules, the connectors, the unlocked key.
# ARGV: the goals' key prefix, how many ancestors to follow, the suffix of a goal's reads list.
# Returns one string (`_unpack`): the goal's and its ancestors' records, each one's reads list (in the
# same order), the memories, the contacts, the settings or '', the rules, the connectors' fingerprint and
# the unlocked key or '', each value written as its length, a colon and its bytes, each list as its
# length first. One reply instead of a nested array of a dozen or more: the client parses one bulk
# string, not an element at a time (about a third of the read's CPU in the executor).
READ = LuaScript("#!lua flags=no-writes\n" + FINGERPRINT_LUA + """
local chain, reads = {}, {}
local key = KEYS[1]
local record = redis.call('GET', key)
local most = tonumber(ARGV[2])
while record and #chain <= most do
  chain[#chain + 1] = record
  reads[#reads + 1] = redis.call('LRANGE', key .. ARGV[3], 0, -1)
  local at = string.find(record, '"parent_id":', 1, true)
  if not at then break end
  local parent = string.match(record, '^"([^"\\\\]+)"', at + 12)
  if not parent then break end
  key = ARGV[1] .. parent
  record = redis.call('GET', key)
end
local out = {}
local function put(value) out[#out + 1] = #value .. ':' .. value end
local function put_list(values)
  put(tostring(#values))
  for _, value in ipairs(values) do put(value) end
end
put_list(chain)
for _, list in ipairs(reads) do put_list(list) end
put_list(redis.call('HVALS', KEYS[2]))
put_list(redis.call('SMEMBERS', KEYS[3]))
put(redis.call('GET', KEYS[4]) or '')
put_list(redis.call('HVALS', KEYS[5]))
put(connectors_fingerprint(KEYS[6]))
put(redis.call('GET', KEYS[7]) or '')
return table.concat(out)
""")


@dataclass(frozen=True)
class StoredForReview:
    """What Redis holds for one action's review, as stored (sealed values still sealed)."""

    goals: list[bytes]
    """The goal's record, then those of the goals it was split from, nearest first."""
    reads: list[list[bytes]]
    """Each of those goals' reads list (what it read from outside), in the same order."""
    memories: list[bytes]
    contacts: list[bytes]
    settings: bytes | None
    rules: list[bytes]
    connectors: str
    """The fingerprint of the user's connected services (`CustomConnectors.fingerprint`)."""
    unlocked: bytes | None
    """A confidential user's unlocked key, while they are unlocked."""


def read_for_review(redis: Redis, goal_id: str, user_id: int) -> StoredForReview:
    """Everything the review of an action of `user_id` in `goal_id` reads, in one round trip."""
    keys = [goal_key(goal_id), MemoryStore.key(user_id), contacts_key(user_id), UserSettingsStore.key(user_id),
            RuleStore.key(user_id), CustomConnectors.key(user_id), unlocked_key_name(user_id)]
    reply = READ.run(redis, keys, [GOAL_KEY.format(""), MAX_ANCESTORS, READS_SUFFIX])
    values = _unpack(reply.encode() if isinstance(reply, str) else reply)
    goals = _take_list(values)
    reads = [_take_list(values) for _ in goals]
    memories, contacts = _take_list(values), _take_list(values)
    settings = next(values)
    rules = _take_list(values)
    connectors, unlocked = next(values), next(values)
    return StoredForReview(goals=goals, reads=reads, memories=memories, contacts=contacts, settings=settings or None,
                           rules=rules, connectors=connectors.decode(), unlocked=unlocked or None)


def _unpack(blob: bytes) -> Iterator[bytes]:
    """The values of `READ`'s reply, in order: each is its length in bytes, a colon, then itself."""
    at, end = 0, len(blob)
    while at < end:
        colon = blob.index(b":", at)
        start = colon + 1
        at = start + int(blob[at:colon])
        yield blob[start:at]


def _take_list(values: Iterator[bytes]) -> list[bytes]:
    return [next(values) for _ in range(int(next(values)))]


__all__ = ["READ", "StoredForReview", "read_for_review"]
