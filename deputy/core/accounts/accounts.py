"""Who uses this Deputy: each user's plan, whether the operator suspended them, and invitations.

A user the operator never placed is on the plans file's default plan. A public bot is
closed to strangers: besides the operator's allow-list (`DEPUTY_ALLOWED_USERS`) a user
may come in with an invitation code (`/start <code>`), which the operator makes with
`deputy users invite` and which may carry a plan and a number of uses.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from redis import Redis

from deputy.core.infrastructure import step_reads
from deputy.core.records.erasure import Owned

_ACCOUNT = "deputy:account:{}"
_USERS = "deputy:accounts"  # every user who ever started a goal or was placed by the operator
_INVITED = "deputy:accounts:invited"
_INVITE = "deputy:invite:{}"

# KEYS: invite hash, account hash, users set, invited set; ARGV: user id.
# Returns the invite's plan ('' for the default) or false when the code is unknown or used up.
_REDEEM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('SISMEMBER', KEYS[4], ARGV[1]) == 1 then return redis.call('HGET', KEYS[1], 'plan') or '' end
local left = tonumber(redis.call('HGET', KEYS[1], 'uses') or '0')
if left <= 0 then return false end
redis.call('HINCRBY', KEYS[1], 'uses', -1)
local plan = redis.call('HGET', KEYS[1], 'plan') or ''
if plan ~= '' then redis.call('HSET', KEYS[2], 'plan', plan) end
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
return plan
"""


@dataclass(frozen=True)
class Account:
    user_id: int
    plan: str | None  # None: the default plan
    suspended: bool


class Accounts:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    @staticmethod
    def key(user_id: int) -> str:
        return _ACCOUNT.format(user_id)

    @staticmethod
    def parse(user_id: int, raw: dict) -> Account:
        """An account from its hash as Redis returns it (for readers on another client, e.g. asyncio)."""
        fields = {k.decode(): v.decode() for k, v in raw.items()}
        return Account(user_id, fields.get("plan") or None, fields.get("suspended") == "1")

    def get(self, user_id: int) -> Account:
        key = _ACCOUNT.format(user_id)
        return self.parse(user_id, step_reads.read(("HGETALL", key), lambda: self._redis.hgetall(key)))

    def seen(self, user_id: int) -> None:
        self._redis.sadd(_USERS, user_id)

    @staticmethod
    def users_key() -> str:
        return _USERS

    def users(self) -> list[int]:
        return sorted(int(u) for u in self._redis.smembers(_USERS))

    def set_plan(self, user_id: int, plan: str) -> None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(_ACCOUNT.format(user_id), "plan", plan)
        pipe.sadd(_USERS, user_id)
        pipe.execute()

    def set_suspended(self, user_id: int, suspended: bool) -> None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(_ACCOUNT.format(user_id), "suspended", "1" if suspended else "0")
        pipe.sadd(_USERS, user_id)
        pipe.execute()

    # -- invitations ----------------------------------------------------------------------

    def invite(self, plan: str | None = None, uses: int = 1, code: str | None = None) -> str:
        code = code or secrets.token_urlsafe(9)
        self._redis.hset(_INVITE.format(code), mapping={"plan": plan or "", "uses": uses})
        return code

    def redeem(self, code: str, user_id: int) -> bool:
        """Let the user in with the code (once per use it has); False when it is unknown or used up."""
        if not code or len(code) > 64:
            return False
        result = self._redis.eval(_REDEEM, 4, _INVITE.format(code), _ACCOUNT.format(user_id), _USERS, _INVITED,
                                  user_id)
        return result is not None

    def invited(self, user_id: int) -> bool:
        return bool(self._redis.sismember(_INVITED, user_id))


def erase_user_account_traces(redis: Redis, owned: Owned) -> int:
    """`/delete_me`: the user leaves the list of users and of the invited.

    The operator's own decisions about the account (a plan they placed the user on, a
    suspension) are the operator's record, not the user's data, and stay: erasing one's
    data is not a way out of a suspension.
    """
    pipe = redis.pipeline()
    pipe.srem(_USERS, owned.user_id)
    pipe.srem(_INVITED, owned.user_id)
    removed = sum(pipe.execute())
    suspended, plan = redis.hmget(_ACCOUNT.format(owned.user_id), "suspended", "plan")
    if suspended != b"1" and not plan:
        removed += redis.delete(_ACCOUNT.format(owned.user_id))
    return removed
