"""The goal intake's two Lua scripts: what a message is for, then the new goal taken in.

`LOOK` (reads, and takes a pending edit) answers in one command everything the handler
needs to decide what a text is for and, if it is a new goal, to start it: a memory, goal or
send-window edit the user is making (taken), else the goal waiting for the user's answer,
the audit tip, whether this message's goal is stored already (a copy of an update that was
handled), the user's account (plan, suspension), settings (time zone), confidential key, a
page waiting for a code, and the user's latest goal with what it read (which a new one may follow up).

`ADMIT` (writes) does the rest in one atomic step: unless the goal is stored already, it
takes the goal's place in the user's plan (`deputy.core.accounts.quota_store.TAKE_SCRIPT`)
and, only if there is room, runs the writes the stores queued for it
(`deputy.core.infrastructure.script_writes`): the goal record and the user's goal index, the
`goal_created` audit entry (appended only if the tip is still the one `LOOK` read), the user's
latest goal, the
in-flight registration, RQ's job, its place in the fair queue, the users set and the
message-to-goal note for edits. Two concurrent messages cannot both take a last place, and
no crash can leave a counted goal unstored or a stored goal unqueued.

Keys: `LOOK` gets all of its keys in KEYS, every one the user's own or their goal's. `ADMIT`
gets the goal's and the user's quota keys in KEYS; the queued writes carry theirs in ARGV,
some of them shared by every user (RQ's queue, the in-flight registry), so it needs one
Redis (or Sentinel): Redis Cluster is not supported.
"""

from __future__ import annotations

from deputy.core.accounts.quota_store import TAKE_SCRIPT
from deputy.core.infrastructure.lua_scripts import LuaScript, embedded
from deputy.core.infrastructure.script_writes import run_writes_lua
from deputy.queue.fair_rq import PUSH_SCRIPT
from deputy.sentinel.stores.audit import APPEND_IF_TIP

# KEYS: the keys to take (GETDEL) in order, then the awaiting-answer key, the audit tip, the goal
# this message would create, the account hash, the settings, the confidential hash, the open hand-off,
# the user's latest goal (the one the message may follow up).
# ARGV: how many keys to take, the prefix of a goal's key (`goal_key('')`), the suffix of its reads list.
# Returns {n, value} for the first key taken (1-based), else
# {0, awaiting goal id, audit tip, goal stored (0/1), account (HGETALL), settings, public key, open hand-off,
# latest goal's record, its reads list} with '' (or an empty list) for what is not there. The latest goal's
# keys are read from the one before them, so they are not in KEYS: fine on one Redis, as ADMIT's writes are.
LOOK = LuaScript("""
local takes = tonumber(ARGV[1])
for i = 1, takes do
  local value = redis.call('GETDEL', KEYS[i])
  if value then return {i, value} end
end
local function get(key) return redis.call('GET', key) or '' end
local latest_id, latest, latest_reads = get(KEYS[takes + 8]), '', {}
if latest_id ~= '' then
  latest = get(ARGV[2] .. latest_id)
  if latest ~= '' then latest_reads = redis.call('LRANGE', ARGV[2] .. latest_id .. ARGV[3], 0, -1) end
end
return {0, get(KEYS[takes + 1]), get(KEYS[takes + 2]), redis.call('EXISTS', KEYS[takes + 3]),
        redis.call('HGETALL', KEYS[takes + 4]), get(KEYS[takes + 5]),
        redis.call('HGET', KEYS[takes + 6], 'public') or '', get(KEYS[takes + 7]), latest, latest_reads}
""")

# The scripts queued among the writes, embedded in ADMIT by name.
NESTED = {APPEND_IF_TIP: "audit_append", PUSH_SCRIPT: "fair_push"}

# KEYS: the goal's key, then (when a plan is enforced) the user's quota keys: day, month, in progress.
# ARGV: how many arguments the quota take has (0: no plan), those arguments, then the writes.
# Returns {'exists'} | {'refused', the take's reply} | {'created', the take's reply, {what each embedded
# script returned: the audit append's 1 or 0 (the tip had moved), the fair push's tag}}.
ADMIT = LuaScript(embedded("take_place", TAKE_SCRIPT) + run_writes_lua(NESTED) + """
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists'} end
local quota_args = tonumber(ARGV[1])
local taken = {}
if quota_args > 0 then
  taken = take_place({KEYS[2], KEYS[3], KEYS[4]}, {unpack(ARGV, 2, 1 + quota_args)})
  if taken[1] == 0 then return {'refused', taken} end
end
return {'created', taken, run_writes(2 + quota_args)}
""")
