"""A warm first goal: have the local model read Deputy's instructions and tools once, at start.

A step's prompt opens with the system prompt and the tool list, the same for every goal
(`deputy.agent.prompt`); llama-server keeps what it last read in its slot and reads only what
differs next time (its prompt cache). On two cores that opening is most of a first step's
time (about 1,400 tokens, over a minute at one thread), so `deputy run` has the model read
it while the user is still opening the chat page: the first goal then starts warm, like
every goal after it.
"""

from __future__ import annotations

import time

import httpx

from deputy.agent.model.call_grammar import PREFILL, wire_body
from deputy.agent.model.first_decision import decision_request
from deputy.agent.goals import Goal
from deputy.agent.memory_tools import MEMORY_TOOLS
from deputy.agent.origins import for_model, user_message
from deputy.agent.prompt import build_messages
from deputy.agent.model.text_tools import as_asked
from deputy.agent.model.tool_aliases import shown_messages, shown_tools
from deputy.agent.tool_selection import select_tools
from deputy.agent.tools import INTERNAL_TOOLS
from deputy.agent.workspace_tools import WORKSPACE_TOOLS
from deputy.connectors.default import default_catalog

TYPICAL_GOAL = "Email alice@example.org that I'm running late"
"""What a first goal usually is: its tools (the always-offered ones, then email) are the ones warmed."""


def warm_up_request(model: str, max_tools: int | None, now: float) -> dict:
    """The chat request whose prompt opens as a first goal's first step does (system prompt, then tools)."""
    goal = Goal(id="warm-up", user_id=0, chat_id=0, text=TYPICAL_GOAL, created_at=now, updated_at=now,
                messages=[user_message(TYPICAL_GOAL)])
    messages = build_messages(goal, now)
    every = [*INTERNAL_TOOLS, *MEMORY_TOOLS, *WORKSPACE_TOOLS, *default_catalog().tool_schemas()]
    tools = as_asked(select_tools(every, messages, max_tools), every, messages)  # as a forced goal's offer is
    # As the workers send it (forced and constrained, deputy.agent.model.call_grammar); one token: reading the
    # prompt is the point, not the answer.
    # with the names a small model sees (deputy.agent.model.tool_aliases).
    body = wire_body([*map(for_model, shown_messages(messages)), {"role": "assistant", "content": PREFILL}],
                     shown_tools(tools), constrain=True)
    return {"model": model, **body, "max_tokens": 1}


def decision_warm_up_request(model: str) -> dict:
    """The first decision's request (`deputy.agent.model.first_decision`): its instructions are the same for every goal."""
    messages, tools = decision_request(TYPICAL_GOAL)
    return {"model": model, **wire_body(messages, tools, constrain=True), "max_tokens": 1}


def warm_up(base_url: str, model: str, max_tools: int | None, timeout: float = 600.0) -> float:
    """Send the warm-up requests (the first decision's, then a first step's) and wait for them; returns the
    seconds they took. Raises httpx.HTTPError."""
    started = time.monotonic()
    for body in (decision_warm_up_request(model), warm_up_request(model, max_tools, time.time())):
        response = httpx.post(base_url.rstrip("/") + "/chat/completions", json=body, timeout=timeout)
        response.raise_for_status()
    return time.monotonic() - started
