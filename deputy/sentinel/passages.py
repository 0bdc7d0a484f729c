"""The passage of outside content that holds a value, as it was written there, for a card.

A card that says where a value came from also shows what that place said around it: the
sentence holding it, within its line (a listing's cell, a JSON or YAML record's field, decoded as
its author wrote it, not as the listing escaped or folded it), the whole line when the sentence is
only a fragment, cut around the value when it is too long. The words are shown as written: case,
punctuation and spacing kept; only invisible characters (zero-width, bidirectional controls, which
could make the quote read differently than it is) are left out. A quote never spans lines: it is
taken from within one line of what was read. Pure functions.
"""

from __future__ import annotations

import json
import re
import unicodedata

import yaml

MAX_PASSAGE_CHARS = 140
"""A quoted passage on a card: about one sentence."""
_MIN_SENTENCE = 40

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CELL = " | "


def passage_at(text: str, start: int, end: int, limit: int = MAX_PASSAGE_CHARS) -> str:
    """The passage of `text` around `text[start:end]`: its line, sentence, or a cut around it."""
    text, start, end = _inside_yaml_field(*_inside_json_string(text, start, end))
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
    """`text` as written, cut to `limit` around `[start, end)` at word boundaries, cuts marked."""
    lead = len(text) - len(text.lstrip())
    text, start, end = text.strip(), max(start - lead, 0), max(end - lead, 0)
    if len(text) <= limit:
        return as_written(text)
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
    shown = as_written(text[left:right])
    return ("…" if left > 0 else "") + shown + ("…" if right < len(text) else "")


_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x85\u2028\u2029]")
LINE_BREAK_SHOWN = "↵"
"""How a line break inside a quote is shown: the quote keeps to one line of the card, so no text
from outside can pass for a line of the card itself."""


def as_written(text: str) -> str:
    """`text` for a quote on a card, as written: case, punctuation and spacing kept, the ends trimmed;
    line breaks shown as `LINE_BREAK_SHOWN`; invisible characters (controls other than a tab, format
    characters such as bidirectional overrides and zero-width spaces) left out."""
    text = _LINE_BREAK.sub(LINE_BREAK_SHOWN, text.strip())
    if text.isprintable():
        return text
    return "".join(c for c in text if c == "\t" or unicodedata.category(c) not in ("Cc", "Cf"))


def _unquoted(text: str) -> str:
    """Without a quotation mark the cut left open at either end (`notes: "… please."` → `… please.`)."""
    for mark in ('"', "'"):
        if text.count(mark) % 2 and text.endswith(mark):
            text = text[:-1].rstrip()
        if text.count(mark) % 2 and text.startswith(mark):
            text = text[1:].lstrip()
    return text


_JSON_MEMBER = re.compile(r'\s*"(?:[^"\\\n]|\\.)*"\s*:')


def _inside_json_string(text: str, start: int, end: int) -> tuple[str, int, int]:
    """A value inside a JSON string literal (a record's field): that string, decoded, as its author wrote it."""
    line_start = text.rfind("\n", 0, start) + 1
    head = text[line_start:start].lstrip()[:1]
    # A line of JSON: a record ("{…}", "[…]"), or one member of a record printed over several lines.
    if head not in ("{", "[") and not _JSON_MEMBER.match(text, line_start):
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
    key = re.search(r'"((?:[^"\\]|\\.){1,40})"\s*:\s*$', text[line_start:opening])
    return _field(decoded, wanted, key.group(1) if key else None)


# A field of a YAML record ("- title: Lunch", "  description: Please …"): a lower-case key, inside a list
# item (a dash, or indented under one), so an email's "Subject: …" header line is not taken for one.
_YAML_FIELD = re.compile(r"(?P<indent>[ \t]*)(?P<dash>- )?(?P<key>[a-z_][a-z0-9_]*):(?:[ \t]+|$)")


def _inside_yaml_field(text: str, start: int, end: int) -> tuple[str, int, int]:
    """A value inside a YAML record's field, folded over several lines by whoever printed the listing:
    the field's value, decoded, as its author wrote it."""
    lines = _lines_around(text, start)
    for index in range(len(lines) - 1, -1, -1):  # the field's line: the value's own, or the one it continues
        at, line = lines[index]
        match = _YAML_FIELD.match(line)
        if match is not None and (match["dash"] or match["indent"]):
            break
        if line.strip() and not line[:1].isspace():
            return text, start, end
    else:
        return text, start, end
    depth = len(match["indent"]) + len(match["dash"] or "")
    stop = at + len(line)
    while stop < len(text):  # the value runs on over the lines indented deeper than its key
        following = text[stop + 1:_line_end(text, stop + 1)]
        if following.strip() and len(following) - len(following.lstrip(" \t")) <= depth:
            break
        stop = _line_end(text, stop + 1)
    if stop < end:
        return text, start, end
    value = text[at + match.end():stop].split("\n")
    folded = "\n".join([value[0], *(" " + piece.lstrip(" \t") for piece in value[1:])])
    try:
        decoded = yaml.load("value: " + folded, Loader=_LOADER)["value"]
    except (yaml.YAMLError, TypeError, KeyError):
        return text, start, end
    if not isinstance(decoded, str) or text[start:end].lower() not in decoded.lower():
        return text, start, end  # not a string, or read otherwise than it looks ("… #urgent" is a comment)
    return _field(decoded, text[start:end], match["key"])


def _lines_around(text: str, start: int, above: int = 40) -> list[tuple[int, str]]:
    """(offset, line) of the line holding `start` and up to `above` lines before it, top first."""
    found: list[tuple[int, str]] = []
    at = text.rfind("\n", 0, start) + 1
    while len(found) <= above:
        found.append((at, text[at:_line_end(text, at)]))
        if at == 0:
            break
        at = text.rfind("\n", 0, at - 1) + 1
    return found[::-1]


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _field(decoded: str, wanted: str, key: str | None) -> tuple[str, int, int]:
    """Where `wanted` is in a field's decoded value; a field that is the value alone is named by its key."""
    found = decoded.lower().find(wanted.lower())
    if found < 0:
        return decoded, 0, len(decoded)
    if key is not None and len(decoded.strip()) <= len(wanted) + 2:
        # The whole field is the value ("id": "14"): its name says what it is.
        named = f"{key}: "
        return named + decoded, len(named) + found, len(named) + found + len(wanted)
    return decoded, found, found + len(wanted)


__all__ = ["LINE_BREAK_SHOWN", "MAX_PASSAGE_CHARS", "as_written", "passage_at"]
