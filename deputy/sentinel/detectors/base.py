"""What every injection detector returns and promises, and how several are combined.

A detection only *raises the risk* of the goal whose content it scanned (more asks, a
warning on the next approval card). It never allows or denies anything: the guard's
deterministic rules are the security boundary, so a detector that misses an attack costs
an extra safeguard, not the user's money.

Detectors see text of any size. To keep their cost bounded, they scan at most the first
`PREFIX_CHARS` characters plus `SAMPLE_WINDOWS` evenly spaced windows of `WINDOW_CHARS`
characters from the rest, the last of which ends at the end of the text (instructions are
often appended after a long body). `scan_windows` says exactly which ranges are read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

log = logging.getLogger(__name__)

PREFIX_CHARS = 200_000
WINDOW_CHARS = 4_096
SAMPLE_WINDOWS = 8
FLAG_THRESHOLD = 0.5


class DetectorUnavailable(RuntimeError):
    """A detector cannot run here (e.g. its optional model package is not installed).

    Callers fall back to the detectors that are available; the product works without it.
    """


class Detection(BaseModel):
    """The verdict of one detector on one piece of untrusted content."""

    detector: str
    score: float = Field(ge=0.0, le=1.0, description="0 = looks harmless, 1 = certainly an injection.")
    flagged: bool
    reasons: list[str] = Field(
        default_factory=list, description="Short plain sentences, e.g. 'asks to ignore previous instructions'."
    )
    spans: list[tuple[int, int]] = Field(default_factory=list, description="[start, end) offsets in the scanned text.")
    truncated: bool = Field(default=False, description="The text was longer than the bounded scan; see scan_windows.")

    @classmethod
    def clean(cls, detector: str, truncated: bool = False) -> Detection:
        """Nothing suspicious found."""
        return cls(detector=detector, score=0.0, flagged=False, truncated=truncated)


@runtime_checkable
class InjectionDetector(Protocol):
    """Anything that scores untrusted text for planted instructions.

    `scan` must never raise on any input (random bytes decoded as text, megabytes, nested
    encodings) and must bound its own cost; `source` names the channel the text came from
    ("email", "web", "calendar", "document", "api_json", "mcp_tool"...).
    """

    name: str

    def scan(self, text: str, source: str) -> Detection: ...


def scan_windows(length: int) -> list[tuple[int, int]]:
    """The [start, end) ranges of a text of `length` characters that detectors read."""
    if length <= PREFIX_CHARS + SAMPLE_WINDOWS * WINDOW_CHARS:
        return [(0, length)]
    windows = [(0, PREFIX_CHARS)]
    step = (length - PREFIX_CHARS - WINDOW_CHARS) / (SAMPLE_WINDOWS - 1)
    for i in range(SAMPLE_WINDOWS):
        start = PREFIX_CHARS + round(i * step)
        windows.append((start, start + WINDOW_CHARS))
    windows[-1] = (length - WINDOW_CHARS, length)
    return windows


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping spans covering the same characters."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def noisy_or(weights: Iterable[float]) -> float:
    """Combine independent pieces of evidence: 1 - prod(1 - w)."""
    remaining = 1.0
    for weight in weights:
        remaining *= 1.0 - min(max(weight, 0.0), 1.0)
    return 1.0 - remaining


class CombinedDetector:
    """Runs several detectors and merges them: max score, union of reasons and spans.

    A detector that raises is logged and skipped, so one broken detector never hides the
    verdicts of the others (and never crashes the caller).
    """

    def __init__(self, detectors: Sequence[InjectionDetector], name: str | None = None) -> None:
        if not detectors:
            raise ValueError("CombinedDetector needs at least one detector")
        self.detectors = list(detectors)
        self.name = name or "+".join(d.name for d in self.detectors)

    def scan(self, text: str, source: str) -> Detection:
        results: list[Detection] = []
        for detector in self.detectors:
            try:
                results.append(detector.scan(text, source))
            except Exception:
                log.exception("injection detector %s failed; its verdict is skipped", detector.name)
        return merge(results, self.name)


def merge(results: Sequence[Detection], name: str) -> Detection:
    """One detection from several: highest score, flagged if any flagged, all reasons."""
    if not results:
        return Detection.clean(name)
    reasons: list[str] = []
    for result in results:
        reasons.extend(r for r in result.reasons if r not in reasons)
    return Detection(
        detector=name,
        score=max(r.score for r in results),
        flagged=any(r.flagged for r in results),
        reasons=reasons,
        spans=merge_spans(s for r in results for s in r.spans),
        truncated=any(r.truncated for r in results),
    )
