"""The shipped model test doubles: FunctionModel, reply/request helpers, ScriptedModelServer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any, cast

import openai
import pytest

from deputy.agent.model.chat_model import ModelReply, ModelUnavailable
from deputy.agent.model.testing import (
    ChatRequest,
    FunctionModel,
    ScriptedModelServer,
    ScriptedResponse,
    function_responder,
    last_message,
    last_tool_result,
    text,
    tool_call,
    tool_calls,
    user_texts,
)

SEARCH_TOOL = {
    "type": "function",
    "function": {"name": "search", "description": "Search", "parameters": {"type": "object", "properties": {}}},
}


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(lambda request: text("default")) as s:
        yield s


def client_for(server: ScriptedModelServer, **kwargs: Any) -> openai.OpenAI:
    # max_retries=0: SDK retries would re-send requests and slow the tests down.
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test-secret-key", max_retries=0, **kwargs)


def ask(client: openai.OpenAI, content: str = "hello", tools: list[dict[str, Any]] | None = None) -> Any:
    # Plain dicts, as the runner sends them; the SDK's TypedDicts are stricter than needed.
    return client.chat.completions.create(
        model="test-model", messages=[{"role": "user", "content": content}], tools=cast(Any, tools or openai.omit)
    )


# -- FunctionModel ------------------------------------------------------------
def test_function_model_returns_the_function_reply_and_records_copies() -> None:
    def decide(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        if last_tool_result(messages) is None:
            return tool_call("search", query=user_texts(messages)[-1])
        return text(f"found {last_tool_result(messages)['hits']}")

    model = FunctionModel(decide)
    transcript: list[dict[str, Any]] = [{"role": "user", "content": "find cats"}]
    first = model.complete(transcript, [SEARCH_TOOL])
    assert first.tool_calls[0].name == "search"
    assert first.tool_calls[0].parsed_arguments() == {"query": "find cats"}

    result = {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": '{"hits": 3}'}
    transcript += [first.as_message(), result]
    assert model.complete(transcript, [SEARCH_TOOL]).content == "found 3"

    transcript[0]["content"] = "mutated later"
    assert len(model.calls) == 2
    assert model.calls[0] == ([{"role": "user", "content": "find cats"}], [SEARCH_TOOL])
    assert model.calls[1][0][-1]["role"] == "tool"


def test_function_model_propagates_model_errors_and_rejects_non_json_input() -> None:
    def failing(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        raise ModelUnavailable("scripted outage", "I couldn't reach the language model.")

    model = FunctionModel(failing)
    with pytest.raises(ModelUnavailable):
        model.complete([{"role": "user", "content": "hi"}], [])
    assert len(model.calls) == 1
    with pytest.raises(TypeError, match="JSON-serializable"):
        model.complete([{"role": "user", "content": object()}], [])


def test_function_model_returns_a_fresh_copy_of_a_shared_reply() -> None:
    shared = text("same")
    model = FunctionModel(lambda messages, tools: shared)
    reply = model.complete([], [])
    reply.content = "changed by the runner"
    assert model.complete([], []).content == "same"


# -- helpers ------------------------------------------------------------------
def test_reply_builders() -> None:
    one, two = tool_call("create", name="x", n=1), tool_call("create")
    assert one.tool_calls[0].parsed_arguments() == {"name": "x", "n": 1}
    assert one.tool_calls[0].id != two.tool_calls[0].id and one.tool_calls[0].id.startswith("call_")
    assert one.content is None and text("hi") == ModelReply(content="hi")
    both = tool_calls(("a", {}), ("b", {"x": 1}))
    assert [c.name for c in both.tool_calls] == ["a", "b"]


def test_request_readers() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "first"},
        {"role": "user", "content": [{"type": "text", "text": "sec"}, {"type": "text", "text": "ond"}]},
    ]
    assert user_texts(messages) == ["first", "second"]
    assert last_message(messages) == messages[-1] and last_message([]) is None
    assert last_tool_result(messages) is None
    def result(content: str) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": "c", "content": content}

    assert last_tool_result(messages + [result('{"ok": true}')]) == {"ok": True}
    assert last_tool_result(messages + [result("plain")]) == "plain"
    assert last_tool_result(messages + [result("{}"), {"role": "user", "content": "new goal"}]) is None


# -- ScriptedModelServer through the real SDK -----------------------------------
def test_server_returns_tool_calls_and_text_and_records_requests(server: ScriptedModelServer) -> None:
    server.responder = lambda request: tool_call("search", q=user_texts(request.messages)[-1])
    client = client_for(server)
    completion = ask(client, "cats", tools=[SEARCH_TOOL])
    choice = completion.choices[0]
    assert completion.object == "chat.completion" and choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert call.type == "function" and call.function.name == "search"
    assert json.loads(call.function.arguments) == {"q": "cats"} and call.id.startswith("call_")

    server.responder = lambda request: text("meow")
    completion = ask(client, "and now?")
    assert completion.choices[0].message.content == "meow" and completion.choices[0].finish_reason == "stop"
    assert completion.choices[0].message.tool_calls is None

    first, second = server.requests
    assert isinstance(first, ChatRequest)
    assert first.model == "test-model"
    assert (first.messages, first.tools) == ([{"role": "user", "content": "cats"}], [SEARCH_TOOL])
    assert second.tools == [] and "tools" not in second.raw
    assert completion.usage is not None
    assert completion.usage.prompt_tokens == second.body_chars // 4 and completion.usage.completion_tokens >= 1
    assert "and now?" in second.prompt_text()


def test_server_notes_auth_but_never_stores_the_key(server: ScriptedModelServer) -> None:
    ask(client_for(server))
    (request,) = server.requests
    assert request.has_authorization
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/_requests", timeout=5) as response:
        dumped = response.read().decode()
    assert json.loads(dumped)[0]["messages"] == [{"role": "user", "content": "hello"}]
    assert "sk-test-secret-key" not in dumped
    assert "sk-test-secret-key" not in request.model_dump_json()


def test_server_lists_models(server: ScriptedModelServer) -> None:
    assert [m.id for m in client_for(server).models.list()] == ["scripted-model"]


def test_delay_does_not_block_a_concurrent_request(server: ScriptedModelServer) -> None:
    late = ScriptedResponse(reply=text("slow"), delay_seconds=0.8)
    server.responder = lambda request: late if user_texts(request.messages) == ["slow"] else text("fast")
    client = client_for(server, timeout=5)
    slow: dict[str, Any] = {}

    def call_slow() -> None:
        started = time.monotonic()
        slow["content"] = ask(client, "slow").choices[0].message.content
        slow["elapsed"] = time.monotonic() - started

    worker = threading.Thread(target=call_slow)
    worker.start()
    server.wait_for_requests(1)  # recorded on arrival: the slow call is now pending
    assert ask(client, "quick").choices[0].message.content == "fast"
    assert worker.is_alive(), "the fast answer must not wait for the delayed one"
    worker.join(timeout=5)
    assert slow["content"] == "slow" and slow["elapsed"] >= 0.8


def test_a_blocking_responder_does_not_stall_other_requests(server: ScriptedModelServer) -> None:
    gate = threading.Event()

    def responder(request: ChatRequest) -> ModelReply:
        if user_texts(request.messages) == ["held"]:
            gate.wait(timeout=5)
            return text("released")
        return text("free")

    server.responder = responder
    client = client_for(server, timeout=5)
    held: list[str | None] = []
    worker = threading.Thread(target=lambda: held.append(ask(client, "held").choices[0].message.content))
    worker.start()
    server.wait_for_requests(1)
    assert ask(client, "other").choices[0].message.content == "free"
    gate.set()
    worker.join(timeout=5)
    assert held == ["released"]


def test_swapped_responder_applies_to_later_requests(server: ScriptedModelServer) -> None:
    client = client_for(server)
    assert ask(client).choices[0].message.content == "default"
    server.responder = lambda request: text("swapped")
    assert ask(client).choices[0].message.content == "swapped"


def test_wait_for_requests_times_out_and_clear_forgets(server: ScriptedModelServer) -> None:
    with pytest.raises(TimeoutError):
        server.wait_for_requests(1, timeout=0.05)
    ask(client_for(server))
    assert len(server.wait_for_requests(1)) == 1
    server.clear()
    assert server.requests == []


def test_responder_crash_is_a_500_and_is_kept(server: ScriptedModelServer) -> None:
    def broken(request: ChatRequest) -> ModelReply:
        raise KeyError("oops")

    server.responder = broken
    with pytest.raises(openai.InternalServerError, match="responder raised KeyError"):
        ask(client_for(server))
    assert [type(e) for e in server.responder_errors] == [KeyError]


def test_function_responder_shares_decisions_with_function_model(server: ScriptedModelServer) -> None:
    def decide(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        if user_texts(messages)[-1] == "fail":
            raise ModelUnavailable("scripted", "busy")
        return text(f"{len(tools)} tools")

    server.responder = function_responder(decide)
    client = client_for(server)
    assert ask(client, tools=[SEARCH_TOOL]).choices[0].message.content == "1 tools"
    with pytest.raises(openai.InternalServerError) as raised:
        ask(client, "fail")
    assert raised.value.status_code == 503


def test_stop_is_prompt_while_an_answer_is_delayed() -> None:
    server = ScriptedModelServer(lambda request: ScriptedResponse(reply=text("never"), delay_seconds=30)).start()
    client = client_for(server, timeout=10)
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            ask(client)
        except openai.OpenAIError as exc:
            outcome.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    server.wait_for_requests(1)
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 2
    caller.join(timeout=5)
    assert [type(e) for e in outcome] == [openai.APIConnectionError]  # dropped, not answered


WORKER_SCRIPT = """
import openai
from deputy.agent.model.chat_model import OpenAIChatModel
model = OpenAIChatModel(openai.OpenAI(max_retries=0), "worker-model")  # base URL and key from the env
reply = model.complete([{"role": "user", "content": "from the worker"}], [])
print(reply.tool_calls[0].name, reply.tool_calls[0].arguments)
"""


def test_a_worker_process_reaches_the_server_through_openai_base_url(server: ScriptedModelServer) -> None:
    server.responder = lambda request: tool_call("note", text=user_texts(request.messages)[0])
    env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-worker"}
    done = subprocess.run([sys.executable, "-c", WORKER_SCRIPT], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == 'note {"text": "from the worker"}'
    (request,) = server.requests
    assert request.model == "worker-model" and request.has_authorization


def test_a_streamed_answer_reads_back_whole_through_the_openai_sdk(server: ScriptedModelServer) -> None:
    server.responder = lambda request: tool_call("send_email", to="ann@example.org", body="Running late, sorry!")
    stream = client_for(server).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], stream=True, stream_options={"include_usage": True})
    name, arguments, finish, usage = "", "", None, None
    for chunk in stream:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            for call in choice.delta.tool_calls or []:
                name += call.function.name or ""
                arguments += call.function.arguments or ""
    assert name == "send_email" and json.loads(arguments) == {"to": "ann@example.org", "body": "Running late, sorry!"}
    assert finish == "tool_calls" and usage is not None and usage.completion_tokens > 0