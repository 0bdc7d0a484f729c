"""The bot's outbox delivering photos through the real python-telegram-bot to the emulator."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from emulator_testkit import TOKEN, LiveEmulator, UserClient
from telegram import Bot
from test_emulator_photos import png

from deputy.bot.outbox_consumer import MAX_CAPTION_CHARS, PHOTO_GONE, OutboxConsumer
from deputy.core.records.outbox import Outbox, OutboxMessage


@pytest.fixture
async def consumer(live: LiveEmulator, redis, redis_server) -> AsyncIterator[OutboxConsumer]:  # type: ignore[no-untyped-def]
    client = aioredis.from_url(redis_server.url)
    bot = Bot(TOKEN, base_url=live.bot_base_url)
    async with bot:
        yield OutboxConsumer(client, bot)
    await client.aclose()


async def test_a_photo_goes_out_with_its_caption_and_its_bytes_are_then_dropped(
    consumer: OutboxConsumer, user: UserClient, redis  # type: ignore[no-untyped-def]
) -> None:
    await user.send(31, "hi")
    outbox = Outbox(redis)
    key = outbox.store_photo(31, png(64, 48))
    long_text = "Page: https://shop.example/verify\n" + "x" * (MAX_CAPTION_CHARS + 200)
    await consumer.deliver(OutboxMessage(chat_id=31, text=long_text, photo=key, dedupe_key="p1"))
    messages = await user.messages(31)
    photo, rest = messages[-2], messages[-1]
    assert photo["photo"]["width"] == 64 and len(photo["text"]) <= MAX_CAPTION_CHARS
    assert photo["text"].startswith("Page: https://shop.example/verify")
    assert rest["photo"] is None and photo["text"] + rest["text"] == long_text  # nothing lost
    assert redis.get(key) is None
    await consumer.deliver(OutboxMessage(chat_id=31, text=long_text, photo=key, dedupe_key="p1"))
    assert len(await user.messages(31)) == len(messages)  # delivered once


async def test_a_photo_that_expired_still_delivers_the_words(
    consumer: OutboxConsumer, user: UserClient, redis  # type: ignore[no-untyped-def]
) -> None:
    await user.send(32, "hi")
    await consumer.deliver(OutboxMessage(chat_id=32, text="Your screenshot", photo="deputy:photo:32:gone"))
    last = (await user.messages(32))[-1]
    assert last["photo"] is None and last["text"] == f"Your screenshot\n\n{PHOTO_GONE}"


def test_outbox_refuses_an_image_telegram_would_refuse(redis) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        Outbox(redis).store_photo(1, b"x" * (10 * 1024 * 1024 + 1))
