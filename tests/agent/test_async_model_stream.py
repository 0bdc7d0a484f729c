"""The gateway's model client, streaming: a slow answer that keeps coming is never cut off, a silent one is.

Against the scripted server streaming `chat.completion.chunk`s as OpenAI and llama-server do.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import aiohttp
import pytest

from deputy.agent.model.async_model import HttpChatModel
from deputy.agent.model.chat_model import ModelError, ModelReply, ModelUnavailable
from deputy.agent.model.testing import ScriptedModelServer, ScriptedResponse, text, tool_call

MESSAGES = [{"role": "user", "content": "book a table"}]
TOOLS = [{"type": "function", "function": {"name": "book", "parameters": {"type": "object", "properties": {}}}}]


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(lambda request: text("default")) as s:
        yield s


def complete(base_url: str, silence: float) -> ModelReply:
    async def call() -> ModelReply:
        async with aiohttp.ClientSession() as session:
            model = HttpChatModel(session, base_url, "m", "sk-test", silence, stream=True)
            return await model.complete(MESSAGES, TOOLS)

    return asyncio.run(call())


def test_a_streamed_tool_call_and_its_usage_come_back_whole(server: ScriptedModelServer) -> None:
    server.responder = lambda request: tool_call("book", people=2, name="Ann Lee", when="Friday at 8")
    reply = complete(server.base_url, silence=5)
    assert [(c.name, c.parsed_arguments()) for c in reply.tool_calls] == [
        ("book", {"people": 2, "name": "Ann Lee", "when": "Friday at 8"})]
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    [request] = server.requests
    assert request.raw["stream"] is True and request.messages == MESSAGES


def test_a_slow_answer_that_keeps_coming_is_not_cut_off(server: ScriptedModelServer) -> None:
    # Ten pieces, 0.3 s apart: three seconds in all, three times the one second of silence allowed.
    answer = "Your table for two is booked for Friday."
    server.responder = lambda request: ScriptedResponse(reply=text(answer), chunk_gap_seconds=0.3)
    assert complete(server.base_url, silence=1.0).content == answer


def test_a_model_that_goes_silent_is_given_up(server: ScriptedModelServer) -> None:
    server.responder = lambda request: ScriptedResponse(reply=text("too late " * 20), chunk_gap_seconds=3.0)
    with pytest.raises(ModelUnavailable, match="went silent") as caught:
        complete(server.base_url, silence=0.5)
    assert caught.value.user_message == "The language model didn't answer in time."


def test_the_first_token_may_take_the_prompts_reading_time(server: ScriptedModelServer) -> None:
    async def budget(chars: int) -> float:
        async with aiohttp.ClientSession() as session:
            return HttpChatModel(session, server.base_url, "m", None, 30, stream=True).first_token_timeout(chars)

    # A new goal's first prompt (~5,600 characters of JSON, ~1,400 tokens) at the slowest measured
    # reading speed: 30 s of silence plus 140 s of reading, not the bare 30 s that cut it off.
    assert asyncio.run(budget(5_600)) == pytest.approx(170)
    assert asyncio.run(budget(0)) == 30


def test_a_call_given_up_stops_the_server_working_on_it(server: ScriptedModelServer) -> None:
    server.responder = lambda request: ScriptedResponse(reply=text("word " * 200), chunk_gap_seconds=0.2)

    async def give_up() -> None:
        async with aiohttp.ClientSession() as session:
            call = asyncio.create_task(
                HttpChatModel(session, server.base_url, "m", None, 5, stream=True).complete(MESSAGES, TOOLS))
            while not server.in_flight:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            call.cancel()  # nobody waits for this answer any more (the goal was stopped)
            with pytest.raises(asyncio.CancelledError):
                await call

    asyncio.run(give_up())
    # The answer would have taken 200 x 0.2 s = 40 s; the server's handler ends as soon as it writes
    # to the closed connection.
    deadline = time.monotonic() + 10
    while server.in_flight and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.in_flight == 0


def test_a_broken_stream_is_a_clear_error(server: ScriptedModelServer) -> None:
    server.responder = lambda request: ScriptedResponse.garbage()
    with pytest.raises(ModelError) as caught:
        complete(server.base_url, silence=5)
    assert "language model" in caught.value.user_message


_SSE = (b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"hello"},"finish_reason":null}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n')


async def _answer_then_hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """As llama-server does: a streamed answer, then the connection closed without a `Connection: close`."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    await reader.readexactly(length)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                 + b"%x\r\n%s\r\n0\r\n\r\n" % (len(_SSE), _SSE))
    await writer.drain()
    writer.transport.abort()


async def test_a_call_after_a_streamed_answer_is_not_lost_to_the_connection_the_server_closed() -> None:
    # The goal's first decision read to the end, then its first step on the same kept-alive connection:
    # the body could not be written, and every retry of the step met the same fate ("couldn't reach
    # the language model"). Nothing reached the server, so the call goes again on a fresh connection.
    server = await asyncio.start_server(_answer_then_hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, aiohttp.ClientSession() as session:
        model = HttpChatModel(session, f"http://127.0.0.1:{port}/v1", "m", None, 10, stream=True)
        answers = [(await model.complete(MESSAGES, TOOLS)).content for _ in range(6)]
    assert answers == ["hello"] * 6
