"""Redis restarts under a running Deputy: the next message is accepted and goals go on.

Redis is killed outright and started again on the same port, once empty (no persistence,
or a failover to an empty replica) and once with its append-only file, while the bot,
an agent worker, the model gateway and the executor keep running. What a user notices:
the first message after the restart gets "On it." and its approval card (the gateway
answers model calls again), not "I can't reach my storage"; with persistence the goals
acknowledged before the crash are still listed. While Redis is really down the user is
told so politely, and nothing is claimed to have started.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests_support import GOAL, email_script

from deputy.agent.model.testing import ScriptedModelServer
from deputy.bot.texts import ACK_NEW_GOAL, STORAGE_DOWN
from deputy.testing.stack import DeputyStack, RedisServer


@pytest.fixture(params=[False, True], ids=["empty-restart", "append-only-restart"])
def restartable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis", appendonly=request.param).start()
    yield server
    server.stop()


@pytest.fixture
def deputy(restartable: RedisServer, model_server: ScriptedModelServer, smtp_env: dict[str, str],
           tmp_path: Path) -> Iterator[DeputyStack]:
    model_server.responder = email_script
    stack = DeputyStack(restartable.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env,
                        gateway=True).start()
    yield stack
    stack.stop()


def test_the_first_message_after_a_redis_restart_gets_its_goal(deputy: DeputyStack, restartable: RedisServer) -> None:
    user = deputy.user(811, "Ria", asks_before_sending=True)
    before = user.send(GOAL)
    assert user.wait_for_bot(lambda m: True, after=before)["text"].split("\nContinuing from: ")[0] == ACK_NEW_GOAL
    user.wait_for_card(after=before)

    restartable.restart()
    user = deputy.user(811, "Ria", asks_before_sending=True)  # an emptied Redis forgot the user's rule too
    sent = user.send("email alice@example.org that the meeting moved to 3 pm")
    assert user.wait_for_bot(lambda m: True, after=sent)["text"].split("\nContinuing from: ")[0] == ACK_NEW_GOAL
    card = user.wait_for_card(after=sent, timeout=40)  # the worker and the gateway carried on
    assert "To: alice@example.org" in card["text"]

    sent = user.send("/goals")
    listed = user.wait_for_bot(lambda m: m["text"].startswith("Your recent goals"), after=sent)["text"]
    # Acknowledged goals survive a crash when Redis keeps an append-only file; an empty Redis lost them.
    assert listed.count("•") == (2 if restartable.appendonly else 1)


def test_redis_down_is_said_politely_and_the_next_message_after_it_is_back_is_accepted(
    deputy: DeputyStack, restartable: RedisServer
) -> None:
    user = deputy.user(812, "Sol", asks_before_sending=True)
    warm = user.send("/start")
    user.wait_for_bot(lambda m: True, after=warm)

    restartable.kill()
    sent = user.send(GOAL)
    refused = user.wait_for_bot(lambda m: True, after=sent, timeout=40)["text"]
    assert refused == STORAGE_DOWN

    restartable.start()
    user = deputy.user(812, "Sol", asks_before_sending=True)  # an emptied Redis forgot the user's rule too
    sent = user.send(GOAL)
    assert user.wait_for_bot(lambda m: True, after=sent)["text"].split("\nContinuing from: ")[0] == ACK_NEW_GOAL
    user.wait_for_card(after=sent, timeout=40)
