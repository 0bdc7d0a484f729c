"""Media checked against WhatsApp's limits before the upload, and template parameters flattened. Pure."""

from __future__ import annotations

import struct

import pytest

from deputy.whatsapp import media, outbound
from deputy.whatsapp.image_pdf import image_pdf


def test_text_like_documents_go_as_plain_text_keeping_their_name() -> None:
    for mime in ("application/json", "text/csv", "application/xml", "text/markdown"):
        upload = media.prepare("document", b"{}", mime, "deputy-export.json")
        assert (upload.kind, upload.mime, upload.filename) == ("document", "text/plain", "deputy-export.json")
    assert media.prepare("document", b"x", "text/plain", "notes").filename == "notes"
    assert media.prepare("document", b"x", "text/csv", "table").filename == "table.txt"


def test_accepted_documents_go_as_they_are_and_others_are_refused_with_a_reason() -> None:
    for mime in ("application/pdf", "application/msword", "application/vnd.ms-excel",
                 "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"):
        assert media.prepare("document", b"x", mime, "f").mime == mime
    with pytest.raises(media.Unsendable, match="application/zip"):
        media.prepare("document", b"PK", "application/zip", "archive.zip")


def test_a_jpeg_over_the_image_limit_becomes_a_pdf_carrying_its_bytes() -> None:
    frame = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 900, 1600, 3) + b"\0" * 9  # start of frame: 1600x900 RGB
    jpeg = b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0" + b"\0" * 9 + frame + b"\x11" * (6 * 2**20)
    upload = media.prepare("image", jpeg, "application/octet-stream", "screenshot.jpg")
    assert (upload.kind, upload.mime, upload.filename) == ("document", "application/pdf", "screenshot.pdf")
    assert upload.note == media.AS_PDF_NOTE and jpeg in upload.data and b"/DCTDecode" in upload.data
    assert b"/Width 1600 /Height 900" in upload.data


def test_small_jpeg_and_png_pictures_go_as_images() -> None:
    assert media.prepare("image", b"\x89PNG\r\n\x1a\n....", "", "image.png").kind == "image"
    assert media.prepare("image", b"\xff\xd8\xff\xe0....", "", "image.jpg").mime == "image/jpeg"


def test_a_picture_that_is_not_a_jpeg_or_png_is_not_guessed_at() -> None:
    assert image_pdf(b"GIF89a....") is None
    with pytest.raises(media.Unsendable, match="JPEG or PNG"):
        media.prepare("image", b"RIFF\0\0\0\0WEBPVP8 ", "", "sticker.webp")


def test_a_template_parameter_has_no_line_break_tab_or_long_run_of_spaces() -> None:
    flat = outbound.template_parameter("Prices:\n\tBoots\t\t80 EUR\n\n  Coat        120 EUR  \r\nend")
    assert flat == "Prices: · Boots 80 EUR · Coat 120 EUR · end"
    assert outbound.template_parameter(" \n\t ") == "…"
    long = outbound.template_parameter("\n".join(["word " * 30] * 20) + "\n(Reply to read all of it.)")
    assert len(long) <= outbound.MAX_TEMPLATE_PARAMETER and long.endswith("(Reply to read all of it.)")


def test_a_message_to_a_username_user_names_them_as_recipient() -> None:
    assert outbound.text_message("15550001234", "hi")["to"] == "15550001234"
    payload = outbound.text_message("US.13491208655302741918", "hi")
    assert payload["recipient"] == "US.13491208655302741918" and "to" not in payload


def test_a_voice_note_goes_as_audio_only_when_it_is_ogg_with_opus_sound() -> None:
    ogg_opus = b"OggS" + b"\0" * 24 + b"OpusHead" + b"\1" * 40
    upload = media.prepare("audio", ogg_opus, "application/octet-stream", "application.octet-stream")
    assert (upload.kind, upload.mime, upload.filename) == ("audio", "audio/ogg", "voice.ogg")
    with pytest.raises(media.Unsendable, match="OGG voice notes with Opus"):
        media.prepare("audio", b"OggS" + b"\0" * 24 + b"Vorbis", "audio/ogg", "voice.ogg")
    with pytest.raises(media.Unsendable, match="16 MB"):
        media.prepare("audio", ogg_opus + b"\0" * (16 * media.MB), "audio/ogg", "voice.ogg")
