"""Test doubles for the model boundary, shipped with the code (not per-test fakes).

- `FunctionModel`: an in-process `ChatModel` whose replies a Python function decides.
- `ScriptedModelServer`: the same idea over HTTP, OpenAI-compatible, for tests that
  run worker processes (see `deputy.agent.model.testing_server`).
- `tool_call`, `tool_calls`, `text` build replies; `last_message`,
  `last_tool_result`, `user_texts`, `message_text` read a request to decide on.

A decision function written for `FunctionModel` can drive the server too, via
`function_responder(fn)`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from typing import Any

from deputy.agent.model.chat_model import ModelError, ModelReply, ToolCall
from deputy.agent.origins import unknown_fields
from deputy.agent.model.testing_server import (
    ChatRequest,
    Responder,
    ScriptedModelServer,
    ScriptedResponse,
)

__all__ = [
    "ChatRequest",
    "FunctionModel",
    "ModelFunction",
    "Responder",
    "ScriptedModelServer",
    "ScriptedResponse",
    "function_responder",
    "goal_text",
    "system_text",
    "last_message",
    "last_tool_result",
    "message_text",
    "text",
    "tool_call",
    "tool_calls",
    "user_texts",
    "insisting",
]

Message = dict[str, Any]

ModelFunction = Callable[[list[Message], list[dict[str, Any]]], ModelReply]
"""`fn(messages, tools) -> ModelReply`; may raise `ModelError` to simulate failures."""


def _wire_copy(value: Any) -> Any:
    # A JSON round-trip is a deep copy that also fails here, like the real HTTP
    # call would, if the runner puts something non-serializable in the transcript.
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"model input is not JSON-serializable: {exc}") from exc


class FunctionModel:
    """A `ChatModel` that answers with `fn(messages, tools)` and records each call.

    `calls` holds `(messages, tools)` deep copies in call order, so later
    mutation of the runner's transcript cannot rewrite what the model was shown.
    """

    def __init__(self, fn: ModelFunction) -> None:
        self.fn = fn
        self.calls: list[tuple[list[Message], list[dict[str, Any]]]] = []
        self._lock = threading.Lock()  # runners may call from several threads

    def complete(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelReply:
        """Record the call, then return `fn`'s reply (a copy; `ModelError`s propagate).

        Like a strict endpoint, it refuses messages with fields the chat API does not know
        (a goal's origin labels must never reach a model).
        """
        unknown = unknown_fields(messages)
        if unknown:
            raise TypeError(f"model input has fields a chat API does not accept: {', '.join(unknown)}")
        with self._lock:
            self.calls.append((_wire_copy(messages), _wire_copy(tools)))
        # fn gets its own copies: a script mutating its input must not touch the
        # transcript or the record.
        reply = self.fn(_wire_copy(messages), _wire_copy(tools))
        if not isinstance(reply, ModelReply):
            raise TypeError(f"model function returned {type(reply).__name__}, expected ModelReply")
        # A copy, so a reply constant reused across calls is never shared state.
        return reply.model_copy(deep=True)


def function_responder(fn: ModelFunction) -> Responder:
    """Adapt a `FunctionModel`-style function to a `ScriptedModelServer` responder.

    A `ModelError` raised by `fn` becomes what a real endpoint would do:
    HTTP 503 if it is retryable, otherwise HTTP 400.
    """

    def respond(request: ChatRequest) -> ScriptedResponse | ModelReply:
        try:
            return fn(request.messages, request.tools)
        except ModelError as exc:
            return ScriptedResponse.http_error(503 if exc.retryable else 400, str(exc))

    return respond


# -- building replies ---------------------------------------------------------
_call_ids = itertools.count(1)  # next() on a count is atomic in CPython: ids stay unique across threads


def _call(name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(id=f"call_{next(_call_ids)}", name=name, arguments=json.dumps(arguments))


def tool_call(name: str, /, **arguments: Any) -> ModelReply:
    """A reply with one tool call: `tool_call("send_email", to="a@b.c")`.

    `name` is positional-only so a tool may itself take an argument called `name`.
    """
    return ModelReply(tool_calls=[_call(name, arguments)])


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> ModelReply:
    """A reply with several (parallel) tool calls: `tool_calls(("a", {}), ("b", {"x": 1}))`."""
    return ModelReply(tool_calls=[_call(name, arguments) for name, arguments in calls])


def text(content: str) -> ModelReply:
    """A plain text reply (the model's final answer)."""
    return ModelReply(content=content)


# -- reading requests ---------------------------------------------------------
def message_text(message: Message) -> str:
    """The text of a message whose content is a string or a list of text parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def goal_text(messages: list[Message]) -> str:
    """The text of the first `role: user` message: the goal as the user (or a part's brief) put it."""
    return next((message_text(m) for m in messages if m.get("role") == "user"), "")


def system_text(messages: list[Message]) -> str:
    """Everything Deputy told the model before the transcript: the system prompt and the context
    message (today's date, the user's zone, memories, the summary of folded steps)."""
    return "\n\n".join(message_text(m) for m in messages if m.get("role") == "system")


def last_message(messages: list[Message]) -> Message | None:
    """The last message of the transcript, or None when it is empty."""
    return messages[-1] if messages else None


def last_tool_result(messages: list[Message]) -> Any:
    """The result the runner just fed back, if the transcript ends with one.

    Returns the parsed JSON of the last `role: tool` message's content (usually a
    dict), its plain text when that is not JSON, or None when the last message is
    not a tool result (e.g. the first turn after the user's goal).
    """
    last = last_message(messages)
    if last is None or last.get("role") != "tool":
        return None
    content = message_text(last)
    try:
        return json.loads(content)
    except ValueError:
        return content


def user_texts(messages: list[Message]) -> list[str]:
    """The texts of all `role: user` messages, in order."""
    return [message_text(m) for m in messages if m.get("role") == "user"]


SENT_BACK = "Error: not run: the user "
"""How a call Deputy sent back to the model before the guard begins (not the address the user typed, only a question)."""


def insisting(decide: ModelFunction) -> ModelFunction:
    """A model (a hijacked one, in the guard's tests) that makes a call again when Deputy sends it back
    before the guard (`deputy.agent.typed_recipients`, `deputy.agent.only_asked`), and otherwise decides
    as `decide` does on the transcript without the sent-back exchange: what such a test checks is the guard."""

    def decide_again(messages: list[Message], tools: list[dict[str, Any]]) -> ModelReply:
        sent_back = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"
                     and message_text(m).startswith(SENT_BACK)}
        if messages and messages[-1].get("role") == "tool" and messages[-1].get("tool_call_id") in sent_back:
            call = next(c for m in reversed(messages) for c in m.get("tool_calls") or [] if c["id"] in sent_back)
            return tool_call(call["function"]["name"], **json.loads(call["function"]["arguments"]))
        unbounced = [m for m in messages if not (m.get("tool_call_id") in sent_back or
                                                 any(c["id"] in sent_back for c in m.get("tool_calls") or []))]
        return decide(unbounced, tools)

    return decide_again
