"""Bot API behaviour and edge cases, called over HTTP as a bot would."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
from emulator_testkit import BotCaller, LiveEmulator, UserClient

NOT_MODIFIED = "Bad Request: message is not modified"


async def test_unknown_method_is_a_polite_404(bot: BotCaller) -> None:
    status, body = await bot("sendPigeon", chat_id=1)
    assert status == 404
    assert body == {
        "ok": False,
        "error_code": 404,
        "description": "Not Found: method 'sendPigeon' is not supported by the local emulator",
    }


async def test_get_me_any_token_get_or_post_case_insensitive(session: aiohttp.ClientSession) -> None:
    for token, method, verb in [("1:a", "getMe", "GET"), ("999:zzz", "GETME", "POST")]:
        async with session.request(verb, f"/bot{token}/{method}") as r:
            body = await r.json()
        assert r.status == 200 and body["ok"] is True
        assert body["result"]["is_bot"] is True
        assert body["result"]["first_name"] == "Deputy" and body["result"]["username"] == "deputy_bot"


async def test_webhook_and_lifecycle_methods(bot: BotCaller) -> None:
    assert await bot.ok("deleteWebhook", drop_pending_updates=True) is True
    info = await bot.ok("getWebhookInfo")
    assert info["url"] == "" and info["pending_update_count"] == 0
    assert await bot.ok("close") is True and await bot.ok("logOut") is True


async def test_send_message_to_unknown_chat(bot: BotCaller) -> None:
    status, body = await bot("sendMessage", chat_id=123, text="hi")
    assert status == 400
    assert body == {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"}
    status, body = await bot("sendMessage", chat_id="@someone", text="hi")
    assert body["description"] == "Bad Request: chat not found"


async def test_send_message_text_limits(bot: BotCaller, user: UserClient) -> None:
    await user.send(1, "hi")
    status, body = await bot("sendMessage", chat_id=1, text="x" * 4097)
    assert (status, body["description"]) == (400, "Bad Request: message is too long")
    status, body = await bot("sendMessage", chat_id=1, text="   ")
    assert (status, body["description"]) == (400, "Bad Request: message text is empty")
    status, body = await bot("sendMessage", chat_id=1)
    assert body["description"] == "Bad Request: message text is empty"
    assert (await bot.ok("sendMessage", chat_id=1, text="x" * 4096))["text"] == "x" * 4096


async def test_send_message_returns_full_message_form_encoded(bot: BotCaller, user: UserClient) -> None:
    await user.send(3, "hi", first_name="Bea")
    markup = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}, {"text": "Web", "url": "https://x.org"}]]}
    # PTB's wire format: form fields, nested objects as JSON strings.
    status, body = await bot(
        "sendMessage", as_json=False, chat_id="3", text="pick", reply_markup=json.dumps(markup),
        reply_parameters=json.dumps({"message_id": 1}),
    )
    assert status == 200, body
    msg = body["result"]
    assert msg["message_id"] == 2 and isinstance(msg["date"], int)
    assert msg["chat"] == {"id": 3, "type": "private", "first_name": "Bea"}
    assert msg["from"]["is_bot"] is True and msg["text"] == "pick"
    assert msg["reply_markup"] == markup
    assert msg["reply_to_message"]["message_id"] == 1 and msg["reply_to_message"]["text"] == "hi"


async def test_reply_to_missing_message(bot: BotCaller, user: UserClient) -> None:
    await user.send(3, "hi")
    status, body = await bot("sendMessage", chat_id=3, text="re", reply_to_message_id=77)
    assert body["description"] == "Bad Request: message to be replied not found"
    result = await bot.ok(
        "sendMessage", chat_id=3, text="re",
        reply_parameters={"message_id": 77, "allow_sending_without_reply": True},
    )
    assert "reply_to_message" not in result


async def test_callback_data_over_64_bytes_is_rejected(bot: BotCaller, user: UserClient) -> None:
    await user.send(1, "hi")
    too_long = {"inline_keyboard": [[{"text": "A", "callback_data": "é" * 33}]]}  # 66 bytes
    status, body = await bot("sendMessage", chat_id=1, text="t", reply_markup=too_long)
    assert status == 400
    assert body == {"ok": False, "error_code": 400, "description": "Bad Request: BUTTON_DATA_INVALID"}
    ok = {"inline_keyboard": [[{"text": "A", "callback_data": "d" * 64}]]}
    assert (await bot.ok("sendMessage", chat_id=1, text="t", reply_markup=ok))["reply_markup"] == ok
    status, body = await bot("sendMessage", chat_id=1, text="t", reply_markup={"inline_keyboard": [[{"text": "A"}]]})
    assert body["description"] == "Bad Request: text buttons are unallowed in the inline keyboard"


async def test_edit_rules(bot: BotCaller, user: UserClient) -> None:
    await user.send(1, "hi")
    status, body = await bot("editMessageText", chat_id=1, message_id=50, text="x")
    assert (status, body["description"]) == (400, "Bad Request: message to edit not found")
    status, body = await bot("editMessageText", chat_id=1, message_id=1, text="x")
    assert body["description"] == "Bad Request: message can't be edited"

    kb = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    sent = await bot.ok("sendMessage", chat_id=1, text="v1", reply_markup=kb)
    mid = sent["message_id"]
    status, body = await bot("editMessageText", chat_id=1, message_id=mid, text="v1", reply_markup=kb)
    assert status == 400 and body["description"].startswith(NOT_MODIFIED)

    edited = await bot.ok("editMessageText", chat_id=1, message_id=mid, text="v2", reply_markup=kb)
    assert edited["text"] == "v2" and isinstance(edited["edit_date"], int) and edited["reply_markup"] == kb
    cleared = await bot.ok("editMessageReplyMarkup", chat_id=1, message_id=mid)
    assert cleared["message_id"] == mid and "reply_markup" not in cleared
    status, body = await bot("editMessageReplyMarkup", chat_id=1, message_id=mid)
    assert body["description"].startswith(NOT_MODIFIED)

    shown = await user.messages(1)
    assert shown[-1] == {**shown[-1], "text": "v2", "buttons": [], "edited": True}


async def test_delete_message(bot: BotCaller, user: UserClient) -> None:
    await user.send(1, "hi")
    mid = (await bot.ok("sendMessage", chat_id=1, text="bye"))["message_id"]
    assert await bot.ok("deleteMessage", chat_id=1, message_id=mid) is True
    assert [m["message_id"] for m in await user.messages(1)] == [1]
    status, body = await bot("deleteMessage", chat_id=1, message_id=mid)
    assert body["description"] == "Bad Request: message to delete not found"


async def test_answer_callback_query_once(bot: BotCaller, user: UserClient) -> None:
    await user.send(1, "hi")
    mid = (await bot.ok("sendMessage", chat_id=1, text="?", reply_markup={"inline_keyboard": [[{"text": "Yes", "callback_data": "y"}]]}))["message_id"]
    qid = await user.press(1, mid, button="Yes")
    assert await bot.ok("answerCallbackQuery", callback_query_id=qid, text="Saved", show_alert=True) is True
    status, body = await bot("answerCallbackQuery", callback_query_id=qid)
    assert status == 400 and "query ID is invalid" in body["description"]
    assert await user.answers(1) == [{"callback_query_id": qid, "text": "Saved", "show_alert": True}]


async def test_get_updates_offset_semantics(bot: BotCaller, user: UserClient) -> None:
    for text in ("one", "two", "three"):
        await user.send(1, text)
    updates = await bot.ok("getUpdates")
    ids = [u["update_id"] for u in updates]
    assert [u["message"]["text"] for u in updates] == ["one", "two", "three"]
    assert ids == sorted(ids)
    first = updates[0]["message"]
    assert first["from"] == {"id": 1, "is_bot": False, "first_name": "User 1", "language_code": "en"}
    assert first["chat"]["type"] == "private" and isinstance(first["date"], int)
    # Without a new offset nothing is confirmed; limit applies.
    assert [u["update_id"] for u in await bot.ok("getUpdates", limit=2)] == ids[:2]
    # offset confirms everything below it.
    assert [u["update_id"] for u in await bot.ok("getUpdates", offset=ids[1])] == ids[1:]
    assert [u["update_id"] for u in await bot.ok("getUpdates")] == ids[1:]
    # Negative offset keeps only the last N.
    assert [u["update_id"] for u in await bot.ok("getUpdates", offset=-1)] == ids[2:]
    assert await bot.ok("getUpdates", offset=ids[2] + 1) == []


async def test_command_entities_and_allowed_updates(bot: BotCaller, user: UserClient) -> None:
    await user.send(1, "/plan@deputy_bot tomorrow")
    (update,) = await bot.ok("getUpdates", allowed_updates=json.dumps(["message"]))
    assert update["message"]["entities"] == [{"type": "bot_command", "offset": 0, "length": 16}]
    mid = (await bot.ok("sendMessage", chat_id=1, text="k", reply_markup={"inline_keyboard": [[{"text": "B", "callback_data": "b"}]]}))["message_id"]
    await user.press(1, mid, data="b")
    await user.send(1, "after")
    # The callback_query update is filtered out by allowed_updates=["message"].
    updates = await bot.ok("getUpdates", offset=update["update_id"] + 1)
    assert [list(u)[1] for u in updates] == ["message"]


async def test_long_poll_returns_promptly_when_an_update_arrives(
    live: LiveEmulator, bot: BotCaller, user: UserClient
) -> None:
    started = time.monotonic()
    poll = asyncio.create_task(bot.ok("getUpdates", timeout=10))

    async def waiting() -> int:
        return live.emulator.updates.waiting

    await user.eventually(waiting, lambda n: n == 1)
    assert not poll.done()
    await user.send(1, "wake up")
    result = await asyncio.wait_for(poll, timeout=3)
    assert result and result[0]["message"]["text"] == "wake up"
    assert time.monotonic() - started < 2


async def test_long_poll_times_out_empty(bot: BotCaller) -> None:
    started = time.monotonic()
    assert await bot.ok("getUpdates", timeout=0.3) == []
    assert 0.25 < time.monotonic() - started < 2


async def test_chat_action_and_commands(bot: BotCaller, user: UserClient, session: aiohttp.ClientSession) -> None:
    status, body = await bot("sendChatAction", chat_id=1, action="typing")
    assert body["description"] == "Bad Request: chat not found"
    await user.send(1, "hi")
    assert await bot.ok("sendChatAction", chat_id=1, action="typing") is True
    status, body = await bot("sendChatAction", chat_id=1, action="dancing")
    assert status == 400
    commands = [{"command": "start", "description": "Begin"}]
    assert await bot.ok("setMyCommands", commands=commands) is True
    assert await bot.ok("getMyCommands") == commands
    async with session.get("/api/users/1/commands") as r:
        assert await r.json() == commands
    status, body = await bot("setMyCommands", commands=[{"command": "Bad Name", "description": "x"}])
    assert status == 400
    assert await bot.ok("deleteMyCommands") is True and await bot.ok("getMyCommands") == []


async def test_send_document_multipart_and_string(live: LiveEmulator, user: UserClient, session: aiohttp.ClientSession) -> None:
    await user.send(1, "hi")
    form = aiohttp.FormData()
    form.add_field("chat_id", "1")
    form.add_field("caption", "the plan")
    form.add_field("document", b"%PDF-1.4 fake", filename="plan.pdf", content_type="application/pdf")
    async with session.post("/bot1:x/sendDocument", data=form) as r:
        body = await r.json()
    assert r.status == 200, body
    doc = body["result"]["document"]
    assert (doc["file_name"], doc["file_size"], doc["mime_type"]) == ("plan.pdf", 13, "application/pdf")
    assert body["result"]["caption"] == "the plan" and "text" not in body["result"]
    async with session.get(f"/api/files/{doc['file_id']}") as r:
        assert await r.read() == b"%PDF-1.4 fake"

    by_url = BotCaller(session)
    again = await by_url.ok("sendDocument", chat_id=1, document=doc["file_id"])
    assert again["document"]["file_id"] == doc["file_id"]
    remote = await by_url.ok("sendDocument", chat_id=1, document="https://example.org/files/notes.txt")
    assert remote["document"]["file_name"] == "notes.txt"
    shown = await user.messages(1)
    assert shown[1]["document"]["file_name"] == "plan.pdf" and shown[1]["text"] == "the plan"
