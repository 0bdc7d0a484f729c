"""Goals: what the user asked for, the conversation so far, the plan, and where it stands.

A goal is one JSON document in Redis, versioned (`schema_version`) and saved with a
compare-and-set on `revision`, so the bot and a worker can never overwrite each other's
checkpoint. Every step starts from the last saved checkpoint, which is what lets a goal
survive a killed worker. What the goal read from outside (`Goal.untrusted`) is kept beside
the record, in an append-only list (`deputy.agent.goal_reads`), so the record stays small, and
fetched only when something looks at it (`deputy.agent.stored_reads`), so a step reads the record alone.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, Callable

from pydantic import BaseModel, Field, PrivateAttr, SerializerFunctionWrapHandler, field_serializer, model_validator
from redis import Redis
from redis.exceptions import WatchError

from deputy.agent.attachments import Attachment
from deputy.agent.earlier import Earlier
from deputy.agent.goal_monitor import Monitor
from deputy.agent.goal_tally import GoalTally
from deputy.agent.model.chat_model import ToolCall
from deputy.agent.origins import ORIGIN, label_legacy, typed_words
from deputy.sentinel.provenance import UntrustedItem
from deputy.agent.goal_reads import SAVE, ReadsNotLoaded, decode_reads, encode_reads, reads_key
from deputy.agent.goal_sealing import plain_json, record_json
from deputy.agent.stored_reads import StoredReads
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.keys import Opener
from deputy.core.confidential.sealing import is_sealed
from deputy.core.infrastructure import step_reads
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


class ModelWait(BaseModel):
    """The model request this goal's step waits for, when model calls go through the gateway."""

    request_id: str
    step: int


SCHEMA_VERSION = 3
"""2: every message carries its `origin` label; parts carry the user's words behind them.
3: `untrusted` is kept in the goal's reads list beside the record (`deputy.agent.goal_reads`), counted by
`reads_stored`; a record of 2 or less carries it inline, moved to the list at its next save."""


class Goal(BaseModel):
    schema_version: int = SCHEMA_VERSION
    revision: int = -1
    # The last move made on this copy (`goal_lifecycle.advance`), which names the job that follows it; never stored.
    _last_move: Any = PrivateAttr(default=None)
    # Parsed from a record without its reads list (`GoalStore.parse(..., reads=None)`): `untrusted` is not all
    # the goal read, so this copy must never be saved.
    _reads_missing: bool = PrivateAttr(default=False)
    id: str
    user_id: int
    chat_id: int
    # Status, step and the model request waited for come right after the ids: the model gateway reads them from
    # the record's head (`deputy.gateway.goal_heads`) without loading a record of tens of KB for each call.
    status: GoalStatus = GoalStatus.running
    step: int = 0
    waiting_model: ModelWait | None = None
    text: str
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
    wrote: str | None = Field(default=None, description="The last email its actions sent or drafted (by code).")
    spoken: bool = Field(default=False, description="The user asked for it in a voice note (spoken replies).")
    plan: list[PlanStep] = Field(default_factory=list)
    tally: GoalTally = Field(default_factory=GoalTally, description="What the goal's actions came to, by code.")
    pending_calls: list[ToolCall] = Field(default_factory=list)
    pending_action_id: str | None = None
    untrusted: list[UntrustedItem] = Field(
        default_factory=list, description="Outside content this goal has seen, for provenance checks; only "
        "appended to. Stored beside the record, in its reads list, not in it."
    )
    reads_stored: int = Field(default=0, description="How many of `untrusted` the goal's reads list holds.")
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

    @field_serializer("untrusted", mode="wrap")
    def _every_read(self, untrusted: list[UntrustedItem], handler: SerializerFunctionWrapHandler) -> Any:
        # A loaded goal's reads are fetched when looked at (`StoredReads`); dumped, they are all there.
        return handler(list(untrusted))

    @model_validator(mode="before")
    @classmethod
    def _label_messages(cls, data: Any) -> Any:
        # Records written before labels (schema 1) get the labels their writers implied.
        if not isinstance(data, dict) or not data.get("messages"):
            return data
        if int(data.get("schema_version", SCHEMA_VERSION)) >= 2 and all(ORIGIN in m or m.get("role") != "user"
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


_NOT_IN_RECORD = {"untrusted"}  # kept in the reads list beside the record


def _stored(goal: Goal, revision: int) -> tuple[Goal, list[UntrustedItem]]:
    """The copy of `goal` to store at `revision`, and the reads it appends to its list.

    The list already holds the first `reads_stored` items of a goal saved before (a new goal's list is
    empty, whatever count a copy it was made from carried); a copy parsed without them cannot say
    which of its items are new, so it is refused rather than lose or repeat any.
    """
    if goal._reads_missing:
        raise ReadsNotLoaded(f"goal {goal.id} was read without its reads list and cannot be saved")
    start = 0 if goal.revision == -1 else goal.reads_stored
    if len(goal.untrusted) < start:
        raise ReadsNotLoaded(f"goal {goal.id} holds fewer reads than its list: some were dropped")
    saved = goal.model_copy(update={"revision": revision, "schema_version": SCHEMA_VERSION,
                                    "reads_stored": len(goal.untrusted)})
    reads = goal.untrusted
    if isinstance(reads, StoredReads) and goal.revision != -1 and reads.stored == start:
        return saved, reads.appended()  # what was read since the load, without fetching what was read before
    return saved, list(reads)[start:]


def _appended(saved: Goal) -> None:
    """`saved` was written: its reads list holds all its reads now."""
    if isinstance(saved.untrusted, StoredReads):
        saved.untrusted.mark_stored(saved.reads_stored)


def did_work(goal: Goal) -> bool:
    """The goal read or did something (its page has more to show than the answer): a tool ran, or steps were folded."""
    return bool(goal.summary) or any(m.get("role") == "tool" for m in goal.messages)


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
        self._keys = keys if keys is not None else confidential_keys(redis)

    @property
    def keys(self) -> ConfidentialKeys:
        """The confidential keys this store seals and opens goals with."""
        return self._keys

    def get(self, goal_id: str) -> Goal | None:
        """The goal, with everything it read: its record now, its reads list when something looks at
        `untrusted` (`StoredReads`), so a step that never does reads only the record."""
        key = _GOAL.format(goal_id)
        return self._with_stored_reads(self.parse(step_reads.read(("GET", key), lambda: self._redis.get(key)),
                                                  reads=None))

    def _with_stored_reads(self, goal: Goal | None) -> Goal | None:
        if goal is None or not goal._reads_missing:
            return goal  # nothing in the list (or a record from before it, with its reads inline)
        key, opener = reads_key(goal.id), self._keys.opener(goal.user_id, goal.chat_id)

        def fetch(count: int) -> list[UntrustedItem]:
            return decode_reads(self._redis.lrange(key, 0, count - 1), opener)

        goal.untrusted = StoredReads(fetch, goal.reads_stored)
        goal._reads_missing = False
        return goal

    def parse(self, raw: bytes | None, opener: Opener | None = None, *, reads: list[bytes] | None) -> Goal | None:
        """The goal in a record as stored at `goal_key`, with its reads list as stored at `reads_key`, both read
        by the caller (with other keys, in one round trip); `opener` opens sealed ones with the unlocked key the
        caller read too. `reads=None`: a caller that never needs what the goal read (its `untrusted` is then
        incomplete, and saving that copy raises `ReadsNotLoaded`)."""
        if not raw:
            return None
        goal = Goal.model_validate_json(plain_json(raw, self._keys, opener))
        if reads is None:
            goal._reads_missing = goal.reads_stored > 0
            return goal
        if goal.reads_stored:
            items = decode_reads(reads[:goal.reads_stored], opener or self._keys.opener(goal.user_id, goal.chat_id))
            # A record written before the reads list carries its items inline (`reads_stored` 0 then).
            goal.untrusted = [*goal.untrusted, *items]
        return goal

    def exists(self, goal_id: str) -> bool:
        """Whether the goal is stored (no need to open it: true of a locked user's goal too)."""
        return bool(self._redis.exists(_GOAL.format(goal_id)))

    def owner(self, goal_id: str) -> int | None:
        """Whose goal this is, read from the head of its record (the id fields come first) without loading it all."""
        head = self._redis.getrange(_GOAL.format(goal_id), 0, _OWNER_PEEK_BYTES)
        found = _OWNER_FIELD.search(head or b"")
        return int(found.group(1)) if found else None

    def save(self, goal: Goal) -> Goal:
        """Checkpoint `goal` and append what it read since it was loaded; raises ConcurrentUpdate if it changed
        since it was loaded."""
        step_reads.forget(_GOAL.format(goal.id))  # written now, or changed by someone else: read anew either way
        public = self._keys.public_key(goal.user_id)
        saved, new_reads = _stored(goal, goal.revision + 1)
        record = record_json(saved, public, exclude=_NOT_IN_RECORD)
        waiting = "1" if saved.status is GoalStatus.waiting_user else "0"
        args = [str(goal.revision), record, goal.id, waiting, *encode_reads(new_reads, public)]
        if not SAVE.run(self._redis, [_GOAL.format(goal.id), reads_key(goal.id), _AWAITING.format(goal.user_id)],
                        args):
            raise ConcurrentUpdate(goal.id)
        _appended(saved)
        if goal.revision == -1:
            self._redis.zadd(_USER_GOALS.format(goal.user_id), {goal.id: goal.created_at})
        return saved

    @staticmethod
    def queue_create(pipe: Any, goal: Goal, public_key: bytes | None = None) -> Goal:
        """Queue a new goal's first save on a (sync or asyncio) pipeline, for one round trip with other writes.

        The same records as `save` for a goal never saved before (its id is new and random, so
        nobody else can have saved it, nor left a reads list); the pipeline's first result is falsy if
        the id was taken. `public_key`: the user's confidential key, if they have one (the goal is sealed to it).
        """
        if goal.revision != -1:
            raise ValueError("queue_create is for a goal never saved before")
        saved, new_reads = _stored(goal, 0)
        pipe.set(_GOAL.format(goal.id), record_json(saved, public_key, exclude=_NOT_IN_RECORD), nx=True)
        if new_reads:
            pipe.rpush(reads_key(goal.id), *encode_reads(new_reads, public_key))
        pipe.zadd(_USER_GOALS.format(goal.user_id), {goal.id: goal.created_at})
        if saved.status is GoalStatus.waiting_user:
            pipe.set(_AWAITING.format(goal.user_id), goal.id)
        return saved

    def update(self, goal_id: str, change: Callable[[Goal], Goal | None],
               also: Callable[[Any, Goal], None] | None = None) -> Goal | None:
        """Load, apply `change` and save, retrying on concurrent updates.

        `change` returns the goal to save, or None to leave it as it is. `also(pipeline, saved)`
        queues more writes that must land together with the save (the job that follows a move):
        both are written in one MULTI or neither, so a crash or a Redis restart between them
        cannot leave a goal that moved on with no job to take it further.
        """
        if also is not None:
            return self._update_with(goal_id, change, also)
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

    def _update_with(self, goal_id: str, change: Callable[[Goal], Goal | None],
                     also: Callable[[Any, Goal], None]) -> Goal | None:
        key, reads = _GOAL.format(goal_id), reads_key(goal_id)
        step_reads.forget(key)
        while True:
            with self._redis.pipeline() as pipe:
                try:
                    pipe.watch(key, reads)
                    # Read after WATCH: a change since fails EXEC (the reads list's too, fetched when looked at).
                    goal = self._with_stored_reads(self.parse(self._redis.get(key), reads=None))
                    if goal is None:
                        return None
                    changed = change(goal)
                    if changed is None:
                        # Unchanged: any earlier save of this move (one whose reply a Redis restart lost
                        # too) wrote its job with it.
                        return goal
                    public = self._keys.public_key(goal.user_id)
                    saved, new_reads = _stored(changed, changed.revision + 1)
                    pipe.multi()
                    pipe.set(key, record_json(saved, public, exclude=_NOT_IN_RECORD))
                    if new_reads:
                        pipe.rpush(reads, *encode_reads(new_reads, public))
                    also(pipe, saved)
                    pipe.execute()
                except WatchError:
                    continue
            _appended(saved)
            self._sync_awaiting(saved)
            return saved

    def reseal_reads(self, goal_id: str, user_id: int) -> int:
        """Seal the elements of the goal's reads list still in clear (confidential mode was just turned on);
        how many were sealed. Only the form of an element changes, never its place or what it says."""
        key, sealed = reads_key(goal_id), 0
        for index, element in enumerate(self._redis.lrange(key, 0, -1)):
            if not is_sealed(element):
                self._redis.lset(key, index, self._keys.seal_bytes(user_id, element))
                sealed += 1
        return sealed

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
    """The user's goal records and what is kept per goal (what it read, large results, finished children)."""
    keys: set[bytes] = set()
    for goal_id in owned.goal_ids:
        keys.add(_GOAL.format(goal_id).encode())
        keys.add(reads_key(goal_id).encode())  # what it read (the scan below finds it too)
        keys |= set(redis.scan_iter(_GOAL.format(goal_id) + ":*"))
    return delete_keys(redis, keys)
