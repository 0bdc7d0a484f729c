"""Find text that a person reading the content would not see, and decode embedded blobs.

Hidden text on its own is normal (newsletters hide a preview line with `display:none`,
flag emoji use tag characters), so these functions only locate it; the heuristic detector
raises the score when an attack signal sits inside it.
"""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote

# An element whose inline style or attributes make its content invisible.
_HIDING_ELEMENT = re.compile(
    r"<([a-zA-Z][a-zA-Z0-9]{0,15})\b[^<>]{0,1000}?(?:"
    r"style\s*=\s*[\"'][^\"'<>]{0,500}?(?:display\s*:\s*none|visibility\s*:\s*hidden|"
    r"font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?\s*(?:[;\"'!]|$)|opacity\s*:\s*0(?:\.0+)?\s*(?:[;\"'!]|$)|"
    r"(?<![-\w])color\s*:\s*(?:#fff(?:fff)?\b|white\b|rgba?\(\s*255\s*,\s*255\s*,\s*255)|"
    r"(?:max-)?height\s*:\s*0(?:px)?\s*[;\"'][^\"'<>]{0,200}overflow\s*:\s*hidden)"
    r"|\shidden(?:\s*=\s*[\"'][^\"']*[\"'])?(?=[\s/>])|\saria-hidden\s*=\s*[\"']true)[^<>]{0,1000}>",
    re.IGNORECASE,
)
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
HIDDEN_REGION_LIMIT = 200

_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_BASE = "\U0001f3f4"  # waving black flag: tag sequences after it spell subdivision flags

# Runs of base64 (standard or URL-safe) long enough to carry a sentence.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}")
MAX_BASE64_BLOBS = 32


def hidden_regions(raw: str) -> list[tuple[int, int, str]]:
    """(start, end, how) of content hidden by HTML markup: comments and invisible elements."""
    if "<" not in raw:
        return []
    regions: list[tuple[int, int, str]] = []
    if "<!--" in raw:
        for match in _COMMENT.finditer(raw):
            regions.append((match.start(), match.end(), "an HTML comment"))
            if len(regions) >= HIDDEN_REGION_LIMIT:
                return regions
    for match in _HIDING_ELEMENT.finditer(raw):
        name = match.group(1).lower()
        close = re.compile(rf"</{re.escape(name)}\s*>", re.IGNORECASE).search(raw, match.end())
        end = close.end() if close else min(len(raw), match.end() + 2000)
        regions.append((match.start(), end, "invisible HTML text"))
        if len(regions) >= HIDDEN_REGION_LIMIT:
            break
    return regions


def tag_character_runs(raw: str) -> list[tuple[int, int, str]]:
    """(start, end, decoded ASCII) of Unicode tag-character runs that are not flag emoji."""
    if raw.isascii():
        return []
    runs = []
    for match in _TAG_RUN.finditer(raw):
        run = match.group()
        is_flag = match.start() > 0 and raw[match.start() - 1] == _FLAG_BASE and run.endswith("\U000e007f")
        if is_flag and len(run) <= 8:
            continue
        decoded = "".join(chr(ord(c) - 0xE0000) for c in run if ord(c) != 0xE007F)
        runs.append((match.start(), match.end(), decoded))
    return runs


def _looks_like_text(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    # Judge letters after percent-decoding: base64 of percent-encoded text is a known trick.
    plain = unquote(text) if "%" in text else text
    letters = sum(1 for c in plain if c.isalpha())
    if printable / len(text) < 0.9 or letters / max(len(plain), 1) < 0.4:
        return None
    return text


def base64_texts(decoded: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of base64 runs in `decoded` that decode to readable text."""
    found = []
    for match in _BASE64.finditer(decoded):
        blob = match.group().rstrip("=")
        if blob.isalpha() and (blob.islower() or blob.isupper()):
            continue  # a long word or identifier, not base64
        padded = blob + "=" * (-len(blob) % 4)
        try:
            data = base64.b64decode(padded, altchars=b"-_" if ("-" in blob or "_" in blob) else None, validate=True)
        except (binascii.Error, ValueError):
            continue
        text = _looks_like_text(data)
        if text is not None:
            found.append((match.start(), match.end(), text))
        if len(found) >= MAX_BASE64_BLOBS:
            break
    return found
