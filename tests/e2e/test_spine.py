"""The spine end to end through real parts: emulator, bot, RQ workers, executor, SMTP.

A goal texted in the chat, to someone the user named, is sent and reported; for a user whose
rule is to be asked first, it becomes an approval card; Approve sends exactly one email and
the chat says so; Deny sends nothing. Presses that should not count do not, and a worker
killed mid-goal does not lose the goal or send twice.
"""

from __future__ import annotations

import pytest
from tests_support import BODY, GOAL, SUBJECT, email_script

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import (
    ChatRequest,
    ScriptedModelServer,
    ScriptedResponse,
    last_message,
    message_text,
)
from deputy.testing.stack import DeputyStack, wait_for
from deputy.sandbox.mail import LocalMailServer
from deputy.sentinel.stores.audit import AuditLog


def approve_card(user, card) -> None:
    assert user.press(card["message_id"], button="Approve").status_code == 200


def test_an_email_the_user_asked_for_goes_out_at_once_and_the_chat_says_so(
        stack: DeputyStack, mail_server: LocalMailServer) -> None:
    user = stack.user(100, "Abe")
    sent_id = user.send(GOAL)
    done = user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=sent_id)
    assert "Alice" in done["text"]
    received = mail_server.wait_for(1, address="alice@example.org")
    assert received[0].subject == SUBJECT and BODY in received[0].body
    assert not any(m["buttons"] for m in user.bot_messages(after=sent_id)), "no card for what the user asked"
    assert len(mail_server.messages()) == 1


def test_goal_then_approve_sends_exactly_one_email(stack: DeputyStack, mail_server: LocalMailServer) -> None:
    user = stack.user(101, "Ann", asks_before_sending=True)
    sent_id = user.send(GOAL)
    ack = user.wait_for_bot(lambda m: True, after=sent_id)
    assert "background" in ack["text"]

    card = user.wait_for_card(after=sent_id)
    assert "To: alice@example.org" in card["text"]
    assert f"Subject: {SUBJECT}" in card["text"]
    assert BODY in card["text"]
    assert "Why I'm asking" in card["text"] and "alice@example.org" in card["text"].split("Why I'm asking")[1]
    assert [b["text"] for b in card["buttons"][0]] == ["Approve", "Deny"]
    assert mail_server.messages() == [], "nothing may be sent before the approval"

    approve_card(user, card)
    done = user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])
    assert "Alice" in done["text"]
    received = mail_server.wait_for(1, address="alice@example.org")
    assert received[0].subject == SUBJECT and BODY in received[0].body

    edited = next(m for m in user.messages() if m["message_id"] == card["message_id"])
    assert edited["edited"] and "Approved" in edited["text"] and edited["buttons"] == []
    assert "Approved" in user.wait_for_answer(1)["text"]
    assert len(mail_server.messages()) == 1


def test_deny_sends_nothing_and_the_agent_says_so(stack: DeputyStack, mail_server: LocalMailServer) -> None:
    user = stack.user(102, asks_before_sending=True)
    sent_id = user.send(GOAL)
    card = user.wait_for_card(after=sent_id)
    assert user.press(card["message_id"], button="Deny").status_code == 200

    told = user.wait_for_bot(lambda m: "did not send" in m["text"], after=card["message_id"])
    assert told is not None
    edited = next(m for m in user.messages() if m["message_id"] == card["message_id"])
    assert "Denied" in edited["text"] and edited["buttons"] == []
    assert mail_server.messages() == []


def test_presses_that_must_not_count(stack: DeputyStack, mail_server: LocalMailServer) -> None:
    owner, stranger = stack.user(103, "Owner", asks_before_sending=True), stack.user(104, "Stranger")
    sent_id = owner.send(GOAL)
    card = owner.wait_for_card(after=sent_id)
    approve_data = card["buttons"][0][0]["data"]
    deny_data = card["buttons"][0][1]["data"]

    # Someone else replays the owner's button data from their own chat.
    stranger_msg = stranger.send("/start")
    greeting = stranger.wait_for_bot(lambda m: True, after=stranger_msg)
    stranger.press(greeting["message_id"], data=approve_data)
    assert "isn't valid" in stranger.wait_for_answer(1)["text"]

    # Made-up and tampered data, from the owner.
    owner.press(card["message_id"], data="garbage")
    assert "isn't valid" in owner.wait_for_answer(1)["text"]
    owner.press(card["message_id"], data=approve_data[:-3] + "xyz")
    assert "isn't valid" in owner.wait_for_answer(2)["text"]
    assert mail_server.messages() == []

    # The real press counts once; pressing again (either button) is answered, not honoured.
    owner.press(card["message_id"], data=approve_data)
    assert "Approved" in owner.wait_for_answer(3)["text"]
    owner.press(card["message_id"], data=approve_data)
    assert "already approved" in owner.wait_for_answer(4)["text"]
    owner.press(card["message_id"], data=deny_data)
    assert "already approved" in owner.wait_for_answer(5)["text"]

    owner.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])
    assert len(mail_server.wait_for(1)) == 1
    assert len(mail_server.messages()) == 1


@pytest.mark.slow
def test_worker_killed_mid_goal_resumes_and_sends_once(
    stack: DeputyStack, mail_server: LocalMailServer, model_server: ScriptedModelServer
) -> None:
    """SIGKILL the worker while it waits for the model after the email went out."""
    hang_once = {"armed": True}

    def script(request: ChatRequest) -> ModelReply | ScriptedResponse:
        reply = email_script(request)
        last = last_message(request.messages) or {}
        if hang_once["armed"] and last.get("role") == "tool" and message_text(last).startswith("Email sent"):
            hang_once["armed"] = False
            return ScriptedResponse(reply=reply, delay_seconds=120)
        return reply

    model_server.responder = script
    user = stack.user(105, asks_before_sending=True)
    sent_id = user.send(GOAL)
    card = user.wait_for_card(after=sent_id)
    approve_card(user, card)
    mail_server.wait_for(1)

    def hanging_request_seen() -> bool:
        return not hang_once["armed"]

    wait_for(hanging_request_seen, timeout=20, what="the model call after the email")
    stack.kill(stack.workers()[0])
    stack.start_worker()

    done = user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=40)
    assert done is not None
    assert len(mail_server.messages()) == 1
    assert sum(1 for m in user.bot_messages() if m["text"].startswith("Done:")) == 1


@pytest.mark.slow
def test_worker_killed_before_the_card_still_delivers_one_card(
    stack: DeputyStack, mail_server: LocalMailServer, model_server: ScriptedModelServer
) -> None:
    """SIGKILL the worker during the very first model call of the goal."""
    hang_once = {"armed": True}

    def script(request: ChatRequest) -> ModelReply | ScriptedResponse:
        if hang_once["armed"]:
            hang_once["armed"] = False
            return ScriptedResponse(reply=email_script(request), delay_seconds=120)
        return email_script(request)

    model_server.responder = script
    user = stack.user(106, asks_before_sending=True)
    sent_id = user.send(GOAL)
    model_server.wait_for_requests(1, timeout=20)
    stack.kill(stack.workers()[0])
    stack.start_worker()

    card = user.wait_for_card(after=sent_id, timeout=40)
    approve_card(user, card)
    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=30)
    cards = [m for m in user.bot_messages() if "Why I'm asking" in m["text"]]
    assert len(cards) == 1
    assert len(mail_server.messages()) == 1


def test_no_secret_reaches_the_model_logs_audit_or_chat(
    stack: DeputyStack, mail_server: LocalMailServer, model_server: ScriptedModelServer, smtp_password: str, redis
) -> None:
    user = stack.user(107, asks_before_sending=True)
    sent_id = user.send(GOAL)
    card = user.wait_for_card(after=sent_id)
    approve_card(user, card)
    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])

    requests = model_server.requests
    assert len(requests) >= 2
    for request in requests:
        body = request.model_dump_json()
        assert smtp_password not in body
        assert stack.secret not in body
        assert "Authorization" not in body and "sk-test-not-secret" not in body

    # Nor any log line, audit record or chat message.
    for secret in (smtp_password, stack.secret):
        assert secret not in stack.logs()
        assert all(secret not in m["text"] for m in user.messages())
        assert all(secret not in entry.model_dump_json() for entry in AuditLog(redis).entries(107))
    assert AuditLog(redis, stack.audit_key).verify(107)  # the bot, worker and executor all seal with one key


def test_a_flood_of_presses_sends_one_email(stack: DeputyStack, mail_server: LocalMailServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    user = stack.user(108, asks_before_sending=True)
    sent_id = user.send(GOAL)
    card = user.wait_for_card(after=sent_id)
    data = [b["data"] for b in card["buttons"][0]]
    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(lambda i: user.press(card["message_id"], data=data[i % 2]).status_code, range(30)))
    assert set(statuses) == {200}
    answers = wait_for(lambda: (a := user.answers()) and len(a) >= 30 and a, timeout=30, what="30 answers")
    decided = [a for a in answers if a["text"].startswith(("Approved.", "Denied."))]
    assert len(decided) == 1, [a["text"] for a in answers]
    assert all("already" in a["text"] for a in answers if a not in decided)
    if decided[0]["text"].startswith("Approved."):
        user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])
        assert len(mail_server.wait_for(1)) == 1
    else:
        user.wait_for_bot(lambda m: "did not send" in m["text"], after=card["message_id"])
        assert mail_server.messages() == []
