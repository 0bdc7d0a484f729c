"""The real python-telegram-bot stack against the emulator, driven as users would."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from emulator_testkit import TOKEN, LiveEmulator, UserClient
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

KEYBOARD = InlineKeyboardMarkup(
    [
        [InlineKeyboardButton("Approve", callback_data="approve"),
         InlineKeyboardButton("Reject", callback_data="reject")],
        [InlineKeyboardButton("Docs", url="https://example.org/docs")],
    ]
)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_chat and update.message
    await context.bot.send_chat_action(update.effective_chat.id, "typing")
    await update.message.reply_text(f"Hello {update.effective_user.first_name}! I am Deputy.")


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.message and update.message.text is not None
    await update.message.reply_text(f"You said: {update.message.text}", reply_markup=KEYBOARD)


async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query and query.message
    if query.data not in ("approve", "reject"):
        await query.answer("Unknown action", show_alert=True)
        return
    await query.answer(f"Got {query.data}")
    await query.edit_message_text(f"{query.message.text} → {query.data}d")


@pytest.fixture
async def ptb_app(live: LiveEmulator) -> AsyncIterator[Application]:
    app = ApplicationBuilder().token(TOKEN).base_url(live.bot_base_url).build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
    app.add_handler(CallbackQueryHandler(on_press))
    await app.initialize()
    await app.start()
    # A long timeout proves that the long poll wakes on new updates instead of expiring.
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0, timeout=10)
    try:
        yield app
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()


async def test_get_me_through_ptb(ptb_app: Application) -> None:
    me = await ptb_app.bot.get_me()
    assert me.is_bot and me.first_name == "Deputy" and me.username == "deputy_bot"


async def test_start_command_reaches_command_handler(ptb_app: Application, user: UserClient) -> None:
    await user.send(42, "/start", first_name="Ann")
    msgs = await user.wait_for_messages(42, lambda m: len(m) >= 2, timeout=3)
    assert [m["from"] for m in msgs] == ["user", "bot"]
    assert msgs[1]["text"] == "Hello Ann! I am Deputy."
    assert msgs[1]["buttons"] == [] and msgs[1]["edited"] is False


async def test_echo_with_keyboard_then_press_by_label_and_data(ptb_app: Application, user: UserClient) -> None:
    await user.send(7, "plan my week")
    msgs = await user.wait_for_messages(7, lambda m: len(m) >= 2, timeout=3)
    reply = msgs[-1]
    assert reply["text"] == "You said: plan my week"
    assert reply["buttons"] == [
        [{"text": "Approve", "data": "approve"}, {"text": "Reject", "data": "reject"}],
        [{"text": "Docs", "url": "https://example.org/docs"}],
    ]

    query_id = await user.press(7, reply["message_id"], button="Approve")
    msgs = await user.wait_for_messages(7, lambda m: m[-1]["edited"])
    assert msgs[-1]["text"] == "You said: plan my week → approved"
    # editMessageText without reply_markup drops the keyboard, as in Telegram.
    assert msgs[-1]["buttons"] == []
    answers = await user.eventually(lambda: user.answers(7), lambda a: len(a) == 1)
    assert answers == [{"callback_query_id": query_id, "text": "Got approve", "show_alert": False}]

    # A forged press with data no button carries is still delivered to the bot.
    await user.send(7, "again")
    msgs = await user.wait_for_messages(7, lambda m: len(m) >= 4)
    await user.press(7, msgs[-1]["message_id"], data="delete-everything")
    answers = await user.eventually(lambda: user.answers(7), lambda a: len(a) == 2)
    assert answers[-1]["text"] == "Unknown action" and answers[-1]["show_alert"] is True


async def test_ptb_sees_telegram_errors(ptb_app: Application, user: UserClient) -> None:
    with pytest.raises(BadRequest, match="[Cc]hat not found"):
        await ptb_app.bot.send_message(999, "hi")
    await user.send(5, "hello")
    await user.wait_for_messages(5, lambda m: len(m) >= 2)
    with pytest.raises(BadRequest, match="too long"):
        await ptb_app.bot.send_message(5, "x" * 4097)
    with pytest.raises(BadRequest, match="[Mm]essage to edit not found"):
        await ptb_app.bot.edit_message_text("new", chat_id=5, message_id=99)


async def test_ptb_commands_document_and_formatting(ptb_app: Application, user: UserClient) -> None:
    bot = ptb_app.bot
    await bot.set_my_commands([("start", "Say hello"), ("plan", "Make a plan")])
    await bot.set_my_description("Your deputy")
    assert (await bot.get_my_description()).description == "Your deputy"
    assert [c.command for c in await bot.get_my_commands()] == ["start", "plan"]

    await user.send(9, "hi")
    await user.wait_for_messages(9, lambda m: len(m) >= 2)
    chat = await bot.get_chat(9)
    assert chat.id == 9 and chat.type == "private" and chat.first_name == "User 9"
    sent = await bot.send_document(9, document=b"report body", filename="report.txt", caption="Weekly report")
    assert sent.document and sent.document.file_name == "report.txt" and sent.document.file_size == 11
    assert sent.caption == "Weekly report"

    html = await bot.send_message(9, "<b>Plan</b> &amp; <i>go</i>", parse_mode="HTML")
    assert html.text == "Plan & go"
    assert [(e.type, e.offset, e.length) for e in html.entities] == [("bold", 0, 4), ("italic", 7, 2)]
    with pytest.raises(BadRequest, match="(?i)can't parse entities"):
        await bot.send_message(9, "Done.", parse_mode="MarkdownV2")

    msgs = await user.messages(9)
    assert msgs[-2]["document"]["file_name"] == "report.txt" and msgs[-2]["text"] == "Weekly report"
    assert msgs[-1]["text"] == "Plan & go"
