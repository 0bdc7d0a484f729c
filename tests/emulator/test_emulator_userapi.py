"""The user-side HTTP API: shapes, errors and the live event stream."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
from emulator_testkit import BotCaller, UserClient

KB = {"inline_keyboard": [[{"text": "Approve", "callback_data": "ok"}, {"text": "Site", "url": "https://x.org"}]]}


async def test_health_and_users(user: UserClient) -> None:
    assert await user.raw("GET", "/healthz") == (200, {"ok": True})
    assert await user.raw("GET", "/api/users") == (200, [])
    await user.send(5, "hi")
    await user.send(6, "hi", first_name="Zoe")
    await user.send(5, "again", first_name="Max")  # a given name renames the user
    assert await user.raw("GET", "/api/users") == (
        200, [{"user_id": 5, "first_name": "Max"}, {"user_id": 6, "first_name": "Zoe"}]
    )


async def test_messages_shape_after_and_unknown_user(user: UserClient, bot: BotCaller) -> None:
    assert await user.messages(404) == []
    first = await user.send(1, "line one\nline two")
    assert first == 1
    await bot.ok("sendMessage", chat_id=1, text="menu", reply_markup=KB)
    msgs = await user.messages(1)
    assert {k: msgs[0][k] for k in ("message_id", "from", "text", "buttons", "edited")} == {
        "message_id": 1, "from": "user", "text": "line one\nline two", "buttons": [], "edited": False,
    }
    assert msgs[1]["buttons"] == [[{"text": "Approve", "data": "ok"}, {"text": "Site", "url": "https://x.org"}]]
    assert [m["message_id"] for m in await user.messages(1, after=1)] == [2]


async def test_long_and_empty_text_are_accepted(user: UserClient, bot: BotCaller) -> None:
    await user.send(1, "")
    await user.send(1, "y" * 5000)
    updates = await bot.ok("getUpdates")
    assert [len(u["message"]["text"]) for u in updates] == [0, 5000]


async def test_reply_to(user: UserClient, bot: BotCaller) -> None:
    await user.send(1, "original")
    await user.send(1, "answer", reply_to=1)
    updates = await bot.ok("getUpdates")
    assert updates[1]["message"]["reply_to_message"]["text"] == "original"
    status, body = await user.raw("POST", "/api/users/1/messages", json={"text": "x", "reply_to": 99})
    assert status == 404 and "99" in body["error"]


async def test_message_errors(user: UserClient) -> None:
    status, body = await user.raw("POST", "/api/users/1/messages", data=b"not json")
    assert status == 400 and '"text"' in body["error"]
    status, body = await user.raw("POST", "/api/users/1/messages", json={"first_name": "Ann"})
    assert status == 400 and '"text" must be a string' in body["error"]
    status, body = await user.raw("POST", "/api/users/1/messages", json={"text": 5})
    assert status == 400
    status, body = await user.raw("POST", "/api/users/1/messages", json=["hi"])
    assert status == 400
    status, body = await user.raw("POST", "/api/users/abc/messages", json={"text": "hi"})
    assert status == 400 and "positive integer" in body["error"]


async def test_press_errors(user: UserClient, bot: BotCaller) -> None:
    await user.send(1, "hi")
    mid = (await bot.ok("sendMessage", chat_id=1, text="menu", reply_markup=KB))["message_id"]
    status, body = await user.raw("POST", "/api/users/1/press", json={"message_id": 99, "button": "Approve"})
    assert status == 404 and "99" in body["error"]
    status, body = await user.raw("POST", "/api/users/2/press", json={"message_id": mid, "button": "Approve"})
    assert status == 404
    status, body = await user.raw("POST", "/api/users/1/press", json={"message_id": mid, "button": "Nope"})
    assert status == 400 and "Approve" in body["error"] and "Site" in body["error"]
    status, body = await user.raw("POST", "/api/users/1/press", json={"message_id": mid, "button": "Site"})
    assert status == 400 and "URL" in body["error"]
    status, body = await user.raw("POST", "/api/users/1/press", json={"message_id": mid})
    assert status == 400
    status, body = await user.raw("POST", "/api/users/1/press", data=b"{oops")
    assert status == 400 and "message_id" in body["error"]


async def test_press_creates_callback_query_update(user: UserClient, bot: BotCaller) -> None:
    await user.send(1, "hi", first_name="Ann")
    mid = (await bot.ok("sendMessage", chat_id=1, text="menu", reply_markup=KB))["message_id"]
    await bot.ok("getUpdates", offset=-1)
    qid = await user.press(1, mid, button="approve")  # case-insensitive fallback
    updates = await bot.ok("getUpdates", offset=-1)
    query = updates[-1]["callback_query"]
    assert query["id"] == qid and query["data"] == "ok"
    assert query["from"]["first_name"] == "Ann" and query["from"]["is_bot"] is False
    assert isinstance(query["chat_instance"], str) and query["chat_instance"]
    assert query["message"]["message_id"] == mid and query["message"]["reply_markup"] == KB


async def _read_events(response: aiohttp.ClientResponse, count: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async for raw in response.content:
        line = raw.decode().strip()
        if line.startswith("data: "):
            events.append(json.loads(line[6:]))
            if len(events) == count:
                return events
    return events


async def test_event_stream(session: aiohttp.ClientSession, user: UserClient, bot: BotCaller) -> None:
    await user.send(1, "hi")
    async with session.get("/api/users/1/events") as stream:
        assert stream.status == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        reader = asyncio.create_task(_read_events(stream, 6))
        sent = await bot.ok("sendMessage", chat_id=1, text="v1", reply_markup=KB)
        mid = sent["message_id"]
        await bot.ok("sendChatAction", chat_id=1, action="typing")
        await bot.ok("editMessageText", chat_id=1, message_id=mid, text="v2")
        qid = await user.press(1, 1, data="forged")
        await bot.ok("answerCallbackQuery", callback_query_id=qid, text="Noted")
        await bot.ok("deleteMessage", chat_id=1, message_id=mid)
        await user.send(1, "bye")
        events = await asyncio.wait_for(reader, 5)
    assert [e["type"] for e in events] == ["message", "action", "edit", "answer", "delete", "message"]
    assert events[0]["message_id"] == mid and events[0]["from"] == "bot" and events[0]["buttons"]
    assert events[2]["text"] == "v2" and events[2]["edited"] is True and events[2]["buttons"] == []
    assert events[3] == {"type": "answer", "callback_query_id": qid, "text": "Noted", "show_alert": False}
    assert events[4] == {"type": "delete", "message_id": mid}
    assert events[5]["text"] == "bye" and events[5]["from"] == "user"


async def test_page_and_static_files_are_served(session: aiohttp.ClientSession) -> None:
    for path, kind in [("/", "text/html"), ("/static/app.js", "javascript"), ("/static/style.css", "text/css")]:
        async with session.get(path) as r:
            assert r.status == 200 and kind in r.headers["Content-Type"], path
            body = await r.text()
        if path != "/static/app.js":  # app.js mentions https:// only to build links in messages
            assert "http://" not in body and "https://" not in body, f"{path} must not load remote assets"
    async with session.get("/api/bot") as r:
        assert (await r.json())["first_name"] == "Deputy"


async def test_reset(user: UserClient, bot: BotCaller) -> None:
    await user.send(1, "hi")
    assert await user.raw("POST", "/api/reset") == (200, {"ok": True})
    assert await user.messages(1) == [] and await bot.ok("getUpdates") == []
