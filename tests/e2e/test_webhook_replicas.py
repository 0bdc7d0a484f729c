"""Three `deputy bot` replicas behind one address in webhook mode; one is killed mid-burst.

Real processes: the emulator (pushing updates to the webhook as Telegram does), three
bot replicas, a private Redis. A load balancer stand-in spreads the emulator's POSTs over
the replicas. Several users send a burst of messages; while they do, one replica drops
off the network with updates in hand (it has stored their goals but not yet answered)
and is then SIGKILLed. Every message is answered exactly once, and every goal exists
exactly once and in the order its author sent it. Forged requests are refused, polling
is refused while the webhook is set, and a goal goes from message to approval card to
email through the replicas left after one died (the outbox is shared by the survivors).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from redis import Redis
from tests_support import GOAL, email_script
from webhook_testkit import Gate, LoadBalancer, LoopThread

from deputy.agent.goals import GoalStore
from deputy.agent.model.testing import ScriptedModelServer
from deputy.bot import texts
from deputy.bot.webhook import SECRET_HEADER
from deputy.core.infrastructure.ports import free_port
from deputy.settings import Settings
from deputy.testing.stack import DeputyStack, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer

REPLICAS = 3
USERS = [201, 202, 203, 204]


class ReplicaStack(DeputyStack):
    """The emulator and bot replicas (an answer to a message needs nothing else); workers and
    the executor when asked for."""

    def __init__(self, redis_url: str, workdir: Path, loop: LoopThread, model_base_url: str = "http://127.0.0.1:9/v1",
                 smtp: dict[str, str] | None = None, workers: int = 0) -> None:
        super().__init__(redis_url, model_base_url, workdir, smtp=smtp, workers=workers)
        self.loop = loop
        self.ports = [free_port() for _ in range(REPLICAS)]
        self.gates = [Gate(self.chat_url) for _ in range(REPLICAS)]
        self.balancer = LoadBalancer([f"http://127.0.0.1:{port}" for port in self.ports])
        self.public_url = f"{self.balancer.url}/telegram"

    def start(self) -> ReplicaStack:
        for proxy in [*self.gates, self.balancer]:
            self.loop.run(proxy.start())
        # The replicas listen on plain http on this machine: the emulator and the bots both allow it.
        self._spawn("emulator", ["emulator", "--port", str(self.chat_port), "--lenient", "webhook-url"], self._env)
        wait_for(self._chat_up, timeout=15, what="the chat emulator")
        for index, (port, gate) in enumerate(zip(self.ports, self.gates)):
            self._spawn(f"bot-{index}", ["bot"], {
                **self._env,
                "TELEGRAM_API_BASE": f"{gate.url}/bot",
                "DEPUTY_WEBHOOK_URL": self.public_url,
                "DEPUTY_WEBHOOK_ALLOW_HTTP": "on",
                "DEPUTY_WEBHOOK_LISTEN": f"127.0.0.1:{port}",
            })
        for port in self.ports:
            wait_for(lambda: _healthy(f"http://127.0.0.1:{port}/healthz"), timeout=60, what=f"the replica on {port}")
        wait_for(lambda: self.webhook_info()["url"] == self.public_url, timeout=20, what="the webhook to be set")
        if self._worker_count:
            self._spawn("executor", ["executor"], {**self._env, **self._smtp})
            for _ in range(self._worker_count):
                self.start_worker()
        return self

    def webhook_info(self) -> dict:
        return httpx.post(f"{self.chat_url}/botx/getWebhookInfo", timeout=5).json()["result"]

    def stop(self) -> None:
        super().stop()
        for proxy in [self.balancer, *self.gates]:
            self.loop.run(proxy.stop())


def _healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture
def replicas(redis_server: RedisServer, redis: Redis, tmp_path: Path) -> Iterator[ReplicaStack]:
    loop = LoopThread()
    stack = ReplicaStack(redis_server.url, tmp_path / "stack", loop)
    try:
        yield stack.start()
    finally:
        stack.stop()
        loop.close()


def test_a_replica_killed_mid_burst_loses_no_message_and_answers_none_twice(
    replicas: ReplicaStack, redis: Redis
) -> None:
    users = {uid: replicas.user(uid, f"User {uid}") for uid in USERS}
    sent: dict[int, list[str]] = {uid: [] for uid in USERS}

    def send_round(round_no: int, per_user: int) -> None:
        for n in range(per_user):
            for uid, user in users.items():
                text = f"goal {round_no}.{n} from {uid}"
                user.send(text)
                sent[uid].append(text)

    def acks(uid: int) -> int:
        return sum(texts.without_continuing(m["text"]) == texts.ACK_NEW_GOAL for m in users[uid].bot_messages())

    send_round(1, 3)
    wait_for(lambda: sum(acks(uid) for uid in USERS) >= 4, timeout=60, what="the first answers")

    victim, gate = replicas.balancer.backends[0], replicas.gates[0]
    gate.hold()  # the victim's machine drops off the network...
    send_round(2, 3)
    # ...with updates in hand: each one it holds unanswered is stuck at its reply (its goal stored).
    wait_for(lambda: gate.held >= 1 and replicas.balancer.outstanding[victim] == gate.held,
             timeout=60, what="the victim to hold updates it cannot answer")
    in_hand = gate.held
    replicas.kill("bot-0")  # ...and dies
    send_round(3, 2)

    total = sum(len(texts_) for texts_ in sent.values())
    wait_for(lambda: replicas.webhook_info()["pending_update_count"] == 0 and
             all(acks(uid) >= len(sent[uid]) for uid in USERS),
             timeout=120, what=f"answers to all {total} messages")

    # Every update has been acknowledged, so nothing more will be handled: count for good.
    for uid in USERS:
        assert acks(uid) == len(sent[uid]), f"user {uid}: {acks(uid)} answers to {len(sent[uid])} messages"
        goals = sorted(GoalStore(redis).recent(uid, limit=100), key=lambda g: g.created_at)
        assert [g.text for g in goals] == sent[uid], f"user {uid}: each message one goal, in order"
    assert in_hand >= 1
    assert replicas.balancer.answered[(victim, 200)] >= 1, "the victim answered updates before it died"
    survivors = sum(n for (backend, status), n in replicas.balancer.answered.items()
                    if backend != victim and status == 200)
    assert survivors >= total - replicas.balancer.answered[(victim, 200)]


def test_the_webhook_refuses_forged_updates_and_polling(replicas: ReplicaStack) -> None:
    user = replicas.user(301, "Eve")
    first = user.send("hello")
    user.wait_for_bot(lambda m: texts.without_continuing(m["text"]) == texts.ACK_NEW_GOAL, after=first, timeout=30)
    forged = {"update_id": 999_999, "message": {
        "message_id": 77, "date": 0, "text": "forged", "chat": {"id": 301, "type": "private"},
        "from": {"id": 301, "is_bot": False, "first_name": "Eve"}}}
    derived = Settings(DEPUTY_SECRET=replicas.secret).webhook_secret_value()
    for secret in ("guess", replicas.secret, ""):  # the signing secret itself is not the webhook's
        response = httpx.post(replicas.public_url, json=forged, headers={SECRET_HEADER: secret}, timeout=10)
        assert response.status_code == 403
    assert derived != replicas.secret
    conflict = httpx.post(f"{replicas.chat_url}/botx/getUpdates", json={"timeout": 0}, timeout=10)
    assert conflict.status_code == 409
    assert [texts.without_continuing(m["text"]) for m in user.bot_messages()] == [texts.ACK_NEW_GOAL]


def test_a_goal_runs_to_its_email_through_replicas_after_one_died(
    redis_server: RedisServer, redis: Redis, tmp_path: Path, model_server: ScriptedModelServer,
    smtp_env: dict[str, str], mail_server: LocalMailServer,
) -> None:
    """Cards, presses and results flow through whichever replicas are alive (the outbox is shared)."""
    model_server.responder = email_script
    loop = LoopThread()
    stack = ReplicaStack(redis_server.url, tmp_path / "stack", loop, model_server.base_url, smtp_env, workers=1)
    try:
        stack.start()
        user = stack.user(401, "Ann", asks_before_sending=True)
        sent = user.send(GOAL)
        card = user.wait_for_card(after=sent, timeout=60)
        stack.kill("bot-0")  # the press and the result must go through the others
        assert user.press(card["message_id"], button="Approve").status_code == 200
        done = user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=60)
        mail_server.wait_for(1, address="alice@example.org")
        wait_for(lambda: stack.webhook_info()["pending_update_count"] == 0, timeout=30, what="every update answered")
        assert "Approved" in user.wait_for_answer(1, timeout=30)["text"]
        bot_texts = [m["text"] for m in user.bot_messages()]
        assert [texts.without_continuing(t) for t in bot_texts].count(texts.ACK_NEW_GOAL) == 1 and bot_texts.count(done["text"]) == 1
        assert len(user.answers()) == 1 and len(mail_server.messages()) == 1
    finally:
        stack.stop()
        loop.close()
