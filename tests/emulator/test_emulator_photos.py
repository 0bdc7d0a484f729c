"""Photos from the bot: sendPhoto through the real python-telegram-bot, the user API and the chat page."""

from __future__ import annotations

import struct
import zlib
from collections.abc import AsyncIterator

import pytest
from emulator_testkit import TOKEN, LiveEmulator, UserClient
from playwright.async_api import async_playwright, expect
from telegram import Bot
from telegram.error import BadRequest

from deputy.emulator.images import image_info


def png(width: int, height: int, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A real, decodable PNG of one colour."""
    row = b"\x00" + bytes(rgb) * width
    body = zlib.compress(row * height)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


@pytest.fixture
async def ptb_bot(live: LiveEmulator) -> AsyncIterator[Bot]:
    bot = Bot(TOKEN, base_url=live.bot_base_url, base_file_url=f"{live.url}/file/bot")
    async with bot:
        yield bot


def test_image_sizes_come_from_the_header() -> None:
    assert image_info(png(37, 11)) == ("image/png", 37, 11)
    assert image_info(b"GIF89a" + struct.pack("<HH", 5, 6) + b"\x00" * 10) == ("image/gif", 5, 6)
    jpeg = b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 4) + b"\x00\x00" + b"\xff\xc0" + struct.pack(">HBHH", 11, 8, 48, 64) + b"\x00" * 8
    assert image_info(jpeg) == ("image/jpeg", 64, 48)
    assert image_info(b"plain text, not a picture") is None


async def test_ptb_send_photo_returns_a_message_with_photo_sizes(ptb_bot: Bot, user: UserClient) -> None:
    await user.send(21, "show me")
    image = png(320, 200)
    sent = await ptb_bot.send_photo(21, photo=image, caption="The booking page")
    assert sent.caption == "The booking page" and sent.text is None
    biggest = sent.photo[-1]
    assert (biggest.width, biggest.height, biggest.file_size) == (320, 200, len(image))

    # The same bytes come back through getFile, as a bot would download them.
    downloaded = await (await ptb_bot.get_file(biggest.file_id)).download_as_bytearray()
    assert bytes(downloaded) == image
    # A photo sent before can be sent again by its file_id.
    again = await ptb_bot.send_photo(21, photo=biggest.file_id)
    assert again.photo[-1].file_id == biggest.file_id

    # The user side sees the photo, its caption and where to fetch it.
    messages = await user.messages(21)
    shown = messages[-2]
    assert shown["from"] == "bot" and shown["text"] == "The booking page"
    assert shown["photo"]["width"] == 320 and shown["photo"]["url"] == f"/api/files/{biggest.file_id}"
    status, photos = await user.raw("GET", "/api/users/21/photos")
    assert status == 200 and [p["caption"] for p in photos] == ["The booking page", ""]
    async with user.session.get(shown["photo"]["url"]) as response:
        assert response.status == 200 and response.content_type == "image/png"
        assert response.headers["Content-Disposition"].startswith("inline")
        assert await response.read() == image


async def test_send_photo_refuses_what_is_not_a_photo(ptb_bot: Bot, user: UserClient) -> None:
    await user.send(22, "hi")
    with pytest.raises(BadRequest, match="(?i)image_process_failed"):
        await ptb_bot.send_photo(22, photo=b"%PDF-1.4 not an image")
    with pytest.raises(BadRequest, match="(?i)photo_invalid_dimensions"):
        await ptb_bot.send_photo(22, photo=png(2000, 20))
    with pytest.raises(BadRequest, match="[Cc]hat not found"):
        await ptb_bot.send_photo(999, photo=png(10, 10))
    assert [m["text"] for m in await user.messages(22)] == ["hi"]


@pytest.mark.browser
async def test_the_chat_page_shows_the_photo(ptb_bot: Bot, user: UserClient, live: LiveEmulator) -> None:
    await user.send(23, "hello")
    await ptb_bot.send_photo(23, photo=png(240, 120, (20, 160, 40)), caption="Your screenshot")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{live.url}/?user=23")
            photo = page.locator('.message[data-from="bot"] img.photo-image')
            await expect(photo).to_have_count(1)
            await expect(page.locator('.message[data-from="bot"] .text')).to_have_text("Your screenshot")
            # Decoded by the browser, at its real size: the user really sees the picture.
            await expect(photo).to_have_js_property("complete", True)
            assert await photo.evaluate("img => img.naturalWidth") == 240
        finally:
            await browser.close()
