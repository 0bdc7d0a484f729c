"""The model boundary for asyncio code (the model gateway): one chat-completions call.

`AsyncChatModel` is the async twin of `deputy.agent.model.chat_model.ChatModel`, so wrappers (say, one that
reads tool calls out of a local model's text) can be applied to either. `HttpChatModel`
speaks the OpenAI-compatible wire format over aiohttp directly: the OpenAI SDK walks every
request against its type annotations (milliseconds of CPU per call with ~30 tool schemas),
which a process holding a thousand calls in flight cannot afford. Errors map to the same
`ModelError` kinds and sentences as the SDK-based model.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Protocol

import aiohttp

from deputy.agent.model.call_grammar import wire_body
from deputy.agent.model.chat_model import ModelBadResponse, ModelReply, ModelRequestRejected, ModelUnavailable, TokenUsage, ToolCall
from deputy.agent.origins import for_model

_UNREADABLE = "The language model sent an answer I couldn't read."
CHARS_PER_TOKEN = 4
"""A rough size of a token in the JSON of a request (English text and tool schemas)."""
SLOWEST_READ_TOKENS_PER_SECOND = 10
"""The slowest prompt reading measured for the local model on two busy cores (10-18 tokens/s)."""


class ModelRateLimited(ModelUnavailable):
    """HTTP 429; `retry_after` is the provider's hint in seconds, when it gave one."""

    def __init__(self, detail: str, user_message: str, retry_after: float | None = None) -> None:
        super().__init__(detail, user_message)
        self.retry_after = retry_after


class AsyncChatModel(Protocol):
    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        """One model turn. Raises ModelError (never a transport exception)."""
        ...


class HttpChatModel:
    """An `AsyncChatModel` over any OpenAI-compatible `/chat/completions` endpoint.

    Without `stream`, `timeout` bounds the whole call. With `stream`, the answer arrives token by
    token and `timeout` bounds *silence* instead: a slow model that keeps writing is never cut
    off, one that stops is. Before the first token the model reads the prompt, so the first one
    may take `timeout` plus the prompt's length at `SLOWEST_READ_TOKENS_PER_SECOND`. A call given
    up (timed out, or cancelled because nobody waits for it) closes its connection, which stops
    a streaming server (llama-server) from working on it any further.
    """

    def __init__(self, session: aiohttp.ClientSession, base_url: str, model: str, api_key: str | None,
                 timeout: float, stream: bool = False, constrain_calls: bool = False) -> None:
        self._session = session
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout_seconds = timeout
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._stream = stream
        self._constrain_calls = constrain_calls

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        # Only the chat API's fields: a goal's origin labels are for the guard, and strict
        # endpoints refuse a field they do not know.
        body: dict[str, Any] = {"model": self._model,
                                **wire_body([for_model(m) for m in messages], tools, self._constrain_calls)}
        if self._stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
            return await self._streamed(json.dumps(body))
        for attempt in range(2):
            try:
                async with self._session.post(self._url, data=json.dumps(body), headers=self._headers,
                                              timeout=self._timeout) as response:
                    status, text = response.status, await response.text()
                    retry_after = response.headers.get("Retry-After")
                break
            except TimeoutError:
                raise ModelUnavailable("model endpoint timed out", _LATE) from None
            except (aiohttp.ClientError, UnicodeDecodeError) as exc:
                if attempt == 0 and _stale_connection(exc):
                    continue
                raise _unreachable(exc) from None
        if status >= 400:
            raise _status_error(status, retry_after)
        return parse_completion_body(text)

    def first_token_timeout(self, body_chars: int) -> float:
        """How long the model may stay silent before its first token: reading the prompt comes first."""
        return self._timeout_seconds + (body_chars / CHARS_PER_TOKEN) / SLOWEST_READ_TOKENS_PER_SECOND

    async def _streamed(self, data: str) -> ModelReply:
        try:
            return await self._stream_once(data)
        except _Stale:
            return await self._stream_once(data, retried=True)

    async def _stream_once(self, data: str, retried: bool = False) -> ModelReply:
        answer = StreamedAnswer()
        heard = False
        silence = self.first_token_timeout(len(data))
        try:
            async with asyncio.timeout(silence) as deadline:
                # No total: `deadline` is pushed back each time the model sends something.
                async with self._session.post(self._url, data=data, headers=self._headers,
                                              timeout=aiohttp.ClientTimeout(total=None)) as response:
                    if response.status >= 400:
                        raise _status_error(response.status, response.headers.get("Retry-After"))
                    async for line in response.content:
                        heard = True
                        deadline.reschedule(asyncio.get_running_loop().time() + self._timeout_seconds)
                        if answer.feed(line):
                            break
        except TimeoutError:
            raise ModelUnavailable("model endpoint went silent", _LATE) from None
        except (aiohttp.ClientError, UnicodeDecodeError) as exc:
            if not heard and not retried and _stale_connection(exc):
                raise _Stale() from exc
            raise _unreachable(exc) from None
        return answer.reply()


class _Stale(Exception):
    """The request went down a kept-alive connection the server had closed: nothing reached it."""


def _stale_connection(exc: Exception) -> bool:
    """llama-server closes its connection after a streamed answer read to the end, and aiohttp may hand
    that connection to the next request, whose body then cannot be written: sent again on a fresh
    connection it goes through (a model call has no effect to repeat). Refused connections are not this."""
    return isinstance(exc, aiohttp.ClientOSError) and not isinstance(exc, aiohttp.ClientConnectorError)


_LATE = "The language model didn't answer in time."


def _unreachable(exc: Exception) -> ModelUnavailable:
    return ModelUnavailable(f"model endpoint unreachable: {type(exc).__name__}", "I couldn't reach the language model.")


def _status_error(status: int, retry_after: str | None) -> Exception:
    if status == 429:
        return ModelRateLimited("model rate limited (429)", "The language model is busy right now.",
                                _seconds(retry_after))
    if status >= 500:
        return ModelUnavailable(f"model endpoint error {status}", "The language model had an internal error.")
    if status in (408, 409):
        return ModelUnavailable(f"model endpoint error {status}", "The language model didn't answer in time.")
    return ModelRequestRejected(f"model endpoint refused the request: HTTP {status}",
                                f"The language model refused the request (HTTP {status}).")


def _seconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: rare for model APIs; the caller's default wait applies


def parse_completion_body(text: str) -> ModelReply:
    """A `chat.completion` JSON body as a `ModelReply`; ModelBadResponse when it is not one."""
    try:
        body = json.loads(text)
    except ValueError:
        raise ModelBadResponse("non-JSON completion body", _UNREADABLE) from None
    if not isinstance(body, dict):
        raise ModelBadResponse("completion is not a JSON object", _UNREADABLE)
    choices = body.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict) or not isinstance(
            choices[0].get("message"), dict):
        raise ModelBadResponse("completion without choices", "The language model sent an empty answer.")
    message = choices[0]["message"]
    try:
        calls = [
            ToolCall(id=c.get("id") or f"call_{i}", name=c["function"]["name"],
                     arguments=_arguments_text(c["function"].get("arguments")))
            for i, c in enumerate(message.get("tool_calls") or [])
            if isinstance(c, dict) and isinstance(c.get("function"), dict)
        ]
        usage = body.get("usage") or {}
        content = message.get("content")
        return ModelReply(
            content=content if isinstance(content, str) or content is None else json.dumps(content),
            tool_calls=calls,
            usage=TokenUsage(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                             completion_tokens=int(usage.get("completion_tokens") or 0)),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ModelBadResponse("malformed completion", _UNREADABLE) from None


def _arguments_text(arguments: Any) -> str:
    # Some OpenAI-compatible servers send the arguments as an object instead of JSON text.
    if arguments is None or arguments == "":
        return "{}"
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


class StreamedAnswer:
    """Server-sent `chat.completion.chunk`s put back together into one answer."""

    def __init__(self) -> None:
        self._content: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._usage: dict[str, Any] = {}
        self._seen = False

    def feed(self, line: bytes) -> bool:
        """Take one line of the stream; True once the stream says it is done."""
        text = line.decode().strip()
        if not text.startswith("data:"):
            return False  # blank separators, comments (`: keep-alive`), event names
        data = text[5:].strip()
        if data == "[DONE]":
            return True
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ModelBadResponse("non-JSON stream chunk", _UNREADABLE) from None
        if not isinstance(chunk, dict):
            raise ModelBadResponse("stream chunk is not a JSON object", _UNREADABLE)
        if chunk.get("error"):
            raise ModelUnavailable("model endpoint error in the stream", "The language model had an internal error.")
        self._seen = True
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if isinstance(delta, dict):
                self._add(delta)
        return False

    def _add(self, delta: dict[str, Any]) -> None:
        if isinstance(delta.get("content"), str):
            self._content.append(delta["content"])
        for part in delta.get("tool_calls") or []:
            if not isinstance(part, dict):
                continue
            call = self._calls.setdefault(int(part.get("index") or 0), {"id": None, "name": "", "arguments": ""})
            call["id"] = part.get("id") or call["id"]
            function = part.get("function") or {}
            call["name"] += function.get("name") or ""
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                call["arguments"] += arguments
            elif arguments:  # a server that sends the arguments as an object, whole
                call["arguments"] += json.dumps(arguments)

    def reply(self) -> ModelReply:
        """The whole answer, in the shape a non-streamed completion gives."""
        if not self._seen:
            raise ModelBadResponse("empty stream", "The language model sent an empty answer.")
        message: dict[str, Any] = {"content": "".join(self._content) or None}
        if self._calls:
            message["tool_calls"] = [{"id": c["id"], "function": {"name": c["name"], "arguments": c["arguments"]}}
                                     for _, c in sorted(self._calls.items())]
        return parse_completion_body(json.dumps({"choices": [{"message": message}], "usage": self._usage}))
