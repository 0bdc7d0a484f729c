"""Bad input and broken dependencies get a polite, specific answer and lose nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests_support import email_script

from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, ScriptedResponse
from deputy.core.infrastructure.ports import free_port
from deputy.testing.stack import DeputyStack, RedisServer

FAST_RETRIES = {"DEPUTY_MODEL_RETRY_DELAYS": "0.2,0.2"}


@pytest.fixture
def stack_env() -> dict[str, str]:
    return FAST_RETRIES


def no_traceback(text: str) -> bool:
    return "Traceback" not in text and "Error:" not in text and "Exception" not in text


def test_start_help_and_unknown_commands(stack: DeputyStack) -> None:
    user = stack.user(201, "Bea")
    sent = user.send("/start")
    greeting = user.wait_for_bot(lambda m: True, after=sent)
    assert "Bea" in greeting["text"] and "/help" in greeting["text"]
    # The one setting for messages is offered with the greeting, and again under /settings.
    choices = ["Ask before every message", "Ask only when I didn't name the recipient",
               "Ask only for people outside my contacts"]
    assert [row[0]["text"].removeprefix("✓ ") for row in greeting["buttons"]] == choices
    # Offered once: a later /start greets without asking again and says where the choice lives.
    sent = user.send("/start")
    again = user.wait_for_bot(lambda m: True, after=sent)
    assert "Bea" in again["text"] and "/settings" in again["text"] and again["buttons"] == []
    sent = user.send("/settings")
    shown = user.wait_for_bot(lambda m: True, after=sent)
    assert "Messages: ask only when i didn't name the recipient" in shown["text"]
    assert [row[0]["text"] for row in shown["buttons"]][1] == "✓ Ask only when I didn't name the recipient"

    sent = user.send("/help")
    assert "/goals" in user.wait_for_bot(lambda m: True, after=sent)["text"]

    sent = user.send("/frobnicate now")
    answer = user.wait_for_bot(lambda m: True, after=sent)["text"]
    assert "/frobnicate" in answer and "/help" in answer


def test_commands_for_another_bot_are_ignored(stack: DeputyStack, model_server) -> None:
    """In a group with several bots, `/start@OtherBot` is that bot's business: no answer, no goal."""
    user = stack.user(207, "Gil")
    first = user.send("/start@OtherBot")
    user.send("/frobnicate@OtherBot now")
    sent = user.send("/start@deputy_bot")
    greeting = user.wait_for_bot(lambda m: True, after=first)
    assert "Gil" in greeting["text"] and "/help" in greeting["text"]
    # One chat's updates are handled in order: the help answer comes after anything for the first two.
    user.send("/help")
    user.wait_for_bot(lambda m: "/goals" in m["text"], after=sent)
    answers = [m["text"] for m in user.bot_messages(after=first)]
    assert len(answers) == 2, answers
    assert not any("don't know the command" in text for text in answers)
    assert model_server.requests == [], "a command for another bot must not start a goal"


def test_oversized_and_empty_messages_are_refused_politely(stack: DeputyStack, model_server) -> None:
    user = stack.user(202)
    sent = user.send("x" * 5000)
    answer = user.wait_for_bot(lambda m: True, after=sent)["text"]
    assert "5,000" in answer and "4,096" in answer and no_traceback(answer)

    sent = user.send("   ")
    assert "empty" in user.wait_for_bot(lambda m: True, after=sent)["text"]
    sent = user.send("")
    assert "empty" in user.wait_for_bot(lambda m: True, after=sent)["text"]
    assert model_server.requests == [], "refused messages must not start goals"


def test_model_down_fails_the_goal_politely_and_retry_resumes_it(
    redis_server: RedisServer, redis, model_server: ScriptedModelServer, smtp_env, tmp_path: Path
) -> None:
    dead_endpoint = f"http://127.0.0.1:{free_port()}/v1"
    deputy = DeputyStack(redis_server.url, dead_endpoint, tmp_path / "stack", smtp=smtp_env, extra_env=FAST_RETRIES)
    deputy.start()
    try:
        user = deputy.user(203)
        sent = user.send("email alice@example.org that I'll be 10 minutes late")
        failed = user.wait_for_bot(lambda m: "language model" in m["text"], after=sent, timeout=40)
        assert "couldn't reach" in failed["text"] and "/retry" in failed["text"] and no_traceback(failed["text"])

        sent = user.send("/goals")
        assert "stopped" in user.wait_for_bot(lambda m: True, after=sent)["text"]
    finally:
        deputy.stop()


def test_garbage_from_the_model_then_retry_completes_the_goal(stack: DeputyStack, model_server) -> None:
    model_server.responder = lambda request: ScriptedResponse.garbage()
    user = stack.user(204, asks_before_sending=True)
    sent = user.send("email alice@example.org that I'll be 10 minutes late")
    failed = user.wait_for_bot(lambda m: "language model" in m["text"], after=sent, timeout=40)
    assert "couldn't read" in failed["text"] and no_traceback(failed["text"])
    assert len(model_server.requests) == 3

    # The goal was kept: once the model works again, /retry picks it up where it stopped.
    model_server.responder = email_script
    sent = user.send("/retry")
    card = user.wait_for_card(after=sent)
    assert "alice@example.org" in card["text"]


def test_tool_call_with_bad_arguments_goes_back_to_the_model(stack: DeputyStack, model_server, mail_server) -> None:
    def script(request: ChatRequest):
        from deputy.agent.model.testing import last_message, message_text, tool_call

        last = last_message(request.messages) or {}
        if last.get("role") == "tool" and "Invalid arguments" in message_text(last):
            return tool_call("reply", text="I need a valid address to email.", expects_answer=True)
        return tool_call("send_email", to=["not-an-address"], subject="Hi", body="Hello")

    model_server.responder = script
    user = stack.user(205)
    sent = user.send("email bob that hi")
    asked = user.wait_for_bot(lambda m: "valid address" in m["text"], after=sent)
    assert asked is not None and mail_server.messages() == []


def test_strangers_are_refused_when_an_allow_list_is_set(
    redis_server: RedisServer, redis, model_server: ScriptedModelServer, smtp_env, tmp_path: Path
) -> None:
    model_server.responder = email_script
    deputy = DeputyStack(
        redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env,
        extra_env={"DEPUTY_ALLOWED_USERS": "206"},
    ).start()
    try:
        stranger = deputy.user(207)
        sent = stranger.send("email alice@example.org that I'll be late")
        refusal = stranger.wait_for_bot(lambda m: True, after=sent)["text"]
        assert "private" in refusal and "207" in refusal
        member = deputy.user(206, asks_before_sending=True)
        sent = member.send("email alice@example.org that I'll be late")
        assert member.wait_for_card(after=sent)
        assert len(model_server.requests) == 1, "the stranger's message must not reach the model"
    finally:
        deputy.stop()


def test_redis_down_gets_a_polite_answer(model_server: ScriptedModelServer, smtp_env, tmp_path: Path) -> None:
    private_redis = RedisServer(tmp_path / "redis").start()
    deputy = DeputyStack(private_redis.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env).start()
    try:
        user = deputy.user(208)
        private_redis.stop()
        sent = user.send("email alice@example.org that I'll be late")
        answer = user.wait_for_bot(lambda m: True, after=sent)["text"]
        assert "can't reach my storage" in answer and "try again" in answer and no_traceback(answer)
    finally:
        deputy.stop()
        private_redis.stop()
