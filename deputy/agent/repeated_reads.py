"""A read the model already made, asked for again: answered from the transcript, not run again.

A small model that has just listed tomorrow's events often lists them again, and again, until
the loop breaker pauses the goal ("going round in circles"): the user gets no answer to a
question whose answer is already in the transcript. Nothing changed in between (no write, no
new words from the user), so running the read again can only return the same thing. Instead
the call gets Deputy's fixed note pointing at the result it already has, and the next turn
is not offered that tool again (`repeated_tool`), so the model's choice is to answer or to do
something else. Pure functions of the transcript.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any


Message = dict[str, Any]

_NOTHING_DONE = re.compile(r"^(?:Error:|Failed:|Not done)")

SAME_READ = (
    "(Deputy) You made this same call already and its result is above; nothing has changed since, so it "
    "was not run again. Use that result now: answer the user, or take the next step."
)


def already_read(messages: list[Message], name: str, arguments: str, is_read: Callable[[str], bool]) -> bool:
    """Whether the transcript holds the result of the same read (`name`, equal arguments) with nothing
    since that could change it: no call of an operation that is not a read, no new words from the user and no
    note of Deputy's (a captcha the user answered, a page unlocked: the page may read differently now)."""
    wanted = _normal(arguments)
    results = {m.get("tool_call_id"): str(m.get("content") or "") for m in messages if m.get("role") == "tool"}
    for message in reversed(messages):
        if message.get("role") == "user":
            return False  # the user wrote, or Deputy noted something that happened since (a hand-off done)
        for call in message.get("tool_calls") or []:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            called = function.get("name", "")
            if called == name and _normal(function.get("arguments")) == wanted and call.get("id") in results:
                return True
            # A change that was refused or failed changed nothing: reading again shows the same.
            if called and not is_read(called) and not _NOTHING_DONE.match(results.get(call.get("id"), "")):
                return False
    return False


def repeated_tool(messages: list[Message]) -> str | None:
    """The tool whose repeated call the last tool result turned away, so the next turn does without it."""
    last = messages[-1] if messages else {}
    if last.get("role") != "tool" or last.get("content") != SAME_READ:
        return None
    for message in reversed(messages[:-1]):
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict) and call.get("id") == last.get("tool_call_id"):
                return call.get("function", {}).get("name")
    return None


def _normal(arguments: Any) -> Any:
    """Arguments compared by value: key order, spacing and an absent versus empty object do not count."""
    try:
        value = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else (arguments or {})
    except ValueError:
        return arguments
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if v not in (None, "", [], {})}
    return json.dumps(value, sort_keys=True)
