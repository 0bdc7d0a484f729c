"""Matching by meaning, not by exact words: walk-away conditions and private items.

"cashiers check" is "cashier's check", "in-person is off the table" is "won't meet in person",
"going to Berlin" is "moving to Berlin". Two passes: words normalised (apostrophes, plurals and
verb endings stemmed, a few synonyms folded) and compared as sets of content words; then, when
an embedding function is given (the memory's small sentence model, `deputy.memory.meaning`), the
cosine similarity of the sentences. Above `SURE` it is a match; between `DOUBT` and `SURE` it
is doubtful and goes to the user. Pure: the embedding function is passed in.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
SURE = 0.72
DOUBT = 0.5
"""For the share of the phrase's content words a sentence says."""
EMBED_SURE = 0.6
EMBED_DOUBT = 0.36
"""For the cosine of the small sentence model (all-MiniLM-L6-v2): paraphrases of a condition score about
0.3 to 0.5 against it, unrelated messages about 0.1 to 0.3, so the band between goes to the user."""

_SYNONYMS = {
    "cheque": "check", "checks": "check", "ship": "ship", "post": "ship", "mail": "ship", "courier": "ship",
    "deliver": "ship", "send": "ship", "freight": "ship", "go": "move", "relocat": "move", "mov": "move",
    "leav": "move", "meet": "meet", "meetup": "meet", "person": "meet", "pick": "meet", "collect": "meet",
    "pickup": "meet", "view": "meet", "see": "meet", "deposit": "deposit", "upfront": "deposit", "advance": "deposit",
    "hold": "deposit", "reserv": "deposit", "bank": "bank", "iban": "bank", "rout": "bank", "account": "bank",
    "wire": "wire", "transfer": "wire", "link": "link", "url": "link", "crypto": "crypto", "bitcoin": "crypto",
    "btc": "crypto", "usdt": "crypto", "giftcard": "giftcard", "gift": "giftcard", "contract": "contract",
    "commitment": "contract", "term": "contract", "lease": "contract", "surgery": "surgery", "operation": "surgery",
    "separat": "separat", "divorc": "separat", "split": "separat",
}
_STOP = frozenset("a an the to of and or in on at for by with my me i we you they them their it is are be if "
                  "will would can could do does want wants asks ask no not any some this that our your".split())


def stem(word: str) -> str:
    word = word.lower().replace("'", "").replace("’", "")
    for prefix, canonical in _SYNONYMS.items():
        if word.startswith(prefix) and len(prefix) >= 4:
            return canonical
    for suffix in ("ations", "ation", "ings", "ing", "ers", "er", "ied", "ies", "ed", "es", "s", "e"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    for prefix, canonical in _SYNONYMS.items():
        if word.startswith(prefix):
            return canonical
    return word


def content_words(text: str) -> set[str]:
    words = re.findall(r"[a-z][a-z'’]*", text.lower().replace("cashiers", "cashier"))
    return {stem(w) for w in words if w not in _STOP and len(w) > 1}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?;\n])\s+|\n", text) if len(s.strip()) > 2]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


def score(phrase: str, text: str, embed: Embed | None = None) -> tuple[str, str]:
    """("sure", "doubt" or "") for how well some sentence of `text` says `phrase`, and that sentence."""
    wanted = content_words(phrase)
    parts = sentences(text) or [text]
    best, where = "", ""
    for part in parts:
        have = content_words(part)
        if wanted and have:
            overlap = len(wanted & have) / len(wanted)
            level = "sure" if overlap >= SURE else "doubt" if overlap >= DOUBT else ""
            if level == "sure" or level and not best:
                best, where = level, part
    if embed is not None and parts and best != "sure":
        vectors = embed([phrase, *parts])
        for part, vector in zip(parts, vectors[1:]):
            similarity = _cosine(vectors[0], vector)
            level = "sure" if similarity >= EMBED_SURE else "doubt" if similarity >= EMBED_DOUBT else ""
            if level == "sure" or level and not best:
                best, where = level, part
    return best, where


def says(phrase: str, text: str, embed: Embed | None = None) -> str:
    """"sure", "doubt" or "" for whether `text` says what `phrase` says."""
    return score(phrase, text, embed)[0]


def private_said(text: str, items: list[str], embed: Embed | None = None) -> list[str]:
    """The private items `text` says or may say (a doubtful one counts: it goes to the user). A name from
    the item (a capitalised word: a city, an employer) said at all is enough for a doubt."""
    found = []
    for item in items:
        names = {w.lower() for w in re.findall(r"(?<![.!?]\s)\b[A-Z][a-z]{2,}\b", item)} - {"the", "my"}
        if says(item, text, embed) or any(re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE) for n in names):
            found.append(item)
    return found
