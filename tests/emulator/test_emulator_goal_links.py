"""A goal's approval card links to the goal's page in the web view ("See the whole goal"): a URL
button under Approve and Deny where Telegram takes one, the link in the text where it does not
(a host without a dot), and nothing at all when the web view is off."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from emulator_testkit import TOKEN, LiveEmulator, UserClient
from telegram import Bot

from deputy.bot.buttons import ButtonSigner
from deputy.bot.goal_links import LINK_TEXT
from deputy.bot.outbox_consumer import OutboxConsumer
from deputy.core.records.outbox import Button, Outbox, OutboxMessage

CARD = "📧 Send this email?\nTo: contracts@vendor.example"


async def deliver(live: LiveEmulator, user: UserClient, redis, redis_server, chat: int,  # type: ignore[no-untyped-def]
                  web_url: str) -> dict:
    await user.send(chat, "hi")
    Outbox(redis).put(OutboxMessage(chat_id=chat, text=CARD, goal_id="g_42", goal_link=True, dedupe_key=f"c{chat}",
                                    buttons=[[Button(text="Approve", data="a" * 64), Button(text="Deny", data="d")]]))
    client = aioredis.from_url(redis_server.url)
    async with Bot(TOKEN, base_url=live.bot_base_url) as bot:
        task = asyncio.create_task(OutboxConsumer(client, bot, ButtonSigner("k"), web_url=web_url).run())
        try:
            for _ in range(400):  # until the card is shown and its entry acknowledged
                cards = [m for m in await user.messages(chat) if m["text"].startswith(CARD)]
                if cards and redis.xlen("deputy:outbox") == 0:
                    break
                await asyncio.sleep(0.05)
        finally:
            task.cancel()
    await client.aclose()
    [card] = cards
    return card


def keyboard(card: dict) -> list[list[dict]]:
    return card["buttons"]


@pytest.mark.parametrize("web_url", ["http://127.0.0.1:8091", "https://deputy.example.org"])
async def test_the_card_carries_a_link_button_to_its_goal_under_approve_and_deny(
    live: LiveEmulator, user: UserClient, redis, redis_server, web_url: str  # type: ignore[no-untyped-def]
) -> None:
    card = await deliver(live, user, redis, redis_server, 51, web_url)
    rows = keyboard(card)
    assert [b["text"] for b in rows[0]] == ["Approve", "Deny"] and rows[0][0]["data"] == "a" * 64
    assert rows[1] == [{"text": LINK_TEXT, "url": f"{web_url}/web/goal/g_42"}]
    assert card["text"] == CARD  # the link is a button, not words


async def test_where_telegram_refuses_the_button_the_link_is_in_the_text_and_the_card_keeps_its_buttons(
    live: LiveEmulator, user: UserClient, redis, redis_server  # type: ignore[no-untyped-def]
) -> None:
    card = await deliver(live, user, redis, redis_server, 52, "http://localhost:8091")
    assert card["text"] == f"{CARD}\n\n{LINK_TEXT}: http://localhost:8091/web/goal/g_42"
    assert [[b["text"] for b in row] for row in keyboard(card)] == [["Approve", "Deny"]]


async def test_with_the_web_view_off_no_link_appears(
    live: LiveEmulator, user: UserClient, redis, redis_server  # type: ignore[no-untyped-def]
) -> None:
    card = await deliver(live, user, redis, redis_server, 53, "")
    assert card["text"] == CARD and "/web/" not in str(card)
    assert [[b["text"] for b in row] for row in keyboard(card)] == [["Approve", "Deny"]]
