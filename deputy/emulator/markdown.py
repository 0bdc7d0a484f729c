"""Telegram's MarkdownV2 and legacy Markdown parse modes (text -> plain text + entities).

MarkdownV2 is strict in Telegram: reserved characters outside entities must be escaped
and every entity must be closed. Mirroring that catches the most common bot bug (an
unescaped "." or "!") before it reaches real users.
"""

from __future__ import annotations

from deputy.emulator.errors import BotApiError, bad_request
from deputy.emulator.records import Json
from deputy.emulator.tgobjects import utf16_len

RESERVED_V2 = frozenset("_*[]()~`>#+-=|{}.!")
_NAMES = {
    "bold": "Bold", "italic": "Italic", "underline": "Underline",
    "strikethrough": "Strikethrough", "spoiler": "Spoiler", "text_link": "TextUrl",
}


class _Out:
    """Accumulates plain text and entities, tracking the UTF-16 position."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.entities: list[Json] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += utf16_len(text)

    def entity(self, kind: str, start: int, **extra: str) -> None:
        if self.pos > start:
            self.entities.append({"type": kind, "offset": start, "length": self.pos - start, **extra})

    def result(self) -> tuple[str, list[Json]]:
        return "".join(self.parts), sorted(self.entities, key=lambda e: (e["offset"], -e["length"]))


def _fail(detail: str) -> BotApiError:
    return bad_request(f"can't parse entities: {detail}")


def _byte_offset(src: str, index: int) -> int:
    return len(src[:index].encode("utf-8"))


def _find_unescaped(src: str, needle: str, start: int) -> int:
    """Index of ``needle`` at or after ``start`` that is not preceded by an escape."""
    i = start
    while i < len(src):
        if src[i] == "\\":
            i += 2
            continue
        if src.startswith(needle, i):
            return i
        i += 1
    return -1


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            i += 1
        out.append(text[i])
        i += 1
    return "".join(out)


def parse_markdown_v2(src: str) -> tuple[str, list[Json]]:
    """Telegram's MarkdownV2 style (bold, italic, underline, strike, spoiler, code, pre, links, quotes)."""
    out = _Out()
    stack: list[tuple[str, int, int]] = []  # (entity type, text offset, source index)
    quote_start: int | None = None
    i, line_start = 0, True
    while i < len(src):
        c = src[i]
        if line_start:
            if c == ">":
                if quote_start is None:
                    quote_start = out.pos
                i += 1
                line_start = False
                continue
            if quote_start is not None:
                out.pos -= 1  # the quote ends before the newline that ended its last line
                out.entity("blockquote", quote_start)
                out.pos += 1
                quote_start = None
        line_start = c == "\n"
        if c == "\\":
            if i + 1 >= len(src) or not 0 < ord(src[i + 1]) < 127:
                raise _fail("Character '\\' is reserved and must be escaped with the preceding '\\'")
            out.add(src[i + 1])
            line_start = False
            i += 2
            continue
        if c == "`":
            fence = "```" if src.startswith("```", i) else "`"
            end = _find_unescaped(src, fence, i + len(fence))
            if end < 0:
                kind = "Pre" if fence == "```" else "Code"
                raise _fail(f"Can't find end of {kind} entity at byte offset {_byte_offset(src, i)}")
            body, extra = src[i + len(fence) : end], {}
            if fence == "```":
                first, newline, rest = body.partition("\n")
                if newline and first and not any(ch.isspace() for ch in first):
                    body, extra = rest, {"language": first}
            start = out.pos
            out.add(_unescape(body))
            out.entity("pre" if fence == "```" else "code", start, **extra)
            i = end + len(fence)
            continue
        marker, kind = _marker(src, i)
        if kind is not None:
            open_kinds = [k for k, _, _ in stack]
            if kind in open_kinds:
                if open_kinds[-1] != kind:
                    _, _, idx = stack[-1]
                    raise _fail(f"Can't find end of {_NAMES[open_kinds[-1]]} entity at byte offset {_byte_offset(src, idx)}")
                _, start, _ = stack.pop()
                out.entity(kind, start)
            else:
                stack.append((kind, out.pos, i))
            i += len(marker)
            continue
        if c == "[":
            stack.append(("text_link", out.pos, i))
            i += 1
            continue
        if c == "]" and stack and stack[-1][0] == "text_link":
            if not src.startswith("(", i + 1):
                raise _fail(f"Can't find end of TextUrl entity at byte offset {_byte_offset(src, stack[-1][2])}")
            close = _find_unescaped(src, ")", i + 2)
            if close < 0:
                raise _fail(f"Can't find end of TextUrl entity at byte offset {_byte_offset(src, stack[-1][2])}")
            _, start, _ = stack.pop()
            out.entity("text_link", start, url=_unescape(src[i + 2 : close]))
            i = close + 1
            continue
        if c in RESERVED_V2:
            raise _fail(f"Character '{c}' is reserved and must be escaped with the preceding '\\'")
        out.add(c)
        i += 1
    if stack:
        kind, _, idx = stack[-1]
        raise _fail(f"Can't find end of {_NAMES[kind]} entity at byte offset {_byte_offset(src, idx)}")
    if quote_start is not None:
        out.entity("blockquote", quote_start)
    return out.result()


def _marker(src: str, i: int) -> tuple[str, str | None]:
    """The formatting marker starting at ``i`` and the entity it toggles, if any."""
    if src.startswith("__", i):
        return "__", "underline"
    if src.startswith("||", i):
        return "||", "spoiler"
    return src[i], {"*": "bold", "_": "italic", "~": "strikethrough"}.get(src[i])


def parse_markdown(src: str) -> tuple[str, list[Json]]:
    """Legacy Markdown: *bold*, _italic_, `code`, ```pre```, [text](url); no nesting."""
    out = _Out()
    i = 0
    while i < len(src):
        c = src[i]
        if c == "\\" and i + 1 < len(src) and src[i + 1] in "_*`[":
            out.add(src[i + 1])
            i += 2
            continue
        fence = "```" if src.startswith("```", i) else c
        closing = {"*": "*", "_": "_", "`": "`", "```": "```", "[": "]"}.get(fence)
        if closing is None:
            out.add(c)
            i += 1
            continue
        end = src.find(closing, i + len(fence))
        if end < 0:
            raise _fail(f"Can't find end of the entity starting at byte offset {_byte_offset(src, i)}")
        body, start = src[i + len(fence) : end], out.pos
        if fence == "[":
            if not src.startswith("(", end + 1) or src.find(")", end + 2) < 0:
                raise _fail(f"Can't find end of the entity starting at byte offset {_byte_offset(src, i)}")
            close = src.find(")", end + 2)
            out.add(body)
            out.entity("text_link", start, url=src[end + 2 : close])
            i = close + 1
            continue
        extra: dict[str, str] = {}
        if fence == "```":
            first, newline, rest = body.partition("\n")
            if newline and first and not any(ch.isspace() for ch in first):
                body, extra = rest, {"language": first}
        out.add(body)
        kind = {"*": "bold", "_": "italic", "`": "code", "```": "pre"}[fence]
        out.entity(kind, start, **extra)
        i = end + len(closing)
    return out.result()
