"""Long-running goals through real workers: parallel parts, quiet monitoring, crashes, buttons."""

from __future__ import annotations

import random
import threading
import time

import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, ScriptedResponse, message_text, system_text, tool_call
from deputy.core.records.outbox import OUTBOX_HELD, OUTBOX_STREAM
from deputy.testing.stack import DeputyStack, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.sentinel.rules import RequestedVerdict, RuleConditions, RuleScope, UserRule
from tests_support import wait_until_nothing_runs


def first_user(request: ChatRequest) -> str:
    return next(message_text(m) for m in request.messages if m.get("role") == "user")


def test_three_parts_run_concurrently_on_three_workers(
    redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer, smtp_env, tmp_path
) -> None:
    in_flight, most = {"n": 0}, {"n": 0}
    lock = threading.Lock()

    def respond(request: ChatRequest) -> ModelReply | ScriptedResponse:
        goal = first_user(request)
        last = request.messages[-1]
        if "part “" in goal:
            with lock:
                in_flight["n"] += 1
                most["n"] = max(most["n"], in_flight["n"])
            time.sleep(1.0)  # each part thinks for a second
            with lock:
                in_flight["n"] -= 1
            title = goal.split("part “")[1].split("”")[0]
            return tool_call("reply", text=f"{title} is sorted")
        if last.get("role") == "tool" and "Results of the parts" in message_text(last):
            return tool_call("reply", text="Plan ready: " + message_text(last).replace("\n", " "))
        return tool_call("split_into_subgoals", parts=[
            {"title": "Flights", "instructions": "find flights"},
            {"title": "Hotel", "instructions": "find a hotel"},
            {"title": "Calendar", "instructions": "check the calendar"},
        ])

    model_server.responder = respond
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env, workers=3).start()
    try:
        user = stack.user(601)
        sent = user.send("plan my Chicago trip")
        started = time.monotonic()
        plan = user.wait_for_bot(lambda m: m["text"].startswith("Plan ready"), after=sent, timeout=30)
        elapsed = time.monotonic() - started
        print(f"\nthree one-second parts took {elapsed:.2f} s of wall time")
        assert most["n"] == 3, "the three parts must be thinking at the same time, on three workers"
        assert all(part in plan["text"] for part in ("Flights is sorted", "Hotel is sorted", "Calendar is sorted"))
        others = [m for m in user.bot_messages(after=sent) if m["message_id"] != plan["message_id"]]
        assert [m for m in others if "is sorted" in m["text"]] == [], "parts never message the user"
    finally:
        stack.stop()


@pytest.fixture
def stack_env() -> dict[str, str]:
    return {"DEPUTY_MODEL_RETRY_DELAYS": "0.2,0.2"}


def test_a_monitor_is_quiet_until_the_price_drops_then_speaks_once_and_stops(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    price = {"usd": 450}
    checks: list[float] = []

    def respond(request: ChatRequest) -> ModelReply:
        last = message_text(request.messages[-1])
        if "Scheduled check" in last:
            checks.append(time.monotonic())
            if price["usd"] < 400:
                return tool_call("reply", text=f"Lisbon flights dropped to {price['usd']} USD.")
            return tool_call("no_news")
        return tool_call("schedule_check", what="Lisbon flights under 400 USD", every_minutes=0.03, max_checks=30)

    model_server.responder = respond
    user = stack.user(602)
    sent = user.send("tell me when flights to Lisbon drop below $400")
    wait_for(lambda: len(checks) >= 3, timeout=40, what="three scheduled checks")
    assert [m for m in user.bot_messages(after=sent) if "dropped" in m["text"]] == []
    quiet_messages = len(user.bot_messages(after=sent))

    price["usd"] = 379
    news = user.wait_for_bot(lambda m: "dropped to 379" in m["text"], after=sent, timeout=40)
    assert news is not None
    requests_at_news = len(model_server.requests)
    wait_until_nothing_runs(redis, 602)  # the monitor has stopped: no check is scheduled any more
    assert len(model_server.requests) == requests_at_news
    assert len(user.bot_messages(after=sent)) == quiet_messages + 1
    # Between checks nothing ran: one model call per check, plus the first one.
    assert len(model_server.requests) == len(checks) + 1


def test_quiet_hours_hold_unprompted_news_until_they_end(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    def respond(request: ChatRequest) -> ModelReply:
        if "Scheduled check" in message_text(request.messages[-1]):
            return tool_call("reply", text="News: the concert has seats again.")
        return tool_call("schedule_check", what="concert seats", in_minutes=0.02)

    model_server.responder = respond
    user = stack.user(603)
    now = time.gmtime()
    start, end = f"{(now.tm_hour + 23) % 24:02d}:00", f"{(now.tm_hour + 1) % 24:02d}:59"
    sent = user.send(f"/quiet {start} {end} UTC")
    user.wait_for_bot(lambda m: "Quiet hours" in m["text"], after=sent)

    sent = user.send("tell me when the concert has seats")
    wait_for(lambda: redis.zcard(OUTBOX_HELD) == 1, timeout=30, what="the news to be held")
    assert [m for m in user.bot_messages(after=sent) if "News:" in m["text"]] == []

    # The quiet hours end (moved to now): the held news goes out, once.
    [member] = redis.zrange(OUTBOX_HELD, 0, -1)
    redis.zadd(OUTBOX_HELD, {member: time.time()})
    user.wait_for_bot(lambda m: "News: the concert" in m["text"], after=sent, timeout=20)
    # Once: the goal has nothing left to run, and the bot has handled all it was given.
    wait_until_nothing_runs(redis, 603)
    wait_for(lambda: redis.xlen(OUTBOX_STREAM) == 0 and redis.zcard(OUTBOX_HELD) == 0, timeout=10,
             what="every message to be delivered, none held")
    assert len([m for m in user.bot_messages(after=sent) if "News:" in m["text"]]) == 1


@pytest.mark.slow
def test_a_long_goal_survives_random_worker_kills_without_repeating_an_email(
    redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer, smtp_env,
    mail_server: LocalMailServer, tmp_path
) -> None:
    steps = 24

    def respond(request: ChatRequest) -> ModelReply | ScriptedResponse:
        # Steps taken so far: the turns in the transcript plus those folded into the summary.
        summary = system_text(request.messages)
        folded = summary.count("\n- update_plan(") + summary.count("\n- send_email(")
        n = folded + sum(1 for m in request.messages if m.get("role") == "assistant")
        if n >= steps:
            return tool_call("reply", text="Done: all 24 steps finished.")
        reply = (tool_call("send_email", to=["alice@example.org"], subject=f"Update {n}", body="Another step of the project is done.")
                 if n % 6 == 5 else tool_call("update_plan", steps=[{"title": f"Step {n}", "status": "done"}]))
        return ScriptedResponse(reply=reply, delay_seconds=0.3)

    model_server.responder = respond
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env, workers=2).start()
    try:
        user = stack.user(604)
        RuleStore(redis).add(604, UserRule(
            id="r_alice", verdict=RequestedVerdict.allow, created_at=time.time(),
            scope=RuleScope(operations=["send_email"]), conditions=RuleConditions(target_in=["alice@example.org"]),
        ))
        sent = user.send("work through the 24-step project and email alice@example.org updates")
        rng = random.Random(7)
        for _ in range(3):
            target = len(model_server.requests) + rng.randint(3, 6)
            wait_for(lambda: len(model_server.requests) >= target, timeout=60, what="progress")
            time.sleep(rng.uniform(0.1, 0.6))
            stack.kill(rng.choice(stack.workers()))
            stack.start_worker()
        user.wait_for_bot(lambda m: m["text"].startswith("Done: all 24"), after=sent, timeout=120)
        subjects = sorted(m.subject for m in mail_server.messages())
        assert subjects == sorted({f"Update {n}" for n in range(steps) if n % 6 == 5}), subjects
        assert len([m for m in user.bot_messages(after=sent) if m["text"].startswith("Done: all")]) == 1
    finally:
        stack.stop()


def test_pause_resume_edit_and_cancel_from_the_goal_card_are_honoured_by_running_workers(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    def respond(request: ChatRequest) -> ScriptedResponse:
        n = sum(1 for m in request.messages if m.get("role") == "assistant")
        return ScriptedResponse(reply=tool_call("update_plan", steps=[{"title": f"Research {n}"}]), delay_seconds=0.5)

    model_server.responder = respond
    user = stack.user(605)
    user.send("research flights for the whole year")
    wait_for(lambda: len(model_server.requests) >= 2, timeout=20, what="the goal to be working")

    listed = user.send("/goals")
    card = user.wait_for_bot(lambda m: m["text"].startswith("🎯"), after=listed)
    assert [b["text"] for b in card["buttons"][0]] == ["Pause", "Edit", "Cancel"]
    user.press(card["message_id"], button="Pause")
    assert user.wait_for_answer(1)["text"] == "Paused."
    # The step in flight finishes its model call and stops at its checkpoint; nothing is queued after it.
    wait_until_nothing_runs(redis, 605)
    paused_at = len(model_server.requests)
    wait_until_nothing_runs(redis, 605)
    assert len(model_server.requests) == paused_at, "a paused goal makes no more model calls"

    listed = user.send("/goals")
    card = user.wait_for_bot(lambda m: m["text"].startswith("🎯") and "paused" in m["text"], after=listed)
    user.press(card["message_id"], button="Edit")
    assert "Send me the change" in user.wait_for_answer(2)["text"]
    edit = user.send("only look at flights to Lisbon")
    user.wait_for_bot(lambda m: "updated" in m["text"], after=edit)
    wait_for(lambda: any("only look at flights to Lisbon" in r.prompt_text() for r in model_server.requests),
             timeout=20, what="the edit to reach the model")

    listed = user.send("/goals")
    card = user.wait_for_bot(lambda m: m["text"].startswith("🎯") and "running" in m["text"], after=listed)
    user.press(card["message_id"], button="Cancel")
    assert user.wait_for_answer(3)["text"] == "Stopped."
    wait_until_nothing_runs(redis, 605)
    stopped_at = len(model_server.requests)
    wait_until_nothing_runs(redis, 605)
    assert len(model_server.requests) == stopped_at
    listed = user.send("/goals")
    assert "cancelled" in user.wait_for_bot(lambda m: "Your recent goals" in m["text"], after=listed)["text"]
