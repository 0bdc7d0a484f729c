"""Submitted actions and where each one stands (`ActionState`), in Redis.

State changes are compare-and-set scripts: the executor *claims* an action by moving it
to `executing`, and only the process whose claim succeeded may run it. That, not the job
queue, is what makes an approved action run at most once.
"""

from __future__ import annotations

from pydantic import BaseModel
from redis import Redis

from sentinel.actions import Action, ActionState

_KEY = "deputy:action:{}"
_RETENTION_SECONDS = 30 * 24 * 3600

# KEYS[1] action hash; ARGV: new state, outcome, approval id, untrusted origin ('' keeps each),
# then the allowed states.
_TRANSITION = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return false end
for i = 5, #ARGV do
  if state == ARGV[i] then
    redis.call('HSET', KEYS[1], 'state', ARGV[1])
    if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'outcome', ARGV[2]) end
    if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'approval_id', ARGV[3]) end
    if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'untrusted_origin', ARGV[4]) end
    return state
  end
end
return false
"""

# One script, so a crash can never leave a record without its state.
_SUBMIT = """
if redis.call('HEXISTS', KEYS[1], 'state') == 1 then return 0 end
redis.call('HSETNX', KEYS[1], 'record', ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'submitted')
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""


class ActionRecord(BaseModel):
    action: Action
    state: ActionState
    outcome: str | None = None
    approval_id: str | None = None
    untrusted_origin: str | None = None


class ActionStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._transition = redis.register_script(_TRANSITION)
        self._submit = redis.register_script(_SUBMIT)

    def submit(self, action: Action) -> bool:
        """Store a new action as `submitted`; False if this id was stored before."""
        return bool(
            self._submit(keys=[_KEY.format(action.id)], args=[action.model_dump_json(), _RETENTION_SECONDS])
        )

    def get(self, action_id: str) -> ActionRecord | None:
        record, state, outcome, approval_id, origin = self._redis.hmget(
            _KEY.format(action_id), "record", "state", "outcome", "approval_id", "untrusted_origin"
        )
        if record is None or state is None:
            return None
        return ActionRecord(
            action=Action.model_validate_json(record),
            state=ActionState(state.decode()),
            outcome=outcome.decode() if outcome else None,
            approval_id=approval_id.decode() if approval_id else None,
            untrusted_origin=origin.decode() if origin else None,
        )

    def transition(
        self,
        action_id: str,
        allowed_from: tuple[ActionState, ...],
        to: ActionState,
        *,
        outcome: str | None = None,
        approval_id: str | None = None,
        untrusted_origin: str | None = None,
    ) -> bool:
        """Move to `to` only from one of `allowed_from`; True if this call made the move.

        `untrusted_origin` marks an outcome that carries outside content (and says whose).
        """
        previous = self._transition(
            keys=[_KEY.format(action_id)],
            args=[to.value, outcome or "", approval_id or "", untrusted_origin or "", *(s.value for s in allowed_from)],
        )
        return previous is not None

    def keep_briefly(self, action_id: str, seconds: int = 24 * 3600) -> None:
        """Shorten how long a finished record is kept: a monitor's quiet probe, read and compared,
        would otherwise pile up one record per check for a month (the audit trail keeps its entry)."""
        self._redis.expire(_KEY.format(action_id), seconds)
