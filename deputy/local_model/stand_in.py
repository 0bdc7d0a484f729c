"""A tiny rule-based stand-in for a language model, for running Deputy with no model at all.

It speaks the same OpenAI-compatible protocol (served by `deputy.agent.model.testing_server`) and
understands one kind of goal, "email <address> that/saying <message>", well enough to show
the whole flow: plan, approval card, send, report. Anything else gets an honest answer
saying how to connect a real model. It is never used when a model is configured.
"""

from __future__ import annotations

import json
import re
from typing import Any

from deputy.agent.model.chat_model import ModelReply, ToolCall
from deputy.agent.model.testing import message_text

NAME = "deputy-demo-brain"

_EMAIL_GOAL = re.compile(
    r"\b(?:e-?mail|write to|mail)\s+(?P<to>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)\s*(?:,|:)?\s*"
    r"(?:(?:to\s+)?(?:say|tell (?:him|her|them))\s+)?(?:that|saying)?\s*(?P<body>.*)",
    re.IGNORECASE | re.DOTALL,
)

HELP = (
    "I'm running on Deputy's built-in demo brain, which only understands goals like "
    "“email alice@example.org that I'll be 10 minutes late”. "
    "Set OPENAI_API_KEY (or OPENAI_BASE_URL for a local model server) for a real model."
)


def _call(name: str, arguments: dict[str, Any], index: int) -> ModelReply:
    return ModelReply(tool_calls=[ToolCall(id=f"demo_{index}", name=name, arguments=json.dumps(arguments))])


def demo_reply(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
    """Decide the next turn from the transcript alone (so a repeated request gets the same answer)."""
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        outcome = message_text(last)
        if "declined" in outcome:
            return _call("reply", {"text": "OK, I didn't send the email."}, turn)
        if outcome.startswith("Email sent"):
            return _call("reply", {"text": f"Done. {outcome}"}, turn)
        if outcome.startswith("Plan saved"):
            return _email_from_goal(messages, turn)
        return _call("reply", {"text": f"I couldn't finish: {outcome}"}, turn)
    goal = next((message_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    if _EMAIL_GOAL.search(goal):
        return _call(
            "update_plan",
            {"steps": [{"title": "Write the email", "status": "done"}, {"title": "Send it after your OK"}]},
            turn,
        )
    return _call("reply", {"text": HELP}, turn)


def _email_from_goal(messages: list[dict[str, Any]], turn: int) -> ModelReply:
    goal = next((message_text(m) for m in messages if m.get("role") == "user"), "")
    match = _EMAIL_GOAL.search(goal)
    if match is None:
        return _call("reply", {"text": HELP}, turn)
    body = match.group("body").strip().rstrip(".") or "Hello"
    body = body[0].upper() + body[1:] + "."
    subject = body if len(body) <= 60 else body[:57].rstrip() + "…"
    return _call("send_email", {"to": [match.group("to")], "subject": subject, "body": body}, turn)
