"""What the Cloud API refuses: the limits of interactive messages, unknown or badly filled
templates, media of the wrong type or size, a user sent too much too fast. Pure.

Each rule is on by default, as on WhatsApp; :class:`WaRules` turns one off where a test needs
the lenient form.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

MB = 1024 * 1024
IMAGE_TYPES = {"image/jpeg": 5 * MB, "image/png": 5 * MB}
DOCUMENT_TYPES = {"text/plain", "application/pdf", "application/msword"}
DOCUMENT_TYPE_PREFIXES = ("application/vnd.ms-", "application/vnd.openxmlformats-officedocument.")
MAX_DOCUMENT = 100 * MB
# Audio WhatsApp takes from a business: 16 MB at most; OGG only with Opus sound (a voice note).
AUDIO_TYPES = {"audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"}
MAX_AUDIO = 16 * MB
PAIR_RATE_LIMITED = 131056
THROUGHPUT_LIMITED = 130429
TEMPLATE_PARAMETER_FORMAT = 132018
MEDIA_UPLOAD_ERROR = 131053
_BAD_PARAMETER = re.compile(r"[\n\t]| {5,}")


@dataclass
class WaRules:
    """WhatsApp's rules as the emulator applies them (all on: as strict as WhatsApp)."""

    media_limits: bool = True
    """Images JPEG/PNG of at most 5 MB; audio AAC/AMR/MP3/MP4/OGG-Opus of at most 16 MB; documents text, PDF
    or Office, at most 100 MB (131053)."""
    template_format: bool = True
    """Template parameters without line breaks, tabs or more than four spaces in a row (132018)."""
    pair_burst: int | None = 45
    """Messages to one user that may go at once (131056 past it); None: no pair rate limit."""
    pair_seconds: float = 6.0
    """One more message to that user is allowed after each such pause."""
    usernames: bool = True
    """Users with a username and no phone number: addressed by `recipient` (their user id)."""


@dataclass
class PairRate:
    """WhatsApp's pair rate limit: a burst, then one message per `seconds` to the same user."""

    burst: int
    seconds: float
    _sent: dict[str, deque[float]] = field(default_factory=dict)

    def allow(self, user: str, now: float) -> bool:
        window = self.burst * self.seconds  # a token bucket of `burst`, refilled one per `seconds`
        sent = self._sent.setdefault(user, deque())
        while sent and now - sent[0] >= window:
            sent.popleft()
        if len(sent) >= self.burst:
            return False
        sent.append(now)
        return True


def media_refusal(mime: str, size: int, data: bytes = b"") -> str | None:
    """Why WhatsApp refuses to take this upload, or None."""
    base = mime.split(";")[0].strip().lower()
    if base in AUDIO_TYPES:
        if base == "audio/ogg" and data and b"OpusHead" not in data[:200]:
            return "audio/ogg must have Opus audio"
        return None if size <= MAX_AUDIO else "audio larger than 16 MB"
    if mime in IMAGE_TYPES:
        return None if size <= IMAGE_TYPES[mime] else f"image larger than {IMAGE_TYPES[mime] // MB} MB"
    if mime in DOCUMENT_TYPES or mime.startswith(DOCUMENT_TYPE_PREFIXES):
        return None if size <= MAX_DOCUMENT else "document larger than 100 MB"
    return f"Param file must be a file with one of the following types: {', '.join(sorted(IMAGE_TYPES))}, " \
           f"{', '.join(sorted(AUDIO_TYPES))}, text/plain, application/pdf, Office documents. " \
           f"Received file of type '{mime}'"


def recipient_of(payload: dict[str, Any], rules: WaRules) -> str:
    """The user a message goes to: `to` (a phone number) or `recipient` (a user id); raises Refused."""
    to = str(payload.get("to") or "")
    if to:
        if not to.isdigit() or len(to) > 15:
            raise Refused(100, "(#100) Invalid parameter: to must be a phone number; a user id goes in recipient")
        return to
    recipient = str(payload.get("recipient") or "")
    if recipient and rules.usernames and not recipient.isdigit():
        return recipient
    raise Refused(100, "(#100) The parameter to is required.")


class Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check(payload: dict[str, Any], templates: set[str], rules: WaRules | None = None) -> None:
    """Raise `Refused` as WhatsApp would for a message it does not accept."""
    rules = rules or WaRules()
    kind = payload.get("type", "text")
    if payload.get("messaging_product") != "whatsapp":
        raise Refused(100, "messaging_product must be whatsapp")
    if kind == "text":
        body = (payload.get("text") or {}).get("body") or ""
        if not body or len(body) > 4096:
            raise Refused(100, "text.body must have 1 to 4096 characters")
    elif kind == "interactive":
        _interactive(payload.get("interactive") or {})
    elif kind == "template":
        name = (payload.get("template") or {}).get("name")
        if name not in templates:
            raise Refused(132001, f"Template name does not exist in the translation: {name}")
        if rules.template_format:
            for component in (payload.get("template") or {}).get("components") or []:
                for parameter in component.get("parameters") or []:
                    if _BAD_PARAMETER.search(str(parameter.get("text") or "")):
                        raise Refused(TEMPLATE_PARAMETER_FORMAT, "(#132018) There was an issue with the parameters "
                                      "in your template: Param text cannot have new-line/tab characters or more "
                                      "than 4 consecutive spaces")
    elif kind in ("image", "document", "audio"):
        if not (payload.get(kind) or {}).get("id"):
            raise Refused(100, f"{kind}.id is required")
        if kind == "audio" and "caption" in payload["audio"]:
            raise Refused(100, "(#100) Param audio['caption'] is not a valid parameter")
    else:
        raise Refused(100, f"unsupported message type {kind}")


def _interactive(interactive: dict[str, Any]) -> None:
    body = (interactive.get("body") or {}).get("text") or ""
    action = interactive.get("action") or {}
    if interactive.get("type") == "button":
        buttons = action.get("buttons") or []
        if not 1 <= len(buttons) <= 3:
            raise Refused(131009, "reply buttons: between 1 and 3")
        if not body or len(body) > 1024:
            raise Refused(131009, "body of a button message: 1 to 1024 characters")
        for button in buttons:
            reply = button.get("reply") or {}
            if not 1 <= len(reply.get("title") or "") <= 20 or not 1 <= len(reply.get("id") or "") <= 256:
                raise Refused(131009, "button title must have 1 to 20 characters, id 1 to 256")
    elif interactive.get("type") == "list":
        rows = [row for section in action.get("sections") or [] for row in section.get("rows") or []]
        if not 1 <= len(rows) <= 10:
            raise Refused(131009, "list: between 1 and 10 rows")
        if not body or len(body) > 4096 or not 1 <= len(action.get("button") or "") <= 20:
            raise Refused(131009, "list body 1 to 4096 characters, button label 1 to 20")
        for row in rows:
            if not 1 <= len(row.get("title") or "") <= 24 or len(row.get("description") or "") > 72:
                raise Refused(131009, "row title 1 to 24 characters, description at most 72")
    else:
        raise Refused(131009, "unsupported interactive type")
