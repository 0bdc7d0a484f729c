"""Files the user sent with a goal (photos, PDFs, text), turned into what the model reads.

The bot only stores the file in Redis (`deputy.agent.uploads`); this runs in the worker. Text from
documents is outside content even though the user sent it (a forwarded recipe or invoice
was written by someone else): it is labelled untrusted and recorded for provenance, and
it never counts as the user's own words. Images go to the model as image parts (a model
without vision support answers with an error the user is told about).
"""

from __future__ import annotations

import base64
from typing import Any

from pydantic import BaseModel

MAX_TEXT_CHARS = 60_000
MAX_PDF_PAGES = 50
IMAGE_TYPES = {"image/jpeg", "image/png", "image/webp", "image/gif"}
TEXT_TYPES = {"text/plain", "text/markdown", "text/csv", "application/json", "text/html"}
DOCUMENT_TYPES = {"application/pdf", *TEXT_TYPES}
MAX_IMAGE_BYTES = 10 * 1024 * 1024
MAX_DOCUMENT_BYTES = 20 * 1024 * 1024
ATTACHMENT = "attachment"  # the `name` of messages that carry a file: never the user's own words


class Attachment(BaseModel):
    name: str
    mime_type: str
    size: int
    file_id: str = ""
    """Where `deputy.agent.uploads` keeps the bytes, under the goal's user (empty: nothing stored)."""


class UnreadableFile(Exception):
    """A file that could not be read; the message is for the user."""


def accepts(mime_type: str, size: int) -> str | None:
    """None when Deputy can read such a file; otherwise a plain reason."""
    if mime_type in IMAGE_TYPES:
        return None if size <= MAX_IMAGE_BYTES else f"That image is {size / 1e6:.1f} MB; I can take up to 10 MB."
    if mime_type in DOCUMENT_TYPES or mime_type.startswith("text/"):
        return None if size <= MAX_DOCUMENT_BYTES else f"That file is {size / 1e6:.1f} MB; I can take up to 20 MB."
    return (f"I can't read {mime_type} files. Send a PDF, a text file or an image (JPEG, PNG, WebP), "
            "or paste a link.")


def document_text(attachment: Attachment, data: bytes) -> str:
    if attachment.mime_type == "application/pdf":
        text = _pdf_text(data)
    else:
        text = data.decode("utf-8", errors="replace")
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS] + f"\n[… the rest of {attachment.name} was cut]"
    if not text.strip():
        raise UnreadableFile(f"I couldn't find any text in {attachment.name} (a scanned PDF?).")
    return text


def image_part(attachment: Attachment, data: bytes) -> dict[str, Any]:
    encoded = base64.b64encode(data).decode()
    return {"type": "image_url", "image_url": {"url": f"data:{attachment.mime_type};base64,{encoded}"}}


def _pdf_text(data: bytes) -> str:
    from io import BytesIO

    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PdfReadError

    try:
        reader = PdfReader(BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages[:MAX_PDF_PAGES]]
    except LimitReachedError as exc:  # built to make the reader work without end: refused, not retried
        raise UnreadableFile("That PDF is built in a way I can't read safely (it asks for far more work than "
                             "its size explains), so I couldn't read it.") from exc
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise UnreadableFile("That PDF is damaged or encrypted, so I couldn't read it.") from exc
    return "\n\n".join(pages)
