"""The poller lease: which one of a bot's processes may call getUpdates.

Telegram keeps one long poll per bot. A second process polling with the same token
terminates the first one's poll (409 "Conflict: terminated by other getUpdates request"),
whose retry terminates the second's, and so on; each may fetch updates the other fetched
too. That is what a rolling restart (the new `deputy bot` started before the old one
stopped) or two replicas started by mistake would do. So a process polls only while it
holds this lease: a Redis key naming it, with a short expiry, renewed while it runs.

- `take`: SET NX PX, or extend it if it is ours already; else the holder's name;
- `renew`: extend it if it is still ours; take it again if it is gone (it lapsed while this
  process stalled, or Redis restarted empty); if another process holds it, it is lost;
- `release`: delete it if it is still ours, so a waiting process takes over at once.

The names say where the holder runs (host and process id): an operator reading "another
bot process is polling" learns which one.
"""

from __future__ import annotations

import os
import secrets
import socket
from enum import Enum

import redis.asyncio as aioredis

from deputy.core.infrastructure.lua_scripts import LuaScript

LEASE_MS = 5_000
"""How long a poller that died keeps the others waiting; renewed every third of it."""
LEASE_KEY = "deputy:polling:{}:poller"  # bot id -> the name of the process polling it

# KEYS: the lease. ARGV: our name, lease ms. nil if it is ours now, else the holder's name.
_TAKE = LuaScript("""
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return nil
end
if holder then return holder end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return nil
""")
# KEYS: the lease. ARGV: our name, lease ms. 1 extended, 2 taken again (it was gone), 0 another holds it.
_RENEW = LuaScript("""
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 2
""")
_RELEASE = LuaScript("""
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
""")


class Renewal(Enum):
    kept = 1
    retaken = 2  # it had lapsed and nobody held it: ours again, but someone may have held it meanwhile
    lost = 0  # another process polls now


def process_name() -> str:
    """This process, as the lease names it: host, process id and a nonce (a restarted process is another)."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class PollerLease:
    """The lease on polling one bot, in Redis."""

    def __init__(self, redis: aioredis.Redis, bot_id: int | str, name: str | None = None,
                 lease_ms: int = LEASE_MS) -> None:
        self._redis = redis
        self.key = LEASE_KEY.format(bot_id)
        self.name = name or process_name()
        self.lease_ms = lease_ms

    async def take(self) -> str | None:
        """Take the lease (or keep it): None if it is ours now, else the name of the process holding it."""
        holder = await _TAKE(self._redis, [self.key], [self.name, self.lease_ms])
        return None if holder is None else holder.decode(errors="replace")

    async def renew(self) -> Renewal:
        return Renewal(int(await _RENEW(self._redis, [self.key], [self.name, self.lease_ms])))

    async def release(self) -> None:
        await _RELEASE(self._redis, [self.key], [self.name])
