"""`TextToolsChatModel`: a `ChatModel` wrapper that makes small models usable by the runner.

It does three things, so the runner never has to know which kind of model it talks to:
1. offers fewer tools when configured (`max_tools`, see `agent.tool_selection`);
2. reads tool calls the model wrote as text (`agent.tool_parsing`) when it sent no native
   `tool_calls`, and returns them as ordinary `ToolCall`s;
3. when the model's text looked like a tool call but could not be read whole, asks it once
   more with a short correction, and if that fails too, answers the user with a question
   instead: a half-read call is never returned, so it can never become an action.

Models that emit native tool calls pass through untouched (apart from the tool limit).
"""

from __future__ import annotations

import json
import logging
import secrets
from typing import Any

from agent.model import ChatModel, ModelReply, TokenUsage, ToolCall
from agent.tool_parsing import ParseResult, parse_tool_calls
from agent.tool_selection import ALWAYS, select_tools

log = logging.getLogger(__name__)

CORRECTION = (
    "Your last message could not be used: {error}. Reply again with either plain text for the user, or "
    'exactly one tool call as JSON: {{"name": "<tool name>", "arguments": {{...}}}}. Tools: {names}.'
)
FALLBACK = (
    "Sorry, I got muddled working out the next step. Could you say again, in other words, what you'd like me to do?"
)


class TextToolsChatModel:
    """Wraps `inner` (any `ChatModel`); see the module docstring for what it adds.

    `max_tools=None` offers every tool (right for large models); a small number such as 8
    suits 1-3B models. `always` names the tools kept whatever the goal says.
    """

    def __init__(self, inner: ChatModel, max_tools: int | None = None, always: tuple[str, ...] = ALWAYS) -> None:
        if max_tools is not None and max_tools < 1:
            raise ValueError("max_tools must be at least 1")
        self._inner = inner
        self._max_tools = max_tools
        self._always = always

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        """One runner turn: at most two model calls; raises `ModelError` like the inner model."""
        offered = select_tools(tools, messages, self._max_tools, self._always)
        names = [t["function"]["name"] for t in tools]
        reply = self._inner.complete(messages, offered)
        read = _read(reply, names)
        if not read.failed:
            return _with_calls(reply, read, reply.usage)
        log.info("model wrote an unreadable tool call (%s); asking once more", read.error)
        retry_messages = [
            *messages,
            {"role": "assistant", "content": reply.content or ""},
            {"role": "user", "content": CORRECTION.format(error=read.error, names=", ".join(_names(offered)))},
        ]
        second = self._inner.complete(retry_messages, offered)
        usage = TokenUsage(
            prompt_tokens=reply.usage.prompt_tokens + second.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens + second.usage.completion_tokens,
        )
        again = _read(second, names)
        if not again.failed:
            return _with_calls(second, again, usage)
        log.warning("model wrote an unreadable tool call twice (%s); asking the user", again.error)
        return ModelReply(content=FALLBACK, usage=usage)


def _read(reply: ModelReply, names: list[str]) -> ParseResult:
    if reply.tool_calls or not reply.content:
        return ParseResult(text=reply.content or "")
    return parse_tool_calls(reply.content, names)


def _with_calls(reply: ModelReply, read: ParseResult, usage: TokenUsage) -> ModelReply:
    if reply.tool_calls or not read.calls:
        return reply.model_copy(update={"usage": usage})
    calls = [
        # Random like a provider's ids: the runner derives action ids from goal, step and call id.
        ToolCall(id=f"call_{secrets.token_hex(8)}", name=call.name, arguments=json.dumps(call.arguments))
        for call in read.calls
    ]
    return ModelReply(content=read.text or None, tool_calls=calls, usage=usage)


def _names(tools: list[dict[str, Any]]) -> list[str]:
    return [t["function"]["name"] for t in tools]
