"""Turning a raw email (possibly cut short, possibly broken) into text an agent can read.

Pure and total: `parse_email` never raises. Headers are decoded by hand from the
compat32 model (the modern header registry raises on some malformed input), bodies
are decoded with their declared charset and, when that is missing, unknown or wrong,
by a best guess (UTF-8, then Windows-1252). HTML becomes plain text. Attachments are
listed by name, type and size; their content is never decoded into the text or run.
"""

from __future__ import annotations

import codecs
import re
from email import message_from_bytes
from email.header import decode_header
from email.message import Message
from email.policy import compat32
from email.utils import getaddresses, parsedate_to_datetime

from pydantic import BaseModel

from deputy.connectors.http.text import html_to_text

MAX_PARTS = 100
"""MIME parts looked at; a message with more gets a note instead of the rest."""
_MAX_DEPTH = 12
_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_GUESSED = frozenset({"", "unknown-8bit", "x-unknown", "unknown", "default", "x-user-defined"})


class Attachment(BaseModel):
    name: str
    content_type: str
    size: int
    """Bytes after transfer decoding (of what was fetched)."""


class Person(BaseModel):
    name: str
    address: str
    """Lower-cased bare address, or "" when the header held none that is valid."""

    def display(self) -> str:
        if self.name and self.address:
            return f"{self.name} <{self.address}>"
        return self.address or self.name or "(unknown)"


class MailContent(BaseModel):
    sender: Person | None
    reply_to: list[Person]
    to: list[Person]
    cc: list[Person]
    subject: str
    date: str
    message_id: str | None
    in_reply_to: str | None
    references: list[str]
    text: str
    attachments: list[Attachment]
    notes: list[str]
    """Plain sentences about what could not be decoded."""

    @property
    def sender_address(self) -> str:
        return self.sender.address if self.sender else ""


def decode_bytes(data: bytes, charset: str | None) -> tuple[str, bool]:
    """`data` as text in `charset`; the flag says the charset was missing or wrong and
    the text is a guess (UTF-8 if it decodes, else Windows-1252)."""
    name = (charset or "").strip().strip("\"'").lower()
    if name not in _GUESSED:
        try:
            codec = codecs.lookup(name).name
            if codec in ("latin-1", "iso8859-1"):
                # Mail labelled Latin-1 is nearly always Windows-1252 (as browsers assume).
                try:
                    return data.decode("cp1252"), False
                except UnicodeDecodeError:
                    return data.decode("latin-1"), False
            if codec != "ascii":
                return data.decode(codec), False
            return data.decode("ascii"), False
        except (LookupError, UnicodeError, ValueError, TypeError):
            pass
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace"), True


def clean(text: str) -> str:
    """Normalise line ends and drop control characters other than newline and tab."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def one_line(text: str, limit: int = 300) -> str:
    line = " ".join(clean(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def decode_words(value: object) -> str:
    """A header value (str with RFC 2047 encoded words, raw 8-bit, or Header) as text."""
    try:
        chunks = decode_header(value)  # type: ignore[arg-type]
    except Exception:  # malformed encoded words: fall back to the raw value
        chunks = [(str(value), None)]
    parts: list[str] = []
    for chunk, charset in chunks:
        if isinstance(chunk, str):
            chunk = chunk.encode("ascii", "surrogateescape") if _has_surrogates(chunk) else chunk
        parts.append(chunk if isinstance(chunk, str) else decode_bytes(chunk, charset)[0])
    return one_line("".join(parts), 2000)


def parse_email(raw: bytes) -> MailContent:
    """Decode `raw` as well as possible; broken input gives notes, not exceptions."""
    try:
        message = message_from_bytes(raw, policy=compat32)
        return _content(message)
    except Exception:  # e.g. RecursionError on absurd nesting: show what bytes there are
        text, _ = decode_bytes(raw[:20_000], None)
        return MailContent(
            sender=None, reply_to=[], to=[], cc=[], subject="", date="", message_id=None, in_reply_to=None,
            references=[], text=clean(text), attachments=[],
            notes=["This email is malformed; what follows is its raw text."],
        )


def _content(message: Message) -> MailContent:
    notes: list[str] = []
    texts: list[str] = []
    attachments: list[Attachment] = []
    _Walker(texts, attachments, notes).walk(message, 0)
    senders = _people(message, "From")
    return MailContent(
        sender=senders[0] if senders else None,
        reply_to=_people(message, "Reply-To"),
        to=_people(message, "To"),
        cc=_people(message, "Cc"),
        subject=_header(message, "Subject"),
        date=_date(message),
        message_id=(_ids(message, "Message-ID") or [None])[0],
        in_reply_to=(_ids(message, "In-Reply-To") or [None])[-1],
        references=_ids(message, "References"),
        text="\n\n".join(t.strip("\n") for t in texts if t.strip()),
        attachments=attachments,
        notes=list(dict.fromkeys(notes)),
    )


class _Walker:
    def __init__(self, texts: list[str], attachments: list[Attachment], notes: list[str]) -> None:
        self.texts, self.attachments, self.notes = texts, attachments, notes
        self.parts = 0

    def walk(self, part: Message, depth: int) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS or depth > _MAX_DEPTH:
            self.notes.append("This email has too many parts; I skipped the rest.")
            return
        kind = part.get_content_type()
        if kind == "message/rfc822" or (part.is_multipart() and kind.startswith("message/")):
            inner = part.get_payload()
            subject = decode_words(inner[0].get("Subject", "")) if isinstance(inner, list) and inner else ""
            name = _filename(part) or (f"attached email: {subject}" if subject else "attached email")
            self.attachments.append(Attachment(name=name, content_type=kind, size=_size(part)))
            return
        if part.is_multipart():
            children = [c for c in part.get_payload() if isinstance(c, Message)]
            if kind == "multipart/alternative":
                children = _best_alternative(children)
            for child in children:
                self.walk(child, depth + 1)
            return
        filename = _filename(part)
        if part.get_content_disposition() == "attachment" or filename or kind not in ("text/plain", "text/html"):
            self.attachments.append(Attachment(name=filename or "(unnamed)", content_type=kind, size=_size(part)))
            return
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        text, guessed = decode_bytes(data, part.get_content_charset())
        if guessed and not data.isascii():
            self.notes.append("Part of this email had a missing or unknown character set; I guessed it.")
        self.texts.append(clean(html_to_text(text, "") if kind == "text/html" else text))


def _best_alternative(children: list[Message]) -> list[Message]:
    """Plain text over HTML over anything else (e.g. multipart/related around HTML)."""
    for wanted in ("text/plain", "text/html"):
        for child in children:
            if child.get_content_type() == wanted and child.get_content_disposition() != "attachment":
                return [child]
    return children[-1:]


def _size(part: Message) -> int:
    try:
        if part.is_multipart():
            return len(part.as_bytes())
        payload = part.get_payload(decode=True)
        return len(payload) if isinstance(payload, bytes) else 0
    except Exception:
        return 0


def _filename(part: Message) -> str:
    try:
        name = part.get_filename()
    except Exception:
        return ""
    return decode_words(name)[:200] if name else ""


def _has_surrogates(text: str) -> bool:
    return any("\udc80" <= c <= "\udcff" for c in text)


def _header(message: Message, name: str) -> str:
    value = message.get(name)
    return decode_words(value) if value is not None else ""


def _people(message: Message, name: str) -> list[Person]:
    values = message.get_all(name) or []
    # Raw 8-bit headers come back as Header objects (or surrogate-escaped text): decode
    # those first; otherwise keep encoded words intact so a comma inside one can't split it.
    raw = [v if isinstance(v, str) and not _has_surrogates(v) else decode_words(v) for v in values]
    people: list[Person] = []
    for display, address in getaddresses(raw)[:100]:
        address = address.strip().lower()
        people.append(Person(name=decode_words(display)[:200], address=address if _EMAIL.fullmatch(address) else ""))
    return [p for p in people if p.name or p.address]


def _ids(message: Message, name: str) -> list[str]:
    """Message ids in a header, `<...>` each, ASCII only, at most the last 50."""
    value = message.get(name)
    return re.findall(r"<[!-;=?-~]{1,250}>", str(value))[-50:] if value is not None else []


def _date(message: Message) -> str:
    value = message.get("Date")
    if value is None:
        return ""
    try:
        return parsedate_to_datetime(str(value)).strftime("%Y-%m-%d %H:%M %z").strip()
    except (TypeError, ValueError, IndexError, OverflowError):
        return one_line(str(value), 100)
