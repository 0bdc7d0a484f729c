"""Free text is data too: which passages of an action's text were copied from outside content.

An attacker who cannot pick the recipient can still dictate what is said (an email body, an
event title, a form field). Every string argument of a consequential action is compared
with the goal's untrusted content after normalising both sides the way an attacker would
try to dodge an exact match: Unicode compatibility forms, look-alike letters, zero-width
characters, case, punctuation and spacing. A passage counts as copied when it is a run of
at least `MIN_RUN_WORDS` consecutive words found in one untrusted item (word shingles), or
when the whole value (a short title, say) is found there; words the user wrote themselves
are never counted. Pure functions; per-text profiles are memoised so `review` stays cheap.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

from deputy.sentinel.passages import as_written

SHINGLE = 3
"""Words per shingle: three-word phrases are rarely shared by chance between two texts."""
MIN_RUN_WORDS = 5
"""A copied passage is at least this many consecutive words, or most of a short value."""
SHORT_VALUE_SHARE = 0.6
MIN_WHOLE_CHARS = 8
"""A whole value this long (letters and digits only), found verbatim in outside content, is copied."""
MAX_PASSAGE_SHOWN = 140

_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\ufeff\u00ad\u180e\u034f"), None)
# Look-alike letters from other scripts an attacker swaps in so a filter misses a word.
CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "ɡ": "g", "ɩ": "i", "ο": "o", "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "τ": "t", "υ": "u",
    "ρ": "p", "χ": "x", "β": "b", "η": "n", "μ": "u", "ω": "w", "ѵ": "v", "һ": "h", "ӏ": "l", "ℓ": "l",
})
_WORD = re.compile(r"[^\W_]+")
_LETTERS = re.compile(r"[a-z]{3,}")
_IDENTIFIER_KEY = re.compile(r"(?:^|_)(?:id|ids|ref|sku|slug|handle|key|code|uid)$", re.IGNORECASE)
_STRUCTURED = re.compile(
    r"^\s*(?:[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+|[a-z][a-z0-9+.-]*://\S+|[\d\s:.,/+()T-]+|[A-Za-z]{0,3}[\d_-]{2,}\w*)\s*$",
    re.IGNORECASE,
)


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces, after undoing common disguises."""
    text = unicodedata.normalize("NFKC", text).translate(_ZERO_WIDTH).casefold().translate(CONFUSABLES)
    return " ".join(_WORD.findall(text))


@dataclass(frozen=True)
class _Profile:
    words: tuple[str, ...]
    compact: str
    shingles: frozenset[int]
    original: str
    """The text exactly as it came."""

    def written(self, run: tuple[str, ...]) -> str | None:
        """The words of `run` as this text writes them (case, punctuation and spacing between them
        kept), if it holds them one after the other."""
        if not run:
            return None
        return _found_written(self.original, run)


@lru_cache(maxsize=4096)
def _found_written(text: str, run: tuple[str, ...]) -> str | None:
    # Word for word, whatever stands between the words; else letter for letter (the same letters
    # split into other words, "ACME-Corp" for "acmecorp"); else in the text's compatibility forms
    # without invisible characters (a word written with look-alikes is shown in plain letters).
    for pattern in (_word_pattern(run), _letter_pattern("".join(run))):
        if pattern is not None and (found := pattern.search(text)) is not None:
            return as_written(found.group(0))
    plain = unicodedata.normalize("NFKC", text).translate(_ZERO_WIDTH)
    spans = [m.span() for m in _WORD.finditer(plain)]
    words = normalise(plain).split()
    if len(spans) == len(words):
        for index in (i for i, word in enumerate(words) if word == run[0]):
            if tuple(words[index:index + len(run)]) == run:
                return as_written(plain[spans[index][0]:spans[index + len(run) - 1][1]])
    return None


_EDGE_BEFORE, _EDGE_AFTER = r"(?<![^\W_])", r"(?![^\W_])"


@lru_cache(maxsize=4096)
def _word_pattern(run: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(_EDGE_BEFORE + r"[\W_]+".join(map(re.escape, run)) + _EDGE_AFTER, re.IGNORECASE)


@lru_cache(maxsize=4096)
def _letter_pattern(letters: str) -> re.Pattern[str] | None:
    if len(letters) > 400:
        return None
    return re.compile(_EDGE_BEFORE + r"[\W_]*".join(map(re.escape, letters)) + _EDGE_AFTER, re.IGNORECASE)


@lru_cache(maxsize=4096)
def _profile(text: str) -> _Profile:
    words = tuple(normalise(text).split())
    shingles = frozenset(hash(words[i:i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))
    return _Profile(words, "".join(words), shingles, text)


@dataclass(frozen=True)
class Source:
    origin: str
    text: str
    author: str | None = None
    """The address of whoever wrote it, when known (an email's sender, a chat message's author)."""


@dataclass(frozen=True)
class CopiedText:
    """A passage of an action argument found in outside content (and not in the user's words)."""

    argument: str
    passage: str
    """As the first origin wrote it (or, pieced together from several, as the action has it): case,
    punctuation and spacing kept (`deputy.sentinel.passages.as_written`)."""
    origins: tuple[str, ...]
    """Where it was found, first where it appeared first."""
    whole: bool

    def explain(self) -> str:
        shown = self.passage if len(self.passage) <= MAX_PASSAGE_SHOWN else self.passage[:MAX_PASSAGE_SHOWN - 1] + "…"
        what = "is" if self.whole else "contains"
        return f"the {_argument_name(self.argument)} {what} “{shown}”, copied from {self.origins[0]}, not from you"


def copied_passages(
    arguments: dict[str, Any], sources: list[Source], trusted: list[str], skip: Iterable[str] = ()
) -> list[CopiedText]:
    """Passages of the free-text arguments copied from `sources` and absent from `trusted`."""
    if not sources:
        return []
    skipped = set(skip)
    found: list[CopiedText] = []
    trusted_profiles = [_profile(t) for t in trusted if t]
    source_profiles = [(s.origin, _profile(s.text)) for s in sources if s.text]
    for name, value in string_fields(arguments):
        if name in skipped or _STRUCTURED.match(value) or len(_LETTERS.findall(value.lower())) < 2:
            continue
        if _IDENTIFIER_KEY.search(name.rsplit(".", 1)[-1]) and not any(c.isspace() for c in value):
            continue  # an identifier picked from a listing ("usb-c-cable-1m") is a choice, not dictated text
        copy = _copied(name, value, source_profiles, trusted_profiles)
        if copy is not None:
            found.append(copy)
    return found


def _copied(
    name: str, value: str, sources: list[tuple[str, _Profile]], trusted: list[_Profile]
) -> CopiedText | None:
    mine = _profile(value)
    if not mine.words:
        return None
    if any(mine.compact in t.compact for t in trusted):
        return None
    whole = [(origin, p) for origin, p in sources if len(mine.compact) >= MIN_WHOLE_CHARS and mine.compact in p.compact]
    if whole and len(mine.words) >= 2:
        origins = tuple(dict.fromkeys(origin for origin, _ in whole))
        return CopiedText(name, _as_written(mine, 0, len(mine.words), whole[0][1]), origins, whole=True)
    # Runs of words covered by a shingle of some source and by none of the user's words.
    grams = [hash(mine.words[i:i + SHINGLE]) for i in range(len(mine.words) - SHINGLE + 1)]
    covered = [False] * len(mine.words)
    origins_at: dict[int, set[str]] = {}
    for i, gram in enumerate(grams):
        if any(gram in t.shingles for t in trusted):
            continue
        hits = {origin for origin, p in sources if gram in p.shingles}
        if hits:
            origins_at[i] = hits
            for j in range(i, i + SHINGLE):
                covered[j] = True
    best: tuple[int, int] | None = None
    start = None
    for i, flag in enumerate([*covered, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            long_enough = i - start >= MIN_RUN_WORDS or i - start >= SHORT_VALUE_SHARE * len(mine.words)
            if long_enough and (best is None or i - start > best[1] - best[0]):
                best = (start, i)
            start = None
    if best is None:
        return None
    found = set().union(*(origins_at[i] for i in range(best[0], best[1]) if i in origins_at))
    order = [(origin, p) for origin, p in sources if origin in found]
    origins = tuple(dict.fromkeys(origin for origin, _ in order))
    holder = next((p for _, p in order if _run_at(p, mine.words[best[0]:best[1]]) is not None), None)
    whole_value = best == (0, len(mine.words))
    return CopiedText(name, _as_written(mine, best[0], best[1], holder), origins, whole=whole_value)


def _run_at(profile: _Profile, run: tuple[str, ...]) -> int | None:
    """Where `profile` holds the words of `run` one after the other, if it does."""
    if not run:
        return None
    for index in (i for i, word in enumerate(profile.words) if word == run[0]):
        if profile.words[index:index + len(run)] == run:
            return index
    return None


def _as_written(mine: _Profile, first: int, last: int, holder: _Profile | None) -> str:
    """The copied words as the outside content wrote them, when one source holds them all;
    else as the action has them."""
    run = mine.words[first:last]
    shown = holder.written(run) if holder is not None else None
    return shown or mine.written(run) or " ".join(run)


def _argument_name(argument: str) -> str:
    last = argument.rsplit(".", 1)[-1]
    return {"body": "message", "text": "text", "title": "title", "description": "description",
            "subject": "subject", "note": "note", "value": "value"}.get(last, f"field “{last}”")


def string_fields(value: Any, path: str = "") -> Iterable[tuple[str, str]]:
    """Every string inside `value` with its dotted path (list items share their list's path)."""
    if isinstance(value, str):
        yield path or "value", value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from string_fields(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from string_fields(item, path)
