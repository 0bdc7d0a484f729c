"""Keyword ranking of memories for a step: which few facts matter for this goal now.

BM25-style scoring over word stems, with no model and no network: memories that share
rare words with the goal rank first; preferences that apply broadly (diet, name) get a
small constant boost so they are not crowded out.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterable, Sequence, TypeVar

T = TypeVar("T")

_WORD = re.compile(r"[a-zà-ÿ0-9]+", re.IGNORECASE)
_STOP = frozenset(
    "a an and are as at be but by for from has have i i'm if in is it its me my of on or our so that the their them "
    "they this to was we what when where which who will with you your please can could would should about".split()
)


def stems(text: str) -> list[str]:
    words = [w.lower() for w in _WORD.findall(text)]
    return [_stem(w) for w in words if w not in _STOP and len(w) > 1]


def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "es", "s", "ed", "ian", "ians"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def rank(query: str, items: Sequence[T], text_of, boost_of=lambda item: 0.0, limit: int = 5) -> list[T]:
    """The `limit` items most relevant to `query` (items with no shared word need a boost)."""
    documents = [stems(text_of(item)) for item in items]
    if not documents:
        return []
    frequency: Counter[str] = Counter()
    for words in documents:
        frequency.update(set(words))
    average = sum(len(d) for d in documents) / len(documents) or 1.0
    terms = set(stems(query))
    scored: list[tuple[float, int]] = []
    for index, words in enumerate(documents):
        counts = Counter(words)
        score = 0.0
        for term in terms:
            if term in counts:
                idf = math.log(1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                tf = counts[term]
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(words) / average))
        score += boost_of(items[index])
        if score > 0:
            scored.append((score, index))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [items[index] for _, index in scored[:limit]]


def overlap(fact: str, sources: Iterable[str]) -> float:
    """Share of the fact's words found in `sources` (0..1): how traceable it is to them."""
    words = set(stems(fact))
    if not words:
        return 1.0
    found = set(stems(" ".join(sources)))
    return len(words & found) / len(words)


def by_meaning_and_words(query: str, items: Sequence[T], text_of, embedder, boost_of=lambda item: 0.0,
                         limit: int = 5) -> list[T]:
    """The `limit` items most relevant to `query` by meaning (an `Embedder`) and shared words together.

    Reciprocal rank fusion: each item scores 1/(k + its place) in each ranking, so one that both
    rankings put high comes first, and one only the meaning finds ("plan my meals" and "I am
    vegetarian") still gets in.
    """
    if not items:
        return []
    vectors = embedder.embed([query, *(text_of(item) for item in items)])
    similarity = vectors[1:] @ vectors[0]
    by_meaning = sorted(range(len(items)), key=lambda i: -float(similarity[i]))
    place_of = {id(item): index for index, item in enumerate(items)}
    by_words = [place_of[id(item)] for item in rank(query, items, text_of, boost_of, limit=len(items))]
    scores = [boost_of(item) / _FUSION_K for item in items]
    for place, index in enumerate(by_meaning):
        scores[index] += 1.0 / (_FUSION_K + place)
    for place, index in enumerate(by_words):
        scores[index] += 1.0 / (_FUSION_K + place)
    best = sorted(range(len(items)), key=lambda i: -scores[i])[:limit]
    return [items[i] for i in best]


_FUSION_K = 10
