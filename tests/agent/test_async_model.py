"""HttpChatModel (the gateway's model client) against the scripted server: replies and failures.

The same failure kinds and sentences as the SDK-based model, so the runner's retry and
its message to the user do not depend on which path made the call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import aiohttp
import pytest

from deputy.agent.model.async_model import HttpChatModel, ModelRateLimited
from deputy.agent.model.chat_model import ModelBadResponse, ModelError, ModelReply, ModelRequestRejected, ModelUnavailable
from deputy.agent.model.testing import ScriptedModelServer, ScriptedResponse, text, tool_call
from deputy.core.infrastructure.ports import free_port

MESSAGES = [{"role": "user", "content": "book a table"}]
TOOLS = [{"type": "function", "function": {"name": "book", "parameters": {"type": "object", "properties": {}}}}]


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(lambda request: text("default")) as s:
        yield s


def complete(base_url: str, timeout: float = 5.0) -> ModelReply:
    async def call() -> ModelReply:
        async with aiohttp.ClientSession() as session:
            return await HttpChatModel(session, base_url, "m", "sk-test", timeout).complete(MESSAGES, TOOLS)

    return asyncio.run(call())


def failure(base_url: str, timeout: float = 5.0) -> ModelError:
    with pytest.raises(ModelError) as caught:
        complete(base_url, timeout)
    return caught.value


def test_a_tool_call_reply_with_usage(server: ScriptedModelServer) -> None:
    server.responder = lambda request: tool_call("book", people=2)
    reply = complete(server.base_url)
    assert [(c.name, c.parsed_arguments()) for c in reply.tool_calls] == [("book", {"people": 2})]
    assert reply.usage.prompt_tokens > 0
    [request] = server.requests
    assert request.messages == MESSAGES and request.tools == TOOLS and request.has_authorization


@pytest.mark.parametrize(
    ("response", "kind", "retryable", "sentence"),
    [
        (ScriptedResponse.http_error(503), ModelUnavailable, True, "internal error"),
        (ScriptedResponse.http_error(400), ModelRequestRejected, False, "refused the request (HTTP 400)"),
        (ScriptedResponse.http_error(429, retry_after=7), ModelRateLimited, True, "busy"),
        (ScriptedResponse.garbage(), ModelBadResponse, True, "couldn't read"),
        (ScriptedResponse.no_choices(), ModelBadResponse, True, "empty answer"),
        (ScriptedResponse.disconnect(), ModelUnavailable, True, "couldn't reach"),
    ],
)
def test_failures_map_to_the_runners_error_kinds(server: ScriptedModelServer, response, kind, retryable,
                                                 sentence) -> None:
    server.responder = lambda request: response
    error = failure(server.base_url)
    assert type(error) is kind and error.retryable is retryable and sentence in error.user_message
    if kind is ModelRateLimited:
        assert error.retry_after == 7


def test_an_unreachable_endpoint_and_a_slow_one() -> None:
    error = failure(f"http://127.0.0.1:{free_port()}/v1")
    assert isinstance(error, ModelUnavailable) and "couldn't reach" in error.user_message


def test_a_model_slower_than_the_timeout(server: ScriptedModelServer) -> None:
    server.responder = lambda request: ScriptedResponse(reply=text("late"), delay_seconds=5)
    error = failure(server.base_url, timeout=0.3)
    assert isinstance(error, ModelUnavailable) and "didn't answer in time" in error.user_message
