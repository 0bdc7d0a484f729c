"""Redis fails over under a running Deputy: the replica is promoted and nothing is done twice.

Deputy runs against the production topology, started from real `redis-server` processes:
a primary and a replica with append-only files (`appendfsync everysec`) and three
sentinels, every Deputy process (bot, agent worker, model gateway, executor, connect
page) connecting through the sentinels (`REDIS_SENTINELS`, `REDIS_MASTER_NAME`). During a
burst of goals with approvals the primary is SIGKILLed. What users notice: every goal
gets its card, every approved email goes out exactly once and the chat says so once,
goals texted after the failover work as before, and nobody was told the storage was down
for good.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, last_message, message_text, tool_call, user_texts
from deputy.core.infrastructure.redis_clients import sync_client
from deputy.testing.redis_failover import MASTER_NAME, RedisFailoverSet
from deputy.testing.stack import ChatUser, DeputyStack, Message
from deputy.sandbox.mail import LocalMailServer

pytestmark = pytest.mark.slow

_ADDRESS = re.compile(r"[\w.]+@example\.org")


def email_whoever_the_goal_names(request: ChatRequest) -> ModelReply:
    """Emails the address in the user's goal, then reports back once."""
    last = last_message(request.messages) or {}
    recipient = _ADDRESS.search(" ".join(user_texts(request.messages))).group(0)
    if last.get("role") == "tool":
        if message_text(last).startswith("Email sent"):
            return tool_call("reply", text=f"Done: I emailed {recipient}.")
        return tool_call("reply", text=f"That didn't work: {message_text(last)}")
    return tool_call("send_email", to=[recipient], subject="Running late", body="I'll be 10 minutes late.")


@pytest.fixture
def failover(tmp_path: Path) -> Iterator[RedisFailoverSet]:
    servers = RedisFailoverSet(tmp_path / "redis").start()
    yield servers
    servers.stop()


@pytest.fixture
def deputy(failover: RedisFailoverSet, model_server: ScriptedModelServer, smtp_env: dict[str, str],
           tmp_path: Path) -> Iterator[DeputyStack]:
    model_server.responder = email_whoever_the_goal_names
    stack = DeputyStack(failover.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env, gateway=True,
                        extra_env={"REDIS_SENTINELS": failover.sentinels, "REDIS_MASTER_NAME": MASTER_NAME}).start()
    yield stack
    stack.stop()


def ask(user: ChatUser) -> tuple[int, str]:
    recipient = f"friend{user.user_id}@example.org"
    return user.send(f"email {recipient} that I'll be 10 minutes late"), recipient


def _where_goals_stand(deputy: DeputyStack) -> str:
    """What Redis holds about goals, model requests and in-flight units, for a failure's message."""
    lines = []
    with sync_client(deputy.redis_url) as redis:
        for key in sorted(redis.scan_iter("deputy:goal:*")):
            raw = redis.get(key) if redis.type(key) == b"string" else None
            if raw:
                goal = json.loads(raw)
                lines.append(f"{key}: status={goal.get('status')} step={goal.get('step')} "
                             f"waiting={goal.get('waiting_model')} user={goal.get('user_id')}")
        for key in sorted(redis.scan_iter("deputy:action:*")) + sorted(redis.scan_iter("deputy:approval:*")):
            if redis.type(key) == b"hash":
                fields = {k: v[:60] for k, v in redis.hgetall(key).items() if k != b"record"}
                lines.append(f"{key}: {fields}")
            elif raw := redis.get(key) if redis.type(key) == b"string" else None:
                lines.append(f"{key}: {raw[:160]!r}")
        lines.append(f"received, not handled: {[(k, redis.hkeys(k)) for k in redis.scan_iter('deputy:polling:*')]}")
        lines.append(f"pending: {sorted(redis.scan_iter('deputy:model:pending:*'))}")
        lines.append(f"outcomes: {sorted(redis.scan_iter('deputy:model:outcome:*'))}")
        lines.append(f"stream: {[e[0] for e in redis.xrange('deputy:model:requests')]}")
        try:
            lines.append(f"groups: {redis.xinfo_groups('deputy:model:requests')}")
            lines.append(f"pel: {redis.xpending_range('deputy:model:requests', 'gateways', '-', '+', 100)}")
        except Exception as exc:
            lines.append(f"groups: {exc}")
        lines.append(f"inflight: {redis.hgetall('deputy:inflight')}")
    return "\n".join(lines)


def done_messages(user: ChatUser) -> list[Message]:
    return [m for m in user.bot_messages() if m["text"].startswith("Done:")]


@pytest.mark.timeout(420)
def test_goals_with_approvals_go_on_through_a_failover_and_each_email_goes_out_once(
    deputy: DeputyStack, failover: RedisFailoverSet, mail_server: LocalMailServer
) -> None:
    # Careful users (every message waits for their card), their rules stored before anything fails.
    before = [deputy.user(900 + n, f"Early{n}", asks_before_sending=True) for n in range(4)]
    during = [deputy.user(920 + n, f"During{n}", asks_before_sending=True) for n in range(2)]
    after = [deputy.user(940 + n, f"After{n}", asks_before_sending=True) for n in range(2)]
    asked = {user.user_id: ask(user) for user in before}
    cards = {user.user_id: user.wait_for_card(after=asked[user.user_id][0], timeout=90) for user in before}

    # The burst: half the users approve, the others text new goals, and the primary dies amid it.
    for user in before[:2]:
        assert user.press(cards[user.user_id]["message_id"], button="Approve").status_code == 200
    asked.update({user.user_id: ask(user) for user in during})
    old, killed_at = failover.kill_primary(), time.monotonic()
    for user in before[2:]:
        assert user.press(cards[user.user_id]["message_id"], button="Approve").status_code == 200
    promoted = failover.wait_for_promotion(old)
    print(f"injected: primary {old} SIGKILLed amid the burst; sentinels promoted {promoted} "
          f"{time.monotonic() - killed_at:.1f} s later")

    for user in during:
        try:
            card = user.wait_for_card(after=asked[user.user_id][0], timeout=120)
        except TimeoutError:
            chat = [m["text"][:200] for m in user.bot_messages()]
            pytest.fail(f"{user.first_name} got no card after the failover; the chat: {chat}\n"
                        f"{_where_goals_stand(deputy)}\n{deputy.logs()[-6000:]}")
        assert user.press(card["message_id"], button="Approve").status_code == 200
    asked.update({user.user_id: ask(user) for user in after})
    for user in after:
        card = user.wait_for_card(after=asked[user.user_id][0], timeout=120)
        assert user.press(card["message_id"], button="Approve").status_code == 200

    everyone = before + during + after
    for user in everyone:
        try:
            user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=asked[user.user_id][0], timeout=120)
        except TimeoutError:
            chat = [m["text"][:200] for m in user.bot_messages()]
            pytest.fail(f"{user.first_name} was never told the email went out; the chat: {chat}\n"
                        f"{_where_goals_stand(deputy)}\n{deputy.logs()}")
    for user in everyone:
        recipient = asked[user.user_id][1]
        assert len(mail_server.messages(address=recipient)) == 1, f"{recipient} got the email exactly once"
        assert len(done_messages(user)) == 1, f"{user.first_name} was told once"
        storage_down = [m["text"] for m in user.bot_messages() if "can't reach my storage" in m["text"]]
        assert storage_down == [], f"{user.first_name} was told the storage was down: {storage_down}"
    assert len(mail_server.messages()) == len(everyone)
    print(f"checked: {len(everyone)} goals, one email each, the primary now {failover.primary()}")
