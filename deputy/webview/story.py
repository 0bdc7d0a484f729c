"""A goal's story as its records tell it: the transcript (each message with who wrote it), each
action with its audit entries (the guard's review, the question to the user, the decision, what
ran) and where each of its values came from.

Everything is read from the stores the bot and the executor write; nothing here decides. A
confidential user's records raise `Locked` while they are locked (the app shows "unlock first").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from redis import Redis

from deputy.agent.goal_provenance import contacts, provenance_from
from deputy.agent.goals import Goal, GoalStore
from deputy.agent.guard_view import guard_view
from deputy.agent.origins import Origin, origin_of
from deputy.core.records.effects import EffectClass
from deputy.core.records.send_window import SendState
from deputy.core.records.send_window_store import SendWindowStore
from deputy.core.records.undo_store import UndoState, UndoStore
from deputy.memory import MemoryStore
from deputy.sentinel.provenance import UntrustedItem
from deputy.sentinel.stores.action_store import ActionRecord, ActionStore
from deputy.sentinel.stores.approvals import ApprovalRequest, ApprovalStatus, ApprovalStore
from deputy.sentinel.stores.audit import AuditEntry, AuditLog
from deputy.sentinel.value_sources import Flow, value_flows


@dataclass
class ActionStory:
    record: ActionRecord
    entries: list[AuditEntry] = field(default_factory=list)
    flows: list[Flow] = field(default_factory=list)
    """Where each value came from, as the guard's last review of the action traced it."""
    flows_now: bool = False
    """The flows were traced now, from what the goal holds today (its review kept none)."""
    pending: ApprovalRequest | None = None
    """The question still open on this action (Approve / Deny offered), if any."""
    undo: str | None = None
    """What Undo would stop, when the chat offers it: "send" (a message in its send window) or "change"
    (a change that can still be taken back)."""


@dataclass
class Step:
    """One entry of the goal's timeline."""

    kind: str  # "user", "model", "read", "deputy", "action"
    text: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, arguments) of a model step's tool calls."""
    origin: str | None = None
    """Where a read came from (outside content)."""
    action: ActionStory | None = None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def _origin_of_read(text: str, untrusted: list[UntrustedItem]) -> str | None:
    for item in untrusted:
        if item.text and (item.text in text or text in item.text):
            return item.origin
    return None


def reviewed_flows(entries: list[AuditEntry]) -> list[Flow] | None:
    """The sources the guard's last review of the action traced (kept with its audit entry); None if it kept none."""
    for entry in reversed(entries):
        sources = entry.detail.get("sources") if entry.kind == "review" else None
        if isinstance(sources, list):
            try:
                return [Flow.model_validate(s) for s in sources]
            except ValueError:  # not a picture this version can draw
                return None
    return None


def undo_offered(redis: Redis, action_id: str, now: float) -> str | None:
    """ "send" while the action's message waits in its send window, "change" while its change can be
    taken back, else None (the chat's Undo buttons are offered on the same records)."""
    held = SendWindowStore(redis).get(action_id)
    if held is not None and held.state in (SendState.waiting, SendState.editing) and held.due > now:
        return "send"
    undo = UndoStore(redis).get(action_id)
    if undo is not None and undo.state is UndoState.open and undo.until > now:
        return "change"
    return None


def goal_actions(redis: Redis, audit: AuditLog, goal: Goal, now: float) -> dict[str, ActionStory]:
    """The goal's actions by tool call id, each with its audit entries in order and its open question."""
    actions, approvals = ActionStore(redis), ApprovalStore(redis)
    stories: dict[str, ActionStory] = {}
    seen: dict[str, ActionRecord | None] = {}
    for entry in audit.entries(goal.user_id):
        action_id = entry.detail.get("action_id")
        if not isinstance(action_id, str):
            continue
        if action_id not in seen:
            seen[action_id] = actions.get(action_id)
        record = seen[action_id]
        if record is None or record.action.goal_id != goal.id or record.action.user_id != goal.user_id:
            continue
        story = stories.setdefault(record.action.tool_call_id, ActionStory(record))
        story.entries.append(entry)
    for story in stories.values():
        story.undo = undo_offered(redis, story.record.action.id, now)
        if story.record.approval_id:
            stored = approvals.get(story.record.approval_id)
            if stored is not None and stored[1] is ApprovalStatus.pending:
                story.pending = stored[0]
    return stories


def goal_story(redis: Redis, goals: GoalStore, audit: AuditLog, goal: Goal, now: float) -> list[Step]:
    """The goal's timeline: what the user said, each model step and its tool calls, each read with
    its origin, each action with its story, in the order they happened."""
    stories = goal_actions(redis, audit, goal, now)
    seen = guard_view(goals, goal)
    for story in stories.values():  # reading is never a reason to ask: only what acts has a diagram
        if story.record.action.effect is not EffectClass.read:
            kept = reviewed_flows(story.entries)
            if kept is None:  # reviewed before reviews kept their picture: traced from what the goal holds now
                context = provenance_from(seen, MemoryStore(redis).list(goal.user_id), contacts(redis, goal.user_id), [])
                kept, story.flows_now = value_flows(story.record.action, context), True
            story.flows = kept
    steps: list[Step] = [Step("deputy", f"(earlier, folded) {line}") for line in goal.summary]
    placed: set[str] = set()
    for message in goal.messages:
        role, origin = message.get("role"), origin_of(message)
        text = _text(message.get("content"))
        if role == "assistant":
            calls = [(str((c.get("function") or {}).get("name", c.get("name", ""))),
                      str((c.get("function") or {}).get("arguments", c.get("arguments", ""))))
                     for c in message.get("tool_calls") or [] if isinstance(c, dict)]
            steps.append(Step("model", text, calls))
            for call in message.get("tool_calls") or []:
                story = stories.get(str(call.get("id"))) if isinstance(call, dict) else None
                if story is not None:
                    steps.append(Step("action", action=story))
                    placed.add(story.record.action.tool_call_id)
        elif role == "tool":
            steps.append(Step("read", text, origin=_origin_of_read(text, seen.untrusted) or "a tool's result"))
        elif origin is Origin.user:
            steps.append(Step("user", text))
        elif origin is Origin.outside:
            steps.append(Step("read", text, origin="a file you sent"))
        elif origin is Origin.model:
            steps.append(Step("model", text))
        else:
            steps.append(Step("deputy", text))
    # Actions whose model step was folded away still belong to the story.
    steps += [Step("action", action=s) for call_id, s in stories.items() if call_id not in placed]
    return steps


def arguments_text(raw: str) -> str:
    """A tool call's arguments, indented for reading."""
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except ValueError:
        return raw
