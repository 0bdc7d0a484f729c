"""Voice notes, audio and video from the user, as Telegram's apps send them, read by python-telegram-bot."""

from __future__ import annotations

import aiohttp
import pytest
from emulator_testkit import TOKEN, LiveEmulator
from telegram import Bot, Update
from telegram.error import BadRequest

from deputy.emulator.audio import ogg_opus_seconds
from deputy.emulator.records import Document, Media
from deputy.testing.speech import spoken_note


async def _send(live: LiveEmulator, user_id: int, data: bytes, kind: str, mime: str, **extra: str) -> tuple[int, dict]:
    form = aiohttp.FormData()
    form.add_field("file", data, filename="rec", content_type=mime)
    form.add_field("as", kind)
    for key, value in extra.items():
        form.add_field(key, value)
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{live.url}/api/users/{user_id}/files", data=form) as response:
            return response.status, await response.json(content_type=None) if response.status == 200 else {}


def test_a_voice_notes_length_is_read_from_its_ogg_pages() -> None:
    note = spoken_note("One two three four five.")
    assert 1.0 < ogg_opus_seconds(note) < 4.0
    assert ogg_opus_seconds(b"ID3\x03 an mp3, not a voice note") is None
    assert ogg_opus_seconds(b"OggS" + b"\x00" * 40) is None  # OGG without Opus inside


async def test_a_voice_note_reaches_the_bot_as_telegrams_voice_object(live: LiveEmulator) -> None:
    note = spoken_note("Add milk to my shopping list.")
    status, sent = await _send(live, 41, note, "voice", "audio/ogg")
    assert status == 200
    async with Bot(TOKEN, base_url=live.bot_base_url, base_file_url=f"{live.url}/file/bot") as bot:
        updates = await bot.get_updates(timeout=0)
        message = updates[-1].message
        assert message.message_id == sent["message_id"] and message.voice is not None
        assert message.voice.mime_type == "audio/ogg" and message.voice.duration >= 1
        data = await (await message.voice.get_file()).download_as_bytearray()
        assert bytes(data) == note


async def test_recordings_the_apps_would_not_send_are_refused(live: LiveEmulator) -> None:
    status, _ = await _send(live, 42, b"ID3\x03 not opus", "voice", "audio/mpeg")
    assert status == 400, "a voice note is OGG/Opus, as Telegram records it"
    status, _ = await _send(live, 42, b"\x00\x00\x00\x18ftypmp42", "video", "audio/mpeg", duration="3")
    assert status == 400, "a video is sent with a video type"


def test_videos_and_audio_files_have_telegrams_shapes() -> None:
    file = Document("F1", "U1", "clip.mp4", 1234, "video/mp4")
    video = Media("video", file, 7, 320, 240).to_json()
    assert video == {"file_id": "F1", "file_unique_id": "U1", "duration": 7, "file_size": 1234,
                     "mime_type": "video/mp4", "width": 320, "height": 240, "file_name": "clip.mp4"}
    round_note = Media("video_note", file, 5, 240, 240).to_json()
    assert round_note["length"] == 240 and "mime_type" not in round_note
    update = Update.de_json({"update_id": 1, "message": {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"},
                                                         "video": video}}, None)
    assert update.message.video.duration == 7


async def test_the_bot_cannot_fetch_a_file_over_20_mb(live: LiveEmulator) -> None:
    big = Document("BIG", "UBIG", "long.mp4", 21 * 1024 * 1024, "video/mp4")
    live.emulator.state.files[big.file_id] = big
    async with Bot(TOKEN, base_url=live.bot_base_url) as bot:
        with pytest.raises(BadRequest, match="too big"):
            await bot.get_file("BIG")


async def test_a_bot_sends_a_voice_note_as_ogg_opus_and_the_user_sees_it(live: LiveEmulator) -> None:
    await _send(live, 43, spoken_note("Hello."), "voice", "audio/ogg")  # a bot writes only where the user wrote
    async with Bot(TOKEN, base_url=live.bot_base_url, base_file_url=f"{live.url}/file/bot") as bot:
        sent = await bot.send_voice(43, voice=spoken_note("The dentist is on Thursday at four."))
        assert sent.voice is not None and sent.voice.mime_type == "audio/ogg" and sent.voice.duration >= 1
        with pytest.raises(BadRequest, match="(?i)ogg file with opus"):
            await bot.send_voice(43, voice=b"ID3\x03 an mp3, not a voice note")
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{live.url}/api/users/43/messages") as response:
            shown = [m for m in await response.json() if m["from"] == "bot"]
    assert [m["media"]["kind"] for m in shown] == ["voice"]
