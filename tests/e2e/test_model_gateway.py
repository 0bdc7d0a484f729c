"""Goals whose model calls go through the model gateway, with real processes throughout.

The agent worker hands each model call to `deputy gateway` and moves on; the gateway's
answer brings the goal's next step. What a user relies on: the goal behaves exactly as
with the model called inline, a gateway killed mid-call loses nothing and repeats no
email, an unreachable model gets the same polite answer, pause and cancel hold while the
model thinks, and one worker keeps many goals' model calls in flight at once.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis
from tests_support import GOAL, email_script

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import (
    ChatRequest,
    ScriptedModelServer,
    ScriptedResponse,
    last_message,
    message_text,
    system_text,
    text,
    tool_call,
)
from deputy.core.infrastructure.ports import free_port
from deputy.testing.stack import DeputyStack, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.sentinel.rules import RequestedVerdict, RuleConditions, RuleScope, UserRule

FAST_RETRIES = {"DEPUTY_MODEL_RETRY_DELAYS": "0.2,0.2"}


@pytest.fixture
def gateway_stack(
    redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer, smtp_env: dict[str, str],
    tmp_path: Path,
) -> Iterator[DeputyStack]:
    model_server.responder = email_script
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env,
                        extra_env=FAST_RETRIES, gateway=True).start()
    yield stack
    stack.stop()


def outcomes(redis: Redis) -> list[dict]:
    return [json.loads(redis.get(key)) for key in redis.scan_iter("deputy:model:outcome:*")]


def test_a_goal_runs_through_the_gateway_and_sends_one_email(
    gateway_stack: DeputyStack, mail_server: LocalMailServer, model_server: ScriptedModelServer, redis: Redis
) -> None:
    user = gateway_stack.user(701, "Ann", asks_before_sending=True)
    sent = user.send(GOAL)
    card = user.wait_for_card(after=sent)
    assert "To: alice@example.org" in card["text"]
    assert user.press(card["message_id"], button="Approve").status_code == 200
    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])
    assert len(mail_server.wait_for(1, address="alice@example.org")) == 1

    # Both model turns went through the gateway, which counted their tokens.
    assert [o["kind"] for o in outcomes(redis)] == ["reply", "reply"]
    usage = {k.decode(): int(v) for k, v in redis.hgetall(f"deputy:model:usage:127.0.0.1:{model_server.port}").items()}
    assert usage["requests"] == 2 and usage["prompt_tokens"] > 0 and usage["errors"] == 0
    assert redis.xlen("deputy:model:requests") == 0, "answered requests leave the stream"
    # The prompt is not logged by the gateway (nor the key).
    [gateway] = gateway_stack.gateways()
    assert "Alice" not in gateway_stack.log(gateway) and "sk-test" not in gateway_stack.log(gateway)


def test_a_gateway_killed_mid_call_is_replaced_and_the_goal_sends_once(
    gateway_stack: DeputyStack, mail_server: LocalMailServer, model_server: ScriptedModelServer
) -> None:
    hang_once = {"armed": True}

    def script(request: ChatRequest) -> ModelReply | ScriptedResponse:
        reply = email_script(request)
        last = last_message(request.messages) or {}
        if hang_once["armed"] and last.get("role") == "tool" and message_text(last).startswith("Email sent"):
            hang_once["armed"] = False
            return ScriptedResponse(reply=reply, delay_seconds=120)
        return reply

    model_server.responder = script
    user = gateway_stack.user(702, asks_before_sending=True)
    card = user.wait_for_card(after=user.send(GOAL))
    user.press(card["message_id"], button="Approve")
    mail_server.wait_for(1)
    wait_for(lambda: not hang_once["armed"], timeout=20, what="the model call after the email")

    [gateway] = gateway_stack.gateways()
    gateway_stack.kill(gateway)
    gateway_stack.start_gateway()

    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=40)
    assert len(mail_server.messages()) == 1
    assert sum(1 for m in user.bot_messages() if m["text"].startswith("Done:")) == 1


def test_an_unreachable_model_gets_a_polite_answer_after_the_retries(
    redis_server: RedisServer, redis: Redis, smtp_env: dict[str, str], tmp_path: Path
) -> None:
    dead_endpoint = f"http://127.0.0.1:{free_port()}/v1"
    stack = DeputyStack(redis_server.url, dead_endpoint, tmp_path / "stack", smtp=smtp_env, extra_env=FAST_RETRIES,
                        gateway=True).start()
    try:
        user = stack.user(703, asks_before_sending=True)
        sent = user.send(GOAL)
        failed = user.wait_for_bot(lambda m: "language model" in m["text"], after=sent, timeout=40)
        assert "couldn't reach" in failed["text"] and "/retry" in failed["text"]
        assert "Traceback" not in failed["text"]
        assert [o["kind"] for o in outcomes(redis)] == ["error"] * 3, "two retries, then the polite stop"
    finally:
        stack.stop()


class HeldModel:
    """Answers with `email_script`, but holds each request until the test lets it go."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def __call__(self, request: ChatRequest) -> ModelReply:
        self.release.wait(timeout=60)
        return email_script(request)


def _goal_card(user, after: int) -> dict:
    return user.wait_for_bot(lambda m: m["text"].startswith("🎯"), after=after)


def test_pause_while_the_model_thinks_then_resume(
    gateway_stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    held = HeldModel()
    model_server.responder = held
    user = gateway_stack.user(704, asks_before_sending=True)
    sent = user.send(GOAL)
    model_server.wait_for_requests(1, timeout=20)

    card = _goal_card(user, user.send("/goals"))
    user.press(card["message_id"], button="Pause")
    assert user.wait_for_answer(1)["text"] == "Paused."
    held.release.set()
    wait_for(lambda: [o["kind"] for o in outcomes(redis)] == ["discarded"], timeout=20,
             what="the gateway to set the late answer aside")
    assert not any(b["text"] == "Approve" for m in user.bot_messages(after=sent) for row in m["buttons"] for b in row)

    card = _goal_card(user, user.send("/goals"))
    assert "paused" in card["text"]
    user.press(card["message_id"], button="Resume")
    approval = user.wait_for_card(after=card["message_id"])
    assert "alice@example.org" in approval["text"]
    assert len(model_server.requests) == 2, "resumed, the goal asked the model again"


def test_cancel_while_the_model_thinks(
    gateway_stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    held = HeldModel()
    model_server.responder = held
    user = gateway_stack.user(705, asks_before_sending=True)
    user.send(GOAL)
    model_server.wait_for_requests(1, timeout=20)

    card = _goal_card(user, user.send("/goals"))
    user.press(card["message_id"], button="Cancel")
    assert user.wait_for_answer(1)["text"] == "Stopped."
    held.release.set()
    wait_for(lambda: [o["kind"] for o in outcomes(redis)] == ["discarded"], timeout=20,
             what="the gateway to set the late answer aside")
    listed = user.send("/goals")
    assert "cancelled" in user.wait_for_bot(lambda m: "Your recent goals" in m["text"], after=listed)["text"]
    assert not any(b["text"] == "Approve" for m in user.bot_messages() for row in m["buttons"] for b in row)
    assert len(model_server.requests) == 1


def test_one_worker_keeps_many_goals_waiting_on_the_model_at_once(
    redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    """50 goals, 1 agent worker, 1 gateway: the model sees at least 40 calls at the same time.

    The model answers only once 40 calls are waiting (no timing involved): a worker that
    waited for each answer itself could never get there.
    """
    def responder(request: ChatRequest) -> ScriptedResponse:
        try:
            model_server.wait_for_requests(40, timeout=60)
        except TimeoutError:
            pass  # answer anyway: the assertion below tells what happened
        return ScriptedResponse(reply=text("All done."), delay_seconds=1.0)

    model_server.responder = responder
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", gateway=True).start()
    try:
        users = [stack.user(800 + i) for i in range(50)]
        sent = [user.send(f"goal number {i}: say all done") for i, user in enumerate(users)]
        for user, after in zip(users, sent, strict=True):
            user.wait_for_bot(lambda m: m["text"] == "All done.", after=after, timeout=90)
        assert model_server.max_in_flight >= 40
        assert len(model_server.requests) == 50
    finally:
        stack.stop()


def test_a_goal_on_a_worker_that_does_not_fork_per_step(
    redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer, smtp_env: dict[str, str],
    mail_server: LocalMailServer, tmp_path: Path,
) -> None:
    """DEPUTY_WORKER_FORK=off (steps run in the worker process) behaves the same."""
    model_server.responder = email_script
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env,
                        extra_env={"DEPUTY_WORKER_FORK": "off"}, gateway=True).start()
    try:
        user = stack.user(706, asks_before_sending=True)
        card = user.wait_for_card(after=user.send(GOAL))
        user.press(card["message_id"], button="Approve")
        user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])
        assert len(mail_server.wait_for(1, address="alice@example.org")) == 1
    finally:
        stack.stop()


@pytest.mark.slow
def test_a_long_goal_survives_killed_workers_and_gateway_without_repeating_an_email(
    redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer, smtp_env: dict[str, str],
    mail_server: LocalMailServer, tmp_path: Path,
) -> None:
    """Workers that run steps in-process (no fork) and the gateway, SIGKILLed at random moments."""
    steps = 18

    def respond(request: ChatRequest) -> ModelReply | ScriptedResponse:
        summary = system_text(request.messages)
        folded = summary.count("\n- update_plan(") + summary.count("\n- send_email(")
        n = folded + sum(1 for m in request.messages if m.get("role") == "assistant")
        if n >= steps:
            return tool_call("reply", text=f"Done: all {steps} steps finished.")
        reply = (tool_call("send_email", to=["alice@example.org"], subject=f"Update {n}", body="Another step of the project is done.")
                 if n % 6 == 5 else tool_call("update_plan", steps=[{"title": f"Step {n}", "status": "done"}]))
        return ScriptedResponse(reply=reply, delay_seconds=0.3)

    model_server.responder = respond
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env, workers=2,
                        extra_env={"DEPUTY_WORKER_FORK": "off"}, gateway=True).start()
    try:
        user = stack.user(707)
        RuleStore(redis).add(707, UserRule(
            id="r_alice", verdict=RequestedVerdict.allow, created_at=time.time(),
            scope=RuleScope(operations=["send_email"]), conditions=RuleConditions(target_in=["alice@example.org"]),
        ))
        sent = user.send(f"work through the {steps}-step project and email alice@example.org updates")
        rng = random.Random(11)
        for victim in ("worker", "gateway", "worker"):
            target = len(model_server.requests) + rng.randint(2, 5)
            wait_for(lambda target=target: len(model_server.requests) >= target, timeout=60, what="progress")
            time.sleep(rng.uniform(0.05, 0.5))
            if victim == "worker":
                stack.kill(rng.choice(stack.workers()))
                stack.start_worker()
            else:
                [gateway] = stack.gateways()
                stack.kill(gateway)
                stack.start_gateway()
        user.wait_for_bot(lambda m: m["text"].startswith(f"Done: all {steps}"), after=sent, timeout=100)
        subjects = sorted(m.subject for m in mail_server.messages())
        assert subjects == sorted({f"Update {n}" for n in range(steps) if n % 6 == 5}), subjects
        assert len([m for m in user.bot_messages(after=sent) if m["text"].startswith("Done: all")]) == 1
    finally:
        stack.stop()
