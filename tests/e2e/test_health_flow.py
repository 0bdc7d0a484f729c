"""Every long-running process answers /healthz, /readyz and /metrics, and says so truthfully.

The whole of Deputy runs as real processes, each with its own `DEPUTY_HEALTH_PORT`: the
chat emulator, the bot, an agent worker, the model gateway, the executor and the connect
page. What an operator relies on: all are alive and ready once started; when Redis stops,
every process that needs it turns unready (and stays alive: a restart would not help) and
turns ready again when Redis is back; and the metrics move when a user does something
(a goal with a card approved shows as an asked and an approved card, a step, an action
and model calls).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests_support import GOAL, email_script

from deputy.agent.model.testing import ScriptedModelServer
from deputy.core.infrastructure.metrics import provider_of
from deputy.testing.stack import DeputyStack, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer

pytestmark = pytest.mark.slow

NEEDS_REDIS = ("bot", "executor", "connect-page", "worker-1", "gateway-2")


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis", appendonly=True).start()
    yield server
    server.stop()


@pytest.fixture
def deputy(own_redis: RedisServer, model_server: ScriptedModelServer, smtp_env: dict[str, str],
           tmp_path: Path) -> Iterator[DeputyStack]:
    model_server.responder = email_script
    stack = DeputyStack(own_redis.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env, gateway=True,
                        health=True).start()
    yield stack
    stack.stop()


def get(stack: DeputyStack, process: str, path: str) -> httpx.Response | None:
    assert stack.health_ports is not None
    try:
        return httpx.get(f"http://127.0.0.1:{stack.health_ports[process]}{path}", timeout=10)
    except httpx.HTTPError:
        return None


def status(stack: DeputyStack, process: str, path: str) -> int | None:
    response = get(stack, process, path)
    return response.status_code if response is not None else None


def sample(stack: DeputyStack, process: str, name: str, **labels: str) -> float:
    """One sample's value from a process's /metrics (0 when absent)."""
    response = get(stack, process, "/metrics")
    assert response is not None and response.status_code == 200
    wanted = ",".join(f'{key}="{value}"' for key, value in labels.items())
    pattern = re.compile(rf"^{re.escape(name)}(?:{{([^}}]*)}})? ([0-9.e+-]+)$", re.M)
    total = 0.0
    for found_labels, value in pattern.findall(response.text):
        if all(part in found_labels.split(",") for part in wanted.split(",") if part):
            total += float(value)
    return total


@pytest.mark.timeout(300)
def test_every_process_is_alive_and_ready_and_turns_unready_while_redis_is_down(
    deputy: DeputyStack, own_redis: RedisServer
) -> None:
    processes = ["emulator", *NEEDS_REDIS]
    for process in processes:
        wait_for(lambda: status(deputy, process, "/healthz") == 200, timeout=60, what=f"{process} alive")
        wait_for(lambda: status(deputy, process, "/readyz") == 200, timeout=60, what=f"{process} ready")
    assert status(deputy, "bot", "/nothing-here") == 404

    own_redis.kill()
    for process in NEEDS_REDIS:
        wait_for(lambda: status(deputy, process, "/readyz") == 503, timeout=30, what=f"{process} unready")
        answer = get(deputy, process, "/readyz")
        assert answer is not None and "redis unreachable" in answer.text
        assert status(deputy, process, "/healthz") == 200, f"{process} is still alive without Redis"
    assert status(deputy, "emulator", "/readyz") == 200  # the chat emulator keeps nothing in Redis

    own_redis.start()
    for process in NEEDS_REDIS:
        wait_for(lambda: status(deputy, process, "/readyz") == 200, timeout=60, what=f"{process} ready again")


@pytest.mark.timeout(300)
def test_the_counters_move_when_a_user_approves_a_card(deputy: DeputyStack, mail_server: LocalMailServer,
                                                      model_server: ScriptedModelServer) -> None:
    for process in NEEDS_REDIS:
        wait_for(lambda: status(deputy, process, "/readyz") == 200, timeout=60, what=f"{process} ready")
    assert sample(deputy, "bot", "deputy_cards_total", event="approved") == 0

    user = deputy.user(861, "Mia", asks_before_sending=True)
    sent = user.send(GOAL)
    card = user.wait_for_card(after=sent, timeout=60)
    wait_for(lambda: sample(deputy, "executor", "deputy_cards_total", event="asked") == 1, timeout=20,
             what="the asked card counted")
    assert user.press(card["message_id"], button="Approve").status_code == 200
    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=60)
    mail_server.wait_for(1, address="alice@example.org")

    assert sample(deputy, "bot", "deputy_cards_total", event="approved") == 1
    assert sample(deputy, "bot", "deputy_cards_total", event="denied") == 0
    # Counted in the executor's forked job processes, reported by the executor's own /metrics.
    assert sample(deputy, "executor", "deputy_action_seconds_count", connector="email") == 1
    assert sample(deputy, "worker-1", "deputy_step_seconds_count") >= 2  # the step that asked, the one that reported
    provider = provider_of(model_server.base_url)
    assert sample(deputy, "gateway-2", "deputy_model_calls_total", provider=provider) >= 2
    assert sample(deputy, "gateway-2", "deputy_model_errors_total", provider=provider) == 0
    # Nothing waits any more; every queue is reported.
    for queue in ("agent", "actions", "model"):
        assert f'deputy_queue_jobs{{queue="{queue}"}}' in get(deputy, "worker-1", "/metrics").text

