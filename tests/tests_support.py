"""Scripts shared by several end-to-end tests."""

from __future__ import annotations

from agent.model import ModelReply
from agent.testing import ChatRequest, last_message, message_text, tool_call

GOAL = "email alice@example.org that I'll be 10 minutes late"
SUBJECT = "Running late"
BODY = "Hi Alice, I'll be 10 minutes late. Sorry!"


def email_script(request: ChatRequest) -> ModelReply:
    """A model that emails Alice, then reports what happened to the email."""
    last = last_message(request.messages) or {}
    if last.get("role") == "tool":
        outcome = message_text(last)
        if outcome.startswith("Email sent"):
            return tool_call("reply", text="Done: I emailed Alice that you'll be 10 minutes late.")
        if "declined" in outcome:
            return tool_call("reply", text="OK, I did not send the email to Alice.")
        if "expired" in outcome:
            return tool_call("reply", text="Your approval request expired, so I did not send the email.")
        return tool_call("reply", text=f"That didn't work: {outcome}")
    return tool_call("send_email", to=["alice@example.org"], subject=SUBJECT, body=BODY)
