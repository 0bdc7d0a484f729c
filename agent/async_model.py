"""The model boundary for asyncio code (the model gateway): one chat-completions call.

`AsyncChatModel` is the async twin of `agent.model.ChatModel`, so wrappers (say, one that
reads tool calls out of a local model's text) can be applied to either. `HttpChatModel`
speaks the OpenAI-compatible wire format over aiohttp directly: the OpenAI SDK walks every
request against its type annotations (milliseconds of CPU per call with ~30 tool schemas),
which a process holding a thousand calls in flight cannot afford. Errors map to the same
`ModelError` kinds and sentences as the SDK-based model.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import aiohttp

from agent.model import ModelBadResponse, ModelReply, ModelRequestRejected, ModelUnavailable, TokenUsage, ToolCall
from agent.origins import for_model

_UNREADABLE = "The language model sent an answer I couldn't read."


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
    """An `AsyncChatModel` over any OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str, model: str, api_key: str | None,
                 timeout: float) -> None:
        self._session = session
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout = aiohttp.ClientTimeout(total=timeout)

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        # Only the chat API's fields: a goal's origin labels are for the guard, and strict
        # endpoints refuse a field they do not know.
        body: dict[str, Any] = {"model": self._model, "messages": [for_model(m) for m in messages]}
        if tools:
            body["tools"] = tools
        try:
            async with self._session.post(self._url, data=json.dumps(body), headers=self._headers,
                                          timeout=self._timeout) as response:
                status, text = response.status, await response.text()
                retry_after = response.headers.get("Retry-After")
        except TimeoutError:
            raise ModelUnavailable("model endpoint timed out", "The language model didn't answer in time.") from None
        except (aiohttp.ClientError, UnicodeDecodeError) as exc:
            raise ModelUnavailable(
                f"model endpoint unreachable: {type(exc).__name__}", "I couldn't reach the language model."
            ) from None
        if status >= 400:
            raise _status_error(status, retry_after)
        return parse_completion_body(text)


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
