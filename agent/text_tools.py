"""`TextToolsChatModel`: a `ChatModel` wrapper that makes small models usable by the runner.

It does four things, so the runner never has to know which kind of model it talks to:
1. offers fewer tools when configured (`max_tools`, see `agent.tool_selection`);
2. reads tool calls the model wrote as text (`agent.tool_parsing`) when it sent no native
   `tool_calls`, and returns them as ordinary `ToolCall`s;
3. when the model's text looked like a tool call but could not be read whole, asks it once
   more with a short format reminder, and if that fails too, answers the user with a question
   instead: a half-read call is never returned, so it can never become an action;
4. optionally (`force_tool_call`, for llama.cpp-style servers that continue a final
   assistant message) starts the model's answer with `<tool_call>`, so a small model acts
   through a tool (`reply` to talk) instead of chatting about what it would do. Measured on
   Qwen2.5-Coder-1.5B: the email goal went from 1 of 4 tries to 4 of 4.

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

PREFILL = '<tool_call>\n{"name": "'
"""How a forced answer starts: the model only has to name the tool and write its arguments."""

CORRECTION = '(Format: {error}. Write {what} as valid JSON: {{"name": "<tool name>", "arguments": {{...}}}}.)'
"""The retry's extra user message: neutral on purpose, and the broken answer is not shown again.
Measured on Qwen2.5-Coder-1.5B: told "your last message could not be used" with its broken call
shown again, it gave up and apologised to the user in 3 of 3 tries (2 of 3 without the broken
call shown); with this reminder it wrote the whole call in 6 of 6."""
FALLBACK = (
    "Sorry, I got muddled working out the next step. Could you say again, in other words, what you'd like me to do?"
)


class TextToolsChatModel:
    """Wraps `inner` (any `ChatModel`); see the module docstring for what it adds.

    `max_tools=None` offers every tool (right for large models); a small number such as 8
    suits 1-3B models. `always` names the tools kept whatever the goal says.
    `force_tool_call` needs a server that continues a final assistant message (llama.cpp).
    """

    def __init__(
        self, inner: ChatModel, max_tools: int | None = None, always: tuple[str, ...] = ALWAYS,
        force_tool_call: bool = False,
    ) -> None:
        if max_tools is not None and max_tools < 1:
            raise ValueError("max_tools must be at least 1")
        self._inner = inner
        self._max_tools = max_tools
        self._always = always
        self._force = force_tool_call

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        """One runner turn: at most two model calls; raises `ModelError` like the inner model."""
        if not tools:
            return self._inner.complete(messages, tools)  # no tools offered: text is just text
        offered = select_tools(tools, messages, self._max_tools, self._always)
        names = _names(tools)
        reply = self._ask(messages, offered)
        read = _read(reply, names)
        if not read.failed:
            return _with_calls(reply, read, reply.usage)
        log.info("model wrote an unreadable tool call (%s); asking once more", read.error)
        what = "the whole tool call" if self._force else "plain text for the user, or the whole tool call"
        retry_messages = [*messages, {"role": "user", "content": CORRECTION.format(error=read.error, what=what)}]
        second = self._ask(retry_messages, offered)
        usage = TokenUsage(
            prompt_tokens=reply.usage.prompt_tokens + second.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens + second.usage.completion_tokens,
        )
        again = _read(second, names)
        if not again.failed:
            return _with_calls(second, again, usage)
        log.warning("model wrote an unreadable tool call twice (%s); asking the user", again.error)
        return ModelReply(content=FALLBACK, usage=usage)

    def _ask(self, messages: list[dict[str, Any]], offered: list[dict[str, Any]]) -> ModelReply:
        if not self._force:
            return self._inner.complete(messages, offered)
        reply = self._inner.complete([*messages, {"role": "assistant", "content": PREFILL}], offered)
        if reply.tool_calls:
            return reply  # the server read the call itself
        # Servers return the continuation alone (llama.cpp) or with the prefix; make it whole.
        content = reply.content or ""
        whole = content if content.lstrip().startswith("<tool_call>") else PREFILL + content
        return reply.model_copy(update={"content": whole})


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
