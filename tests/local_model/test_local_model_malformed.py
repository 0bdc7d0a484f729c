"""A model that keeps writing broken tool calls, through the real chat stack (scripted, deterministic).

Both model paths read text tool calls alike: workers calling the model inline, and the model gateway.

The worker is configured exactly as for the local model (`DEPUTY_FORCE_TOOL_CALL`,
`DEPUTY_MAX_TOOLS`); the scripted server stands in for a small model that cuts its calls off.
`test_local_model_chat.py` shows the real model recovering after one such reply.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, text
from deputy.agent.model.text_tools import FALLBACK, PREFILL
from deputy.testing.stack import DeputyStack, RedisServer

CUT_OFF = 'send_email", "arguments": {"to": ["alice@exa'
WHOLE = 'send_email", "arguments": ' + json.dumps(
    {"to": ["alice@example.org"], "subject": "Running late", "body": "I'm running late."}) + "}\n</tool_call>"


@pytest.mark.parametrize("gateway", [False, True], ids=["inline", "gateway"])
def test_broken_calls_twice_ask_the_user_and_nothing_half_read_runs(
    redis_server: RedisServer, redis, smtp_env: dict[str, str], tmp_path: Path, gateway: bool
) -> None:
    answers = [CUT_OFF, CUT_OFF, WHOLE]

    def respond(request: ChatRequest):
        assert request.messages[-1] == {"role": "assistant", "content": PREFILL}  # the answer is started for it
        return text(answers.pop(0) if answers else 'reply", "arguments": {"text": "Done."}}\n</tool_call>')

    with ScriptedModelServer(respond) as model:
        stack = DeputyStack(redis_server.url, model.base_url, tmp_path / "stack", smtp=smtp_env, gateway=gateway,
                            extra_env={"DEPUTY_FORCE_TOOL_CALL": "true", "DEPUTY_MAX_TOOLS": "8"}).start()
        try:
            user = stack.user(201, "Kim", asks_before_sending=True)
            sent = user.send("email alice@example.org that I'm running late")
            question = user.wait_for_bot(lambda m: m["text"] == FALLBACK, after=sent, timeout=60)
            assert not any(m["buttons"] for m in user.bot_messages(sent))  # no card: the cut-off call never ran
            second = model.requests[1].messages
            assert second[-2]["role"] == "user" and second[-2]["content"].startswith("(Format: ")

            # The goal waits for the user; answering it carries on, with nothing lost.
            user.send("email alice@example.org that I'm running late, please")
            card = user.wait_for_card(after=question["message_id"], timeout=60)
            assert "alice@example.org" in card["text"]
        finally:
            stack.stop()
