"""News held for a confidential user's quiet hours waits sealed, and for the unlock if they locked meanwhile."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis import Redis

from deputy.bot.outbox_consumer import OutboxConsumer
from deputy.core.confidential import ConfidentialKeys, install_unlock_key
from deputy.core.records.outbox import OUTBOX_HELD, OUTBOX_STREAM, Outbox
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from tests_support import everything_in_redis

USER = 9901
PASSPHRASE = "a passphrase for the night"


class RecordingBot:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_message(self, chat_id: int, text: str, reply_markup: Any = None) -> Any:
        self.sent.append(text)
        return type("Sent", (), {"message_id": len(self.sent)})()

    async def send_photo(self, chat_id: int, photo: bytes, caption: str | None = None, reply_markup: Any = None) -> Any:
        self.sent.append(f"{caption} [{photo.decode()}]")
        return type("Sent", (), {"message_id": len(self.sent)})()


@pytest.fixture
async def consumer(redis_server, redis: Redis) -> AsyncIterator[tuple[OutboxConsumer, RecordingBot]]:  # type: ignore[no-untyped-def]
    install_unlock_key(b"u" * 32)
    client = aioredis.from_url(redis_server.url)
    bot = RecordingBot()
    yield OutboxConsumer(client, bot), bot  # type: ignore[arg-type]
    await client.aclose()
    install_unlock_key(None)


async def test_held_news_is_sealed_and_waits_for_the_unlock(consumer, redis: Redis) -> None:  # type: ignore[no-untyped-def]
    outbox_consumer, bot = consumer
    keys = ConfidentialKeys(redis)
    keys.turn_on(USER, PASSPHRASE)
    keys.unlock(USER, PASSPHRASE, 3600)
    now = datetime.now(timezone.utc)
    UserSettingsStore(redis).save(USER, UserSettings(quiet_start=(now - timedelta(hours=1)).time(),
                                                     quiet_end=(now + timedelta(hours=1)).time()))
    Outbox(redis).send(USER, "The ferry to Hydra has seats: albatross-77", proactive=True)
    [(entry_id, fields)] = redis.xrange(OUTBOX_STREAM)
    await outbox_consumer._handle(entry_id, fields)
    assert bot.sent == [] and redis.zcard(OUTBOX_HELD) == 1
    assert "albatross" not in everything_in_redis(redis)

    keys.lock(USER)
    [member] = redis.zrange(OUTBOX_HELD, 0, -1)
    redis.zadd(OUTBOX_HELD, {member: 0})  # the quiet hours end while the user is locked
    await outbox_consumer._release_held()
    await outbox_consumer.settled()
    assert bot.sent == [] and redis.zcard(OUTBOX_HELD) == 1, "it waits for the unlock, still sealed"

    keys.unlock(USER, PASSPHRASE, 3600)
    redis.zadd(OUTBOX_HELD, {member: 0})
    await outbox_consumer._release_held()
    await outbox_consumer.settled()
    assert bot.sent == ["The ferry to Hydra has seats: albatross-77"] and redis.zcard(OUTBOX_HELD) == 0


async def test_a_screenshot_for_a_confidential_user_waits_sealed_and_is_shown_while_unlocked(
    consumer, redis: Redis  # type: ignore[no-untyped-def]
) -> None:
    outbox_consumer, bot = consumer
    keys = ConfidentialKeys(redis)
    keys.turn_on(USER, PASSPHRASE)
    keys.unlock(USER, PASSPHRASE, 3600)
    outbox = Outbox(redis)
    outbox.send_photo(USER, b"page showing code kestrel-5", "The page asks for a code")
    assert "kestrel" not in everything_in_redis(redis)
    for entry_id, fields in redis.xrange(OUTBOX_STREAM):
        await outbox_consumer._handle(entry_id, fields)
    assert bot.sent == ["The page asks for a code [page showing code kestrel-5]"]
