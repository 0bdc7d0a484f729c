"""Keeping a goal's prompt bounded however long the goal runs.

Three mechanisms, all deterministic (no model call):
- large tool results are stored whole aside and enter the transcript cut to a few
  thousand characters, with a handle the agent can read more through (`read_result`);
- in the prompt, tool results older than the last few turns shrink to a short excerpt;
- when the stored transcript grows long, the oldest complete turns are folded into a
  compact summary (one line per step) kept with the goal, and dropped from the transcript.
So the cost of a step depends on the recent turns, not on how many steps came before.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from deputy.agent.origins import Origin, for_model, origin_of, typed_words

RESULT_CHARS = 4000
OLD_RESULT_CHARS = 300
RECENT_TURNS = 3
MAX_STORED_MESSAGES = 40
KEEP_AFTER_FOLD = 16
MAX_SUMMARY_LINES = 20

Message = dict[str, Any]


def bounded_result(text: str, handle: str | None) -> str:
    """`text` cut to RESULT_CHARS, naming the handle to read the rest."""
    if len(text) <= RESULT_CHARS or handle is None:
        return text
    rest = len(text) - RESULT_CHARS
    return f"{text[:RESULT_CHARS]}\n[… {rest:,} more characters: call read_result with handle {handle!r}]"


class Folded(NamedTuple):
    messages: list[Message]
    summary: list[str]
    hidden: int
    typed: list[str]
    """What the user typed in the folded messages: still the user's words for the guard."""


def fold(messages: list[Message], summary: list[str], hidden: int) -> Folded:
    """Fold the oldest turns into summary lines once the transcript is long.

    The first message (the user's goal) always stays; the cut is placed before an
    assistant or user message so that every tool result stays with its call.
    """
    if len(messages) <= MAX_STORED_MESSAGES:
        return Folded(messages, summary, hidden, [])
    cut = len(messages) - KEEP_AFTER_FOLD
    while cut > 1 and messages[cut].get("role") == "tool":
        cut -= 1
    if cut <= 1:
        return Folded(messages, summary, hidden, [])
    lines = summary + _summarise(messages[1:cut])
    if len(lines) > MAX_SUMMARY_LINES:
        hidden += len(lines) - MAX_SUMMARY_LINES
        lines = lines[-MAX_SUMMARY_LINES:]
    typed = [words for m in messages[1:cut] if (words := typed_words(m)) is not None]
    return Folded([messages[0], *messages[cut:]], lines, hidden, typed)


def summary_text(summary: list[str], hidden: int) -> str:
    if not summary:
        return ""
    head = f"({hidden} earlier steps not shown)\n" if hidden else ""
    return "Summary of earlier steps of this goal:\n" + head + "\n".join(f"- {line}" for line in summary)


def prompt_view(messages: list[Message]) -> list[Message]:
    """The transcript as the model sees it: old tool results shortened, origin labels left out."""
    assistants = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    recent_from = assistants[-RECENT_TURNS] if len(assistants) >= RECENT_TURNS else 0
    view: list[Message] = []
    for index, message in enumerate(messages):
        if index < recent_from and message.get("role") == "tool":
            content = str(message.get("content") or "")
            if len(content) > OLD_RESULT_CHARS:
                message = {**message, "content": content[:OLD_RESULT_CHARS] + " […]"}
        kind = message.get("kind") if message.get("role") == "assistant" else None
        # The goal's kind rides along to the small-model wrapper, which takes it off before any request.
        view.append({**for_model(message), "kind": kind} if kind else for_model(message))
    return view


def _summarise(messages: list[Message]) -> list[str]:
    results = {m.get("tool_call_id"): str(m.get("content") or "") for m in messages if m.get("role") == "tool"}
    lines: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            # Only the user's own words are "User said": a part's instructions or a wake-up note
            # were written by the model, a file by someone else.
            lead = _LEADS[origin_of(message)]
            lines.append(f"{lead}: {_short(_text(message.get('content')), 160)}")
        elif role == "assistant":
            if message.get("content"):
                lines.append(f"You said: {_short(str(message['content']), 120)}")
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                arguments = _short(_compact_json(function.get("arguments", "")), 100)
                outcome = _short(results.get(call.get("id"), "(no result)"), 120)
                lines.append(f"{function.get('name')}({arguments}) → {outcome}")
    return lines


_LEADS = {Origin.user: "User said", Origin.model: "Note (not from the user)",
          Origin.outside: "Content from outside", Origin.deputy: "Deputy noted"}


def _text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _compact_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    except (ValueError, TypeError):
        return str(text)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
