"""Faults injected into the whole of Deputy: processes SIGKILLed at chosen and at random
moments, the mail server hanging or refusing, the model refusing, Redis restarted.

What a user relies on, checked by reading the sandbox mail server and the user's chat:
every approved email goes out exactly once, or its card says its outcome is unknown (and
then Try again sends it once more, Drop it sends nothing); no goal stays silently stuck;
the chat never says an email went out when it did not.
"""

from __future__ import annotations

import pytest
from redis import Redis
from tests_support import GOAL, email_script

from agent.model import ModelReply
from agent.testing import ChatRequest, ScriptedModelServer, last_message, text

from agent.goals import GoalStore
from deputy.bot_crash import kill_bot_between_write_and_confirm
from deputy.chaos import FaultPlan, run_faults, waiting_for_jobs
from deputy.testing import DeputyStack, Message, RedisServer, wait_for
from sandbox.mail import LocalMailServer

pytestmark = pytest.mark.slow

ACTIONS_DEQUEUED = "rq:queue:actions:intermediate"


def has_button(message: Message, text: str) -> bool:
    return any(b.get("text") == text for row in message["buttons"] for b in row)


def approve_then_pause(stack: DeputyStack, user_id: int) -> tuple[object, Message]:
    user = stack.user(user_id, asks_before_sending=True)
    sent = user.send(GOAL)
    card = user.wait_for_card(after=sent, timeout=60)
    return user, card


def never_claimed_done(user) -> None:
    claims = [m["text"] for m in user.bot_messages() if m["text"].startswith("Done:")]
    assert claims == [], f"the chat said it was done: {claims}"


@pytest.mark.timeout(240)
def test_executor_killed_after_dequeue_before_start_sends_exactly_once(
    stack: DeputyStack, mail_server: LocalMailServer, redis: Redis
) -> None:
    """Paused as it takes the job (BLMOVE is done by Redis meanwhile), then SIGKILLed."""
    user, card = approve_then_pause(stack, 401)
    wait_for(lambda: waiting_for_jobs(redis, "actions"), timeout=30, what="the executor to wait for jobs")
    stack.pause("executor")
    assert user.press(card["message_id"], button="Approve").status_code == 200
    wait_for(lambda: redis.llen(ACTIONS_DEQUEUED) == 1, timeout=20, what="the paused executor to hold the job")
    print(f"injected: executor paused, Approve pressed, job dequeued ({redis.lrange(ACTIONS_DEQUEUED, 0, -1)}), "
          "executor SIGKILLed and restarted")
    stack.kill("executor")
    stack.restart("executor")

    done = user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=90)
    assert "Alice" in done["text"]
    assert len(mail_server.wait_for(1, address="alice@example.org")) == 1
    assert len(mail_server.messages()) == 1, "exactly once"
    print("checked: one email to alice@example.org, the chat says Done")


@pytest.mark.timeout(240)
def test_executor_killed_while_the_mail_server_takes_the_email_asks_and_try_again_sends_once(
    stack: DeputyStack, mail_server: LocalMailServer
) -> None:
    user, card = approve_then_pause(stack, 402)
    mail_server.set_mode("hang_before")
    assert user.press(card["message_id"], button="Approve").status_code == 200
    mail_server.wait_for_data(1, timeout=60)
    stack.kill("executor")
    mail_server.set_mode("accept")
    stack.restart("executor")
    print("injected: mail server hung in DATA (kept nothing), executor SIGKILLed midway and restarted")

    unknown = user.wait_for_bot(lambda m: "Outcome unknown" in m["text"] and has_button(m, "Try again"),
                                timeout=90)
    assert unknown["message_id"] == card["message_id"], "the approved card itself says so"
    assert "can't tell whether it went out" in unknown["text"] and "alice@example.org" in unknown["text"]
    never_claimed_done(user)
    assert mail_server.messages() == []

    retry = next(b["data"] for row in unknown["buttons"] for b in row if b["text"] == "Try again")
    assert user.press(unknown["message_id"], button="Try again").status_code == 200
    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=60)
    assert len(mail_server.wait_for(1, address="alice@example.org")) == 1
    assert user.press(unknown["message_id"], data=retry).status_code == 200  # a replayed press counts for nothing
    assert "already" in user.wait_for_answer(3)["text"]
    assert len(mail_server.messages()) == 1
    print("checked: outcome-unknown card, Try again sent exactly one email, a second press counted for nothing")


def bare_done_script(request: ChatRequest) -> ModelReply:
    """A hosted model's habit: once the tool answered, a bare plain-text "Done.", whatever it said."""
    if (last_message(request.messages) or {}).get("role") == "tool":
        return text("Done.")
    return email_script(request)


@pytest.mark.timeout(240)
def test_executor_killed_after_the_mail_went_out_unconfirmed_drop_it_never_claims_success(
    stack: DeputyStack, mail_server: LocalMailServer, model_server: ScriptedModelServer
) -> None:
    model_server.responder = bare_done_script
    user, card = approve_then_pause(stack, 403)
    mail_server.set_mode("hang_after")
    assert user.press(card["message_id"], button="Approve").status_code == 200
    mail_server.wait_for(1, timeout=60)
    stack.kill("executor")
    mail_server.set_mode("accept")
    stack.restart("executor")
    print("injected: mail server kept the email but never confirmed it; executor SIGKILLed and restarted")

    unknown = user.wait_for_bot(lambda m: "Outcome unknown" in m["text"] and has_button(m, "Drop it"), timeout=90)
    assert user.press(unknown["message_id"], button="Drop it").status_code == 200
    told = user.wait_for_bot(lambda m: m["text"].startswith("Done."), after=card["message_id"], timeout=60)
    assert "I couldn't confirm whether the email to alice@example.org was sent." in told["text"], told["text"]
    assert len(mail_server.messages()) == 1, "dropping never sends"
    print("checked: the card said the outcome is unknown, Drop it sent nothing more, the model's bare "
          "'Done.' came with Deputy's line that it couldn't confirm the email was sent")


@pytest.mark.timeout(240)
def test_bot_killed_between_recording_a_message_and_confirming_it_makes_one_goal_and_one_email(
    stack: DeputyStack, redis_server: RedisServer, mail_server: LocalMailServer, redis: Redis
) -> None:
    """Redis stalls while the bot records a fetched message; the bot dies before its next
    getUpdates confirms it. After the restart the bot has the recorded copy and Telegram
    hands out the message again: still one goal, one card, one email."""
    user = stack.user(404, asks_before_sending=True)
    sent: list[int] = []
    recorded = kill_bot_between_write_and_confirm(stack, redis_server, lambda: sent.append(user.send(GOAL)))
    assert recorded, "the bot's record of the message reached Redis before the kill"
    print("injected: redis-server paused, goal texted, bot SIGKILLed with its record of the update waiting in "
          "Redis, redis resumed (the record landed), bot restarted")

    card = user.wait_for_card(after=sent[0], timeout=90)
    assert user.press(card["message_id"], button="Approve").status_code == 200
    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=60)
    assert [g.text for g in GoalStore(redis).recent(404, limit=10)] == [GOAL], "one message, one goal"
    cards = [m for m in user.bot_messages(after=sent[0]) if has_button(m, "Approve") or "Approve" in m["text"]]
    assert len(cards) == 1, [m["text"][:60] for m in user.bot_messages(after=sent[0])]
    assert len(mail_server.wait_for(1, address="alice@example.org")) == 1
    assert len(mail_server.messages()) == 1
    print("checked: one goal stored, one card, one email")


@pytest.mark.timeout(420)
def test_random_kills_of_every_process_keep_every_promise(tmp_path, capsys) -> None:
    """Seeded random SIGKILLs of the agent worker, the executor, the gateway and the bot,
    some while the mail server hangs or the model refuses, with goals and approvals flowing."""
    report = run_faults(FaultPlan(seed=20261201, users=4, kills=4), tmp_path)
    print(report.text())
    assert report.ok, report.text()


@pytest.mark.timeout(420)
def test_redis_restarted_with_appendonly_loses_nothing_acknowledged(tmp_path) -> None:
    """Redis stopped and started again (append-only) while goals and approvals flow, with
    kills too: every goal the bot acknowledged and every press it answered still happens, and
    once Redis is back no goal a user texts is refused."""
    report = run_faults(FaultPlan(seed=7, users=4, kills=2, redis_restart="appendonly", model_refusals=0,
                                  targets=("worker", "executor"), refusals_after_restart_ok=False), tmp_path)
    print(report.text())
    assert report.ok, report.text()


@pytest.mark.timeout(300)
def test_after_redis_restarts_empty_a_new_goal_still_completes(
    tmp_path, mail_server: LocalMailServer, model_server, smtp_env: dict[str, str]
) -> None:
    """Redis without persistence restarted (everything lost): Deputy heals and serves the next goal."""
    from deputy.testing import RedisServer
    redis_server = RedisServer(tmp_path / "redis").start()
    model_server.responder = email_script
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env,
                        gateway=True).start()
    try:
        redis_server.stop()
        redis_server.start()
        print("injected: redis-server restarted without persistence (empty)")
        user = stack.user(411, asks_before_sending=True)  # the rule is stored in the new, empty Redis
        sent = user.send(GOAL)
        try:
            card = user.wait_for_card(after=sent, timeout=90)
        except TimeoutError:
            chat = [m["text"] for m in user.bot_messages(after=sent)]
            pytest.fail(f"no card after the restart; the chat says {chat}\n{stack.logs()}")
        assert user.press(card["message_id"], button="Approve").status_code == 200
        user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=60)
        assert len(mail_server.messages()) == 1
        print("checked: a goal after the restart got its card, its approved email went out once")
    finally:
        stack.stop()
        redis_server.stop()
