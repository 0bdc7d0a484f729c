"""What WhatsApp's Cloud API accepts as media, checked before the upload. Pure.

The published limits: an image is a JPEG or PNG of at most 5 MB; a document is plain text,
a PDF or an Office file of at most 100 MB. Anything else is refused by the API after the
upload, and the user would get nothing. So, before uploading:

- a picture that is too large (a full-page screenshot) or of another type goes as a one-page
  PDF document (:mod:`deputy.whatsapp.image_pdf`), with a note saying why;
- a text-like document (``/export``'s JSON, CSV, XML, Markdown) goes as ``text/plain`` and
  keeps its file name, so it opens as the same file;
- what still does not fit is refused with a sentence for the user (:class:`Unsendable`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from deputy.whatsapp.image_pdf import image_pdf

MB = 1024 * 1024
MAX_IMAGE_BYTES = 5 * MB
MAX_DOCUMENT_BYTES = 100 * MB
MAX_AUDIO_BYTES = 16 * MB
IMAGE_TYPES = frozenset({"image/jpeg", "image/png"})
DOCUMENT_TYPES = frozenset({"text/plain", "application/pdf", "application/msword"})
DOCUMENT_TYPE_PREFIXES = ("application/vnd.ms-", "application/vnd.openxmlformats-officedocument.")
TEXT_LIKE_TYPES = frozenset({"application/json", "application/xml", "application/x-ndjson", "application/yaml",
                             "application/x-yaml", "application/csv", "application/javascript"})
AS_PDF_NOTE = "(The picture is larger than WhatsApp allows for images, so it comes as a PDF.)"


@dataclass(frozen=True)
class Upload:
    """Media as WhatsApp takes it: ``image``, ``audio`` or ``document``, its bytes, type and file name."""

    kind: str
    data: bytes
    mime: str
    filename: str
    note: str = ""


class Unsendable(Exception):
    """Media WhatsApp would refuse and that cannot be converted; the message is for the user."""


def accepted_document_type(mime: str) -> bool:
    return mime in DOCUMENT_TYPES or mime.startswith(DOCUMENT_TYPE_PREFIXES)


def sniff_image(data: bytes) -> str:
    """An image's real type from its first bytes (PTB sends bytes as application/octet-stream)."""
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:3] == b"GIF":
        return "image/gif"
    return "image/jpeg"


def prepare(kind: str, data: bytes, mime: str, filename: str) -> Upload:
    """`data` as media WhatsApp accepts, converted where needed; raises :class:`Unsendable`."""
    if kind == "image":
        return _image(data, sniff_image(data), filename)
    if kind == "audio":
        return _voice_note(data, filename)
    return _document(data, (mime or "application/octet-stream").split(";")[0].strip().lower(), filename)


def _image(data: bytes, mime: str, filename: str) -> Upload:
    if mime in IMAGE_TYPES and len(data) <= MAX_IMAGE_BYTES:
        return Upload("image", data, mime, filename)
    pdf = image_pdf(data)
    if pdf is None or len(pdf) > MAX_DOCUMENT_BYTES:
        raise Unsendable(f"I could not send the picture here: WhatsApp takes JPEG or PNG pictures of at most "
                         f"5 MB, and this one ({_size(data)}) could not be converted.")
    stem = PurePosixPath(filename).stem if filename and filename not in ("image", "file") else "picture"
    return Upload("document", pdf, "application/pdf", f"{stem}.pdf", AS_PDF_NOTE)


def _voice_note(data: bytes, filename: str) -> Upload:
    """A voice note: WhatsApp plays OGG with Opus sound as one, up to 16 MB."""
    if not data.startswith(b"OggS") or b"OpusHead" not in data[:200]:
        raise Unsendable("I could not send the voice note here: WhatsApp plays only OGG voice notes with Opus sound.")
    if len(data) > MAX_AUDIO_BYTES:
        raise Unsendable(f"I could not send the voice note here: it is {_size(data)}, and WhatsApp takes audio of "
                         f"at most 16 MB.")
    return Upload("audio", data, "audio/ogg", filename if filename.endswith((".ogg", ".opus")) else "voice.ogg")


def _document(data: bytes, mime: str, filename: str) -> Upload:
    if len(data) > MAX_DOCUMENT_BYTES:
        raise Unsendable(f"I could not send the file {filename} here: it is {_size(data)}, and WhatsApp takes "
                         f"files of at most 100 MB.")
    if accepted_document_type(mime):
        return Upload("document", data, mime, filename)
    if mime.startswith("text/") or mime in TEXT_LIKE_TYPES or mime.endswith(("+json", "+xml")):
        # WhatsApp's text document type is text/plain; the name keeps the real kind (.json).
        return Upload("document", data, "text/plain", filename if PurePosixPath(filename).suffix else f"{filename}.txt")
    if mime in IMAGE_TYPES or mime.startswith("image/"):
        return _image(data, sniff_image(data), filename)
    raise Unsendable(f"I could not send the file {filename} here: WhatsApp accepts only text, PDF and Office "
                     f"documents, and this is {mime}.")


def _size(data: bytes) -> str:
    return f"{len(data) / MB:.1f} MB"
