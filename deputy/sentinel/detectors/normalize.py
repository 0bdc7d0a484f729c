"""Turn untrusted text into one canonical form that simple patterns can match.

Attackers split keywords with invisible characters, swap Latin letters for Cyrillic
look-alikes, write in fullwidth or with accents, or escape text as HTML entities,
percent-encoding or JSON `\\uXXXX`. `normalize` undoes all of that and lowercases, and
keeps a map from every offset in the result back to the input, so a match can be shown
where it really is.

Every stage is a regex substitution whose cost grows with the number of matches, and
plain ASCII text skips the Unicode stages entirely: a typical 5 KB email normalises in
tens of microseconds.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from urllib.parse import unquote

# Zero-width and format characters, bidi embeddings/overrides/isolates, soft hyphen and
# Unicode tag characters: all invisible, all able to split a keyword in two.
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0"
    "\U000e0000-\U000e007f]+"
)
BIDI_OVERRIDE = re.compile("[\u202d\u202e]")

# Letters that render like Latin ones; NFKC leaves them alone because they are real
# letters of other scripts. Quotes and dashes are folded so patterns need one spelling.
_LOOKALIKES = {
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ɡ": "g", "һ": "h", "ӏ": "l", "ԛ": "q",
    "ԝ": "w", "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c", "Т": "t",
    "Х": "x", "І": "i", "Ј": "j", "ѵ": "v",
    "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "Α": "a",
    "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t",
    "Υ": "y", "Χ": "x", "ɑ": "a", "ı": "i", "ȷ": "j", "ᴀ": "a", "ʀ": "r", "ꜱ": "s",
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u02bc": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
}
LOOKALIKE_CHARS = frozenset(c for c in _LOOKALIKES if c.isalpha())
_FOLD_TABLE = str.maketrans(_LOOKALIKES)

_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
# Each pattern starts with a literal so CPython can skip to candidates quickly; a leading
# group or \b makes the engine try every position (30x slower on a 5 KB email).
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})*")
_JSON_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})*|[nrt])")
# Inline tags vanish (they may sit inside a word: ig<b>nore</b>); block tags become a
# space. Only real HTML element names: fake markers like <system> or </untrusted> stay.
# Attribute values stay (alt, title, href and data-* attributes can carry text).
_TAG = re.compile(r"<(?:/?([a-zA-Z][a-zA-Z0-9]{0,15})(\s[^<>]{0,2000})?/?>|!--)")
_COMMENT_END = re.compile(r"-->")
_ATTRIBUTE_VALUE = re.compile(r"=\s*(?:\"([^\"]*)\"|'([^']*)')")
_INLINE = frozenset(
    "a abbr b bdi bdo cite code del dfn em font i ins kbd mark q s samp small span strike strong sub sup u var "
    "wbr".split()
)
_BLOCK = frozenset(
    "address area article aside audio base blockquote body br button canvas caption center col colgroup dd details "
    "dialog dir div dl dt embed fieldset figcaption figure footer form frame h1 h2 h3 h4 h5 h6 head header hr html "
    "iframe img input label legend li link main map menu meta meter nav noscript object ol optgroup option output p "
    "param picture pre progress script section select source style summary table tbody td template textarea tfoot "
    "th thead time title tr track ul video".split()
)
# Whitespace is collapsed by literal-prefixed patterns: a pattern whose first character
# could be any space would be tried at every word boundary, ten times slower.
_OTHER_SPACES = str.maketrans("\t\r\f\v\x85\u2028\u2029", "    \n\n\n")
_SPACE_RUN = re.compile(r"  +")
_SPACE_BEFORE_NEWLINE = re.compile(r" \n")
_NEWLINE_RUN = re.compile(r"\n[\n ]+")

Breaks = list[tuple[int, int]]


def _substitute(pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str], text: str) -> tuple[str, Breaks]:
    """Like `pattern.sub`, but also return (new, old) offset pairs around every change."""
    parts: list[str] = []
    breaks: Breaks = []
    last = produced = 0
    for match in pattern.finditer(text):
        start, end = match.span()
        replacement = repl(match)
        if replacement == match.group():
            continue
        parts.append(text[last:start])
        produced += start - last
        breaks.append((produced, start))
        parts.append(replacement)
        produced += len(replacement)
        breaks.append((produced, end))
        last = end
    if not breaks:
        return text, breaks
    parts.append(text[last:])
    return "".join(parts), breaks


def _back(breaks: Breaks, position: int) -> int:
    """Map one offset through one stage, from its output back to its input."""
    if not breaks:
        return position
    i = bisect_right(breaks, (position, float("inf"))) - 1
    if i < 0:
        return position
    new, old = breaks[i]
    if i % 2 == 0:  # inside a replacement: clamp to the text it replaced
        return min(old + (position - new), breaks[i + 1][1])
    return old + (position - new)


class Normalized:
    """The canonical text plus the way back to offsets in the original."""

    __slots__ = ("stages", "text")

    def __init__(self, text: str, stages: list[Breaks]) -> None:
        self.text = text
        self.stages = stages

    def original(self, position: int) -> int:
        """The offset in the input text that produced `position` in `text`."""
        for breaks in reversed(self.stages):
            position = _back(breaks, position)
        return position

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The [start, end) span of the input that produced `text[start:end]`."""
        if end <= start:
            at = self.original(start)
            return at, at
        return self.original(start), self.original(end - 1) + 1


def _unescape_json(match: re.Match[str]) -> str:
    token = match.group()
    if token in ("\\n", "\\r", "\\t"):
        return " "
    try:
        return json.loads(f'"{token}"').encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    except (ValueError, UnicodeError):
        return token


def _strip_tag(match: re.Match[str]) -> str:
    """Known HTML tags vanish; fake ones such as <system> or </untrusted> are kept."""
    name = (match.group(1) or "").lower()
    if match.group(1) is not None and name not in _INLINE and name not in _BLOCK:
        return match.group()
    values = " ".join(a or b for a, b in _ATTRIBUTE_VALUE.findall(match.group(2) or ""))
    if values:
        return f" {values} "
    # Inline tags may sit inside a word (ig<b>nore</b>); block tags separate words.
    return "" if name in _INLINE else " "


def fold_run(run: str) -> str:
    """Canonical lowercase ASCII-ish form of a non-ASCII run (accents, look-alikes...)."""
    folded = unicodedata.normalize("NFKC", run).translate(_FOLD_TABLE)
    decomposed = unicodedata.normalize("NFKD", folded)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _fold_lines(text: str) -> tuple[str, Breaks]:
    """Fold each line that has non-ASCII characters; offsets are exact between lines."""
    parts: list[str] = []
    breaks: Breaks = []
    produced = consumed = 0
    for line in text.split("\n"):
        folded = line if line.isascii() else fold_run(line)
        if folded != line:
            breaks += [(produced, consumed), (produced + len(folded), consumed + len(line))]
        parts.append(folded)
        produced += len(folded) + 1
        consumed += len(line) + 1
    return "\n".join(parts), breaks


def decode_escapes(text: str) -> Normalized:
    """Undo HTML entities, percent-encoding and JSON escapes (case is kept, for base64)."""
    stages: list[Breaks] = []
    if "&" in text:
        text, breaks = _substitute(_ENTITY, lambda m: html.unescape(m.group()), text)
        stages.append(breaks)
    if "%" in text:
        text, breaks = _substitute(_PERCENT, lambda m: unquote(m.group(), errors="replace"), text)
        stages.append(breaks)
    if "\\" in text:
        text, breaks = _substitute(_JSON_ESCAPE, _unescape_json, text)
        stages.append(breaks)
    return Normalized(text, stages)


def canonical(text: str) -> Normalized:
    """Strip invisibles and markup, fold Unicode, lowercase and collapse whitespace."""
    stages: list[Breaks] = []

    def run(pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str]) -> None:
        nonlocal text
        text, breaks = _substitute(pattern, repl, text)
        stages.append(breaks)

    if not text.isascii():
        run(INVISIBLE, lambda m: "")
        text, breaks = _fold_lines(text)
        stages.append(breaks)
    if "<" in text:
        run(_TAG, _strip_tag)
        if "-->" in text:
            run(_COMMENT_END, lambda m: " ")
    lowered = text.lower()
    # str.lower can lengthen a few non-ASCII letters; offsets must stay aligned.
    text = lowered if len(lowered) == len(text) else "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    text = text.translate(_OTHER_SPACES)  # same length: no offsets change
    run(_SPACE_RUN, lambda m: " ")
    run(_SPACE_BEFORE_NEWLINE, lambda m: "\n")
    run(_NEWLINE_RUN, lambda m: "\n")
    return Normalized(text, stages)


def normalize(text: str) -> Normalized:
    """`decode_escapes` then `canonical`, as one text with one offset map."""
    decoded = decode_escapes(text)
    result = canonical(decoded.text)
    return Normalized(result.text, decoded.stages + result.stages)


def word_positions(text: str, word: str, limit: int | None) -> list[int] | None:
    """Where `word` occurs as a whole word ("ai" in "said" does not count); None if over `limit`."""
    positions: list[int] = []
    at = text.find(word)
    misses = 0
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            positions.append(at)
            if limit is not None and len(positions) > limit:
                return None
        else:
            misses += 1
            if limit is not None and misses > 4 * limit:
                return None
        at = text.find(word, end)
    return positions
