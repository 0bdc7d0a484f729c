"""A fast, dependency-free prompt-injection detector built from weighted patterns.

It normalises the text (see `normalize`), decodes what attackers hide instructions in
(base64 blobs, Unicode tag characters, entities, percent-encoding, JSON escapes; nested up
to `MAX_DEPTH` layers), and looks for the evidence listed in `signals`. Evidence found in
hidden places (invisible HTML, comments, invisible or look-alike characters, encodings)
counts extra, because a sender with an honest purpose has no reason to hide it.

Speed: a regex scan of a whole 5 KB text costs ~100 µs in CPython unless the pattern
starts with a literal, and there are over 40 patterns. So the text becomes a word set
once, a signal runs only if one of its anchor words is present, and then is tried only
just before each whole-word occurrence of that anchor. `exhaustive=True` scans everything
with every pattern instead (the tests check both find the same on the whole corpus).
"""

from __future__ import annotations

import logging
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field

from deputy.sentinel.detectors.base import FLAG_THRESHOLD, Detection, merge_spans, noisy_or, scan_windows
from deputy.sentinel.detectors.exfiltration import EXFIL_REASON, EXFIL_VERB, EXFIL_WEIGHT, find_exfiltration
from deputy.sentinel.detectors.hidden import base64_texts, hidden_regions, tag_character_runs
from deputy.sentinel.detectors.normalize import (
    INVISIBLE,
    LOOKALIKE_CHARS,
    Normalized,
    canonical,
    decode_escapes,
    word_positions,
)
from deputy.sentinel.detectors.signals import SIGNALS, Signal

log = logging.getLogger(__name__)

MAX_DEPTH = 3  # base64 inside base64 inside base64 is as deep as anyone honest goes
MAX_LAYERS = 64
MAX_DECODED_CHARS = 400_000
MAX_SPANS = 100
HIDDEN_WEIGHT = 0.35
TAG_WEIGHT = 0.6
QUOTED_MENTION_FACTOR = 0.4
AFTER = 160  # how far a signal's match may extend after the start of its anchor word
# Past this many occurrences of an anchor (per 1,000 characters), one full scan with the
# pattern is cheaper than trying it at every occurrence.
ANCHOR_HITS_PER_KCHAR = 4
_PUNCTUATION = str.maketrans({c: " " for c in string.punctuation})
_ENCODED = re.compile(r"&#?\w{1,8};|%[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}")
_MENTION = re.compile(
    r"\b(?:say|says|said|saying|like|such as|text|phrase|phrases|string|e\.g\.|example|containing|contains|reads|"
    r"wrote|called|quote|quoting)\W{0,3}$"
)
# The exfiltration check is code, not one pattern; this Signal only carries its name and weight.
_EXFIL = Signal("exfiltration", EXFIL_WEIGHT, EXFIL_REASON, frozenset(), EXFIL_VERB)

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
            span = self._search(signal, norm.text, words)
            if span:
                weight = signal.weight * (QUOTED_MENTION_FACTOR if _quoted_mention(norm.text, *span) else 1)
                self._found(signal, weight, norm.original_span(*span), raw, regions, locate, via, ev)
        span = find_exfiltration(norm.text, words)
        if span:
            self._found(_EXFIL, EXFIL_WEIGHT, norm.original_span(*span), raw, regions, locate, via, ev)
        if depth < MAX_DEPTH and (self.exhaustive or any(len(w) >= 16 for w in words)):
            for start, end, blob_text in base64_texts(decoded.text):
                self._child(blob_text, locate(*decoded.original_span(start, end)), "base64", depth, ev)

    def _search(self, signal: Signal, text: str, words: frozenset[str]) -> tuple[int, int] | None:
        """The span of the first match of `signal`, tried only at its anchors unless exhaustive."""
        if self.exhaustive or signal.near is None:
            match = signal.pattern.search(text)
            return match.span() if match else None
        if signal.scans_everything:
            match = signal.worth_scanning(text) and signal.pattern.search(text)
            return match.span() if match else None
        limit = max(16, ANCHOR_HITS_PER_KCHAR * len(text) // 1000)
        for anchor in signal.anchors & words:
            positions = word_positions(text, anchor, limit)
            if positions is None:  # anchors everywhere: one full scan is cheaper
                match = signal.pattern.search(text)
                return match.span() if match else None
            for at in positions:
                near = signal.near.match(text, max(0, at - signal.before), at + AFTER)
                if near:
                    return near.span(1)
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


def _quoted_mention(text: str, start: int, end: int) -> bool:
    """True inside a phrase quoted as an example ('a page that says "ignore previous..."').

    Such evidence counts QUOTED_MENTION_FACTOR of its weight, so security newsletters and
    docs about prompt injection are not flagged. An attacker can dress a payload up as a
    quotation too; that costs them part of the score, not the guard's rules.
    """
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
