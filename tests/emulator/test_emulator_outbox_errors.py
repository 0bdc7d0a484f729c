"""One message the outbox cannot build (a button of a kind this bot does not know) neither silences the chat
nor loses its words: the user reads them, and every later message still goes out."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis
from emulator_testkit import TOKEN, LiveEmulator, UserClient
from telegram import Bot

from deputy.bot.buttons import ButtonSigner
from deputy.bot.outbox_consumer import OutboxConsumer
from deputy.core.records.outbox import Button, Outbox, OutboxMessage


async def test_a_message_with_a_broken_button_goes_out_as_words_and_the_next_one_follows(
    live: LiveEmulator, user: UserClient, redis, redis_server  # type: ignore[no-untyped-def]
) -> None:
    await user.send(41, "hi")
    outbox = Outbox(redis)
    outbox.put(OutboxMessage(chat_id=41, text="Your goal needs a decision.",
                             buttons=[[Button(text="Decide", sign="zz:g_1")]], dedupe_key="broken"))
    outbox.put(OutboxMessage(chat_id=41, text="And here is the news.", dedupe_key="next"))
    client = aioredis.from_url(redis_server.url)
    bot = Bot(TOKEN, base_url=live.bot_base_url)
    async with bot:
        task = asyncio.create_task(OutboxConsumer(client, bot, ButtonSigner("k")).run())
        try:
            for _ in range(400):  # until the news is shown and its entry acknowledged
                texts = [m["text"] for m in await user.messages(41)]
                if "And here is the news." in texts and redis.xlen("deputy:outbox") == 0:
                    break
                await asyncio.sleep(0.05)
        finally:
            task.cancel()
    await client.aclose()
    messages = await user.messages(41)
    words = [m for m in messages if m["text"] == "Your goal needs a decision."]
    assert len(words) == 1 and not words[0].get("reply_markup"), "the words went out, without the broken button"
    assert messages[-1]["text"] == "And here is the news."
    assert redis.xlen("deputy:outbox") == 0, "nothing is left to block the queue"
