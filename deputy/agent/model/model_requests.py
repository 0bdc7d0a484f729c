"""Model calls handed across processes: what a worker leaves for the model gateway.

With the model gateway on, a goal step that needs the model does not wait for it. The
runner checkpoints the goal as waiting for request R, puts a `ModelRequest` on a Redis
stream and its job ends. The gateway (`deputy.gateway.gateway`) answers R, stores a
`ModelOutcome` under R and enqueues the goal's next step, which picks the outcome up.

Keys:
- `deputy:model:requests`: the stream of requests, read by the `gateways` consumer group
  (an entry is acknowledged only once its outcome is stored and the next step enqueued,
  so a killed gateway's requests are claimed by another);
- `deputy:model:pending:<R>`: exists from the request's submission until its outcome is
  stored, so a step can tell "the gateway has it" from "it never got there";
- `deputy:model:outcome:<R>`: the reply, a typed error, or "discarded" (the goal was
  paused, cancelled or changed meanwhile: it asks again when it goes on).
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Literal

from pydantic import BaseModel, Field
from redis import Redis

from deputy.core.infrastructure import step_reads
from deputy.agent.model.chat_model import ModelBadResponse, ModelError, ModelReply, ModelRequestRejected, ModelUnavailable
from deputy.core.confidential import confidential_keys

REQUESTS_STREAM = "deputy:model:requests"
GATEWAY_GROUP = "gateways"
PENDING = "deputy:model:pending:{}"
OUTCOME = "deputy:model:outcome:{}"
# Long enough for any pause; the goal re-asks if its outcome expired.
OUTCOME_TTL = 7 * 24 * 3600

_KINDS: dict[str, type[ModelError]] = {
    "unavailable": ModelUnavailable, "bad_response": ModelBadResponse, "rejected": ModelRequestRejected,
}


def new_request_id(goal_id: str, step: int) -> str:
    return f"m-{goal_id}-{step}-{secrets.token_hex(4)}"


class ModelRequest(BaseModel):
    """One model turn a goal step needs: the prompt is built by the worker, as inline."""

    schema_version: int = 1
    id: str
    goal_id: str
    step: int
    user_id: int | None = None  # whose goal: the gateway places the next step in that user's turn without a lookup
    attempt: int = 0
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    created_at: float

    @classmethod
    def parse_trusted(cls, raw: bytes | str) -> ModelRequest:
        """A request as a worker wrote it: the envelope is validated, the prompt only parsed.

        Validating every value of a ~15 KB prompt and ~30 tool schemas costs milliseconds per
        request, which a gateway answering hundreds per second cannot spend; its shape is
        checked when it was built. Raises ValueError (or ValidationError, one of them).
        """
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("a model request is a JSON object")
        messages, tools = data.pop("messages", None), data.pop("tools", [])
        if not isinstance(messages, list) or not isinstance(tools, list):
            raise ValueError("a model request needs a list of messages")
        request = cls.model_validate({**data, "messages": [], "tools": []})
        request.messages, request.tools = messages, tools
        return request


class ModelFailure(BaseModel):
    """A `ModelError` that crossed a process boundary, with its retry semantics."""

    kind: Literal["unavailable", "bad_response", "rejected"]
    detail: str
    user_message: str

    @classmethod
    def of(cls, error: ModelError) -> ModelFailure:
        kind = next(k for k, v in reversed(_KINDS.items()) if isinstance(error, v))
        return cls(kind=kind, detail=str(error), user_message=error.user_message)

    def error(self) -> ModelError:
        return _KINDS[self.kind](self.detail, self.user_message)


class ModelOutcome(BaseModel):
    schema_version: int = 1
    request_id: str
    kind: Literal["reply", "error", "discarded"]
    reply: ModelReply | None = None
    failure: ModelFailure | None = None


class ModelRequests:
    """The worker's side: submit a request, then find its outcome when the next step runs."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._keys = confidential_keys(redis)

    def submit(self, request: ModelRequest) -> None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.set(PENDING.format(request.id), request.goal_id, ex=OUTCOME_TTL)
        pipe.xadd(REQUESTS_STREAM, {"request": request.model_dump_json()})
        pipe.execute()

    def outcome(self, request_id: str) -> ModelOutcome | None:
        """The gateway's answer, if any (a confidential user's is opened with their key: `Locked` if locked)."""
        key = OUTCOME.format(request_id)
        raw = step_reads.read(("GET", key), lambda: self._redis.get(key))
        if not raw:
            return None
        if b'"sealed"' in raw and "sealed" in (envelope := json.loads(raw)):
            raw = self._keys.open_bytes(int(envelope["user_id"]), envelope["sealed"].encode())
        return ModelOutcome.model_validate_json(raw)

    def pending(self, request_id: str) -> bool:
        return bool(self._redis.exists(PENDING.format(request_id)))
