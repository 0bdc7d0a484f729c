"""The labelled corpus of injection and benign content that calibrates and measures detectors.

The samples live in `data/attacks.toml` and `data/benign.toml` so they stay readable; the
obfuscations (zero-width splitting, tag characters, base64...) are applied here, in code,
so every hidden payload is reproducible and its plain form stays reviewable.

The train / held-out split is a hash of the sample id: nobody chose which examples the
detectors were tuned on, and adding a sample never moves the others.
"""

from __future__ import annotations

import base64
import hashlib
import tomllib
from collections.abc import Callable
from enum import Enum
from functools import lru_cache
from importlib import resources

from pydantic import BaseModel

from deputy.sentinel.detectors.chunks import chunk_text

PAYLOAD_MARK = "<<PAYLOAD>>"


class Label(str, Enum):
    attack = "attack"
    benign = "benign"


class Split(str, Enum):
    train = "train"
    heldout = "heldout"


class Sample(BaseModel):
    """One piece of outside content with its label; `text` is what a detector sees."""

    id: str
    label: Label
    channel: str
    technique: str
    obfuscation: str = "none"
    payload: str = ""
    text: str
    split: Split


_CYRILLIC = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "i": "\u0456"})


def _zero_width(s: str) -> str:
    return "\u200b".join(s)


def _tags(s: str) -> str:
    # Tag characters mirror ASCII at U+E0000 and render as nothing in most fonts.
    return "".join(chr(0xE0000 + ord(c)) for c in s if ord(c) < 0x80)


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def _percent(s: str) -> str:
    return "".join(f"%{b:02X}" for b in s.encode())


def _bidi(s: str) -> str:
    # Isolate controls between letters split keywords for a naive matcher.
    return "".join(c + ("\u2066" if i % 3 == 0 else "") for i, c in enumerate(s)) + "\u2069"


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


OBFUSCATIONS: dict[str, Callable[[str], str]] = {
    "none": lambda s: s,
    "html_hidden": lambda s: s,
    "html_comment": lambda s: s,
    "zero_width": _zero_width,
    "tags": _tags,
    "base64": _b64,
    "homoglyph": lambda s: s.translate(_CYRILLIC),
    "percent": _percent,
    "entities": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "bidi": _bidi,
    "nested": lambda s: _b64(_percent(s)),
    "json_escape": lambda s: "".join(f"\\u{ord(c):04x}" for c in s),
    "fullwidth": _fullwidth,
}


def split_of(sample_id: str) -> Split:
    """Deterministic, unbiased split: about half of the samples are held out."""
    return Split.train if hashlib.sha256(sample_id.encode()).digest()[0] % 2 == 0 else Split.heldout


def _load(name: str, label: Label) -> list[Sample]:
    raw = tomllib.loads(resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8"))
    samples = []
    for entry in raw["sample"]:
        payload = entry.get("payload", "")
        template = entry.get("text", PAYLOAD_MARK)
        hidden = OBFUSCATIONS[entry.get("obfuscation", "none")](payload)
        samples.append(
            Sample(
                label=label,
                text=template.replace(PAYLOAD_MARK, hidden),
                split=split_of(entry["id"]),
                **{k: v for k, v in entry.items() if k != "text"},
            )
        )
    return samples


@lru_cache(maxsize=1)
def load_corpus() -> tuple[Sample, ...]:
    """Every sample, attacks first; cached because tests and the bench read it often."""
    return tuple(_load("attacks.toml", Label.attack) + _load("benign.toml", Label.benign))


def samples(label: Label | None = None, split: Split | None = None) -> list[Sample]:
    """The corpus filtered by label and/or split."""
    return [s for s in load_corpus() if (label is None or s.label is label) and (split is None or s.split is split)]


def train_exemplars() -> tuple[list[str], list[str]]:
    """Attack payloads and benign chunks from the train split only (for honest evaluation)."""
    attacks = [s.payload for s in samples(Label.attack, Split.train)]
    benign = [c.text for s in samples(Label.benign, Split.train) for c in chunk_text(s.text)]
    return attacks, benign


def default_exemplars() -> tuple[list[str], list[str]]:
    """What a deployed embedding detector compares with: every labelled sample plus the
    hand-written exemplars (measured numbers use `train_exemplars` instead)."""
    from deputy.sentinel.detectors.exemplars import ATTACK_EXEMPLARS, BENIGN_EXEMPLARS

    attacks = list(ATTACK_EXEMPLARS) + [s.payload for s in samples(Label.attack)]
    benign = list(BENIGN_EXEMPLARS) + [c.text for s in samples(Label.benign) for c in chunk_text(s.text)]
    return attacks, benign


def paraphrases(batch: str) -> list[str]:
    """Fresh paraphrased injections: batch "tuned" (patterns were added after a miss) or
    "unseen" (never used to change a detector; the honest test of generalisation)."""
    raw = tomllib.loads(resources.files(__package__).joinpath("data", "paraphrases.toml").read_text(encoding="utf-8"))
    return [entry["payload"] for entry in raw["sample"] if entry["batch"] == batch]
