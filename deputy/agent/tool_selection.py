"""Fewer tools for small models: keep the ones a goal is likely to need.

A 1.5B model shown fifty tool schemas picks worse and reads a ~10,000-token prompt before
every step (about a minute on two cores). `select_tools` keeps the agent's essential tools,
the tools the goal already used, and the tools whose names and descriptions share the most
words with what the user wrote, up to a limit. It is a pure function of (tools, transcript):
the same goal gets the same tools on every step, which also lets the model server reuse its
cached prompt.

The first step of a goal of a known shape ("email ann@…: …", a question about the inbox, a page's
address; see `deputy.agent.goal_shapes`) is offered only the tools that shape can rightly start with.
"""

from __future__ import annotations

import re
from typing import Any

from deputy.agent.goal_shapes import OWN_TOOLS, first_step_tools

ALWAYS = ("reply", "update_plan", "remember")
"""Kept whatever the goal says: answering, planning and remembering are part of every goal."""

_WORD = re.compile(r"[a-z0-9]+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://|www\.|\b[\w-]+\.(?:com|org|net|io|dev)\b")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "get", "go", "has", "have",
    "how", "i", "if", "in", "is", "it", "its", "me", "my", "of", "on", "or", "our", "please", "so", "that",
    "the", "their", "them", "then", "there", "this", "to", "up", "us", "was", "we", "what", "when", "where",
    "which", "who", "will", "with", "you", "your", "one", "some", "any", "all", "not", "no", "new"
})
# Everyday words mapped to the words tool names and descriptions use.
_SYNONYMS_TEXT = {
    "mail": "email", "inbox": "email search", "wrote": "email search", "sent": "email", "write": "email",
    "message": "email", "reply": "email search", "did": "search", "check": "search", "answer": "email", "draft": "email",
    "meeting": "event calendar meeting schedule", "appointment": "event calendar", "calendar": "event",
    "schedule": "event calendar", "invite": "meeting event", "busy": "free busy", "free": "busy",
    "tomorrow": "event", "monday": "event", "tuesday": "event", "wednesday": "event", "thursday": "event",
    "friday": "event", "saturday": "event", "sunday": "event", "week": "event",
    "cancel": "cancel event", "move": "move event", "reschedule": "move event", "lunch": "event", "dinner": "event",
    "website": "page web open", "site": "page web open", "link": "page open", "url": "page open",
    "look": "search", "find": "search", "google": "search web", "news": "search web",
    "buy": "order shop product search web", "purchase": "order shop search web", "train": "search web",
    "bus": "search web", "hotel": "trip hotels search web", "weather": "search web", "recipe": "search web", "cheap": "search web", "shop": "product order", "order": "shop",
    "table": "restaurant book reservation", "restaurant": "book reservation", "reserve": "book reservation",
    "book": "reservation", "ticket": "event ticket", "concert": "ticket event",
    "flight": "flights trip search web", "flights": "trip", "trip": "plan flights hotels",
    "travel": "trip flights", "fare": "flights fares check", "holiday": "trip", "vacation": "trip",
    "price": "search web check", "drop": "check schedule", "below": "check",
    "remind": "check schedule", "monitor": "check schedule", "watch": "check", "notify": "check",
    "forget": "forget memory", "prefer": "remember", "favourite": "remember", "favorite": "remember",
    "allergic": "remember", "remember": "memory",
}


def select_tools(
    tools: list[dict[str, Any]], messages: list[dict[str, Any]], limit: int | None, always: tuple[str, ...] = ALWAYS
) -> list[dict[str, Any]]:
    """At most `limit` of `tools` (OpenAI function tools) for this transcript, in their given order.

    `always` tools and tools already called in the transcript are kept even past the limit;
    the rest of the room goes to the best keyword matches (ties: earlier tools first). Tools
    that match nothing are left out. `limit=None` keeps every tool. Before the goal's first call,
    a goal of a known shape gets only the tools its shape starts with (when any is on offer).
    """
    if limit is None or len(tools) <= limit:
        return tools
    request = _request_text(messages)
    used = _called(messages)
    wanted = keywords(request)
    if not used:
        shaped = first_step_tools(request) or frozenset()
        first = [tool for tool in tools if _name(tool) in shaped]
        if first:
            # A service the user connected themselves that fits the goal's words stays on offer too.
            theirs = connected_fit(tools, messages, limit - len(first))
            return [tool for tool in tools if tool in first or tool in theirs]
    keep = {name for name in (_name(t) for t in tools) if name in always or name in used}
    scored = sorted(
        ((_score(tool, wanted), index) for index, tool in enumerate(tools) if _name(tool) not in keep),
        key=lambda pair: (-pair[0], pair[1]),
    )
    room = max(limit - len(keep), 0)
    chosen = {index for score, index in scored[:room] if score > 0}
    return [tool for index, tool in enumerate(tools) if _name(tool) in keep or index in chosen]


def keywords(text: str) -> set[str]:
    """Content words of `text`, lower-cased, lightly stemmed, with everyday synonyms added."""
    lowered = text.lower()
    words = {_stem(w) for w in _WORD.findall(lowered) if w not in _STOP and len(w) > 1}
    if _EMAIL.search(text):
        words.add("email")
    if _URL.search(_EMAIL.sub(" ", lowered)):
        words.update(("page", "open", "web"))
    for word in list(words):
        words.update(_SYNONYMS.get(word, ()))
    return words


def _score(tool: dict[str, Any], wanted: set[str]) -> int:
    function = tool.get("function", {})
    name_words = keywords_plain(function.get("name", "").replace("_", " ").replace(".", " "))
    description = keywords_plain(function.get("description", ""))
    parameters = keywords_plain(" ".join(function.get("parameters", {}).get("properties", {})))
    # A word in the tool's name says most about what it does; one in its description, less.
    return 3 * len(name_words & wanted) + len(description & wanted) + len((parameters - description) & wanted)


def keywords_plain(text: str) -> set[str]:
    """Content words of `text` without synonyms (for tool names and descriptions)."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def _stem(word: str) -> str:
    """Crude but consistent: schedule/scheduled/scheduling -> schedul, emails -> email."""
    for suffix in ("ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


_SYNONYMS = {_stem(k): tuple(_stem(w) for w in v.split()) for k, v in _SYNONYMS_TEXT.items()}


def connected_fit(tools: list[dict[str, Any]], messages: list[dict[str, Any]], room: int) -> list[dict[str, Any]]:
    """Up to `room` services the user connected themselves (not Deputy's own tools) that the goal's words fit."""
    wanted = keywords(_request_text(messages))
    return [t for t in tools if _name(t) not in OWN_TOOLS and _score(t, wanted) > 0][:max(room, 0)]


def request_text(messages: list[dict[str, Any]]) -> str:
    """What the user asked for: every user message (goal, answers), not outside content."""
    return _request_text(messages)


def called(messages: list[dict[str, Any]]) -> set[str]:
    """The tools the transcript already called."""
    return _called(messages)


def _request_text(messages: list[dict[str, Any]]) -> str:
    """What the user asked for: every user message (goal, answers), not outside content."""
    parts = []
    for message in messages:
        if message.get("role") == "user" and message.get("name") is None:
            content = message.get("content")
            parts.append(content if isinstance(content, str) else " ".join(
                p.get("text", "") for p in content or [] if isinstance(p, dict)))
    return "\n".join(parts)


def _called(messages: list[dict[str, Any]]) -> set[str]:
    return {
        call.get("function", {}).get("name", "")
        for message in messages if message.get("role") == "assistant"
        for call in message.get("tool_calls") or []
    }


def _name(tool: dict[str, Any]) -> str:
    return tool.get("function", {}).get("name", "")
