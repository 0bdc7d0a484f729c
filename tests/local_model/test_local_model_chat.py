"""The real local model (llama.cpp + Qwen2.5-Coder-1.5B) driving Deputy through the local chat.

Marked `local_model`. The first run on a machine builds llama-server and fetches the weights
(about 7 minutes in all, cached in ~/.cache/deputy, see `deputy.local_model.model`); later runs
start the server in seconds. Every answer here comes from the real model: the worker reaches
it over HTTP through `TextToolsChatModel`, exactly as under `deputy run`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from deputy.agent.model.chat_model import ModelReply, OpenAIChatModel
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer
from deputy.local_model.model import MODEL_TIMEOUT, LocalModel, LocalModelError, ensure_local_model
from deputy.settings import Settings
from deputy.testing.stack import DeputyStack, RedisServer

# Building on a machine without the cache takes minutes; a model step takes seconds to tens of seconds.
pytestmark = [pytest.mark.local_model, pytest.mark.timeout(1800)]

STEP_SECONDS = 300  # generous: a step reads the prompt at ~60 tokens/s on 2 cores, slower when other work shares them


def _progress(line: str) -> None:
    # Straight to the terminal past pytest's capture: a first build should not look like a hang.
    print(f"[local model] {line}", file=sys.__stderr__, flush=True)


@pytest.fixture(scope="module")
def local_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModel]:
    try:
        settings = Settings()
        model = ensure_local_model(settings.cache_path(), _progress, threads=settings.local_threads,
                                   work_dir=tmp_path_factory.mktemp("llama"))
    except LocalModelError as exc:
        pytest.fail(f"the local model could not be set up: {exc}")
    yield model
    model.stop()


def _start_stack(redis_url: str, model: LocalModel, model_url: str, workdir: Path,
                 smtp_env: dict[str, str]) -> DeputyStack:
    # The worker gets the same model settings as under `deputy run` (few tools, forced tool calls,
    # a timeout long enough for a first step on busy cores), only the URL may point elsewhere.
    env = {**model.env(), "OPENAI_BASE_URL": model_url}
    return DeputyStack(redis_url, model_url, workdir, smtp=smtp_env, extra_env=env).start()


@pytest.fixture
def local_stack(redis_server: RedisServer, redis, local_model: LocalModel, smtp_env: dict[str, str],
                tmp_path: Path) -> Iterator[DeputyStack]:
    stack = _start_stack(redis_server.url, local_model, local_model.base_url, tmp_path / "stack", smtp_env)
    yield stack
    stack.stop()


def test_an_email_goal_of_a_careful_user_ends_with_a_card_for_that_address(local_stack: DeputyStack) -> None:
    user = local_stack.user(101, "Pat", asks_before_sending=True)
    sent = user.send("email alice@example.org that I'm running late")
    try:
        card = user.wait_for_card(after=sent, timeout=3 * STEP_SECONDS)
    except TimeoutError:
        pytest.fail(f"no approval card; the chat: {[m['text'] for m in user.bot_messages(sent)]}")
    assert "alice@example.org" in card["text"]


def test_a_plain_question_gets_a_plain_answer(local_stack: DeputyStack) -> None:
    user = local_stack.user(102, "Sam")
    sent = user.send("What is the capital of France?")
    try:
        answer = user.wait_for_bot(lambda m: "paris" in m["text"].lower(), after=sent, timeout=2 * STEP_SECONDS)
    except TimeoutError:
        pytest.fail(f"no answer naming Paris; the chat: {[m['text'] for m in user.bot_messages(sent)]}")
    assert not any(b.get("text") == "Approve" for row in answer["buttons"] for b in row)


@pytest.fixture
def first_reply_malformed(local_model: LocalModel) -> Iterator[ScriptedModelServer]:
    """A model endpoint whose first answer is a cut-off tool call; the real model answers the rest."""
    client = openai.OpenAI(base_url=local_model.base_url, api_key="none", timeout=MODEL_TIMEOUT, max_retries=0)
    real = OpenAIChatModel(client, local_model.model)
    seen: list[int] = []

    def respond(request: ChatRequest) -> ModelReply:
        seen.append(1)
        if len(seen) == 1:
            return ModelReply(content='<tool_call>\n{"name": "send_email", "arguments": {"to": ["alice@exa')
        return real.complete(request.messages, request.tools)

    with ScriptedModelServer(respond) as server:
        yield server


def test_a_malformed_reply_is_corrected_and_nothing_half_read_runs(
    redis_server: RedisServer, redis, local_model: LocalModel, first_reply_malformed: ScriptedModelServer,
    smtp_env: dict[str, str], tmp_path: Path,
) -> None:
    stack = _start_stack(redis_server.url, local_model, first_reply_malformed.base_url, tmp_path / "stack", smtp_env)
    try:
        user = stack.user(103, "Kim", asks_before_sending=True)
        sent = user.send("email alice@example.org that I'm running late")
        try:
            card = user.wait_for_card(after=sent, timeout=3 * STEP_SECONDS)
        except TimeoutError:
            pytest.fail(f"no approval card; the chat: {[m['text'] for m in user.bot_messages(sent)]}")
        assert "alice@example.org" in card["text"]  # the whole address: the cut-off call never ran
        corrections = [m for m in first_reply_malformed.requests[1].messages
                       if m["role"] == "user" and str(m["content"]).startswith("(Format: ")]
        assert len(corrections) == 1
    finally:
        stack.stop()
