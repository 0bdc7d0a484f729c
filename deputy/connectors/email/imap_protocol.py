"""The IMAP wire format, as pure functions: quoting, folder-name encoding, and parsing
the responses imaplib hands back (FETCH, LIST, SEARCH), plus Deputy's message ids.

imaplib leaves responses half-parsed: a FETCH answer is a list of byte strings and
(text, literal) tuples. A small tokenizer turns each response line into values, so a
malformed or hostile answer raises `ImapProtocolError` instead of being misread.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

MAX_UID = 2**32 - 1

Value = str | bytes | None | list["Value"]
"""A parsed IMAP value: atom (str), string or literal (bytes), NIL (None) or a list."""


class ImapProtocolError(ValueError):
    """The server's answer did not have the expected shape."""


@dataclass(frozen=True)
class MessageRef:
    """A message as the agent names it: `<folder>/<UID>`, stable while the folder's
    UIDVALIDITY holds (unlike sequence numbers, which shift on every expunge)."""

    folder: str
    uid: int

    def __str__(self) -> str:
        return f"{self.folder}/{self.uid}"

    @classmethod
    def parse(cls, text: str) -> MessageRef:
        """Parse `INBOX/42` or `Work/Clients/7`; the UID is what follows the last "/"."""
        folder, slash, uid = text.strip().rpartition("/")
        if not slash or not folder or not uid.isascii() or not uid.isdigit() or not 0 < int(uid) <= MAX_UID:
            raise ValueError("a message id looks like INBOX/42: a folder, a slash and a number")
        check_folder_name(folder)
        return cls(folder, int(uid))


def check_folder_name(name: str) -> str:
    """Return `name` if it can be a folder name: 1-200 characters, no control characters."""
    if not 0 < len(name) <= 200 or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ValueError("a folder name must be 1 to 200 characters without control characters")
    return name


def quote(text: str) -> str:
    """An IMAP quoted string for ASCII `text` without CR/LF (send anything else as a literal)."""
    if not text.isascii() or "\r" in text or "\n" in text or "\0" in text:
        raise ValueError("only single-line ASCII text can be quoted")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def encode_folder(name: str) -> str:
    """`name` in IMAP's modified UTF-7 (RFC 3501 5.1.3), quoted for a command."""
    out: list[str] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            raw = "".join(pending).encode("utf-16-be")
            out.append("&" + base64.b64encode(raw).decode().rstrip("=").replace("/", ",") + "-")
            pending.clear()

    for char in name:
        if 0x20 <= ord(char) <= 0x7E:
            flush()
            out.append("&-" if char == "&" else char)
        else:
            pending.append(char)
    flush()
    return quote("".join(out))


def decode_folder(name: bytes | str) -> str:
    """A folder name from the server (modified UTF-7) as text; undecodable runs kept as-is."""
    text = name.decode("utf-8", "replace") if isinstance(name, bytes) else name

    def shift(match: re.Match[str]) -> str:
        run = match.group(1)
        if not run:
            return "&"
        try:
            raw = base64.b64decode(run.replace(",", "/") + "=" * (-len(run) % 4))
            return raw.decode("utf-16-be")
        except (ValueError, UnicodeDecodeError):
            return match.group(0)

    return re.sub(r"&([A-Za-z0-9+,]*)-", shift, text)


def response_lines(data: list[Any]) -> list[list[bytes | tuple[bytes]]]:
    """Regroup imaplib's list into lines: each a run of text pieces and literals.

    imaplib stores a line holding literals as (text, literal) tuples followed by a
    plain bytes item with the rest of the line, so a plain item always ends a line.
    A literal is wrapped in a 1-tuple to tell it apart from text.
    """
    lines: list[list[bytes | tuple[bytes]]] = []
    current: list[bytes | tuple[bytes]] = []
    for item in data:
        if item is None:
            continue
        if isinstance(item, tuple) and len(item) == 2 and all(isinstance(p, bytes) for p in item):
            current.extend([re.sub(rb"\{\d+\+?\}$", b"", item[0]), (item[1],)])
        elif isinstance(item, bytes):
            current.append(item)
            lines.append(current)
            current = []
        else:
            raise ImapProtocolError(f"unexpected response item {type(item).__name__}")
    if current:
        lines.append(current)
    return lines


def parse_line(pieces: list[bytes | tuple[bytes]]) -> list[Value]:
    """Tokenize one response line into values."""
    return _Parser(pieces).values()


def parse_fetch(data: list[Any]) -> dict[int, dict[str, Value]]:
    """UID FETCH results keyed by UID; each maps an upper-cased item name to its value."""
    found: dict[int, dict[str, Value]] = {}
    for line in response_lines(data):
        values = parse_line(line)
        if len(values) != 2 or not isinstance(values[0], str) or not isinstance(values[1], list):
            raise ImapProtocolError("a FETCH response is not `<number> (<items>)`")
        pairs = values[1]
        if len(pairs) % 2 or not all(isinstance(k, str) for k in pairs[::2]):
            raise ImapProtocolError("a FETCH response has an odd item list")
        items = {str(k).upper(): v for k, v in zip(pairs[::2], pairs[1::2])}
        uid = items.get("UID")
        if not isinstance(uid, str) or not uid.isdigit():
            raise ImapProtocolError("a FETCH response has no UID")
        _check_items(items)
        found[int(uid)] = items
    return found


def _check_items(items: dict[str, Value]) -> None:
    """Refuse items of the wrong shape here, so readers of a parsed FETCH can trust it."""
    for key, value in items.items():
        if key.startswith("BODY[") and value is not None and not isinstance(value, bytes):
            raise ImapProtocolError(f"{key} is not a string")
        if key == "RFC822.SIZE" and not (isinstance(value, str) and value.isdigit()):
            raise ImapProtocolError("RFC822.SIZE is not a number")
        if key == "FLAGS" and not (isinstance(value, list) and all(isinstance(f, str) for f in value)):
            raise ImapProtocolError("FLAGS is not a list of flags")


def fetched_body(items: dict[str, Value], section: str = "") -> bytes | None:
    """The bytes of `BODY[<section>]` (with or without a partial `<origin>` suffix)."""
    prefix = f"BODY[{section.upper()}]"
    for key, value in items.items():
        if key == prefix or (key.startswith(prefix + "<") and key.endswith(">")):
            return value if isinstance(value, bytes) else None
    return None


def fetched_int(items: dict[str, Value], name: str) -> int | None:
    value = items.get(name)
    return int(value) if isinstance(value, str) and value.isdigit() else None


def fetched_flags(items: dict[str, Value]) -> frozenset[str]:
    flags = items.get("FLAGS")
    return frozenset(f.lower() for f in flags if isinstance(f, str)) if isinstance(flags, list) else frozenset()


@dataclass(frozen=True)
class Folder:
    name: str
    """Decoded from modified UTF-7."""
    attributes: frozenset[str]
    """Lower-cased, e.g. {"\\hasnochildren", "\\drafts"}."""
    wire: str
    """The name as the server spells it, quoted for a command."""


def parse_list(data: list[Any]) -> list[Folder]:
    """LIST results; lines that are not `(<attributes>) <delimiter> <name>` are an error."""
    folders: list[Folder] = []
    for line in response_lines(data):
        if line == [b""]:
            continue
        values = parse_line(line)
        if len(values) != 3 or not isinstance(values[0], list) or values[2] is None or isinstance(values[2], list):
            raise ImapProtocolError("a LIST response is not `(<attributes>) <delimiter> <name>`")
        raw = values[2].encode("latin-1") if isinstance(values[2], str) else values[2]
        attributes = frozenset(a.lower() for a in values[0] if isinstance(a, str))
        wire = raw.decode("ascii", "replace")
        if not wire.isascii() or "\n" in wire or "\r" in wire:
            raise ImapProtocolError("a folder name is not modified UTF-7")
        folders.append(Folder(decode_folder(raw), attributes, wire if wire == "INBOX" else quote(wire)))
    return folders


def parse_search(data: list[Any]) -> list[int]:
    """The UIDs of a UID SEARCH answer."""
    uids: list[int] = []
    for item in data:
        if item is None:
            continue
        if not isinstance(item, bytes):
            raise ImapProtocolError("a SEARCH response is not text")
        for word in item.split():
            if not word.isdigit():
                raise ImapProtocolError("a SEARCH response holds something that is not a number")
            uids.append(int(word))
    return uids


_TOKEN = re.compile(
    rb' +|(?P<open>\()|(?P<close>\))|"(?P<quoted>(?:[^"\\\r\n]|\\.)*)"'
    # Section specs such as BODY[HEADER.FIELDS (FROM SUBJECT)] hold spaces and parentheses.
    rb'|(?P<atom>(?:[^ ()\[\]"\r\n]+|\[[^\]\r\n]*\])+)'
)
_OPEN, _CLOSE = object(), object()


def _tokens(pieces: list[bytes | tuple[bytes]]) -> list[Any]:
    tokens: list[Any] = []
    for piece in pieces:
        if isinstance(piece, tuple):
            tokens.append(piece)  # a literal: kept wrapped so it can't pass for an atom
            continue
        text = piece.rstrip(b"\r\n")
        pos = 0
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                raise ImapProtocolError("unexpected characters in a response")
            pos = match.end()
            if match.group("open"):
                tokens.append(_OPEN)
            elif match.group("close"):
                tokens.append(_CLOSE)
            elif match.group("quoted") is not None:
                tokens.append((re.sub(rb"\\(.)", rb"\1", match.group("quoted")),))
            elif match.group("atom"):
                atom = match.group("atom").decode("latin-1")
                tokens.append(None if atom.upper() == "NIL" else atom)
    return tokens


class _Parser:
    def __init__(self, pieces: list[bytes | tuple[bytes]]) -> None:
        self._tokens = _tokens(pieces)
        self._pos = 0

    def values(self) -> list[Value]:
        items = self._sequence()
        if self._pos != len(self._tokens):
            raise ImapProtocolError("a list closes that was never opened")
        return items

    def _sequence(self, depth: int = 0) -> list[Value]:
        if depth > 32:
            raise ImapProtocolError("lists nested too deeply")
        items: list[Value] = []
        while self._pos < len(self._tokens):
            token = self._tokens[self._pos]
            self._pos += 1
            if token is _OPEN:
                items.append(self._sequence(depth + 1))
            elif token is _CLOSE:
                if depth == 0:
                    self._pos -= 1  # left for values() to report
                return items
            else:
                items.append(token[0] if isinstance(token, tuple) else token)
        if depth:
            raise ImapProtocolError("a list is never closed")
        return items
