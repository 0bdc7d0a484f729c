"""The model boundary: one chat-completions call with tools, behind a small protocol.

The runner only sees `ChatModel.complete`; the OpenAI SDK (any OpenAI-compatible
endpoint) is one implementation and `deputy.agent.model.testing` ships the test doubles.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import openai
from pydantic import BaseModel, Field

from deputy.agent.model.call_grammar import wire_body
from deputy.agent.origins import for_model


class ModelError(Exception):
    """Root of model failures. `user_message` is a plain sentence for the chat."""

    retryable = False

    def __init__(self, detail: str, user_message: str) -> None:
        super().__init__(detail)
        self.user_message = user_message


class ModelUnavailable(ModelError):
    """The endpoint could not be reached, timed out, was rate limited or failed (5xx)."""

    retryable = True


class ModelBadResponse(ModelError):
    """The endpoint answered with something that is not a usable chat completion."""

    retryable = True


class ModelRequestRejected(ModelBadResponse):
    """The endpoint refused the request itself (400, 401, 403...): the same call fails again."""

    retryable = False


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str = Field(description="The JSON text exactly as the model produced it.")

    def parsed_arguments(self) -> dict[str, Any]:
        """Arguments as a dict; raises ValueError when they are not a JSON object."""
        value = json.loads(self.arguments or "{}")
        if not isinstance(value, dict):
            raise ValueError("tool arguments must be a JSON object")
        return value


class TokenUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ModelReply(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    kind: str | None = None
    """The kind of help the goal's first decision chose (`deputy.agent.model.first_decision`), kept in the
    transcript for the later steps; never sent to a model."""

    def as_message(self) -> dict[str, Any]:
        """The assistant message to append to the transcript (OpenAI wire shape, plus the goal's kind)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.kind:
            message["kind"] = self.kind
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return message


class ChatModel(Protocol):
    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        """One model turn. Raises ModelError (never an SDK exception)."""
        ...


class OpenAIChatModel:
    """A `ChatModel` over the OpenAI SDK; works with any OpenAI-compatible base URL."""

    def __init__(self, client: openai.OpenAI, model: str, constrain_calls: bool = False) -> None:
        """`constrain_calls`: a forced tool call follows a grammar of the offered tools (llama-server,
        see `deputy.agent.model.call_grammar`)."""
        self._client = client
        self._model = model
        self._constrain_calls = constrain_calls

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        try:
            # Through `extra_body` (the same bytes on the wire): the SDK otherwise walks every
            # nested value of the prompt and ~30 tool schemas against its types, ~10 ms a call.
            # Only the chat API's fields go out (origin labels are the guard's, see deputy.agent.origins).
            response = self._client.chat.completions.create(
                model=self._model, messages=[],
                extra_body=wire_body([for_model(m) for m in messages], tools, self._constrain_calls),
            )
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise ModelUnavailable(
                f"model endpoint unreachable: {type(exc).__name__}",
                "I couldn't reach the language model.",
            ) from None
        except openai.RateLimitError:
            raise ModelUnavailable("model rate limited (429)", "The language model is busy right now.") from None
        except openai.InternalServerError as exc:
            raise ModelUnavailable(
                f"model endpoint error {exc.status_code}", "The language model had an internal error."
            ) from None
        except openai.APIStatusError as exc:
            if exc.status_code in (408, 409):
                raise ModelUnavailable(
                    f"model endpoint error {exc.status_code}", "The language model didn't answer in time."
                ) from None
            raise ModelRequestRejected(
                f"model endpoint refused the request: HTTP {exc.status_code}",
                f"The language model refused the request (HTTP {exc.status_code}).",
            ) from None
        except (openai.APIResponseValidationError, ValueError, TypeError) as exc:
            raise ModelBadResponse(
                f"unreadable model response: {type(exc).__name__}", "The language model sent an answer I couldn't read."
            ) from None
        return _reply_from_completion(response)


def _reply_from_completion(response: Any) -> ModelReply:
    if isinstance(response, str):
        raise ModelBadResponse("non-JSON completion body", "The language model sent an answer I couldn't read.")
    try:
        return _parse_completion(response)
    except (ValueError, TypeError):
        raise ModelBadResponse("malformed completion", "The language model sent an answer I couldn't read.") from None


def _parse_completion(response: Any) -> ModelReply:
    choices = getattr(response, "choices", None)
    if not choices or getattr(choices[0], "message", None) is None:
        raise ModelBadResponse("completion without choices", "The language model sent an empty answer.")
    message = choices[0].message
    calls = [
        ToolCall(id=c.id or f"call_{i}", name=c.function.name, arguments=_arguments_text(c.function.arguments))
        for i, c in enumerate(message.tool_calls or [])
        if getattr(c, "function", None) is not None
    ]
    usage = getattr(response, "usage", None)
    return ModelReply(
        content=message.content,
        tool_calls=calls,
        usage=TokenUsage(
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        ),
    )


def _arguments_text(arguments: Any) -> str:
    # Some OpenAI-compatible servers send the arguments as an object instead of JSON text.
    if arguments is None or arguments == "":
        return "{}"
    return arguments if isinstance(arguments, str) else json.dumps(arguments)
