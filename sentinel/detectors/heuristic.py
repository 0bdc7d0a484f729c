"""A fast, dependency-free prompt-injection detector built from weighted patterns.

It normalises the text (see `normalize`), decodes what attackers hide instructions in
(base64 blobs, Unicode tag characters, entities, percent-encoding, JSON escapes; nested up
to `MAX_DEPTH` layers), and looks for the evidence listed in `signals`. Evidence found in
hidden places (invisible HTML, comments, invisible or look-alike characters, encodings)
counts extra, because a sender with an honest purpose has no reason to hide it.

Speed: a regex scan of a whole 5 KB text costs ~100 µs in CPython unless the pattern
starts with a literal, and there are 40 patterns. So the text is split into a word set
once, each signal runs only if one of its anchor words is present, and then only in
windows around those anchors. `exhaustive=True` skips the shortcut (tests compare both).
"""

from __future__ import annotations

import logging
import re
import string
from dataclasses import dataclass, field
from typing import Callable

from sentinel.detectors.base import FLAG_THRESHOLD, Detection, merge_spans, noisy_or, scan_windows
from sentinel.detectors.hidden import base64_texts, hidden_regions, tag_character_runs
from sentinel.detectors.normalize import INVISIBLE, LOOKALIKE_CHARS, Normalized, canonical, decode_escapes
from sentinel.detectors.signals import (
    DESTINATION, EXFIL_REASON, EXFIL_VERB, EXFIL_VERB_WORDS, EXFIL_WEIGHT, SENSITIVE, SIGNALS, Signal,
)

log = logging.getLogger(__name__)

MAX_DEPTH = 3  # base64 inside base64 inside base64 is as deep as anyone honest goes
MAX_LAYERS = 64
MAX_DECODED_CHARS = 400_000
MAX_SPANS = 100
HIDDEN_WEIGHT = 0.35
TAG_WEIGHT = 0.6
QUOTED_MENTION_FACTOR = 0.4
# How far a signal's match may extend before and after its anchor word.
BEFORE = 150
AFTER = 200
EXFIL_WINDOW = 200
MAX_ANCHOR_HITS = 64
_PUNCTUATION = str.maketrans({c: " " for c in string.punctuation})
_ENCODED = re.compile(r"&#?\w{1,8};|%[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}")
_MENTION = re.compile(
    r"\b(?:say|says|said|saying|like|such as|text|phrase|phrases|string|e\.g\.|example|containing|contains|reads|"
    r"wrote|called|quote|quoting)\W{0,3}$"
)
_NEGATED = re.compile(r"\b(?:never|not|don't|do not|won't|will not|no one|nobody)\b[\w ]{0,15}$")
_EXFIL = Signal("exfiltration", EXFIL_WEIGHT, EXFIL_REASON, frozenset(), DESTINATION)

Locate = Callable[[int, int], tuple[int, int]]
Regions = list[tuple[int, int, str]]


@dataclass
class _Evidence:
    """What one scan found so far; each kind of evidence counts once, at its best weight."""

    weights: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    spans: list[tuple[int, int]] = field(default_factory=list)
    layers: int = 0
    decoded_chars: int = 0

    def add(self, key: str, weight: float, reason: str, span: tuple[int, int] | None = None) -> None:
        if weight > self.weights.get(key, -1.0):
            self.weights[key] = weight
            self.reasons[key] = reason
        if span is not None and len(self.spans) < MAX_SPANS:
            self.spans.append(span)


class HeuristicDetector:
    """Weighted-pattern injection detector; well under a millisecond for a typical email."""

    name = "heuristic"

    def __init__(self, threshold: float = FLAG_THRESHOLD, exhaustive: bool = False) -> None:
        self.threshold = threshold
        self.exhaustive = exhaustive

    def scan(self, text: str, source: str = "unknown") -> Detection:
        """Score `text` (content from `source`); never raises."""
        try:
            if isinstance(text, (bytes, bytearray)):
                text = bytes(text).decode("utf-8", "replace")
            return self._scan(str(text))
        except Exception:
            # Fail towards caution: content we could not read raises the goal's risk.
            log.exception("heuristic injection scan failed on %s content", source)
            return Detection(detector=self.name, score=self.threshold, flagged=True,
                             reasons=["the content could not be fully scanned"])

    def _scan(self, text: str) -> Detection:
        windows = scan_windows(len(text))
        evidence = _Evidence()
        for start, end in windows:
            self._layer(text[start:end], lambda s, e, o=start: (s + o, e + o), None, 0, evidence)
        score = noisy_or(evidence.weights.values())
        ranked = sorted(evidence.weights, key=lambda k: -evidence.weights[k])
        return Detection(
            detector=self.name,
            score=round(score, 4),
            flagged=score >= self.threshold,
            reasons=[evidence.reasons[k] for k in ranked],
            spans=merge_spans(evidence.spans) if evidence.weights else [],
            truncated=len(windows) > 1,
        )

    def _layer(self, raw: str, locate: Locate, via: str | None, depth: int, ev: _Evidence) -> None:
        """Scan one layer of text: the content itself, or something decoded from it."""
        ev.layers += 1
        for start, end, hidden in tag_character_runs(raw):
            ev.add("tag_characters", TAG_WEIGHT, "hides text in invisible Unicode tag characters", locate(start, end))
            self._child(hidden, locate(start, end), "invisible Unicode tag characters", depth, ev)
        decoded = decode_escapes(raw)
        folded = canonical(decoded.text)
        norm = Normalized(folded.text, decoded.stages + folded.stages)
        words = frozenset(norm.text.translate(_PUNCTUATION).split())
        regions = hidden_regions(raw)
        for signal in SIGNALS:
            match = self._search(signal, norm.text, words)
            if match:
                weight = signal.weight * (QUOTED_MENTION_FACTOR if _quoted_mention(norm.text, *match.span()) else 1)
                self._found(signal, weight, norm.original_span(*match.span()), raw, regions, locate, via, ev)
        if not words.isdisjoint(EXFIL_VERB_WORDS):
            self._exfiltration(norm, raw, regions, locate, via, ev)
        if depth < MAX_DEPTH and (self.exhaustive or any(len(w) >= 16 for w in words)):
            for start, end, blob_text in base64_texts(decoded.text):
                self._child(blob_text, locate(*decoded.original_span(start, end)), "base64", depth, ev)

    def _search(self, signal: Signal, text: str, words: frozenset[str]) -> re.Match[str] | None:
        """The first match of `signal`, looking only near its anchors unless exhaustive."""
        if self.exhaustive:
            return signal.pattern.search(text)
        windows: list[tuple[int, int]] = []
        for anchor in signal.anchors:
            if anchor.isalnum():
                if anchor in words:
                    windows += _word_windows(text, anchor)
            elif anchor in text:
                windows.append((0, len(text)))
        for lo, hi in merge_spans(windows):
            match = signal.pattern.search(text, lo, hi)
            if match:
                return match
        return None

    def _child(self, text: str, span: tuple[int, int], via: str, depth: int, ev: _Evidence) -> None:
        if ev.layers >= MAX_LAYERS or ev.decoded_chars + len(text) > MAX_DECODED_CHARS:
            return
        ev.decoded_chars += len(text)
        # Everything found in a decoded blob is reported at the blob's place in the original.
        self._layer(text, lambda s, e: span, via, depth + 1, ev)

    def _found(self, signal: Signal, weight: float, span: tuple[int, int], raw: str, regions: Regions,
               locate: Locate, via: str | None, ev: _Evidence) -> None:
        where = locate(*span)
        ev.add(signal.name, weight, signal.reason, where)
        for key, reason in _concealment(raw[span[0]:span[1]], span, regions, via):
            ev.add(key, HIDDEN_WEIGHT, reason, where)

    def _exfiltration(self, norm: Normalized, raw: str, regions: Regions, locate: Locate, via: str | None,
                      ev: _Evidence) -> None:
        """Send/forward/upload + private data + an outside address, close together."""
        text = norm.text
        for destination in _destinations(text):
            lo = max(0, destination.start() - EXFIL_WINDOW)
            for verb in EXFIL_VERB.finditer(text, lo, destination.start()):
                if _NEGATED.search(text, max(0, verb.start() - 30), verb.start()):
                    continue  # "we will never ask you to send your password"
                if SENSITIVE.search(text, verb.start(), destination.end() + EXFIL_WINDOW):
                    span = norm.original_span(verb.start(), destination.end())
                    self._found(_EXFIL, EXFIL_WEIGHT, span, raw, regions, locate, via, ev)
                    return


def _word_windows(text: str, word: str) -> list[tuple[int, int]]:
    """Windows around whole-word occurrences of `word` ("ai" in "said" does not count)."""
    windows: list[tuple[int, int]] = []
    at = text.find(word)
    misses = 0
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            windows.append((max(0, at - BEFORE), end + AFTER))
            if len(windows) > MAX_ANCHOR_HITS:
                return [(0, len(text))]  # anchors everywhere: one full scan is cheaper
        else:
            misses += 1
            if misses > 4 * MAX_ANCHOR_HITS:
                return [(0, len(text))]
        at = text.find(word, end)
    return windows


def _destinations(text: str) -> list[re.Match[str]]:
    """Addresses and URLs that something is sent *to*, found from their '@' or '://'."""
    found: list[re.Match[str]] = []
    for marker in ("@", "://"):
        at = text.find(marker)
        while at >= 0 and len(found) < MAX_ANCHOR_HITS:
            after = at + 1
            for match in DESTINATION.finditer(text, max(0, at - 110), at + 400):
                if match.start() <= at < match.end():
                    found.append(match)
                    after = match.end()
                    break
            at = text.find(marker, after)
    return found


def _quoted_mention(text: str, start: int, end: int) -> bool:
    """True inside a phrase quoted as an example ('a page that says "ignore previous..."')."""
    quote = text.rfind('"', max(0, start - 300), start)
    if quote < 0 or "\n" in text[quote:start]:
        return False
    return '"' in text[end:end + 300] and bool(_MENTION.search(text, max(0, quote - 40), quote))


def _concealment(snippet: str, span: tuple[int, int], regions: Regions, via: str | None) -> list[tuple[str, str]]:
    """Ways the matched text was hidden from a human reader, as (key, reason) pairs."""
    found = []
    if via is not None:
        found.append((f"via:{via}", f"hides instructions in {via}"))
    for start, end, how in regions:
        if start <= span[0] and span[1] <= end:
            found.append((f"hidden:{how}", f"hides instructions in {how}"))
            break
    if not snippet.isascii():
        if INVISIBLE.search(snippet):
            found.append(("invisible", "splits words with invisible characters"))
        if any(c in LOOKALIKE_CHARS or "\uff01" <= c <= "\uff5e" for c in snippet):
            found.append(("lookalike", "disguises letters with look-alike characters"))
    if len(_ENCODED.findall(snippet, 0, 400)) >= 3:
        found.append(("encoded", "hides text in HTML entities, percent-encoding or escapes"))
    return found
