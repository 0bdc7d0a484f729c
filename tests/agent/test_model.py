"""OpenAIChatModel against a scripted OpenAI-compatible server: replies and every failure mode."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from deputy.agent.model.chat_model import (
    ModelBadResponse,
    ModelError,
    ModelReply,
    ModelUnavailable,
    OpenAIChatModel,
    TokenUsage,
    ToolCall,
)
from deputy.agent.model.testing import ScriptedModelServer, ScriptedResponse, text, tool_call

MESSAGES = [{"role": "system", "content": "You are Deputy."}, {"role": "user", "content": "book a table"}]
TOOLS = [{"type": "function", "function": {"name": "book", "parameters": {"type": "object", "properties": {}}}}]


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(lambda request: text("default")) as s:
        yield s


def model_for(base_url: str, *, timeout: float = 5.0) -> OpenAIChatModel:
    # max_retries=0: the SDK's own backoff would make failure tests slow and
    # re-send requests; retrying is the runner's decision, not the SDK's.
    return OpenAIChatModel(openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0, timeout=timeout), "m")


def failure(model: OpenAIChatModel) -> ModelError:
    """Run one call that must fail; check nothing of the SDK leaks out."""
    with pytest.raises(ModelError) as raised:
        model.complete(MESSAGES, TOOLS)
    error = raised.value
    # `from None` (or raising outside the except block): no SDK exception chained.
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__
    assert error.user_message and error.user_message.endswith(".")
    for leak in ("openai", "Error", "Traceback", "http://", "{"):
        assert leak not in error.user_message
    return error


def raw_completion(message: dict[str, Any]) -> ScriptedResponse:
    return ScriptedResponse.raw_json({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", **message}}],
    })


# -- replies ------------------------------------------------------------------
def test_tool_call_round_trips(server: ScriptedModelServer) -> None:
    scripted = tool_call("book", restaurant="Chez Nous", people=2)
    server.responder = lambda request: scripted
    reply = model_for(server.base_url).complete(MESSAGES, TOOLS)
    assert reply.content is None
    sent = scripted.tool_calls[0]
    assert reply.tool_calls == [ToolCall(id=sent.id, name="book", arguments=sent.arguments)]
    assert reply.tool_calls[0].parsed_arguments() == {"restaurant": "Chez Nous", "people": 2}
    (request,) = server.requests
    assert request.messages == MESSAGES and request.tools == TOOLS and request.model == "m"


def test_text_reply_and_usage(server: ScriptedModelServer) -> None:
    server.responder = lambda request: text("Booked for 8pm.")
    reply = model_for(server.base_url).complete(MESSAGES, [])
    assert reply == ModelReply(content="Booked for 8pm.", usage=reply.usage)
    assert reply.usage.prompt_tokens == server.requests[0].body_chars // 4 > 0
    assert reply.usage.completion_tokens == len("Booked for 8pm.") // 4
    assert "tools" not in server.requests[0].raw  # no tools: the field is omitted, not sent empty


def test_scripted_usage_is_passed_through(server: ScriptedModelServer) -> None:
    usage = TokenUsage(prompt_tokens=1234, completion_tokens=56)
    server.responder = lambda request: ModelReply(content="ok", usage=usage)
    assert model_for(server.base_url).complete(MESSAGES, []).usage == usage


# -- failures -----------------------------------------------------------------
def test_connection_refused_is_unavailable() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago and is now closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    error = failure(model_for(f"http://127.0.0.1:{port}/v1"))
    assert isinstance(error, ModelUnavailable) and error.retryable


@pytest.mark.parametrize(
    ("status", "expected"),
    [(500, ModelUnavailable), (502, ModelUnavailable), (503, ModelUnavailable), (429, ModelUnavailable),
     (400, ModelBadResponse), (404, ModelBadResponse)],
)
def test_http_errors(server: ScriptedModelServer, status: int, expected: type[ModelError]) -> None:
    server.responder = lambda request: ScriptedResponse.http_error(status, "secret-internal-detail")
    error = failure(model_for(server.base_url))
    assert isinstance(error, expected)
    assert "secret-internal-detail" not in error.user_message
    assert len(server.requests) == 1  # max_retries=0: exactly one attempt


@pytest.mark.parametrize("status", [400, 401, 403])
def test_refusals_are_not_retryable(server: ScriptedModelServer, status: int) -> None:
    # The same request (or key) gets the same refusal: retrying only burns time.
    server.responder = lambda request: ScriptedResponse.http_error(status)
    assert failure(model_for(server.base_url)).retryable is False


@pytest.mark.parametrize("content_type", ["text/html", "application/json"])
def test_garbage_body_is_bad_response(server: ScriptedModelServer, content_type: str) -> None:
    server.responder = lambda request: ScriptedResponse.garbage("<html>oops</html>", content_type=content_type)
    assert isinstance(failure(model_for(server.base_url)), ModelBadResponse)


def test_no_choices_is_bad_response(server: ScriptedModelServer) -> None:
    server.responder = lambda request: ScriptedResponse.no_choices()
    assert isinstance(failure(model_for(server.base_url)), ModelBadResponse)


def test_abruptly_closed_connection_is_unavailable(server: ScriptedModelServer) -> None:
    server.responder = lambda request: ScriptedResponse.disconnect()
    assert isinstance(failure(model_for(server.base_url)), ModelUnavailable)


def test_timeout_is_unavailable(server: ScriptedModelServer) -> None:
    server.responder = lambda request: ScriptedResponse(reply=text("too late"), delay_seconds=10)
    error = failure(model_for(server.base_url, timeout=0.2))
    assert isinstance(error, ModelUnavailable) and "Timeout" in str(error)


@pytest.mark.parametrize(
    "message",
    [
        {"content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"arguments": "{}"}}]},
        {"content": {"not": "a string"}},
    ],
    ids=["tool-call-without-name", "non-string-content"],
)
def test_malformed_completion_fields_are_bad_response(server: ScriptedModelServer, message: dict[str, Any]) -> None:
    server.responder = lambda request: raw_completion(message)
    assert isinstance(failure(model_for(server.base_url)), ModelBadResponse)


def test_tool_arguments_sent_as_a_json_object_do_not_leak(server: ScriptedModelServer) -> None:
    # Some OpenAI-compatible servers send `arguments` as an object, not JSON text.
    call = {"id": "c1", "type": "function", "function": {"name": "book", "arguments": {"people": 2}}}
    server.responder = lambda request: raw_completion({"content": None, "tool_calls": [call]})
    try:
        reply = model_for(server.base_url).complete(MESSAGES, TOOLS)
    except ModelBadResponse:
        return  # acceptable: refused as unreadable
    assert reply.tool_calls[0].parsed_arguments() == {"people": 2}  # better: accepted, re-serialised
