"""The bot's intake after Redis restarts under it (real redis-server, killed and started again).

The intake's asyncio connections outlive the server they were opened to. What a user
notices: the first message after the restart is accepted as a goal and queued, instead of
"I can't reach my storage right now"; while Redis is really down the message fails (the
bot then says so) and nothing is half stored.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest
from redis.exceptions import ConnectionError
from rq import Queue
from rq.serializers import JSONSerializer

from deputy.agent.goals import GoalStore
from deputy.bot import texts
from deputy.bot.handlers import Handlers
from deputy.bot.services import BotServices
from deputy.testing.stack import RedisServer
from deputy.core.records.payloads import AGENT_QUEUE

USER = 4343


class _Message:
    message_id = 1

    def __init__(self, text: str) -> None:
        self.text = text
        self.replies: list[str] = []

    async def reply_text(self, text: str, **_: object) -> None:
        self.replies.append(text)


async def text(handlers: Handlers, words: str) -> list[str]:
    message = _Message(words)
    update = SimpleNamespace(effective_user=SimpleNamespace(id=USER), effective_chat=SimpleNamespace(id=USER),
                             effective_message=message)
    await handlers.text(update, None)
    # Unrelated goals in a row: whether one follows up the other is not what these tests look at.
    return [texts.without_continuing(reply) for reply in message.replies]


@pytest.mark.parametrize("appendonly", [False, True], ids=["empty-restart", "append-only-restart"])
def test_the_first_message_after_a_redis_restart_becomes_a_goal(tmp_path: Path, appendonly: bool) -> None:
    server = RedisServer(tmp_path / "redis", appendonly=appendonly).start()
    try:
        redis = server.client()
        handlers = Handlers(BotServices.create(redis, "secret", None, redis_url=server.url))

        async def conversation() -> tuple[list[str], list[str]]:
            before = await text(handlers, "find me a cheap flight to Lisbon in May")
            server.restart()  # the intake's pooled connection now leads nowhere
            after = await text(handlers, "book a table for two on Friday")
            return before, after

        before, after = asyncio.run(conversation())
        assert before == [texts.ACK_NEW_GOAL] and after == [texts.ACK_NEW_GOAL]
        goals = [goal.text for goal in GoalStore(redis).recent(USER)]
        queued = Queue(AGENT_QUEUE, connection=redis, serializer=JSONSerializer).count
        if appendonly:
            assert sorted(goals) == ["book a table for two on Friday", "find me a cheap flight to Lisbon in May"]
            assert queued == 2
        else:
            assert goals == ["book a table for two on Friday"] and queued == 1
    finally:
        server.stop()


def test_a_message_while_redis_is_down_fails_and_stores_nothing(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis", appendonly=True).start()
    try:
        redis = server.client()
        handlers = Handlers(BotServices.create(redis, "secret", None, redis_url=server.url))

        async def conversation() -> list[str]:
            await text(handlers, "find me a cheap flight to Lisbon in May")
            server.kill()
            with pytest.raises(ConnectionError):  # the bot's error handler answers texts.STORAGE_DOWN
                await text(handlers, "book a table for two on Friday")
            server.start()
            return await text(handlers, "book a table for two on Friday")

        assert asyncio.run(conversation()) == [texts.ACK_NEW_GOAL]
        goals = [goal.text for goal in GoalStore(redis).recent(USER)]
        assert sorted(goals) == ["book a table for two on Friday", "find me a cheap flight to Lisbon in May"]
    finally:
        server.stop()
