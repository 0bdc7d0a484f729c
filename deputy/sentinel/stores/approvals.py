"""Approval requests: signed opaque button data, owner-only, single use, expiring.

A card's button carries `ap1:<approval id>:<choice>:<signature>` (well under Telegram's
64-byte `callback_data` limit). The signature binds the id, the choice and the owner's user
id to DEPUTY_SECRET, so data copied to another account or made up does not verify. The
decision itself is one atomic Redis script, so two presses racing each other record one
decision.
"""

from __future__ import annotations

import secrets
from enum import Enum
from typing import Literal

from pydantic import BaseModel
from redis import Redis

from deputy.core.infrastructure.button_mac import ButtonMac
from deputy.core.confidential import ConfidentialKeys, Locked, confidential_keys
from deputy.core.confidential.sealing import is_sealed
from deputy.core.records.erasure import Owned, delete_keys, ids_owned_by

_PREFIX = "ap1"
_KEY = "deputy:approval:{}"


class Choice(str, Enum):
    approve = "y"
    deny = "n"
    always = "a"  # approve, and allow this exact operation and target from now on


class ApprovalStatus(str, Enum):
    pending = "pending"
    approved = "approved"
    denied = "denied"
    expired = "expired"


class ApprovalRequest(BaseModel):
    """A question to the action's owner, answered once by a signed button press.

    `kind` "approval": may this run (Approve / Deny). "outcome_unknown": the executor died
    midway, shall it run once more (Try again = approve) or not (Drop it = deny).
    """

    schema_version: int = 1
    kind: Literal["approval", "outcome_unknown"] = "approval"
    id: str
    action_id: str
    goal_id: str
    user_id: int
    chat_id: int
    fingerprint: str
    reasons: list[str]
    created_at: float
    expires_at: float
    card_text: str = ""


class ForgedPress(Exception):
    """Button data that is malformed or whose signature does not verify for this user."""


class PressOutcome(str, Enum):
    decided = "decided"
    not_found = "not_found"
    not_owner = "not_owner"
    already_decided = "already_decided"
    expired = "expired"


class PressResult(BaseModel):
    outcome: PressOutcome
    status: ApprovalStatus | None = None
    request: ApprovalRequest | None = None


class ApprovalSigner:
    def __init__(self, secret: str) -> None:
        self._mac = ButtonMac(secret, b"deputy-approval", 16)

    def _sign(self, approval_id: str, choice: Choice, user_id: int) -> str:
        return self._mac.sign(approval_id, choice.value, user_id)

    def button_data(self, approval_id: str, choice: Choice, user_id: int) -> str:
        return f"{_PREFIX}:{approval_id}:{choice.value}:{self._sign(approval_id, choice, user_id)}"

    def verify(self, data: str, user_id: int) -> tuple[str, Choice]:
        """The approval id and choice in `data`, if it was signed for `user_id`."""
        if not data.isascii():
            raise ForgedPress("not an approval button")  # real button data is always ASCII
        parts = data.split(":")
        if len(parts) != 4 or parts[0] != _PREFIX:
            raise ForgedPress("not an approval button")
        _, approval_id, raw_choice, signature = parts
        try:
            choice = Choice(raw_choice)
        except ValueError:
            raise ForgedPress("unknown choice") from None
        if not self._mac.verifies(signature, approval_id, choice.value, user_id):
            raise ForgedPress("signature does not verify")
        return approval_id, choice


def new_approval_id() -> str:
    return secrets.token_urlsafe(9)


# KEYS[1] approval hash; ARGV: presser user id, new status, now.
_DECIDE = """
local owner = redis.call('HGET', KEYS[1], 'user_id')
if not owner then return {'not_found'} end
if owner ~= ARGV[1] then return {'not_owner'} end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'expired' then return {'expired', 'expired'} end
if status ~= 'pending' then return {'already_decided', status} end
if tonumber(ARGV[3]) > tonumber(redis.call('HGET', KEYS[1], 'expires_at')) then
  redis.call('HSET', KEYS[1], 'status', 'expired')
  return {'expired', 'expired'}
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'decided_at', ARGV[3])
return {'decided', ARGV[2]}
"""

# One script, so a request is never visible half-written (and a re-run never resets it).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'user_id', ARGV[2], 'status', 'pending', 'expires_at', ARGV[3])
redis.call('EXPIREAT', KEYS[1], ARGV[4])
return 1
"""

_EXPIRE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
if tonumber(ARGV[1]) < tonumber(redis.call('HGET', KEYS[1], 'expires_at')) then return 0 end
redis.call('HSET', KEYS[1], 'status', 'expired')
return 1
"""

# Records outlive their expiry by a week so a late press still gets a precise answer.
_RETENTION_SECONDS = 7 * 24 * 3600


class ApprovalStore:
    """Approval requests. A confidential user's request (the card's words) is sealed to their key; the
    owner, status and expiry stay readable for the scripts."""

    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)
        self._decide = redis.register_script(_DECIDE)
        self._expire = redis.register_script(_EXPIRE)
        self._create = redis.register_script(_CREATE)

    def create(self, request: ApprovalRequest) -> bool:
        """Store a new pending request; False (and nothing changed) if this id exists."""
        return bool(
            self._create(
                keys=[_KEY.format(request.id)],
                args=[
                    self._keys.seal_text(request.user_id, request.model_dump_json()),
                    str(request.user_id),
                    repr(request.expires_at),
                    int(request.expires_at) + _RETENTION_SECONDS,
                ],
            )
        )

    def reseal(self, approval_id: str) -> bool:
        """Seal a request kept in clear, now that its user turned confidential mode on; True if it was."""
        record, owner = self._redis.hmget(_KEY.format(approval_id), "record", "user_id")
        if record is None or owner is None or is_sealed(record):
            return False
        self._redis.hset(_KEY.format(approval_id), "record", self._keys.seal_text(int(owner), record.decode()))
        return True

    def expire(self, approval_id: str, now: float) -> bool:
        """Mark a still-pending request expired once its time is up; True if this call did."""
        return bool(self._expire(keys=[_KEY.format(approval_id)], args=[repr(now)]))

    def get(self, approval_id: str) -> tuple[ApprovalRequest, ApprovalStatus] | None:
        record, status, owner = self._redis.hmget(_KEY.format(approval_id), "record", "status", "user_id")
        if record is None:
            return None
        opened = self._keys.opener(int(owner)) if is_sealed(record) and owner else bytes
        return ApprovalRequest.model_validate_json(opened(record)), ApprovalStatus(_text(status))

    def decide(self, approval_id: str, user_id: int, choice: Choice, now: float) -> PressResult:
        """Record the owner's decision once; every other press learns why it did not count."""
        new_status = ApprovalStatus.denied if choice is Choice.deny else ApprovalStatus.approved
        if is_sealed(self._redis.hget(_KEY.format(approval_id), "record")) and self._keys.is_locked(user_id):
            raise Locked(user_id)  # nothing is decided: the press waits for the unlock, like the card
        result = self._decide(keys=[_KEY.format(approval_id)], args=[str(user_id), new_status.value, repr(now)])
        outcome = PressOutcome(_text(result[0]))
        status = ApprovalStatus(_text(result[1])) if len(result) > 1 else None
        stored = self.get(approval_id) if outcome is not PressOutcome.not_found else None
        return PressResult(outcome=outcome, status=status, request=stored[0] if stored else None)


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def user_approval_ids(redis: Redis, user_id: int) -> tuple[str, ...]:
    """The ids of every approval request asked of the user."""
    return ids_owned_by(redis, _KEY, user_id, lambda raw: raw["user_id"])


def erase_user_approvals(redis: Redis, owned: Owned) -> int:
    return delete_keys(redis, (_KEY.format(approval_id) for approval_id in owned.approval_ids))
