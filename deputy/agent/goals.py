"""Goals: what the user asked for, the conversation so far, the plan, and where it stands.

A goal is one JSON document in Redis, versioned (`schema_version`) and saved with a
compare-and-set on `revision`, so the bot and a worker can never overwrite each other's
checkpoint. Every step starts from the last saved checkpoint, which is what lets a goal
survive a killed worker.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, Callable

from pydantic import BaseModel, Field, PrivateAttr, model_validator
from redis import Redis

from deputy.agent.attachments import Attachment
from deputy.agent.earlier import Earlier
from deputy.agent.model.chat_model import ToolCall
from deputy.agent.origins import ORIGIN, label_legacy, typed_words
from deputy.agent.probes import Probe, ProbeState
from deputy.sentinel.provenance import UntrustedItem
from deputy.agent.goal_sealing import plain_json, record_json
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.keys import Opener
from deputy.core.records.erasure import Owned, delete_keys

_GOAL = "deputy:goal:{}"
_OWNER_FIELD = re.compile(rb'"user_id":\s*(-?\d+)')
_OWNER_PEEK_BYTES = 255
GOAL_KEY = _GOAL  # for readers that only peek at a goal's status (the model gateway)
_USER_GOALS = "deputy:user:{}:goals"
_AWAITING = "deputy:user:{}:awaiting"
_RESULT = "deputy:goal:{}:result:{}"
_RESULT_TTL = 30 * 24 * 3600
_FINISHED_CHILDREN = "deputy:goal:{}:finished_children"

# KEYS[1] goal; ARGV: expected revision, new JSON (already carrying revision + 1).
_SAVE = """
local raw = redis.call('GET', KEYS[1])
if raw then
  local current = cjson.decode(raw)['revision']
  if tostring(current) ~= ARGV[1] then return 0 end
elseif ARGV[1] ~= '-1' then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"""


class GoalStatus(str, Enum):
    running = "running"
    acting = "acting"
    waiting_approval = "waiting_approval"
    waiting_user = "waiting_user"
    paused = "paused"
    scheduled = "scheduled"
    waiting_children = "waiting_children"
    done = "done"
    failed = "failed"
    cancelled = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (GoalStatus.done, GoalStatus.failed, GoalStatus.cancelled)


class StepStatus(str, Enum):
    todo = "todo"
    doing = "doing"
    done = "done"


class PlanStep(BaseModel):
    title: str = Field(max_length=200)
    status: StepStatus = StepStatus.todo


class Monitor(BaseModel):
    """A goal that checks again later: when, how often, until when, how many times."""

    what: str = Field(max_length=300)
    every_seconds: float | None = None
    next_at: float
    until: float | None = None
    checks_done: int = 0
    max_checks: int = 20
    probe: Probe | None = Field(default=None, description="A read run at each check; the model wakes only on news.")
    probe_state: ProbeState = Field(default_factory=ProbeState)
    call_id: str | None = Field(default=None, description="The schedule_check call that set this monitor.")
    setup_note: str | None = Field(default=None, description="That call's answer, once the first reading is in.")
    setup_failed: bool = False
    probe_runs: int = 0
    news: int = Field(default=0, description="Checks whose probe found something new.")
    probe_action_id: str | None = Field(default=None, description="The probe action the goal waits for, if any.")
    timezone: str = Field(default="UTC", description="The user's zone: bare times are read and shown in it.")
    daily_at: str | None = Field(default=None, description="HH:MM: checks at this local time every day.")
    reminder: str | None = Field(default=None, description="A reminder: this text goes to the user at each time, "
                                                          "with no model call.")
    every_months: int | None = Field(default=None, description="Repeats on the same day of the month as `anchor_at`.")
    anchor_at: float | None = Field(default=None, description="The first time, for monthly repeats.")


class ModelWait(BaseModel):
    """The model request this goal's step waits for, when model calls go through the gateway."""

    request_id: str
    step: int


SCHEMA_VERSION = 2
"""2: every message carries its `origin` label; parts carry the user's words behind them."""


class Goal(BaseModel):
    schema_version: int = SCHEMA_VERSION
    revision: int = -1
    # The last move made on this copy (`goal_lifecycle.advance`), which names the job that follows it; never stored.
    _last_move: Any = PrivateAttr(default=None)
    id: str
    user_id: int
    chat_id: int
    text: str
    status: GoalStatus = GoalStatus.running
    step: int = 0
    steps_base: int = Field(default=0, description="Where the step budget restarts after /retry or an answer.")
    tokens_base: int = Field(default=0, description="Where the token budget restarts after the user says continue.")
    loop_signatures: list[str] = Field(default_factory=list, description="Recent (call, result) digests.")
    paused_from: GoalStatus | None = None
    parent_id: str | None = None
    depth: int = 0
    children: list[str] = Field(default_factory=list)
    result: str | None = Field(default=None, description="A sub-goal's answer for its parent.")
    monitor: Monitor | None = None
    attachments: list[Attachment] = Field(default_factory=list, description="Files sent with the goal, unread.")
    messages: list[dict[str, Any]] = Field(default_factory=list, description="Each labelled with its origin.")
    inherited_words: list[str] = Field(
        default_factory=list, description="A part's intent: the user's own words behind the goal it was split from."
    )
    folded_words: list[str] = Field(
        default_factory=list, description="What the user typed in messages since folded into `summary`."
    )
    earlier: Earlier | None = Field(default=None, description="The user's previous request this one follows up.")
    done: list[str] = Field(default_factory=list, description="What the goal's actions did, one line each (by code).")
    last_told: str | None = Field(default=None, description="The last message sent to the user about this goal.")
    plan: list[PlanStep] = Field(default_factory=list)
    pending_calls: list[ToolCall] = Field(default_factory=list)
    pending_action_id: str | None = None
    waiting_model: ModelWait | None = None
    untrusted: list[UntrustedItem] = Field(
        default_factory=list, description="Outside content this goal has seen, for provenance checks."
    )
    risk_notes: list[str] = Field(default_factory=list, description="Injection warnings on that content.")
    unconfirmed: list[str] = Field(
        default_factory=list,
        description="Actions whose outcome stayed unknown (the user dropped them): said with the next answer, "
        "whatever the model claims.",
    )
    confirmations: list[str] = Field(
        default_factory=list,
        description="What the next answer must tell the user (the day and time a calendar write used, what was "
        "remembered), one line each: added to it when the model's words leave it out.",
    )
    memory_undos: list[tuple[str, str]] = Field(
        default_factory=list,
        description="(label, undo id) of each memory change the next answer tells of: its Undo buttons.")
    answer_rechecked: bool = Field(
        default=False, description="The model's last answer stated facts nothing backs and was sent back once.")
    summary: list[str] = Field(default_factory=list, description="One line per step folded out of `messages`.")
    summary_hidden: int = 0
    results_stored: int = 0
    model_attempts: int = 0
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    created_at: float
    updated_at: float

    @model_validator(mode="before")
    @classmethod
    def _label_messages(cls, data: Any) -> Any:
        # Records written before labels (schema 1) get the labels their writers implied.
        if not isinstance(data, dict) or not data.get("messages"):
            return data
        if data.get("schema_version") == SCHEMA_VERSION and all(ORIGIN in m or m.get("role") != "user"
                                                                 for m in data["messages"]):
            return data
        legacy = int(data.get("schema_version", SCHEMA_VERSION)) < 2
        messages = label_legacy(list(data["messages"]), is_part=data.get("parent_id") is not None,
                                goal_text=str(data.get("text", "")), legacy=legacy)
        return {**data, "messages": messages, "schema_version": SCHEMA_VERSION}

    def user_words(self) -> list[str]:
        """Only what the user typed for this goal: the goal, their answers and edits.

        A part of a split goal has the user's words of the goal it was split from, never the
        instructions the model wrote for it; a follow-up has the user's words of the request it
        follows. Model text, outside content and Deputy's notes are never here, whatever role
        they were shown to the model in.
        """
        typed = [words for m in self.messages if (words := typed_words(m)) is not None]
        # In the order they were said: the goal (its first message is never folded), then the rest.
        first = typed[:1] if self.messages and typed_words(self.messages[0]) is not None else []
        earlier = self.earlier.words if self.earlier is not None else []
        return [*earlier, *self.inherited_words, *first, *self.folded_words, *typed[len(first):]]


def goal_key(goal_id: str) -> str:
    """The Redis key of a goal's record (for hot paths that only ask whether it exists)."""
    return _GOAL.format(goal_id)


def awaiting_key(user_id: int) -> str:
    """Holds the id of the goal waiting for this user's answer, if any (see `GoalStore.awaiting_answer`)."""
    return _AWAITING.format(user_id)


class ConcurrentUpdate(Exception):
    """Someone else saved the goal since it was loaded: reload and decide again."""


class GoalStore:
    """Goal records; a confidential user's are sealed (`deputy.agent.goal_sealing`) and `get` raises `Locked` while
    the user is locked."""

    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._save = redis.register_script(_SAVE)
        self._keys = keys if keys is not None else confidential_keys(redis)

    @property
    def keys(self) -> ConfidentialKeys:
        """The confidential keys this store seals and opens goals with."""
        return self._keys

    def get(self, goal_id: str) -> Goal | None:
        return self.parse(self._redis.get(_GOAL.format(goal_id)))

    def parse(self, raw: bytes | None, opener: Opener | None = None) -> Goal | None:
        """The goal in a record as stored at `goal_key`, read by the caller (with other keys, in one round
        trip); `opener` opens a sealed one with the unlocked key the caller read too."""
        return Goal.model_validate_json(plain_json(raw, self._keys, opener)) if raw else None

    def exists(self, goal_id: str) -> bool:
        """Whether the goal is stored (no need to open it: true of a locked user's goal too)."""
        return bool(self._redis.exists(_GOAL.format(goal_id)))

    def owner(self, goal_id: str) -> int | None:
        """Whose goal this is, read from the head of its record (the id fields come first) without loading it all."""
        head = self._redis.getrange(_GOAL.format(goal_id), 0, _OWNER_PEEK_BYTES)
        found = _OWNER_FIELD.search(head or b"")
        return int(found.group(1)) if found else None

    def save(self, goal: Goal) -> Goal:
        """Checkpoint `goal`; raises ConcurrentUpdate if it changed since it was loaded."""
        saved = goal.model_copy(update={"revision": goal.revision + 1})
        stored = record_json(saved, self._keys.public_key(goal.user_id))
        if not self._save(keys=[_GOAL.format(goal.id)], args=[str(goal.revision), stored]):
            raise ConcurrentUpdate(goal.id)
        if goal.revision == -1:
            self._redis.zadd(_USER_GOALS.format(goal.user_id), {goal.id: goal.created_at})
        self._sync_awaiting(saved)
        return saved

    @staticmethod
    def queue_create(pipe: Any, goal: Goal, public_key: bytes | None = None) -> Goal:
        """Queue a new goal's first save on a (sync or asyncio) pipeline, for one round trip with other writes.

        The same records as `save` for a goal never saved before (its id is new and random, so
        nobody else can have saved it); the pipeline's first result is falsy if the id was taken.
        `public_key`: the user's confidential key, if they have one (the goal is sealed to it).
        """
        if goal.revision != -1:
            raise ValueError("queue_create is for a goal never saved before")
        saved = goal.model_copy(update={"revision": 0})
        pipe.set(_GOAL.format(goal.id), record_json(saved, public_key), nx=True)
        pipe.zadd(_USER_GOALS.format(goal.user_id), {goal.id: goal.created_at})
        if saved.status is GoalStatus.waiting_user:
            pipe.set(_AWAITING.format(goal.user_id), goal.id)
        return saved

    def update(self, goal_id: str, change: Callable[[Goal], Goal | None]) -> Goal | None:
        """Load, apply `change` and save, retrying on concurrent updates.

        `change` returns the goal to save, or None to leave it as it is.
        """
        while True:
            goal = self.get(goal_id)
            if goal is None:
                return None
            changed = change(goal)
            if changed is None:
                return goal
            try:
                return self.save(changed)
            except ConcurrentUpdate:
                continue

    def child_finished(self, parent_id: str, child_id: str) -> tuple[bool, int]:
        """Record that a sub-goal ended: (newly recorded, how many have ended so far)."""
        key = _FINISHED_CHILDREN.format(parent_id)
        pipe = self._redis.pipeline()
        pipe.sadd(key, child_id)
        pipe.scard(key)
        pipe.expire(key, _RESULT_TTL)
        added, count, _ = pipe.execute()
        return bool(added), int(count)

    def store_result(self, goal_id: str, handle: str, text: str, user_id: int) -> None:
        """Keep a large tool result whole, for the agent to read in parts (`read_result`); sealed for a
        confidential user."""
        self._redis.set(_RESULT.format(goal_id, handle), self._keys.seal_text(user_id, text), ex=_RESULT_TTL)

    def result(self, goal_id: str, handle: str, user_id: int) -> str | None:
        raw = self._redis.get(_RESULT.format(goal_id, handle))
        return self._keys.open_text(user_id, raw) if raw is not None else None

    def recent(self, user_id: int, limit: int = 10) -> list[Goal]:
        """The user's latest goals, newest first; `Locked` while a confidential user is locked."""
        ids = self._redis.zrevrange(_USER_GOALS.format(user_id), 0, limit - 1)
        goals = (self.get(i.decode()) for i in ids)
        return [g for g in goals if g is not None]

    def awaiting_answer(self, user_id: int) -> str | None:
        """The goal that asked this user a question and waits for the answer, if any."""
        raw = self._redis.get(_AWAITING.format(user_id))
        return raw.decode() if raw else None

    def _sync_awaiting(self, goal: Goal) -> None:
        key = _AWAITING.format(goal.user_id)
        if goal.status is GoalStatus.waiting_user:
            self._redis.set(key, goal.id)
        elif self._redis.get(key) == goal.id.encode():
            self._redis.delete(key)


def user_goal_ids(redis: Redis, user_id: int) -> tuple[str, ...]:
    """Every goal of the user, oldest first."""
    return tuple(g.decode() for g in redis.zrange(_USER_GOALS.format(user_id), 0, -1))


def goal_count(redis: Redis, user_id: int) -> int:
    """How many goals the user has (readable while a confidential user is locked)."""
    return int(redis.zcard(_USER_GOALS.format(user_id)))


def erase_user_goals(redis: Redis, owned: Owned) -> int:
    """The user's goal records and what is kept per goal (large results, finished children)."""
    keys: set[bytes] = set()
    for goal_id in owned.goal_ids:
        keys.add(_GOAL.format(goal_id).encode())
        keys |= set(redis.scan_iter(_GOAL.format(goal_id) + ":*"))
    return delete_keys(redis, keys)
