"""The user's rules in Redis, and parsed rules waiting for the user's confirmation.

Confirmed rules: one hash per user, `deputy:rules:{user_id}`, rule id -> rule JSON.
Proposals: `deputy:rule_proposal:{user_id}:{proposal_id}`, a hash with a TTL. Confirming
moves a proposal into the user's rules in one Lua script, so a proposal becomes a rule at
most once even when two presses race, and never after it expired. Every key carries the
user id: one user can neither see, confirm nor remove another's rules.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from redis import Redis

from deputy.sentinel.rules import UserRule
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.keys import Opener
from deputy.core.records.erasure import Owned, delete_keys

_RULES = "deputy:rules:{}"
_PROPOSAL = "deputy:rule_proposal:{}:{}"

# KEYS[1] proposal hash, KEYS[2] the user's rules hash. Returns the rule JSON or nil.
_CONFIRM = """
local found = redis.call('HMGET', KEYS[1], 'rule_id', 'record')
if not found[1] then return false end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], found[1], found[2])
return found[2]
"""


class RuleStore:
    """Per-user rules and pending proposals. `proposal_ttl` is in seconds."""

    def __init__(self, redis: Redis, *, proposal_ttl: float = 900.0, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        # A confidential user's rules are sealed; reading them while locked raises `Locked`.
        self._keys = keys if keys is not None else confidential_keys(redis)
        self._proposal_ttl_ms = max(1, int(proposal_ttl * 1000))
        self._confirm = redis.register_script(_CONFIRM)

    # -- confirmed rules ----------------------------------------------------------------

    def add(self, user_id: int, rule: UserRule) -> None:
        """Store `rule` for the user (replacing one with the same id)."""
        self._redis.hset(_RULES.format(user_id), rule.id, self._keys.seal_text(user_id, rule.model_dump_json()))

    def get(self, user_id: int, rule_id: str) -> UserRule | None:
        """The user's rule with this id, if any."""
        record = self._redis.hget(_RULES.format(user_id), rule_id)
        return None if record is None else UserRule.model_validate_json(self._keys.opener(user_id)(record))

    def list(self, user_id: int) -> list[UserRule]:
        """All of the user's rules, oldest first."""
        return self.parse_list(self._redis.hvals(_RULES.format(user_id)), self._keys.opener(user_id))

    @staticmethod
    def key(user_id: int) -> str:
        """The hash of the user's confirmed rules (for a reader fetching it with other keys)."""
        return _RULES.format(user_id)

    @staticmethod
    def parse_list(records: list[bytes], opener: Opener,
                   parse: Callable[[bytes], UserRule] = UserRule.model_validate_json) -> list[UserRule]:
        """The rules in the values of the hash at `key`, oldest first, as `list` gives them; `parse` opens one
        record's JSON (a reader that only reads them may share parsed rules: `deputy.executor.review_context`)."""
        return sorted((parse(opener(r)) for r in records), key=lambda r: (r.created_at, r.id))

    def remove(self, user_id: int, rule_id: str) -> bool:
        """Remove one rule; False if the user has no rule with this id."""
        return bool(self._redis.hdel(_RULES.format(user_id), rule_id))

    def remove_all(self, user_id: int) -> int:
        """Remove every rule of the user; returns how many there were."""
        pipe = self._redis.pipeline(transaction=True)
        pipe.hlen(_RULES.format(user_id))
        pipe.delete(_RULES.format(user_id))
        count, _ = pipe.execute()
        return int(count)

    # -- proposals ----------------------------------------------------------------------

    def propose(self, user_id: int, rule: UserRule) -> str:
        """Hold `rule` until the user confirms it or the TTL passes; returns the proposal id."""
        proposal_id = secrets.token_urlsafe(9)
        key = _PROPOSAL.format(user_id, proposal_id)
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(key, mapping={"rule_id": rule.id, "record": self._keys.seal_text(user_id, rule.model_dump_json())})
        pipe.pexpire(key, self._proposal_ttl_ms)
        pipe.execute()
        return proposal_id

    def pending(self, user_id: int, proposal_id: str) -> UserRule | None:
        """The proposed rule, if it is still waiting (does not consume it)."""
        record = self._redis.hget(_PROPOSAL.format(user_id, proposal_id), "record")
        return None if record is None else UserRule.model_validate_json(self._keys.opener(user_id)(record))

    def confirm(self, user_id: int, proposal_id: str) -> UserRule | None:
        """Turn the proposal into one of the user's rules, once; None if gone or expired."""
        record = self._confirm(keys=[_PROPOSAL.format(user_id, proposal_id), _RULES.format(user_id)])
        return None if record is None else UserRule.model_validate_json(self._keys.opener(user_id)(record))

    def discard(self, user_id: int, proposal_id: str) -> bool:
        """Drop a proposal; False if it was already confirmed, discarded or expired."""
        return bool(self._redis.delete(_PROPOSAL.format(user_id, proposal_id)))


def erase_user_rules(redis: Redis, owned: Owned) -> int:
    """The user's confirmed rules and the proposals waiting for their answer."""
    proposals = redis.scan_iter(_PROPOSAL.format(owned.user_id, "*"))
    return delete_keys(redis, (_RULES.format(owned.user_id), *proposals))
