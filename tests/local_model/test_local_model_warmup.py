"""A first goal starts warm: after `deputy run`'s warm-up, the model reads only what is new in a goal's first step.

Marked `local_model` (the real llama-server and Qwen2.5-Coder-1.5B, see test_local_model_chat).
What the user notices is the time to their first card; what decides it on two cores is how
much of the prompt llama-server must read. The figures here are llama-server's own counts
(`timings.cache_n`: tokens taken from its cache; `prompt_n`: tokens read anew), not timings.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from deputy.agent.model.call_grammar import wire_body
from deputy.agent.goals import Goal
from deputy.agent.memory_tools import MEMORY_TOOLS
from deputy.agent.origins import for_model, user_message
from deputy.agent.prompt import build_messages
from deputy.agent.model.text_tools import PREFILL, TextToolsOptions, as_asked, offered_tools, request_messages, request_tools
from deputy.agent.tools import INTERNAL_TOOLS
from deputy.connectors.default import default_catalog
from deputy.core.accounts.user_settings import UserSettings
from deputy.local_model.model import MAX_TOOLS, LocalModel, LocalModelError, ensure_local_model
from deputy.local_model.warmup import warm_up
from deputy.settings import Settings
from deputy.apps.agent_worker import build_model

pytestmark = [pytest.mark.local_model, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def fresh_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModel]:
    try:
        settings = Settings()
        model = ensure_local_model(settings.cache_path(), lambda line: print(line, file=sys.__stderr__),
                                   threads=settings.local_threads, work_dir=tmp_path_factory.mktemp("llama"))
    except LocalModelError as exc:
        pytest.fail(f"the local model could not be set up: {exc}")
    yield model
    model.stop()


def _first_step(model: LocalModel, text: str, settings: UserSettings) -> dict:
    """The first step of a new goal, sent as the gateway sends it (forced tool call), and llama-server's counts."""
    now = time.time()
    goal = Goal(id="g_first", user_id=7, chat_id=7, text=text, created_at=now, updated_at=now,
                messages=[user_message(text)])
    messages = build_messages(goal, now, settings, memories=["I am vegetarian"])
    options = TextToolsOptions(max_tools=MAX_TOOLS, force_tool_call=True)
    every = [*INTERNAL_TOOLS, *MEMORY_TOOLS, *default_catalog().tool_schemas()]
    tools = request_tools(as_asked(offered_tools(every, messages, options), every, messages), options)
    forced = [*map(for_model, request_messages(messages, options))]
    body = {"model": model.model, **wire_body(forced, tools, constrain=True), "max_tokens": 8}
    answer = httpx.post(model.base_url + "/chat/completions", json=body, timeout=600).json()
    return answer["timings"]


def test_after_the_warm_up_a_first_goal_reads_only_its_own_words(fresh_model: LocalModel) -> None:
    warm_up(fresh_model.base_url, fresh_model.model, MAX_TOOLS)
    # Another user, in another zone, with a memory, texting a different email goal.
    timings = _first_step(fresh_model, "Send an email to bob@example.com saying the report is ready",
                          UserSettings(timezone="America/New_York"))
    read, reused = timings["prompt_n"], timings["cache_n"]
    # The instructions and the tools (for an email goal, the email tool alone), read once at start.
    assert reused > 400 and reused > 4 * read, timings
    assert read < 150, timings  # the date, the memory, the goal: a few seconds instead of a minute


def test_every_forced_answer_is_a_well_formed_call_of_an_offered_tool(fresh_model: LocalModel) -> None:
    """The grammar (deputy.agent.model.call_grammar) makes a call well-formed by construction: through the worker's
    own model stack, each answer is one call of a tool that was offered, with only its parameters."""
    settings = Settings(**fresh_model.env())
    model = build_model(settings)
    tools = [*INTERNAL_TOOLS, *MEMORY_TOOLS, *default_catalog().tool_schemas()]
    for text in ("email bob@example.org: the boiler is fixed", "hello there", "What is 2 + 2?"):
        now = time.time()
        goal = Goal(id="g_form", user_id=8, chat_id=8, text=text, created_at=now, updated_at=now,
                    messages=[user_message(text)])
        reply = model.complete(build_messages(goal, now), tools)
        [call] = reply.tool_calls
        schema = next(t["function"] for t in tools if t["function"]["name"] == call.name)
        assert set(call.parsed_arguments()) <= set(schema["parameters"].get("properties", {})), (text, call)


def test_the_first_decision_always_names_a_kind_in_any_language(fresh_model: LocalModel) -> None:
    """Under the grammar the choice can only be one of the kinds, whatever the goal and its language."""
    from deputy.agent.model.first_decision import KIND_LABELS, decision_request
    from deputy.agent.model.tool_parsing import parse_tool_calls

    for text in ("anything on for me tmrw?", "wie sagt man Schmetterling auf Englisch?", "¿me recuerdas mañana a las 9?",
                 "fwd the invoice to ruth@tax.example", "merci!", "12 * 7?"):
        messages, tools = decision_request(text)
        body = {"model": fresh_model.model, **wire_body(messages, tools, constrain=True), "max_tokens": 40}
        content = httpx.post(fresh_model.base_url + "/chat/completions", json=body, timeout=600).json()[
            "choices"][0]["message"]["content"]
        whole = content if content.lstrip().startswith("<tool_call>") else PREFILL + content
        read = parse_tool_calls(whole, ["choose_kind"])
        assert [c.arguments.get("kind") in KIND_LABELS for c in read.calls] == [True], (text, content)
