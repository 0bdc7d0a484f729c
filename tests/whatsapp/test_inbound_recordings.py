"""WhatsApp voice notes, audio and video become the Telegram-shaped updates the bot's handlers read."""

from __future__ import annotations

from telegram import Update

from deputy.whatsapp.inbound import to_update


def _message(update: dict):
    return Update.de_json(update, None).message


def test_a_voice_note_becomes_a_voice_and_a_forwarded_audio_stays_audio() -> None:
    voice = to_update({"type": "audio", "timestamp": "1700000000", "audio": {
        "id": "MEDIA1", "mime_type": "audio/ogg; codecs=opus", "voice": True}},
        update_id=1, message_id=5, account_id=77, name="Lucía")
    message = _message(voice)
    assert message.voice is not None and message.voice.file_id == "MEDIA1" and message.voice.mime_type == "audio/ogg"
    assert message.sticker is None, "no longer the unsupported stand-in"
    audio = _message(to_update({"type": "audio", "timestamp": "1", "audio": {"id": "M2", "mime_type": "audio/mpeg"}},
                               update_id=2, message_id=6, account_id=77, name="Lucía"))
    assert audio.voice is None and audio.audio is not None and audio.audio.file_id == "M2"
    forwarded = _message(to_update({"type": "audio", "timestamp": "1", "context": {"forwarded": True},
                                    "audio": {"id": "M3", "mime_type": "audio/ogg", "voice": True}},
                                   update_id=3, message_id=7, account_id=77, name="Lucía"))
    assert forwarded.voice is not None and forwarded.forward_origin is not None, "someone else's voice note"


def test_a_video_keeps_its_caption() -> None:
    video = _message(to_update({"type": "video", "timestamp": "1", "video": {
        "id": "V1", "mime_type": "video/mp4", "caption": "make a shopping list from this"}},
        update_id=3, message_id=7, account_id=77, name="Lucía"))
    assert video.video is not None and video.video.file_id == "V1"
    assert video.caption == "make a shopping list from this"


def test_a_quoted_reply_becomes_a_reply_to_deputys_message() -> None:
    from deputy.whatsapp.inbound import Card

    message = _message(to_update({"type": "text", "timestamp": "1", "text": {"body": "move it to 4 instead"},
                                  "context": {"from": "15550000000", "id": "wamid.done"}},
                                 update_id=4, message_id=9, account_id=77, name="Quinn", card=Card(5, "Done: added.")))
    assert message.text == "move it to 4 instead"
    assert message.reply_to_message.message_id == 5 and message.reply_to_message.from_user.is_bot
