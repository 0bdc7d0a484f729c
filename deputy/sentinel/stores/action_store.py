"""Submitted actions and where each one stands (`ActionState`), in Redis.

State changes are compare-and-set scripts: the executor *claims* an action by moving it
to `executing` with a fresh claim token, and only the process holding that token may
record progress or a result. That, not the job queue, is what makes an approved action
run at most once. Which moves exist is `deputy.sentinel.action_lifecycle`'s business.

Before a runner may do anything outside, the executor records *progress* under its claim
("started"; connectors add what they know, e.g. "the mail server accepted the
connection"). A claim without progress died before any side effect began and can simply
run again; one with progress has an unknown outcome.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field, TypeAdapter
from redis import Redis

from deputy.sentinel.action_lifecycle import ActionEvent, allowed_from, lost, target
from deputy.core.records.actions import Action, ActionState
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.sealing import seal
from deputy.core.records.erasure import Owned, delete_keys, ids_owned_by
from deputy.core.records.read_items import ItemSpan

_KEY = "deputy:action:{}"
_RETENTION_SECONDS = 30 * 24 * 3600
_SPANS = TypeAdapter(list[ItemSpan])

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

# KEYS[1] action hash; ARGV: new state, claim token ('' clears it), then the allowed states.
# Progress is cleared: a new claim starts with nothing begun.
_CLAIM = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return false end
for i = 3, #ARGV do
  if state == ARGV[i] then
    redis.call('HSET', KEYS[1], 'state', ARGV[1])
    redis.call('HDEL', KEYS[1], 'progress')
    if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'claim') else redis.call('HSET', KEYS[1], 'claim', ARGV[2]) end
    return state
  end
end
return false
"""

# KEYS[1] action hash; ARGV: claim token, note. Only while that claim is still the one executing.
_PROGRESS = """
if redis.call('HGET', KEYS[1], 'state') ~= 'executing' then return 0 end
if redis.call('HGET', KEYS[1], 'claim') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[2])
return 1
"""

# KEYS[1] action hash; ARGV: the dead claim's token, state if nothing began, state if something may have.
_LOST = """
if redis.call('HGET', KEYS[1], 'state') ~= 'executing' then return false end
if (redis.call('HGET', KEYS[1], 'claim') or '') ~= ARGV[1] then return false end
redis.call('HDEL', KEYS[1], 'claim')
if redis.call('HEXISTS', KEYS[1], 'progress') == 1 then
  redis.call('HSET', KEYS[1], 'state', ARGV[3])
  return ARGV[3]
end
redis.call('HSET', KEYS[1], 'state', ARGV[2])
return ARGV[2]
"""

# KEYS[1] action hash; ARGV: claim token, the state to go back to. The run stopped before anything could go out.
_RELEASE = """
if redis.call('HGET', KEYS[1], 'state') ~= 'executing' then return 0 end
if (redis.call('HGET', KEYS[1], 'claim') or '') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'claim', 'progress')
redis.call('HSET', KEYS[1], 'state', ARGV[2])
return 1
"""

# KEYS[1] action hash; ARGV: claim token, new state, outcome, untrusted origin, the items' spans ('' keeps each).
_FINISH = """
if redis.call('HGET', KEYS[1], 'state') ~= 'executing' then return 0 end
if (redis.call('HGET', KEYS[1], 'claim') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'outcome', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'untrusted_origin', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'untrusted_items', ARGV[5]) end
redis.call('HDEL', KEYS[1], 'claim')
return 1
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
    untrusted_items: list[ItemSpan] = Field(default_factory=list)
    """Where each item of the outcome (an email, an event, a record) sits in it, with its own origin."""
    claim: str | None = None
    progress: str | None = None


class ActionStore:
    """Action records. A confidential user's action, outcome, progress and origins are sealed to their key
    (ids and states stay readable for the scripts); `get` raises `Locked` while they are locked."""

    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)
        self._transition = redis.register_script(_TRANSITION)
        self._submit = redis.register_script(_SUBMIT)
        self._claim = redis.register_script(_CLAIM)
        self._progress = redis.register_script(_PROGRESS)
        self._lost = redis.register_script(_LOST)
        self._finish = redis.register_script(_FINISH)
        self._release = redis.register_script(_RELEASE)

    def submit(self, action: Action) -> bool:
        """Store a new action as `submitted`; False if this id was stored before."""
        public = self._keys.public_key(action.user_id)
        record = action.model_dump_json()
        if public is not None:
            record = json.dumps({"id": action.id, "user_id": action.user_id, "goal_id": action.goal_id,
                                 "sealed": seal(public, record.encode())})
        return bool(self._submit(keys=[_KEY.format(action.id)], args=[record, _RETENTION_SECONDS]))

    def _sealed(self, action_id: str, text: str | None) -> str | None:
        """`text` sealed to the key of the action's user, if they are confidential."""
        if not text:
            return text
        record = self._redis.hget(_KEY.format(action_id), "record")
        if record is None or b'"sealed"' not in record:
            return text
        return self._keys.seal_text(int(json.loads(record)["user_id"]), text)

    def get(self, action_id: str) -> ActionRecord | None:
        record, state, outcome, approval_id, origin, items, claim, progress = self._redis.hmget(
            _KEY.format(action_id), "record", "state", "outcome", "approval_id", "untrusted_origin", "untrusted_items",
            "claim", "progress"
        )
        if record is None or state is None:
            return None
        sealed = json.loads(record).get("sealed") if b'"sealed"' in record else None
        opened = self._keys.opener(int(json.loads(record)["user_id"])) if sealed else bytes
        return ActionRecord(
            action=Action.model_validate_json(opened(sealed) if sealed else record),
            state=ActionState(state.decode()),
            outcome=opened(outcome).decode() if outcome else None,
            approval_id=approval_id.decode() if approval_id else None,
            untrusted_origin=opened(origin).decode() if origin else None,
            untrusted_items=_SPANS.validate_json(opened(items)) if items else [],
            claim=claim.decode() if claim else None,
            progress=opened(progress).decode() if progress else None,
        )

    def reseal(self, action_id: str) -> bool:
        """Seal a record kept in clear, now that its user turned confidential mode on; True if it was."""
        key = _KEY.format(action_id)
        record, outcome, origin, items, progress = self._redis.hmget(
            key, "record", "outcome", "untrusted_origin", "untrusted_items", "progress")
        if record is None or b'"sealed"' in record:
            return False
        action = Action.model_validate_json(record)
        public = self._keys.public_key(action.user_id)
        if public is None:
            return False
        fields = {"record": json.dumps({"id": action.id, "user_id": action.user_id, "goal_id": action.goal_id,
                                        "sealed": seal(public, record)})}
        for name, value in (("outcome", outcome), ("untrusted_origin", origin), ("untrusted_items", items),
                            ("progress", progress)):
            if value:
                fields[name] = seal(public, value)
        self._redis.hset(key, mapping=fields)
        return True

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
            args=[to.value, self._sealed(action_id, outcome) or "", approval_id or "",
                  self._sealed(action_id, untrusted_origin) or "", *(s.value for s in allowed_from)],
        )
        return previous is not None

    def apply(
        self, action_id: str, event: ActionEvent, *, outcome: str | None = None, approval_id: str | None = None,
        untrusted_origin: str | None = None,
    ) -> bool:
        """Make the lifecycle's move for `event` (claims and crashes have their own methods)."""
        if event in (ActionEvent.claim, ActionEvent.retry, ActionEvent.lost_before_start, ActionEvent.lost_midway):
            raise ValueError(f"{event.value} needs a claim token: use claim() or lost()")
        return self.transition(action_id, allowed_from(event), target(event), outcome=outcome,
                               approval_id=approval_id, untrusted_origin=untrusted_origin)

    def claim(self, action_id: str, token: str, event: ActionEvent = ActionEvent.claim) -> bool:
        """Take the action to run it (`claim`, or `retry` after an unknown outcome); True if this call did."""
        states = allowed_from(event)
        return self._claim(keys=[_KEY.format(action_id)], args=[target(event).value, token,
                                                                *(s.value for s in states)]) is not None

    def progress(self, action_id: str, token: str, note: str) -> bool:
        """Record how far the run under claim `token` got; False if that claim is no longer current."""
        return bool(self._progress(keys=[_KEY.format(action_id)], args=[token, self._sealed(action_id, note)]))

    def finish(
        self, action_id: str, token: str, event: ActionEvent, outcome: str, untrusted_origin: str | None = None,
        untrusted_items: list[ItemSpan] | None = None,
    ) -> bool:
        """Record the result of the run under claim `token` (`succeed`, `fail`, or `lost_midway`
        when the service went silent midway); False if that claim is no longer current (its
        executor was presumed dead and replaced). `untrusted_items` place the outcome's items."""
        if event not in (ActionEvent.succeed, ActionEvent.fail, ActionEvent.lost_midway):
            raise ValueError("only a run's result finishes a claim")
        items = _SPANS.dump_json(untrusted_items).decode() if untrusted_items else ""
        return bool(self._finish(keys=[_KEY.format(action_id)],
                                 args=[token, target(event).value, self._sealed(action_id, outcome),
                                       self._sealed(action_id, untrusted_origin) or "",
                                       self._sealed(action_id, items) or ""]))

    def lost(self, record: ActionRecord) -> ActionState | None:
        """The executor holding `record`'s claim died: back to waiting if nothing began,
        else `outcome_unknown`. None if the record moved on meanwhile (someone else did this)."""
        assert record.state is ActionState.executing
        back = target(ActionEvent.lost_before_start, approved=record.approval_id is not None)
        unknown = target(lost("something"))
        result = self._lost(keys=[_KEY.format(record.action.id)], args=[record.claim or "", back.value, unknown.value])
        return ActionState(result.decode()) if result else None

    def release(self, action_id: str, token: str, approved: bool) -> bool:
        """Give claim `token` back when its run was refused at the door (a login refused, so nothing went
        out): the action waits to run again, under its approval if it had one."""
        back = target(ActionEvent.lost_before_start, approved=approved)
        return bool(self._release(keys=[_KEY.format(action_id)], args=[token, back.value]))

    def keep_briefly(self, action_id: str, seconds: int = 24 * 3600) -> None:
        """Shorten how long a finished record is kept: a monitor's quiet probe, read and compared,
        would otherwise pile up one record per check for a month (the audit trail keeps its entry)."""
        self._redis.expire(_KEY.format(action_id), seconds)


def user_action_ids(redis: Redis, user_id: int) -> tuple[str, ...]:
    """The ids of every action the user's goals submitted."""
    return ids_owned_by(redis, _KEY, user_id, lambda raw: json.loads(raw["record"])["user_id"])


def erase_user_actions(redis: Redis, owned: Owned) -> int:
    return delete_keys(redis, (_KEY.format(action_id) for action_id in owned.action_ids))
