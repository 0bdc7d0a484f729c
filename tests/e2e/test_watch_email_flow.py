"""“Tell me when Sam replies”, through the whole of Deputy: the bot, a real agent worker and
executor, pymap IMAP fed by the sandbox SMTP server, and the scripted model server counting
every request. While no mail from Sam arrives, checks run and the model hears nothing.
"""

from __future__ import annotations

import smtplib
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from email.message import EmailMessage
from pathlib import Path

import pytest
from redis import Redis

from deputy.agent.goals import Goal, GoalStore
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, message_text, tool_call
from deputy.testing.stack import ChatUser, DeputyStack, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import MailStore
from tests_support import mailbox_env, wait_until_nothing_runs

ME = "me@deputy.test"
SAM = "sam@example.org"


@pytest.fixture
def mailbox(tmp_path: Path) -> Iterator[tuple[LocalMailServer, dict[str, str]]]:
    with MailStore(tmp_path / "imap") as store:
        store.add_user(ME)
        server = LocalMailServer(store=store)
        server.start()
        yield server, mailbox_env(server, store, ME)
        server.stop()


@pytest.fixture
def deputy(redis_server: RedisServer, model_server: ScriptedModelServer, mailbox, tmp_path: Path
           ) -> Iterator[DeputyStack]:
    model_server.responder = watch_for_sam
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=mailbox[1]).start()
    yield stack
    stack.stop()


def watch_for_sam(request: ChatRequest) -> ModelReply:
    messages = request.messages
    if len(messages) >= 3 and "found something new" in message_text(messages[-3]):
        news = message_text(messages[-1])
        subject = news.split(" | ")[3] if news.count(" | ") >= 3 else "a new email"
        return tool_call("reply", text=f"Sam replied: “{subject}”.")
    return tool_call("schedule_check", what=f"new email from {SAM}", every_minutes=0.03, max_checks=200,
                     probe={"tool": "search_email", "arguments": {"from": SAM}})


def send_mail(server: LocalMailServer, sender: str, subject: str) -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, ME, subject
    message.set_content("Friday at noon works for me.")
    with smtplib.SMTP("127.0.0.1", server.port, timeout=10) as smtp:
        smtp.send_message(message)


def the_goal(redis: Redis, user_id: int) -> Goal:
    [goal] = GoalStore(redis).recent(user_id, 1)
    return goal


def checks(redis: Redis, user_id: int) -> int:
    goals = GoalStore(redis).recent(user_id, 1)
    return goals[0].monitor.checks_done if goals and goals[0].monitor else 0


def wait_for_checks(redis: Redis, user_id: int, more: int) -> None:
    target = checks(redis, user_id) + more
    wait_for(lambda: checks(redis, user_id) >= target, timeout=40, what=f"{more} more checks")


def test_new_mail_from_sam_wakes_the_goal_once_and_nothing_else_does(
    deputy: DeputyStack, model_server: ScriptedModelServer, mailbox, redis: Redis
) -> None:
    server, _env = mailbox
    user: ChatUser = deputy.user(701)
    sent = user.send("tell me when Sam replies")
    wait_for_checks(redis, 701, 3)
    assert len(model_server.requests) == 1, "checks with nothing new make no model request"

    listed = user.send("/goals")
    card = user.wait_for_bot(lambda m: m["text"].startswith("🎯"), after=listed)
    assert f"Watching: new email from {SAM}, every 2 s" in card["text"]

    send_mail(server, "bob@example.org", "Lunch on Friday")
    wait_for_checks(redis, 701, 3)
    assert len(model_server.requests) == 1, "mail from someone else is not news"

    send_mail(server, SAM, "Lunch on Friday")
    news = user.wait_for_bot(lambda m: m["text"].startswith("Sam replied"), after=sent, timeout=40)
    assert "Lunch on Friday" in news["text"]
    assert len(model_server.requests) == 2
    wait_until_nothing_runs(redis, 701)  # the goal is done: no check is scheduled any more
    replies = [m for m in user.bot_messages(after=sent) if m["text"].startswith("Sam replied")]
    assert len(replies) == 1 and len(model_server.requests) == 2
    assert the_goal(redis, 701).status.value == "done"


def test_quiet_hours_hold_the_news_of_a_watch(
    deputy: DeputyStack, model_server: ScriptedModelServer, mailbox, redis: Redis
) -> None:
    server, _env = mailbox
    user = deputy.user(702)
    now = time.gmtime()
    start, end = f"{(now.tm_hour + 23) % 24:02d}:00", f"{(now.tm_hour + 1) % 24:02d}:59"
    quiet = user.send(f"/quiet {start} {end} UTC")
    user.wait_for_bot(lambda m: "Quiet hours" in m["text"], after=quiet)

    sent = user.send("tell me when Sam replies")
    wait_for_checks(redis, 702, 1)
    send_mail(server, SAM, "Dinner plans")
    wait_for(lambda: redis.zcard("deputy:outbox:held") == 1, timeout=40, what="the news to be held")
    assert [m for m in user.bot_messages(after=sent) if "Sam replied" in m["text"]] == []

    [member] = redis.zrange("deputy:outbox:held", 0, -1)
    redis.zadd("deputy:outbox:held", {member: time.time()})  # the quiet hours end now
    news = user.wait_for_bot(lambda m: m["text"].startswith("Sam replied"), after=sent, timeout=20)
    assert "Dinner plans" in news["text"]


def test_a_reminder_that_sam_has_not_replied_comes_at_the_deadline_held_by_quiet_hours(
    deputy: DeputyStack, model_server: ScriptedModelServer, mailbox, redis: Redis
) -> None:
    server, _env = mailbox
    deadline = datetime.fromtimestamp(time.time() + 20, tz=timezone.utc).replace(microsecond=0)
    reminder = "Sam hasn't replied to your email yet."

    def remind(request: ChatRequest) -> ModelReply:
        return tool_call("schedule_check", what=f"email from {SAM}", every_minutes=0.03,
                         probe={"tool": "search_email", "arguments": {"from": SAM},
                                "remind_if_none_by": deadline.isoformat(), "reminder": reminder})

    model_server.responder = remind
    user = deputy.user(703)
    now = time.gmtime()
    quiet = user.send(f"/quiet {(now.tm_hour + 23) % 24:02d}:00 {(now.tm_hour + 1) % 24:02d}:59 UTC")
    user.wait_for_bot(lambda m: "Quiet hours" in m["text"], after=quiet)

    sent = user.send("remind me in a moment if Sam hasn't replied")
    wait_for_checks(redis, 703, 1)
    listed = user.send("/goals")
    card = user.wait_for_bot(lambda m: m["text"].startswith("🎯"), after=listed)
    by = f"{deadline:%a} {deadline.day} {deadline:%b %H:%M} UTC"
    assert f"reminding you if no email from {SAM} by {by}" in card["text"]
    send_mail(server, "bob@example.org", "Not Sam")

    wait_for(lambda: redis.zcard("deputy:outbox:held") == 1, timeout=60, what="the reminder to be held")
    assert [m for m in user.bot_messages(after=sent) if "⏰" in m["text"]] == []
    assert len(model_server.requests) == 1, "the checks and the reminder made no model request"

    [member] = redis.zrange("deputy:outbox:held", 0, -1)
    redis.zadd("deputy:outbox:held", {member: time.time()})  # the quiet hours end now
    told = user.wait_for_bot(lambda m: m["text"].startswith("⏰"), after=sent, timeout=20)
    assert told["text"].startswith(f"⏰ {reminder} (Nothing new by")
    assert the_goal(redis, 703).status.value == "done" and len(model_server.requests) == 1
