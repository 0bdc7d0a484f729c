"""The text in a picture is read (Tesseract, in a child process) so the secret checks see it."""

from __future__ import annotations

from deputy.bot.photo_text import PhotoReader
from deputy.core.secret_scan import find_secrets
from tests_support import picture_with_text


async def test_a_screenshot_of_a_password_is_read_and_found_to_hold_one() -> None:
    text = await PhotoReader().text(picture_with_text("Home wifi", "password: Xk9#mm2Lq-77"))
    assert text is not None and "Xk9#mm2Lq-77" in text
    assert find_secrets(text).kind == "password"


async def test_a_picture_of_an_ordinary_note_holds_no_secret() -> None:
    text = await PhotoReader().text(picture_with_text("Bins go out on Tuesday", "Dentist Thursday at 3pm"))
    assert text is not None and "Tuesday" in text
    assert not find_secrets(text).found


async def test_without_tesseract_a_picture_is_not_read_and_nothing_breaks() -> None:
    assert await PhotoReader(command="").text(picture_with_text("password: Xk9#mm2Lq-77")) is None


async def test_what_is_not_a_picture_reads_as_nothing() -> None:
    assert not (await PhotoReader().text(b"\xff\xd8\xff\xe0 not really a photo") or "").strip()
