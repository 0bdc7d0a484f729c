"""Spoken replies through the real python-telegram-bot to the emulator: on only when the operator says so."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from emulator_testkit import TOKEN, LiveEmulator, UserClient
from telegram import Bot

from deputy.bot.outbox_consumer import OutboxConsumer
from deputy.bot.spoken_replies import MAX_SPOKEN_CHARS, speakable
from deputy.core.records.outbox import OutboxMessage

ANSWER = "Done: the dentist is on Thursday at 16:00. See https://cal.example/e/1 for the entry."


@pytest.mark.parametrize("on", [True, False])
async def test_an_answer_to_a_spoken_request_also_goes_as_a_voice_note_only_when_turned_on(
    live: LiveEmulator, user: UserClient, redis_server, on: bool  # type: ignore[no-untyped-def]
) -> None:
    chat = 51 if on else 52
    await user.send(chat, "hi")
    client = aioredis.from_url(redis_server.url)
    async with Bot(TOKEN, base_url=live.bot_base_url) as bot:
        consumer = OutboxConsumer(client, bot, spoken_replies=on)
        await consumer.deliver(OutboxMessage(chat_id=chat, text=ANSWER, spoken=True))
        await consumer.deliver(OutboxMessage(chat_id=chat, text="A typed request's answer."))
    await client.aclose()
    sent = [m for m in await user.messages(chat) if m["from"] == "bot"]
    assert [m["text"] for m in sent if m["text"]] == [ANSWER, "A typed request's answer."], "the text always goes"
    voices = [m["media"] for m in sent if m.get("media")]
    if on:
        assert len(voices) == 1 and voices[0]["kind"] == "voice" and voices[0]["duration"] >= 2
    else:
        assert voices == []


def test_what_is_said_leaves_links_out_and_stops_at_a_sentence() -> None:
    assert speakable(ANSWER) == "Done: the dentist is on Thursday at 16:00. See for the entry."
    long = "This is a sentence. " * 60
    said = speakable(long)
    assert len(said) <= MAX_SPOKEN_CHARS and said.endswith(".")
