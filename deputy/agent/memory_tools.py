"""The agent's memory tools: remember, recall, forget; and what each step is reminded of.

A fact is remembered as the user's own when its words come from what the user wrote in
this goal, or when the goal has read nothing from outside. Otherwise (the goal read an
email or a page) it is held as pending, the user gets Accept / Discard buttons, and it is
not used until accepted: injected text cannot plant a memory. Every write is audited.

The memory's text is the model's wording, so the guard never takes it as the user's word:
with it are kept the sentences the user typed that it rests on (`MemoryItem.said`), and
only those count as the user's in later goals.
"""

from __future__ import annotations

import re
import time
from typing import Callable

from pydantic import BaseModel, Field

from deputy.agent.goals import Goal
from deputy.agent.model.chat_model import ToolCall
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.memory import MemoryItem, MemoryKind, MemoryStore, MemoryTrust
from deputy.memory.ranking import overlap, stems
from deputy.memory.undo import offer_undo
from deputy.sentinel.stores.audit import AuditLog

TRACEABLE = 0.6
MAX_SAID_CHARS = 300
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


class RememberArgs(BaseModel):
    text: str = Field(min_length=3, max_length=300)
    kind: MemoryKind = MemoryKind.fact


class ForgetArgs(BaseModel):
    description: str = Field(min_length=2, max_length=300)


class RecallArgs(BaseModel):
    query: str = Field(min_length=1, max_length=300)


MEMORY_TOOLS = [
    {"type": "function", "function": {
        "name": "remember",
        "description": "Remember a lasting preference or fact about the user for future goals.",
        "parameters": {"type": "object", "properties": {
            "text": {"type": "string", "description": "What to remember, in one short sentence taken from the user's own words."},
            "kind": {"type": "string", "enum": ["preference", "fact", "person"]}}, "required": ["text"]}}},
    {"type": "function", "function": {
        "name": "forget_memory",
        "description": "Forget what you remember matching a description (the user asked you to).",
        "parameters": {"type": "object", "properties": {"description": {"type": "string"}},
                       "required": ["description"]}}},
    {"type": "function", "function": {
        "name": "recall",
        "description": "Search what you remember about the user.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}},
]


class MemoryTools:
    def __init__(
        self, store: MemoryStore, outbox: Outbox, audit: AuditLog, clock: Callable[[], float] = time.time
    ) -> None:
        self._store = store
        self._outbox = outbox
        self._audit = audit
        self._clock = clock

    def relevant(self, goal: Goal) -> list[str]:
        latest = next((m["content"] for m in reversed(goal.messages)
                       if m.get("role") == "user" and isinstance(m.get("content"), str)), "")
        items = self._store.relevant(goal.user_id, f"{goal.text} {latest}")
        return [item.text if item.trust is MemoryTrust.user else f"{item.text} (from {item.source})" for item in items]

    def count(self, user_id: int) -> int:
        """How many memories the user has (held ones included)."""
        return len(self._store.list(user_id))

    def remember(self, goal: Goal, args: RememberArgs) -> str:
        now = self._clock()
        user_words = goal.user_words()
        from_user = not goal.untrusted or overlap(args.text, user_words) >= TRACEABLE
        origins = sorted({item.origin for item in goal.untrusted})
        item = MemoryItem(
            text=args.text, kind=args.kind, trust=MemoryTrust.user if from_user else MemoryTrust.pending,
            source="you said so" if from_user else f"learned while reading {', '.join(origins[:2])}",
            said=supporting(args.text, user_words) if from_user else [], created_at=now, updated_at=now,
        )
        if self._store.add(goal.user_id, item) is None:
            return "Error: memory is full; ask the user to forget something in /memory first."
        self._audit.append(goal.user_id, "memory_added" if from_user else "memory_pending", now,
                           memory_id=item.id, text=item.text, source=item.source)
        if from_user:
            self._with_undo(goal, f"📝 Remembered: “{item.text}”", now, remembered=item)
            return f"Remembered: “{item.text}”."
        self._outbox.put(OutboxMessage(
            chat_id=goal.chat_id,
            text=f"Should I remember this?\n\n“{item.text}”\n\nI learned it while reading {', '.join(origins[:2])}, "
                 "not from you, so I won't use it unless you accept it.",
            buttons=[[Button(text="Accept", sign=f"ma:{item.id}"), Button(text="Discard", sign=f"md:{item.id}")]],
            dedupe_key=f"memory:{item.id}",
        ))
        return "Held for the user's approval: it came from outside content. Don't rely on it."

    def forget(self, goal: Goal, args: ForgetArgs) -> str:
        matches = [i for i in self._store.matching(goal.user_id, args.description) if
                   overlap(args.description, [i.text]) >= 0.5 or overlap(i.text, [args.description]) >= 0.5]
        for item in matches:
            self._store.forget(goal.user_id, item.id)
            self._audit.append(goal.user_id, "memory_forgotten", self._clock(), memory_id=item.id, text=item.text)
        if not matches:
            return "Nothing I remember matches that."
        forgotten = "; ".join(f"“{i.text}”" for i in matches)
        self._with_undo(goal, f"🗑 Forgot: {forgotten}", self._clock(), forgotten=matches)
        return "Forgotten: " + forgotten

    def _with_undo(self, goal: Goal, line: str, now: float, **change: object) -> None:
        """The next answer says `line` (whatever the model writes) and carries an Undo for it."""
        undo_id = offer_undo(self._store.redis, goal.user_id, goal.chat_id, goal.id, now, **change)  # type: ignore[arg-type]
        goal.confirmations = [*goal.confirmations, line]
        goal.memory_undos = [*goal.memory_undos, (f"Undo: {line.split(' ', 1)[1][:40]}", undo_id)]

    def recall(self, goal: Goal, args: RecallArgs) -> str:
        items = [i for i in self._store.relevant(goal.user_id, args.query, limit=10)]
        return "\n".join(f"- {i.text}" for i in items) or "I don't remember anything about that."


def memory_undo_buttons(goal: Goal) -> list[list[Button]]:
    """One Undo per memory change this answer tells of (`deputy.memory.undo`)."""
    return [[Button(text=label, sign=f"mu:{undo_id}")] for label, undo_id in goal.memory_undos]


def supporting(fact: str, user_words: list[str]) -> list[str]:
    """The sentences the user typed that share words with `fact` (the most telling first, at most 3)."""
    wanted = set(stems(fact))
    sentences = [s.strip() for text in user_words for s in _SENTENCE.split(text) if s.strip()]
    scored = sorted(((len(wanted & set(stems(s))), i) for i, s in enumerate(sentences)), key=lambda p: (-p[0], p[1]))
    return [sentences[i][:MAX_SAID_CHARS] for shared, i in scored[:3] if shared]


def parse(call: ToolCall, model: type[BaseModel]) -> BaseModel:
    from deputy.agent.tools import _validate  # one validation path for every tool

    return _validate(call, model)
