"""Making text from an MCP server safe to show: plain characters, bounded length.

Everything a server sends (tool descriptions, results, error messages) is untrusted. It
may carry terminal escapes, bidirectional overrides that make text read differently than
it is, NULs, lone surrogates (which would break JSON and Redis later), or megabytes.
"""

from __future__ import annotations

import re

# C0/C1 controls except tab and newline, bidi embeddings/overrides/isolates, zero-width
# characters and the BOM: invisible in a chat, but able to change what a reader sees.
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_SPACES = re.compile(r"\s+")


def plain_text(text: str, limit: int) -> tuple[str, bool]:
    """`text` without escapes and invisible characters, cut to `limit` characters.

    Returns the text and whether it was cut. Newlines and tabs are kept.
    """
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates become "?"
    text = _INVISIBLE.sub("", _ANSI.sub("", text))
    if len(text) > limit:
        return text[:limit], True
    return text, False


def one_line(text: str, limit: int) -> str:
    """`text` as one plain line of at most `limit` characters, with "…" when cut."""
    cleaned, _ = plain_text(text, limit * 4)
    cleaned = _SPACES.sub(" ", cleaned).strip()
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1].rstrip() + "…"
