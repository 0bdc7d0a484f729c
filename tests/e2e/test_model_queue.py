"""Twenty users text at once and the model answers one call at a time, as a local llama-server does.

The model stand-in has one slot and queues the rest itself, first come, with each client's
timeout running (like `llama-server --parallel 1`). The model gateway knows the endpoint
has one slot: it sends one call at a time, keeps the others, serves them round robin
between users and tells those who wait where they stand. What users notice: every goal
reaches its approval card, none is stopped with "didn't answer in time" although the
timeout is far shorter than the wait, a user with five goals does not make the others
wait behind all five, and whoever waits is told "Waiting for the model: N goals ahead".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis
from tests_support import email_script

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.model_requests import REQUESTS_STREAM
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, ScriptedResponse
from deputy.testing.stack import DeputyStack, RedisServer, wait_for
from deputy.gateway.wait_notices import WORKING

BUSY = 900  # the user who texts five goals
OTHERS = list(range(901, 920))  # nineteen users with one goal each
SECONDS_PER_ANSWER = 0.5
GOAL_TEXT = "email alice@example.org that I'll be 10 minutes late (user {user}, goal {n})"
WAITING = re.compile(r"Waiting for the model: (\d+ goals? ahead of yours|yours is next)\.")


class OneSlotModel:
    """A model with one slot taking half a second per answer, like a small local model (only faster)."""

    def __init__(self) -> None:
        self.server = ScriptedModelServer(self.answer, slots=1)

    def answer(self, request: ChatRequest) -> ModelReply | ScriptedResponse:
        return ScriptedResponse(reply=email_script(request), delay_seconds=SECONDS_PER_ANSWER)

    def served_users(self) -> list[int]:
        users = []
        for request in self.server.served:
            found = re.search(r"\(user (\d+), goal", request.prompt_text())
            users.append(int(found.group(1)) if found else -1)
        return users


@pytest.fixture
def model() -> Iterator[OneSlotModel]:
    model = OneSlotModel()
    with model.server:
        yield model


@pytest.fixture
def queued_stack(redis_server: RedisServer, redis: Redis, model: OneSlotModel, smtp_env: dict[str, str],
                 tmp_path: Path) -> Iterator[DeputyStack]:
    # Three seconds per call, a quarter of the longest wait: a call that counted its wait for
    # the slot as the model's time would fail. Workers hand model calls to the gateway, which
    # the test starts once every goal has asked.
    env = {"DEPUTY_MODEL_GATEWAY": "on", "DEPUTY_MODEL_CONCURRENCY": "1", "DEPUTY_MODEL_TIMEOUT": "3",
           "DEPUTY_MODEL_RETRY_DELAYS": "0.2,0.2"}
    stack = DeputyStack(redis_server.url, model.server.base_url, tmp_path / "stack", smtp=smtp_env,
                        extra_env=env).start()
    yield stack
    stack.stop()


def has_card(message: dict) -> bool:
    return any(b.get("text") == "Approve" for row in message["buttons"] for b in row)


def test_twenty_users_at_once_on_a_one_slot_model_all_reach_their_cards_in_turn(
    queued_stack: DeputyStack, model: OneSlotModel, redis: Redis
) -> None:
    busy = queued_stack.user(BUSY, "Busy", asks_before_sending=True)
    for n in range(5):
        busy.send(GOAL_TEXT.format(user=BUSY, n=n))
    others = {user: queued_stack.user(user, f"User{user}", asks_before_sending=True) for user in OTHERS}
    for user_id, user in others.items():
        user.send(GOAL_TEXT.format(user=user_id, n=0))
    everyone = [busy, *others.values()]

    # All twenty texted at once: every goal has asked for the model before it answers anything.
    wait_for(lambda: redis.xlen(REQUESTS_STREAM) == 24, timeout=60, what="all 24 goals to ask for the model")
    queued_stack.start_gateway()

    # Those who wait are told where they stand while they wait.
    told = wait_for(lambda: [m["text"] for u in everyone for m in u.bot_messages() if WAITING.fullmatch(m["text"])],
                    timeout=30, what="a waiting notice")
    assert told

    # Watched while they wait: a notice lives from the goal's turn until the model has answered (3 s here).
    working: set[int] = set()

    def everyone_has_a_card() -> bool:
        carded = 0
        for user_id, user in others.items():
            messages = user.bot_messages()
            working.update([user_id] if any(m["text"] == WORKING for m in messages) else [])
            carded += any(map(has_card, messages))
        return carded == len(others)

    wait_for(everyone_has_a_card, timeout=120, interval=0.1, what="everyone's card")
    wait_for(lambda: sum(map(has_card, busy.bot_messages())) == 5, timeout=60, what="the busy user's five cards")

    assert not [m["text"] for u in everyone for m in u.bot_messages() if "didn't answer in time" in m["text"]]
    assert len(model.server.requests) == 24, "no call was retried"
    assert model.server.max_in_flight == 1, "never more calls than the model has slots"
    order = model.served_users()
    # Whoever waited more than a few turns was told, and the notice was updated when the goal's turn came.
    late = {user for user in order[10:] if user != BUSY}
    assert late and late <= working, (late, working)
    # ...and taken back once the model had answered: no notice is left in anyone's chat.
    wait_for(lambda: not [m["text"] for u in everyone for m in u.bot_messages()
                          if WAITING.fullmatch(m["text"]) or m["text"] == WORKING],
             timeout=30, what="every waiting notice to be taken back")
    # Round robin: the busy user's goals take turns with the others; their third comes after everyone's first.
    third = [i for i, user in enumerate(order) if user == BUSY][2]
    assert sorted(order[:third]) == sorted([*OTHERS, BUSY, BUSY]), order
