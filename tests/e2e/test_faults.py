"""Faults injected into the whole of Deputy: processes SIGKILLed at chosen and at random
moments, the mail server hanging or refusing, the model refusing, Redis restarted.

What a user relies on, checked by reading the sandbox mail server and the user's chat:
every approved email goes out exactly once, or its card says its outcome is unknown (and
then Try again sends it once more, Drop it sends nothing); no goal stays silently stuck;
the chat never says an email went out when it did not.
"""

from __future__ import annotations

import imaplib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from redis import Redis
from tests_support import GOAL, email_script, mailbox_env

from deputy.agent.goals import GoalStore
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, last_message, message_text, text, tool_call
from deputy.testing.bot_crash import kill_bot_between_write_and_confirm
from deputy.testing.chaos import FaultPlan, run_faults, waiting_for_jobs
from deputy.testing.stack import DeputyStack, Message, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore, seed_demo_inbox

pytestmark = pytest.mark.slow

ACTIONS_DEQUEUED = "rq:queue:actions:intermediate"


def has_button(message: Message, text: str) -> bool:
    return any(b.get("text") == text for row in message["buttons"] for b in row)


def approve_then_pause(stack: DeputyStack, user_id: int, goal: str = GOAL) -> tuple[object, Message]:
    user = stack.user(user_id, asks_before_sending=True)
    sent = user.send(goal)
    card = user.wait_for_card(after=sent, timeout=60)
    return user, card


def kill_while_mail_hangs(stack: DeputyStack, mail: LocalMailServer, user_id: int,
                          mode: str = "hang_after", goal: str = GOAL) -> tuple[object, Message, Message]:
    """Approve, let the mail server hang in DATA (having kept the email or nothing), SIGKILL the
    executor, restart it: (the user, their card, the outcome-unknown card)."""
    user, card = approve_then_pause(stack, user_id, goal)
    mail.set_mode(mode)
    assert user.press(card["message_id"], button="Approve").status_code == 200
    mail.wait_for(1, timeout=60) if mode == "hang_after" else mail.wait_for_data(1, timeout=60)
    stack.kill("executor")
    mail.set_mode("accept")
    stack.restart("executor")
    unknown = user.wait_for_bot(lambda m: "Outcome unknown" in m["text"] and has_button(m, "Drop it"), timeout=90)
    return user, card, unknown


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
    user, card, unknown = kill_while_mail_hangs(stack, mail_server, 402, "hang_before")
    print("injected: mail server hung in DATA (kept nothing), executor SIGKILLed midway and restarted")

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
    user, _, unknown = kill_while_mail_hangs(stack, mail_server, 403)
    print("injected: mail server kept the email but never confirmed it; executor SIGKILLed and restarted")

    assert user.press(unknown["message_id"], button="Drop it").status_code == 200
    told = user.wait_for_bot(lambda m: m["text"].startswith("Done."), after=unknown["message_id"], timeout=60)
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


ME = "me@deputy.test"


@contextmanager
def stack_with_a_mailbox(tmp_path: Path, redis_server: RedisServer, model_server: ScriptedModelServer,
                         files_sent: bool, script=email_script,
                         ) -> Iterator[tuple[DeputyStack, LocalMailServer, MailStore]]:
    """Deputy with the user's IMAP mailbox (the demo week of mail, Sam's dinner question last);
    `files_sent`: the mail server files the sender's copy itself."""
    model_server.responder = script
    with MailStore(tmp_path / "imap") as store:
        seed_demo_inbox(store, ME)
        mail = LocalMailServer(store=store, files_sent=files_sent)
        mail.start()
        stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack",
                            smtp=mailbox_env(mail, store, ME)).start()
        try:
            yield stack, mail, store
        finally:
            stack.stop()
            mail.stop()


def sent_folder(store: MailStore) -> list[str]:
    """The subjects in the user's Sent folder, as their mail client shows them (Deputy's only:
    the demo week has the user's own hiking reply there)."""
    client = imaplib.IMAP4(store.host, store.port, timeout=5)
    try:
        client.login(ME, DEMO_PASSWORD)
        client.select('"Sent"', readonly=True)
        _, data = client.uid("FETCH", "1:*", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        subjects = [item[1].decode().strip() for item in data if isinstance(item, tuple)]
        return [s for s in subjects if "Hike" not in s]
    finally:
        client.logout()


@pytest.mark.timeout(240)
def test_an_email_sent_leaves_a_copy_in_sent_and_an_unconfirmed_one_is_said_to_have_none(
    tmp_path: Path, redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer
) -> None:
    """A plain SMTP server keeps no copy for the sender: Deputy files one in Sent after each email
    the server confirms, so an email the server never confirmed has none, and the card says so."""
    with stack_with_a_mailbox(tmp_path, redis_server, model_server, files_sent=False) as (stack, mail, store):
        user, _, unknown = kill_while_mail_hangs(stack, mail, 405)
        print("injected: mail server kept the email but never confirmed it; executor SIGKILLed and restarted")
        assert "There is no copy in your Sent folder (Sent)" in unknown["text"], unknown["text"]
        assert sent_folder(store) == []

        assert user.press(unknown["message_id"], button="Try again").status_code == 200
        user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=unknown["message_id"], timeout=60)
        assert len(mail.messages("alice@example.org")) == 2, "the user chose to send it once more"
        assert sent_folder(store) == ["Subject: Running late"], "the copy of the email the server confirmed"
        print("checked: the card said there was no copy in Sent; after Try again, Sent holds the confirmed email")


@pytest.mark.timeout(240)
def test_when_the_provider_filed_the_email_in_sent_the_card_says_it_went_out(
    tmp_path: Path, redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer
) -> None:
    """A provider that files sent mail itself (as Gmail does) kept a copy as it took the email:
    the card of the unconfirmed send says it went out, and Drop it sends nothing more."""
    with stack_with_a_mailbox(tmp_path, redis_server, model_server, files_sent=True) as (stack, mail, store):
        user, _, unknown = kill_while_mail_hangs(stack, mail, 406)
        print("injected: the provider filed the email in Sent and never confirmed it; executor SIGKILLed")
        assert "A copy is in your Sent folder (Sent), so it went out." in unknown["text"], unknown["text"]
        assert user.press(unknown["message_id"], button="Drop it").status_code == 200
        told = user.wait_for_bot(lambda m: "I couldn't confirm whether the email to alice@example.org was sent."
                                 in m["text"], after=unknown["message_id"], timeout=60)
        assert not told["text"].startswith("Done:")
        assert len(mail.messages("alice@example.org")) == 1
        assert sent_folder(store) == ["Subject: Running late"], "one copy: Deputy files none when one is there"
        print("checked: the card pointed to the copy in Sent; Drop it sent nothing more")


REPLY_GOAL = "reply to Sam's dinner email: yes, 7pm at Luigi's works"
SAM_DINNER = "INBOX/9"  # the demo week's newest email
REPLY_SUBJECT = "Subject: Re: Dinner on Friday?"


def reply_script(request: ChatRequest) -> ModelReply:
    """A model that reads Sam's email, replies to him, then reports what happened to the reply."""
    last = last_message(request.messages) or {}
    if last.get("role") != "tool":
        return tool_call("read_email", message_id=SAM_DINNER)
    outcome = message_text(last)
    if "Dinner on Friday?" in outcome and "sam@friends.example" in outcome and "Replied" not in outcome:
        return tool_call("reply_email", message_id=SAM_DINNER, to=["sam@friends.example"],
                         body="Yes, 7pm at Luigi's works!")
    if outcome.startswith("Replied"):
        return tool_call("reply", text="Done: I told Sam 7pm at Luigi's works.")
    return tool_call("reply", text=f"That didn't work: {outcome}")


@pytest.mark.timeout(240)
def test_a_reply_cut_off_is_said_to_have_no_copy_in_sent_and_try_again_files_one(
    tmp_path: Path, redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer
) -> None:
    """A reply goes out by SMTP like any email: Deputy files it in Sent once the server confirms
    it, so a reply the server never confirmed has no copy, and its card says so."""
    with stack_with_a_mailbox(tmp_path, redis_server, model_server, files_sent=False, script=reply_script) as (
            stack, mail, store):
        user, _, unknown = kill_while_mail_hangs(stack, mail, 408, goal=REPLY_GOAL)
        print("injected: mail server kept the reply but never confirmed it; executor SIGKILLed and restarted")
        assert "I stopped while sending this reply" in unknown["text"], unknown["text"]
        assert "There is no copy in your Sent folder (Sent)" in unknown["text"], unknown["text"]
        assert sent_folder(store) == []

        assert user.press(unknown["message_id"], button="Try again").status_code == 200
        user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=unknown["message_id"], timeout=60)
        assert len(mail.messages("sam@friends.example")) == 2, "the user chose to send it once more"
        assert sent_folder(store) == [REPLY_SUBJECT], "one copy, of the reply the server confirmed"
        print("checked: the card said there was no copy in Sent; after Try again, Sent holds the reply once")


@pytest.mark.timeout(240)
def test_when_the_provider_filed_a_reply_in_sent_the_card_says_it_went_out_and_sent_keeps_one(
    tmp_path: Path, redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer
) -> None:
    """A provider that files sent mail itself: the card of the unconfirmed reply points to its copy,
    and Sent keeps that one copy."""
    with stack_with_a_mailbox(tmp_path, redis_server, model_server, files_sent=True, script=reply_script) as (
            stack, mail, store):
        user, _, unknown = kill_while_mail_hangs(stack, mail, 409, goal=REPLY_GOAL)
        print("injected: the provider filed the reply in Sent and never confirmed it; executor SIGKILLed")
        assert "A copy is in your Sent folder (Sent), so it went out." in unknown["text"], unknown["text"]
        assert user.press(unknown["message_id"], button="Drop it").status_code == 200
        user.wait_for_bot(lambda m: "I couldn't confirm" in m["text"] or "didn't work" in m["text"],
                          after=unknown["message_id"], timeout=60)
        assert len(mail.messages("sam@friends.example")) == 1
        assert sent_folder(store) == [REPLY_SUBJECT], "one copy: Deputy files none when one is there"
        print("checked: the card pointed to the copy in Sent; Drop it sent nothing more; Sent holds one copy")


@pytest.mark.timeout(300)
def test_a_goal_lost_when_redis_came_back_empty_is_named_and_can_be_started_again(
    tmp_path: Path, mail_server: LocalMailServer, model_server: ScriptedModelServer, smtp_env: dict[str, str]
) -> None:
    """Redis without persistence restarts while a goal waits on its card: the user is told which
    goal was lost and starts it again with one press; the dead card's buttons go away when pressed."""
    redis_server = RedisServer(tmp_path / "redis").start()
    model_server.responder = email_script
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env).start()
    try:
        user, card = approve_then_pause(stack, 407)
        redis_server.restart()
        print("injected: redis-server restarted without persistence (empty) while the goal waited on its card")

        notice = user.wait_for_bot(lambda m: has_button(m, "Start again"), after=card["message_id"], timeout=60)
        assert f"I lost “{GOAL}”" in notice["text"], notice["text"]

        assert user.press(card["message_id"], button="Approve").status_code == 200
        assert "can't find that request" in user.wait_for_answer(1)["text"]
        wait_for(lambda: not next(m for m in user.bot_messages() if m["message_id"] == card["message_id"])["buttons"],
                 timeout=20, what="the dead card's buttons to go")

        stack.user(407, asks_before_sending=True)  # the user's rule was lost too; they set it again
        assert user.press(notice["message_id"], button="Start again").status_code == 200
        again = user.wait_for_card(after=notice["message_id"], timeout=60)
        assert user.press(again["message_id"], button="Approve").status_code == 200
        user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=again["message_id"], timeout=60)
        assert len(mail_server.messages()) == 1
        print("checked: the lost goal was named with Start again; the dead card lost its buttons when pressed; "
              "Start again ran the goal, one email")
    finally:
        stack.stop()
        redis_server.stop()


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
    from deputy.testing.stack import RedisServer
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
