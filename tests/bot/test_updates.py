"""The bot's update processing (`deputy.bot.updates`, real python-telegram-bot polling the emulator):
one user's flood of messages waits in that user's own line, everyone else's messages go past it,
and each chat's updates are handled in the order they were sent."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from telegram import Update
from telegram.ext import Application, ContextTypes, TypeHandler

from deputy.bot.updates import MAX_CONCURRENT_UPDATES, PerChatOrder, application_builder
from deputy.emulator import ApiRules, Emulator, bound_port, create_app, serve
from tests_support import eventually

FLOODER = 7101
OTHER = 7102

Handle = Callable[[Update, ContextTypes.DEFAULT_TYPE], Any]




@asynccontextmanager
async def polling_bot(handle: Handle) -> AsyncIterator[tuple[Emulator, Application]]:
    """The bot's PTB application as Deputy builds it, with `handle` for every update."""
    emu = Emulator(rules=ApiRules().relaxed(["rate-limits"]))  # replies to a flood are not what is tested
    runner = await serve("127.0.0.1", 0, app=create_app(emulator=emu))
    app = application_builder("1:updates", f"http://127.0.0.1:{bound_port(runner)}/bot", rate_limit=False).build()
    app.add_handler(TypeHandler(Update, handle))
    await app.initialize()
    await app.updater.start_polling(allowed_updates=Update.ALL_TYPES, poll_interval=0.0, timeout=1)
    await app.start()
    try:
        yield emu, app
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
        await runner.cleanup()


def bot_texts(emu: Emulator, user: int) -> list[str]:
    return [m.text for m in emu.state.messages_after(user) if m.sender == "bot"]


def inline_query(app: Application, update_id: int) -> Update:
    """An update that belongs to no chat: someone types "@bot ..." in another chat."""
    return Update.de_json({"update_id": update_id, "inline_query": {
        "id": "77", "from": {"id": OTHER, "is_bot": False, "first_name": "Other"}, "query": "hi", "offset": ""}},
        app.bot)


async def test_a_flood_from_one_chat_holds_one_slot_while_other_chats_and_chatless_updates_go_past_it() -> None:
    flood = 200
    release = asyncio.Event()
    finished: list[tuple[int | None, str]] = []

    async def handle(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if update.inline_query is not None:
            finished.append((None, update.inline_query.query))
            return
        chat = update.effective_chat.id
        if chat == FLOODER:
            await release.wait()  # a slow handler: the flood piles up behind its first message
        else:
            await context.bot.send_message(chat, "handled")
        finished.append((chat, update.effective_message.text))

    async with polling_bot(handle) as (emu, app):
        processor = app.update_processor
        assert isinstance(processor, PerChatOrder)
        try:
            for n in range(flood):
                emu.user_sends(FLOODER, f"flood {n}")
            await eventually(lambda: processor.turns.waiting(FLOODER) == flood)
            assert flood > MAX_CONCURRENT_UPDATES
            assert processor.current_concurrent_updates == 1, "the flooding chat holds one processing slot"

            emu.user_sends(OTHER, "hello")
            await eventually(lambda: bot_texts(emu, OTHER) == ["handled"])
            await app.update_queue.put(inline_query(app, 10**9))
            await eventually(lambda: (None, "hi") in finished)
            assert finished == [(OTHER, "hello"), (None, "hi")], "both went past the whole backlog"
        finally:
            release.set()  # a failed check must not leave the flood's handlers waiting forever

        await eventually(lambda: len(finished) == flood + 2)
        assert [text for chat, text in finished if chat == FLOODER] == [f"flood {n}" for n in range(flood)]
        assert len(processor.turns) == 0, "no chat keeps a place in line once its updates are done"
        assert processor.current_concurrent_updates == 0


async def test_each_chats_messages_and_presses_are_handled_one_at_a_time_in_the_order_sent() -> None:
    chats = [7201, 7202, 7203, 7204, 7205]
    per_chat = 40
    handled: dict[int, list[str]] = defaultdict(list)
    running: dict[int, int] = defaultdict(int)
    overlaps: list[int] = []
    most_at_once = 0
    shuffle = random.Random(7)

    async def handle(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        nonlocal most_at_once
        chat = update.effective_chat.id
        running[chat] += 1
        if running[chat] > 1:
            overlaps.append(chat)
        most_at_once = max(most_at_once, sum(running.values()))
        try:
            for _ in range(shuffle.randint(0, 5)):  # handlers take different times, as real ones do
                await asyncio.sleep(0)
            await context.bot.send_chat_action(chat, "typing")  # and wait on the Bot API
            query = update.callback_query
            handled[chat].append(f"press {query.data}" if query is not None else update.effective_message.text)
        finally:
            running[chat] -= 1

    async with polling_bot(handle) as (emu, app):
        sent: dict[int, list[str]] = defaultdict(list)
        last_message: dict[int, int] = {}
        for n in range(per_chat):
            for chat in chats:
                if n % 3 == 2:  # a button pressed on the chat's message before
                    emu.user_presses(chat, last_message[chat], data=f"{n}")
                    sent[chat].append(f"press {n}")
                else:
                    last_message[chat] = emu.user_sends(chat, f"message {n}").message_id
                    sent[chat].append(f"message {n}")
        await eventually(lambda: sum(map(len, handled.values())) == per_chat * len(chats))
        assert dict(handled) == dict(sent)
        assert overlaps == [], "no chat ever had two updates handled at once"
        assert most_at_once > 1, "different chats' updates were handled at the same time"
        assert len(app.update_processor.turns) == 0
