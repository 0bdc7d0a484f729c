"""Text cut into sentence-aligned chunks of a few dozen words, each with its span in the original.

The embedding detector embeds these chunks, and the corpus cuts its benign samples the same
way so what the detector compares with is shaped like what it scans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deputy.sentinel.detectors.normalize import normalize

CHUNK_WORDS = 40
_SENTENCE_END = re.compile(r"[.!?;:]\s|\n")


@dataclass(frozen=True)
class Chunk:
    """A piece of text to embed and where it came from in the original."""

    text: str
    span: tuple[int, int]


def chunk_text(text: str, max_words: int = CHUNK_WORDS) -> list[Chunk]:
    """Sentence-aligned chunks of at most `max_words` words, with spans in `text`."""
    norm = normalize(text)
    canonical = norm.text
    chunks: list[Chunk] = []
    start = count = 0
    cuts = [m.end() for m in _SENTENCE_END.finditer(canonical)] + [len(canonical)]
    previous = 0
    for cut in cuts:
        words = len(canonical[previous:cut].split())
        if count and count + words > max_words:
            chunks.append(Chunk(canonical[start:previous].strip(), norm.original_span(start, previous)))
            start, count = previous, 0
        count += words
        previous = cut
    if canonical[start:].strip():
        chunks.append(Chunk(canonical[start:].strip(), norm.original_span(start, len(canonical))))
    return [c for c in chunks if len(c.text) >= 12]
