"""The passage of outside content that holds a value, as it was written there, for a card.

A card that says where a value came from also shows what that place said around it: the
sentence holding it, within its line (a listing's cell, a JSON record's field, decoded), the
whole line when the sentence is only a fragment, cut around the value when it is too long. Whitespace is
collapsed so the quote stays one short line; nothing else is changed. Pure functions.
"""

from __future__ import annotations

import json
import re

MAX_PASSAGE_CHARS = 140
"""A quoted passage on a card: about one sentence."""
_MIN_SENTENCE = 40

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CELL = " | "


def passage_at(text: str, start: int, end: int, limit: int = MAX_PASSAGE_CHARS) -> str:
    """The passage of `text` around `text[start:end]`: its line, sentence, or a cut around it."""
    text, start, end = _inside_json_string(text, start, end)
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    # A listing's row ("- INBOX/7 | date | sender | subject | text"): the cell holding the value.
    cell_start = text.rfind(_CELL, line_start, start)
    line_start = cell_start + len(_CELL) if cell_start >= 0 else line_start
    cell_end = text.find(_CELL, end, line_end)
    line_end = cell_end if cell_end >= 0 else line_end
    piece, start, end = text[line_start:line_end], start - line_start, end - line_start
    sentence = _sentence(piece, start, end)
    # The sentence that says it; its whole line when the sentence alone is a fragment ("to x@y.").
    if len(" ".join(sentence[0].split())) >= _MIN_SENTENCE or len(" ".join(piece.split())) > limit:
        piece, start, end = sentence
    return _unquoted(_around(piece, start, end, limit))


def _sentence(text: str, start: int, end: int) -> tuple[str, int, int]:
    begin = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() >= end:
            return text[begin:match.start()], start - begin, end - begin
        if match.end() <= start:
            begin = match.end()
    return text[begin:], start - begin, end - begin


def _around(text: str, start: int, end: int, limit: int) -> str:
    """`text` on one line, cut to `limit` around `[start, end)` at word boundaries, cuts marked."""
    whole = " ".join(text.split())
    if len(whole) <= limit:
        return whole
    room = max(limit - (end - start), 0)
    left = max(start - room // 2, 0)
    right = min(end + (room - (start - left)), len(text))
    left = max(min(left, right - limit), 0)
    if left > 0:
        space = text.find(" ", left, start)
        left = space + 1 if space >= 0 else left
    if right < len(text):
        space = text.rfind(" ", end, right)
        right = space if space >= 0 else right
    shown = " ".join(text[left:right].split())
    return ("…" if left > 0 else "") + shown + ("…" if right < len(text) else "")


def _unquoted(text: str) -> str:
    """Without a quotation mark the cut left open at either end (`notes: "… please."` → `… please.`)."""
    for mark in ('"', "'"):
        if text.count(mark) % 2 and text.endswith(mark):
            text = text[:-1].rstrip()
        if text.count(mark) % 2 and text.startswith(mark):
            text = text[1:].lstrip()
    return text


def _inside_json_string(text: str, start: int, end: int) -> tuple[str, int, int]:
    """A value inside a JSON string literal (a record's field): that string, decoded, as its author wrote it."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].lstrip()[:1] not in ("{", "["):
        return text, start, end
    opening, at = -1, line_start
    while at < start:  # where the string holding `start` opens, if it is in one
        if text[at] == "\\" and opening >= 0:
            at += 2
            continue
        if text[at] == '"':
            opening = at if opening < 0 else -1
        at += 1
    if opening < 0:
        return text, start, end
    closing = end
    while closing < len(text) and text[closing] != '"':
        closing += 2 if text[closing] == "\\" else 1
    try:
        decoded = json.loads(text[opening:closing + 1])
    except ValueError:
        return text, start, end
    if not isinstance(decoded, str):
        return text, start, end
    try:
        wanted = str(json.loads(f'"{text[start:end]}"'))
    except ValueError:
        wanted = text[start:end]
    found = decoded.lower().find(wanted.lower())
    if found < 0:
        return decoded, 0, len(decoded)
    key = re.search(r'"((?:[^"\\]|\\.){1,40})"\s*:\s*$', text[line_start:opening])
    if key is not None and len(decoded.strip()) <= len(wanted) + 2:
        # The whole field is the value ("id": "14"): its name says what it is.
        named = f"{key.group(1)}: "
        return named + decoded, len(named) + found, len(named) + found + len(wanted)
    return decoded, found, found + len(wanted)


__all__ = ["MAX_PASSAGE_CHARS", "passage_at"]
