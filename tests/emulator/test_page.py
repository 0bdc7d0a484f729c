"""Browser smoke test of the chat page: real Chromium, a tiny PTB echo bot, live updates."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from emulator_testkit import TOKEN, LiveEmulator
from playwright.async_api import Browser, Page, async_playwright, expect
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.message and update.message.text is not None
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Approve", callback_data="approve")]])
    await update.message.reply_text(f"You said: {update.message.text}", reply_markup=markup)


async def approve(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query and query.message
    await query.answer("Approved!")
    await query.edit_message_text(f"{query.message.text} ✅ approved")


@pytest.fixture
async def echo_bot(live: LiveEmulator) -> AsyncIterator[Application]:
    app = ApplicationBuilder().token(TOKEN).base_url(live.bot_base_url).build()
    app.add_handler(MessageHandler(filters.TEXT, echo))
    app.add_handler(CallbackQueryHandler(approve))
    await app.initialize()
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0, timeout=10)
    try:
        yield app
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture
async def page(browser: Browser, live: LiveEmulator) -> AsyncIterator[Page]:
    context = await browser.new_context()
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(live.url)
    yield page
    await context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


async def test_chat_page_round_trip(page: Page, echo_bot: Application) -> None:
    await expect(page.locator("#bot-name")).to_have_text("Deputy")
    await expect(page.locator("#status")).to_have_text("bot")  # the live stream is connected

    await page.locator("#composer").fill("<b>hello</b>\nsecond line")
    await page.locator("#send").click()

    mine = page.locator('.message[data-from="user"]')
    await expect(mine).to_have_count(1)
    # Text is shown literally (escaped) with its line break, never interpreted as HTML.
    await expect(mine.locator(".text")).to_have_text("<b>hello</b>\nsecond line")
    assert await mine.locator(".text b").count() == 0

    reply = page.locator('.message[data-from="bot"]')
    await expect(reply).to_have_count(1)
    await expect(reply.locator(".text")).to_have_text("You said: <b>hello</b>\nsecond line")
    button = reply.locator("button.inline-button", has_text="Approve")
    await expect(button).to_be_visible()
    assert await reply.get_attribute("data-message-id") == "2"

    await button.click()
    await expect(reply.locator(".text")).to_have_text("You said: <b>hello</b>\nsecond line ✅ approved")
    await expect(reply.locator(".edited")).to_be_visible()
    await expect(reply.locator("button.inline-button")).to_have_count(0)
    await expect(page.locator(".toast", has_text="Approved!")).to_be_visible()
    await expect(page.locator("#composer")).to_have_value("")

    # Enter sends too (Shift+Enter would add a newline).
    await page.locator("#composer").press_sequentially("second")
    await page.locator("#composer").press("Enter")
    await expect(page.locator('.message[data-from="bot"]')).to_have_count(2)


async def test_the_user_edits_and_deletes_messages_from_the_page(page: Page, live: LiveEmulator) -> None:
    await expect(page.locator("#status")).to_have_text("bot")
    await page.locator("#composer").fill("email Alice I'm 10 min late")
    await page.locator("#send").click()
    mine = page.locator('.message[data-from="user"]')
    await expect(mine).to_have_count(1)

    page.once("dialog", lambda dialog: dialog.accept("email Alice I'm 15 min late"))
    await mine.hover()
    await mine.locator("button.edit-message").click()
    await expect(mine.locator(".text")).to_have_text("email Alice I'm 15 min late")
    await expect(mine.locator(".edited")).to_be_visible()
    kinds = [next(k for k in u if k != "update_id") for u in await live.emulator.updates.fetch()]
    assert kinds == ["message", "edited_message"], "the bot is told of the edit"

    await mine.hover()
    await mine.locator("button.delete-message").click()
    await expect(mine).to_have_count(0)
    [chat] = live.emulator.state.chats.values()
    assert chat.messages == {}, "deleted for both sides"
