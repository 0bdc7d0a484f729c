"""Prompt-injection detectors for untrusted content (emails, pages, invites, tool results).

A detection raises the risk of the goal that read the content; it never allows or denies
an action (the guard's rules do). `default_detector()` is what callers should use: the
heuristic always, plus the embedding detector when its optional packages are installed
and the caller asks for it.
"""

from deputy.sentinel.detectors.base import (
    FLAG_THRESHOLD,
    PREFIX_CHARS,
    CombinedDetector,
    Detection,
    DetectorUnavailable,
    InjectionDetector,
    scan_windows,
)
from deputy.sentinel.detectors.heuristic import HeuristicDetector


def default_detector(use_embedding: bool = False) -> InjectionDetector:
    """The heuristic detector, combined with the embedding one if asked for and installed."""
    heuristic = HeuristicDetector()
    if not use_embedding:
        return heuristic
    try:
        from deputy.sentinel.detectors.embedding import EmbeddingDetector

        return CombinedDetector([heuristic, EmbeddingDetector()])
    except DetectorUnavailable:
        return heuristic


__all__ = [
    "FLAG_THRESHOLD", "PREFIX_CHARS", "CombinedDetector", "Detection", "DetectorUnavailable", "HeuristicDetector",
    "InjectionDetector", "default_detector", "scan_windows",
]
