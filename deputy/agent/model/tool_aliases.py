"""Names a small model sees in place of Deputy's own, where Deputy's name misleads it.

Read from the local model's transcripts: after reading the plumber's email ("Can I come Tuesday
morning?"), Qwen2.5-Coder-1.5B called the user-facing `reply` tool with "I'll check Tuesday
morning." — an answer meant for the plumber, which `reply_email` sends — in two runs of two. The
word "reply" names both. Shown as `tell_user`, the user-facing tool cannot be mistaken for
answering an email.

Pure functions: `shown_tools` and `shown_messages` rename on the way to the model, `own_name`
maps a call's name back, so the runner, the guard and every record keep Deputy's own names.
"""

from __future__ import annotations

import re
from typing import Any

ALIASES = {"reply": "tell_user"}
"""Deputy's name → the name the small model sees."""

_OWN = {shown: own for own, shown in ALIASES.items()}
# "Use reply to tell the user…" in the system prompt names the tool by its own name.
_NAMED_IN_PROSE = {own: re.compile(rf"(?<=\bUse ){re.escape(own)}\b") for own in ALIASES}

Message = dict[str, Any]
Tool = dict[str, Any]


def shown_name(name: str) -> str:
    return ALIASES.get(name, name)


def own_name(name: str) -> str:
    """The tool a call named by its shown name means (other names unchanged)."""
    return _OWN.get(name, name)


def shown_tools(tools: list[Tool]) -> list[Tool]:
    """The offer with aliased tools renamed (the rest are the same objects)."""
    return [_renamed_tool(tool) if tool["function"]["name"] in ALIASES else tool for tool in tools]


def shown_messages(messages: list[Message]) -> list[Message]:
    """The transcript as the small model sees it: earlier calls and the system prompt's mention renamed."""
    return [_shown_message(message) for message in messages]


def shown_names(names: list[str]) -> list[str]:
    """Every name a call may use: Deputy's own and the shown ones (a model may still write the old name)."""
    return [*names, *(ALIASES[name] for name in names if name in ALIASES)]


def _renamed_tool(tool: Tool) -> Tool:
    function = tool["function"]
    return {**tool, "function": {**function, "name": ALIASES[function["name"]]}}


def _shown_message(message: Message) -> Message:
    calls = message.get("tool_calls")
    if calls and any(call["function"]["name"] in ALIASES for call in calls):
        message = {**message, "tool_calls": [
            {**call, "function": {**call["function"], "name": shown_name(call["function"]["name"])}}
            for call in calls]}
    if message.get("name") in ALIASES:
        message = {**message, "name": ALIASES[message["name"]]}
    content = message.get("content")
    if message.get("role") == "system" and isinstance(content, str):
        for own, pattern in _NAMED_IN_PROSE.items():
            content = pattern.sub(ALIASES[own], content)
        message = {**message, "content": content}
    return message
