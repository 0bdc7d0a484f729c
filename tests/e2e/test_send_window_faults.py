"""A message waiting in its send window when the executor is SIGKILLed: after the restart it is
delivered exactly once, or not at all if the user pressed Undo meanwhile, never twice."""

from __future__ import annotations

import time

import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.core.records.send_window_store import SendWindowStore
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.testing.stack import DeputyStack, Message, wait_for
from deputy.sandbox.mail import LocalMailServer

pytestmark = pytest.mark.slow

TO, BODY = "alice@example.org", "Hi Alice, I'll be 10 minutes late. Sorry!"
GOAL = f"email {TO} that I'll be 10 minutes late"
WINDOW = 6


def script(request: ChatRequest) -> ModelReply:
    tools = [message_text(m) for m in request.messages if m.get("role") == "tool"]
    if tools:
        return tool_call("reply", text=f"Result: {tools[-1]}")
    return tool_call("send_email", to=[TO], subject="Running late", body=BODY)


def waiting(stack: DeputyStack, redis: Redis, user_id: int) -> tuple[object, Message, float]:
    UserSettingsStore(redis).save(user_id, UserSettings(send_window=WINDOW))
    user = stack.user(user_id)
    sent = user.send(GOAL)
    shown = user.wait_for_bot(lambda m: any(b["text"] == "Undo" for row in m["buttons"] for b in row),
                              after=sent, timeout=60)
    action_id = next(b["data"] for row in shown["buttons"] for b in row if b["text"] == "Undo").split(":")[1]
    return user, shown, SendWindowStore(redis).get(action_id).due


@pytest.mark.timeout(240)
def test_a_send_waiting_when_the_executor_dies_goes_out_once_after_the_restart(
        stack: DeputyStack, model_server, redis: Redis, mail_server: LocalMailServer) -> None:
    model_server.responder = script
    user, shown, due = waiting(stack, redis, 631)
    stack.kill("executor")
    print("injected: executor SIGKILLed while the email waited in its send window")
    wait_for(lambda: time.time() > due + 1, timeout=WINDOW + 5, what="the window to end with no executor")
    assert mail_server.messages() == [], "nothing went out while no executor ran"
    stack.restart("executor")
    user.wait_for_bot(lambda m: m["text"].startswith("Result: Email sent"), after=shown["message_id"], timeout=120)
    assert len(mail_server.wait_for(1, address=TO)) == 1
    assert len(mail_server.messages()) == 1, "exactly once"


@pytest.mark.timeout(240)
def test_undo_pressed_while_the_executor_is_dead_wins_after_the_restart(
        stack: DeputyStack, model_server, redis: Redis, mail_server: LocalMailServer) -> None:
    model_server.responder = script
    user, shown, due = waiting(stack, redis, 632)
    stack.kill("executor")
    user.press(shown["message_id"], button="Undo")
    assert "Nothing was sent" in user.wait_for_answer(1)["text"]
    print("injected: executor SIGKILLed, Undo pressed while it was down")
    wait_for(lambda: time.time() > due + 1, timeout=WINDOW + 5, what="the window to end with no executor")
    stack.restart("executor")
    told = user.wait_for_bot(lambda m: m["text"].startswith("Result:"), after=shown["message_id"], timeout=120)
    assert "cancelled" in told["text"]
    assert mail_server.messages() == []
