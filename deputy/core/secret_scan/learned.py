"""A learned second opinion beside the rules: a small logistic model over a token's shape and its neighbours.

The rules are written phrase by phrase; a new phrasing ("Kennwort vom Büro-PC ist kj63P393-&") can slip past
them. This model reads every token that could be a secret value (three characters or more with a digit, or a
mix of letter cases and symbols; digit groups joined by spaces count as one token) and scores it from its shape
("Aa0!"-like classes, length, digit count, separators), the words around it (up to five on each side, with
their side and distance) and the mark just before it (":", "=", "#"). The words come from the development
corpora in seven languages, not from hand-written lists. A token the rules left alone and the model scores
above its threshold is taken for a secret too.

Weights, the feature names and the threshold ship in data/learned_weights.npz, rebuilt exactly by
`python -m bench.learned_train` from the development corpora (tests/bot/secret_corpus), whose fingerprint the
file keeps. Pure numpy at run time; a handful of dictionary look-ups per token.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from functools import cache
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).resolve().parent / "data" / "learned_weights.npz"

# A token: a run without spaces; digit groups joined by one space (". 858 99 4052") are read as one token.
_TOKEN = re.compile(r"\S+")
_GROUP = re.compile(r"(?<![\w])\d[\d./-]*(?: \d[\d./-]*)+(?![\w])")
_WORD = re.compile(r"[^\W\d_]{2,}")
_LEAD = "([{\"'«“‘¿¡<*"
_TRAIL = ")]}\"'»”’,;:>*"
_END = ".!?"
_LABEL = re.compile(r"[^\W\d_]{2,}[:=]")  # "PIN:1234": the value is what follows the label


def _core(text: str, start: int, end: int) -> tuple[int, int]:
    """The value inside a raw token: without the quotes or brackets around it, a label glued on, the full stop."""
    while start < end and text[start] in _LEAD:
        start += 1
    while start < end and text[end - 1] in _TRAIL:
        end -= 1
    label = _LABEL.match(text, start, end)
    if label:
        start = label.end()
    plain = all(c.isalnum() or c in "-./" for c in text[start: end].rstrip(_END))
    while plain and start < end and text[end - 1] in _END:
        end -= 1
    return start, end


def _worth_reading(value: str) -> bool:
    if len(value) < 3 or len(value) > 80 or "://" in value:
        return False
    if any(c.isdigit() for c in value):
        return True
    if len(value) < 6:
        return False
    upper = any(c.isupper() for c in value[1:])
    lower = any(c.islower() for c in value)
    symbol = any(not c.isalnum() and c not in "-'’." for c in value)
    return (upper and lower and symbol) or (symbol and (upper or lower) and not value.isalpha())


def candidates(text: str) -> list[tuple[int, int]]:
    """Where the tokens that could be a secret value sit in `text`, left to right, none overlapping."""
    groups = [(m.start(), m.end()) for m in _GROUP.finditer(text)]
    spans = list(groups)
    for match in _TOKEN.finditer(text):
        if any(s <= match.start() < e for s, e in groups):
            continue
        start, end = _core(text, match.start(), match.end())
        if start < end and _worth_reading(text[start: end]):
            spans.append((start, end))
    spans.sort()
    return spans


def _shape(value: str) -> str:
    out = []
    for c in value:
        out.append("0" if c.isdigit() else "A" if c.isupper() else "a" if c.isalpha() else " " if c.isspace() else c)
    return "".join(out)


def _squeeze(shape: str) -> str:
    return re.sub(r"(.)\1+", r"\1", shape)


def _bucket(n: int) -> str:
    return str(n) if n <= 12 else "13-16" if n <= 16 else "17-24" if n <= 24 else "25+"


def features(text: str, lowered: str, words: list[tuple[int, int]], start: int, end: int) -> list[str]:
    """The names of the features of the token at text[start:end] (`words`: the spans of the words in `lowered`)."""
    value = text[start: end]
    shape = _shape(value)
    squeezed = _squeeze(shape)
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    out = [f"s:{squeezed}", f"len:{_bucket(len(value))}", f"dig:{_bucket(digits)}", f"let:{_bucket(letters)}",
           f"sl:{squeezed}|{_bucket(len(value))}"]
    if len(shape) <= 16:
        out.append(f"S:{shape}")
    padded = f"^{squeezed[:12]}$"
    out.extend(f"g:{padded[i: i + 3]}" for i in range(len(padded) - 2))
    out.extend(f"c:{c}" for c in set(value) if not c.isalnum())
    if digits == len(value.replace(" ", "").replace("-", "").replace(".", "")):
        out.append(f"nd:{_bucket(digits)}")
        if len(set(value) - set(" -./")) == 1:
            out.append("same")
    before = text[:start].rstrip()
    after = text[end:].lstrip()
    out.append(f"pc:{before[-1:] or '^'}")
    out.append(f"nc:{after[:1] or '$'}")
    left = bisect_right([e for _, e in words], start)  # words[:left] end before the token
    right = bisect_left([s for s, _ in words], end)  # words[right:] start after it
    for distance, (s, e) in enumerate(reversed(words[max(0, left - 5): left]), 1):
        word = lowered[s: e]
        out.append(f"wl:{word}")
        out.append(f"wl4:{word[:4]}")
        if distance <= 2:
            out.append(f"w-{distance}:{word}")
        if distance == 1:
            out.append(f"w-1c:{word}{before[-1:]}")
    for distance, (s, e) in enumerate(words[right: right + 5], 1):
        word = lowered[s: e]
        out.append(f"wr:{word}")
        if distance == 1:
            out.append(f"w+1:{word}")
    if left == 0:
        out.append("first")
    if right == len(words):
        out.append("last")
    return out


def words_of(lowered: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(lowered)]


OVERRIDE: list = [None]  # the training script's cross-validation puts a fold's model here


@cache
def _model() -> tuple[dict[str, int], np.ndarray, float, float]:
    data = np.load(WEIGHTS, allow_pickle=False)
    names = [str(n) for n in data["names"]]
    return ({n: i for i, n in enumerate(names)}, data["weights"].astype(np.float64),
            float(data["bias"]), float(data["threshold"]))


def score(names: list[str], model: tuple[dict[str, int], np.ndarray, float, float] | None = None) -> float:
    index, weights, bias, _ = model or _model()
    total = bias + sum(weights[i] for i in {index[n] for n in names if n in index})
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total))))


def learned_spans(text: str, taken: list[tuple[int, int]], threshold: float | None = None,
                  model: tuple[dict[str, int], np.ndarray, float, float] | None = None) -> list[tuple[int, int]]:
    """The tokens of `text` the model takes for secret values, leaving out those overlapping a span in `taken`."""
    spans = [(s, e) for s, e in candidates(text) if not any(a < e and s < b for a, b in taken)]
    if not spans:
        return []
    model = model or OVERRIDE[0] or _model()
    cut = model[3] if threshold is None else threshold
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer: read the words as typed
        lowered = text
    words = words_of(lowered)
    return [(s, e) for s, e in spans if score(features(text, lowered, words, s, e), model) >= cut]
