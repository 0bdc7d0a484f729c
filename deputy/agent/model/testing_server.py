"""An OpenAI-compatible chat-completions server driven by a test.

Tests that run real worker processes cannot hand them an in-process fake: the
workers reach the model over HTTP through `OpenAIChatModel`, with
`OPENAI_BASE_URL` pointing here. The server runs in a background thread with
its own event loop, so a synchronous test (or an async test on another loop)
can drive it, and it records every request so tests can assert on what the
model was shown. Import it through `deputy.agent.model.testing`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.origins import unknown_fields


class ChatRequest(BaseModel):
    """One received `POST /v1/chat/completions` body.

    The Authorization header's value is deliberately never stored (tests assert
    that secrets never reach the model; the recorder must not be a leak itself).
    """

    model: str = ""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    raw: dict[str, Any] = Field(default_factory=dict, description="The whole JSON body as received.")
    has_authorization: bool = False
    body_chars: int = Field(default=0, description="Length of the request body text, in characters.")

    def prompt_text(self) -> str:
        """Every string value in messages and tools, newline-joined: what the model saw.

        Searching decoded strings (not the raw body) matters for secret checks:
        JSON escaping could otherwise hide a secret containing quotes or non-ASCII.
        """
        return "\n".join(_strings([self.messages, self.tools]))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


ResponseKind = Literal["reply", "http_error", "garbage", "no_choices", "json", "disconnect"]


class ScriptedResponse(BaseModel):
    """What the server does with one request; build it with the class methods.

    `ScriptedResponse(reply=..., delay_seconds=...)` is a normal (possibly late)
    answer. `delay_seconds` applies to every kind and never blocks other requests.
    """

    model_config = ConfigDict(frozen=True)

    kind: ResponseKind = "reply"
    reply: ModelReply = Field(default_factory=ModelReply)
    delay_seconds: float = 0.0
    status: int = 200
    text: str = Field(default="", description="Error message (http_error) or the body (garbage).")
    content_type: str = "application/json"
    json_body: dict[str, Any] | None = None
    retry_after: float | None = None
    chunk_gap_seconds: float = Field(
        default=0.0, description="Streamed requests: the pause before each piece of the answer (a slow model).")

    @classmethod
    def http_error(
        cls, status: int, message: str = "scripted failure", *, delay_seconds: float = 0.0,
        retry_after: float | None = None,
    ) -> ScriptedResponse:
        """An HTTP error status with an OpenAI-style `{"error": {...}}` body (and a Retry-After header)."""
        return cls(kind="http_error", status=status, text=message, delay_seconds=delay_seconds, retry_after=retry_after)

    @classmethod
    def garbage(
        cls, text: str = "<html><body>502 Bad Gateway</body></html>", *, content_type: str = "text/html",
        delay_seconds: float = 0.0,
    ) -> ScriptedResponse:
        """Status 200 with a non-JSON body (like a misconfigured proxy's page)."""
        return cls(kind="garbage", text=text, content_type=content_type, delay_seconds=delay_seconds)

    @classmethod
    def no_choices(cls, *, delay_seconds: float = 0.0) -> ScriptedResponse:
        """A well-formed chat.completion whose `choices` list is empty."""
        return cls(kind="no_choices", delay_seconds=delay_seconds)

    @classmethod
    def raw_json(cls, body: dict[str, Any], *, status: int = 200, delay_seconds: float = 0.0) -> ScriptedResponse:
        """Exactly this JSON body, for shapes the other kinds cannot express."""
        return cls(kind="json", json_body=body, status=status, delay_seconds=delay_seconds)

    @classmethod
    def disconnect(cls, *, delay_seconds: float = 0.0) -> ScriptedResponse:
        """Close the connection without sending any response."""
        return cls(kind="disconnect", delay_seconds=delay_seconds)


def _deltas(reply: ModelReply, piece: int = 8) -> Iterator[dict[str, Any]]:
    """The reply cut into the small deltas a streaming server sends: text, then each call's name and arguments."""
    yield {"role": "assistant", "content": ""}
    text = reply.content or ""
    for start in range(0, len(text), piece):
        yield {"content": text[start:start + piece]}
    for index, call in enumerate(reply.tool_calls):
        yield {"tool_calls": [{"index": index, "id": call.id, "type": "function",
                               "function": {"name": call.name, "arguments": ""}}]}
        for start in range(0, len(call.arguments), piece):
            yield {"tool_calls": [{"index": index, "function": {"arguments": call.arguments[start:start + piece]}}]}


Responder = Callable[[ChatRequest], ScriptedResponse | ModelReply]
"""Decides the answer to one request. Runs in a worker thread, so it may block
(e.g. on a threading.Event) without stalling other requests; it may be called
concurrently when requests overlap."""


class ScriptedModelServer:
    """OpenAI-compatible HTTP server on 127.0.0.1 answering through `responder`.

    Use as a context manager (or `start()`/`stop()`), point clients at
    `base_url`, read `requests`. Assign `server.responder` to change the script
    for later requests. Exceptions raised by the responder are answered with
    HTTP 500 and kept in `responder_errors` so the test can fail loudly.
    """

    def __init__(self, responder: Responder, *, model_name: str = "scripted-model", slots: int | None = None) -> None:
        """`slots`: answer at most so many requests at once and queue the rest, first come, as
        llama-server does with `--parallel`; a queued request's client timeout is already running."""
        self.responder: Responder = responder
        self.model_name = model_name
        self.slots = slots
        self._slot_gate: asyncio.Semaphore | None = None
        self._served: list[ChatRequest] = []
        self.responder_errors: list[BaseException] = []
        self._requests: list[ChatRequest] = []
        # One condition guards the list and wakes `wait_for_requests`; the list is
        # appended on the server thread and read from test threads.
        self._changed = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._port: int | None = None
        self._in_flight = 0
        self._max_in_flight = 0

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> ScriptedModelServer:
        """Bind a free port and serve in a daemon thread; returns self."""
        if self._thread is not None:
            raise RuntimeError("server already started")
        # Binding the socket here (not inside aiohttp) gives us the port without
        # touching private aiohttp attributes.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        self._executor = ThreadPoolExecutor(max_workers=16, thread_name_prefix="scripted-model-responder")
        self._loop = asyncio.new_event_loop()
        # Daemon: a test that forgets stop() must not hang interpreter exit.
        self._thread = threading.Thread(target=self._loop.run_forever, name="scripted-model-server", daemon=True)
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self._serve(sock), self._loop).result(timeout=10)
        except BaseException:
            self.stop()  # don't leak the thread and loop of a server that never served
            raise
        return self

    def stop(self) -> None:
        """Stop serving; pending delayed answers are cancelled, not awaited."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
        if self._executor is not None:
            # A responder blocked forever is the test's bug; don't wait for it here.
            self._executor.shutdown(wait=False, cancel_futures=True)
        self._loop = self._thread = self._runner = self._executor = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- what tests read ---------------------------------------------------
    @property
    def port(self) -> int:
        """The bound TCP port (only once started)."""
        if self._port is None:
            raise RuntimeError("server not started")
        return self._port

    @property
    def base_url(self) -> str:
        """The value for `OPENAI_BASE_URL` / `openai.OpenAI(base_url=...)`."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[ChatRequest]:
        """A snapshot of every chat request received so far, in arrival order."""
        with self._changed:
            return list(self._requests)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[ChatRequest]:
        """Block until at least `n` requests arrived (since the last `clear()`).

        Returns the snapshot; raises TimeoutError when `timeout` seconds pass first.

        Requests are recorded on arrival, before any delay, so this also tells a
        test that a worker is now waiting inside its model call.
        """
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._requests) >= n, timeout):
                raise TimeoutError(f"expected {n} model requests within {timeout}s, got {len(self._requests)}")
            return list(self._requests)

    @property
    def served(self) -> list[ChatRequest]:
        """Requests in the order the server started working on them (with `slots`, after their wait)."""
        with self._changed:
            return list(self._served)

    @property
    def in_flight(self) -> int:
        """Chat requests being answered (or waiting for a slot) right now; a client that hangs up leaves."""
        with self._changed:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The most chat requests this server was answering at the same time (since `clear()`)."""
        with self._changed:
            return self._max_in_flight

    def clear(self) -> None:
        """Forget the recorded requests, responder errors and the in-flight high-water mark."""
        with self._changed:
            self._requests.clear()
            self._served.clear()
            self.responder_errors.clear()
            self._max_in_flight = self._in_flight

    # -- serving -----------------------------------------------------------
    async def _serve(self, sock: socket.socket) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/_requests", self._recorded)
        # handler_cancellation: when a client gives up (timeout, killed worker)
        # its pending delayed answer is cancelled instead of lingering.
        # A short shutdown_timeout keeps stop() quick while delays are pending.
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None,
                                     handler_cancellation=True, shutdown_timeout=0.2)
        await self._runner.setup()
        await web.SockSite(self._runner, sock).start()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body_text = await request.text()
        try:
            body = json.loads(body_text)
            chat = ChatRequest(
                model=str(body.get("model", "")), messages=body.get("messages") or [], tools=body.get("tools") or [],
                raw=body, has_authorization="Authorization" in request.headers, body_chars=len(body_text),
            )
        except (ValueError, AttributeError, ValidationError) as exc:
            return _error(400, f"malformed chat request: {type(exc).__name__}")
        unknown = unknown_fields([m for m in chat.messages if isinstance(m, dict)])
        if unknown:  # as a strict provider does: Deputy must only send the chat API's fields
            return _error(400, f"unrecognized message fields: {', '.join(unknown)}")
        with self._changed:
            self._requests.append(chat)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._changed.notify_all()
        try:
            return await self._answer(request, chat, body)
        finally:
            with self._changed:
                self._in_flight -= 1

    async def _answer(self, request: web.Request, chat: ChatRequest, body: dict[str, Any]) -> web.StreamResponse:
        if self.slots is None:
            return await self._work(request, chat)
        if self._slot_gate is None:
            self._slot_gate = asyncio.Semaphore(self.slots)  # FIFO, like llama-server's queue of tasks
        async with self._slot_gate:  # a client that gives up while queued leaves the queue (handler_cancellation)
            return await self._work(request, chat)

    async def _work(self, request: web.Request, chat: ChatRequest) -> web.StreamResponse:
        with self._changed:
            self._served.append(chat)
        responder = self.responder  # read once: a swap applies to later requests only
        try:
            outcome = await asyncio.get_running_loop().run_in_executor(self._executor, responder, chat)
            if isinstance(outcome, ModelReply):
                outcome = ScriptedResponse(reply=outcome)
            if not isinstance(outcome, ScriptedResponse):
                raise TypeError(f"responder returned {type(outcome).__name__}, not ScriptedResponse/ModelReply")
        except Exception as exc:  # a broken script must be visible, not a hung client
            self.responder_errors.append(exc)
            return _error(500, f"responder raised {type(exc).__name__}: {exc}")
        if outcome.delay_seconds > 0:
            await asyncio.sleep(outcome.delay_seconds)
        return await self._render(request, chat, outcome)

    async def _render(self, request: web.Request, chat: ChatRequest, out: ScriptedResponse) -> web.StreamResponse:
        if out.kind == "reply" and chat.raw.get("stream"):
            return await self._stream(request, chat, out)
        if out.kind == "reply":
            return web.json_response(self._completion(chat, out.reply))
        if out.kind == "no_choices":
            return web.json_response({**self._completion(chat, out.reply), "choices": []})
        if out.kind == "http_error":
            response = _error(out.status, out.text)
            if out.retry_after is not None:
                response.headers["Retry-After"] = f"{out.retry_after:g}"
            return response
        if out.kind == "garbage":
            return web.Response(status=200, body=out.text.encode(), headers={"Content-Type": out.content_type})
        if out.kind == "json":
            return web.json_response(out.json_body, status=out.status)
        # disconnect: drop the TCP connection with no status line. Closing the
        # transport cancels this handler (handler_cancellation), so nothing is written.
        if request.transport is not None:
            request.transport.close()
        await asyncio.sleep(3600)
        raise AssertionError("unreachable: handler is cancelled when the connection closes")

    async def _stream(self, request: web.Request, chat: ChatRequest, out: ScriptedResponse) -> web.StreamResponse:
        """The answer as server-sent `chat.completion.chunk`s, as OpenAI and llama-server stream it."""
        whole = self._completion(chat, out.reply)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        for delta in _deltas(out.reply):
            if out.chunk_gap_seconds > 0:
                await asyncio.sleep(out.chunk_gap_seconds)
            chunk = {"id": whole["id"], "object": "chat.completion.chunk", "created": whole["created"],
                     "model": whole["model"], "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        last = {"id": whole["id"], "object": "chat.completion.chunk", "created": whole["created"],
                "model": whole["model"],
                "choices": [{"index": 0, "delta": {}, "finish_reason": whole["choices"][0]["finish_reason"]}],
                "usage": whole["usage"]}
        await response.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
        await response.write_eof()
        return response

    def _completion(self, chat: ChatRequest, reply: ModelReply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in reply.tool_calls
            ]
        # Token counts are estimates (chars/4) unless the script set them explicitly.
        produced = (reply.content or "") + "".join(c.name + c.arguments for c in reply.tool_calls)
        prompt = reply.usage.prompt_tokens or max(1, chat.body_chars // 4)
        completion = reply.usage.completion_tokens or max(1, len(produced) // 4)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": chat.model or self.model_name, "system_fingerprint": None,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": self.model_name, "object": "model", "created": 0, "owned_by": "deputy-tests"}
        return web.json_response({"object": "list", "data": [model]})

    async def _recorded(self, request: web.Request) -> web.Response:
        return web.json_response([r.model_dump(mode="json") for r in self.requests])


def _error(status: int, message: str) -> web.Response:
    """An OpenAI-style error body, so SDKs build their usual APIStatusError."""
    kind = "rate_limit_error" if status == 429 else "server_error" if status >= 500 else "invalid_request_error"
    code = "rate_limit_exceeded" if status == 429 else None
    return web.json_response({"error": {"message": message, "type": kind, "param": None, "code": code}}, status=status)
