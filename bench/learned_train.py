"""Training the scanner's learned second opinion (deputy/core/secret_scan/learned.py) from the development corpora.

    python -m bench.learned_train            # leave-one-corpus-out estimate, then the shipped weights
    python -m bench.learned_train --cv-only  # the estimate alone, nothing written

Only the development parts are read (dev, dev2 ... dev7: `bench.secret_recall.DEVELOPMENT`); the held-out parts
are never opened. Every token that could be a secret value (`learned.candidates`) in every message is an example:
it is a secret when it overlaps one of the item's secret values, otherwise not (look-alikes, context words, and
everything else in a message; a login's user name and a card's expiry date, neutral in the corpus, are left out).
A message that follows one naming a secret is read as the scanner reads it, after that label.

The model is an L2-regularised logistic regression fitted by full-batch gradient descent (Adam, fixed steps,
no randomness), each non-secret token counting three times, so a re-run rebuilds the same weights. Features seen fewer than twice are dropped.

The threshold is chosen by leave-one-corpus-out: for each development corpus, a model trained on the six others
scores it, and the whole scanner (rules, then the model) is judged on it exactly as `bench.secret_recall` judges
(`evaluate`). The threshold kept is the lowest at which the look-alikes of all seven held-out folds together are
still kept at 99 % or more.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from bench.secret_recall import DEVELOPMENT, evaluate, load
from deputy.core.secret_scan import is_lead, normalise
from deputy.core.secret_scan import learned

THRESHOLDS = (0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.993, 0.995, 0.997, 0.998, 0.999)
L2 = 1e-4
STEPS = 400
MIN_COUNT = 2
NEGATIVE_WEIGHT = 3.0  # a look-alike wrongly taken costs more than a secret missed: the rules still read it
_NEUTRAL_KINDS = ("login", "card")


def fingerprint(splits: tuple[str, ...] = DEVELOPMENT) -> str:
    """A hash of the development items the weights are learned from (changes when any of them does)."""
    digest = hashlib.sha256()
    for split in splits:
        digest.update(json.dumps(load(split), sort_keys=True, ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()


def readings(item: dict) -> list[tuple[str, int]]:
    """Each text the scanner reads for this item, with where its own message starts in it."""
    out, previous = [], None
    for message in item["messages"]:
        text = normalise(message)
        out.append((text, 0))
        if previous is not None and is_lead(previous):
            head = previous.rstrip().removesuffix("?").rstrip()
            head += " " if head.endswith((":", "=")) else ": "
            out.append((head + text, len(head)))
        previous = text
    return out


def _occurrences(text: str, values: list[str]) -> list[tuple[int, int]]:
    spans = []
    for value in {v for raw in values for v in (raw, normalise(raw))}:
        start = text.find(value)
        while value and start >= 0:
            spans.append((start, start + len(value)))
            start = text.find(value, start + 1)
    return spans


def examples(items: list[dict]) -> list[tuple[list[str], int, str, int]]:
    """(feature names, label, kind of the item, number of the item) for every candidate token of `items`."""
    out = []
    for number, item in enumerate(items):
        for text, begin in readings(item):
            secrets = _occurrences(text, item["secret"])
            keeps = _occurrences(text, item["keep"])
            lowered = text.lower()
            if len(lowered) != len(text):
                lowered = text
            words = learned.words_of(lowered)
            for start, end in learned.candidates(text):
                if start < begin:
                    continue
                positive = any(s < end and start < e for s, e in secrets)
                kept = any(s < end and start < e for s, e in keeps)
                if not positive and not kept and item["kind"] in _NEUTRAL_KINDS:
                    continue
                out.append((learned.features(text, lowered, words, start, end), int(positive), item["kind"], number))
    return out


def fit(rows: list[tuple[list[str], int, str, int]]) -> tuple[dict[str, int], np.ndarray, float, float]:
    counts = Counter(name for names, *_ in rows for name in set(names))
    vocabulary = sorted(name for name, count in counts.items() if count >= MIN_COUNT)
    index = {name: i for i, name in enumerate(vocabulary)}
    columns = [sorted({index[n] for n in names if n in index}) for names, *_ in rows]
    lengths = np.array([len(c) for c in columns])
    indices = np.array([i for c in columns for i in c], dtype=np.int64)
    rows_of = np.repeat(np.arange(len(rows)), lengths)
    y = np.array([label for _, label, *_ in rows], dtype=np.float64)
    share = np.where(y > 0, 1.0, NEGATIVE_WEIGHT)
    share /= share.sum()
    weights, bias = np.zeros(len(vocabulary)), 0.0
    m, v, mb, vb = np.zeros_like(weights), np.zeros_like(weights), 0.0, 0.0
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    for step in range(1, STEPS + 1):
        z = np.bincount(rows_of, weights=weights[indices], minlength=len(rows)) + bias
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        residual = (p - y) * share
        grad = np.bincount(indices, weights=residual[rows_of], minlength=len(vocabulary)) + L2 * weights
        grad_b = residual.sum()
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        mb = beta1 * mb + (1 - beta1) * grad_b
        vb = beta2 * vb + (1 - beta2) * grad_b * grad_b
        correction = np.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        weights -= rate * correction * m / (np.sqrt(v) + 1e-8)
        bias -= rate * correction * mb / (np.sqrt(vb) + 1e-8)
    return index, weights.astype(np.float32).astype(np.float64), float(np.float32(bias)), 0.5


def _fold(held_out: str) -> tuple[str, dict[float, dict[str, tuple[int, int]]], dict[float, dict[str, tuple[int, int]]]]:
    """Train on the six other development corpora, judge the held-out one with the whole scanner at each threshold."""
    rows = [row for split in DEVELOPMENT if split != held_out for row in examples(load(split))]
    index, weights, bias, _ = fit(rows)
    items = load(held_out)
    scanner, alone = {}, {}
    learned.OVERRIDE[0] = (index, weights, bias, 2.0)
    scanner[2.0] = evaluate(items)  # the rules alone
    held = examples(items)
    scores = [learned.score(names, (index, weights, bias, 0.5)) for names, *_ in held]
    for threshold in THRESHOLDS:
        learned.OVERRIDE[0] = (index, weights, bias, threshold)
        scanner[threshold] = evaluate(items)
        alone[threshold] = _alone(items, held, scores, threshold)
    return held_out, scanner, alone


def _alone(items: list[dict], held: list, scores: list[float], threshold: float) -> dict[str, tuple[int, int]]:
    """The model without the rules: a secret item counts when all its secret tokens score above the threshold."""
    by_item: dict[int, list[bool]] = defaultdict(list)
    for (_, label, _, number), s in zip(held, scores):
        if label or not items[number]["secret"]:
            by_item[number].append(s >= threshold)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for number, item in enumerate(items):
        flags = by_item.get(number, [])
        good = not any(flags) if not item["secret"] else bool(flags) and all(flags)
        tally[item["kind"]][0] += good
        tally[item["kind"]][1] += 1
    return {k: (g, t) for k, (g, t) in sorted(tally.items())}


def _pooled(results: dict, threshold: float) -> dict[str, tuple[int, int]]:
    total: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for per_threshold in results.values():
        for kind, (good, count) in per_threshold[threshold].items():
            total[kind][0] += good
            total[kind][1] += count
    return {k: (g, t) for k, (g, t) in sorted(total.items())}


def cross_validate() -> float:
    with ProcessPoolExecutor(max_workers=4) as pool:
        folds = list(pool.map(_fold, DEVELOPMENT))
    scanner = {name: s for name, s, _ in folds}
    alone = {name: a for name, _, a in folds}
    rules = _pooled(scanner, 2.0)
    print("leave-one-corpus-out, all seven development corpora pooled (items kept or caught / items)")
    kinds = list(rules)
    print(f"{'threshold':>10} " + " ".join(f"{k[:11]:>11}" for k in kinds))
    print(f"{'rules':>10} " + " ".join(f"{100 * g / t:10.1f}%" for g, t in rules.values()))
    chosen = 2.0
    for threshold in THRESHOLDS:
        both = _pooled(scanner, threshold)
        print(f"{threshold:>10} " + " ".join(f"{100 * g / t:10.1f}%" for g, t in both.values()))
        good, count = both["lookalike"]
        if chosen == 2.0 and good >= 0.99 * count:
            chosen = threshold
    print("model alone (each secret token above the threshold; look-alikes: no token above it)")
    for threshold in THRESHOLDS:
        only = _pooled(alone, threshold)
        print(f"{threshold:>10} " + " ".join(f"{100 * g / t:10.1f}%" for g, t in only.values()))
    print("per held-out corpus at the chosen threshold", chosen)
    for name in DEVELOPMENT:
        if chosen == 2.0:
            break
        print(name, {k: f"{g}/{t}" for k, (g, t) in scanner[name][chosen].items()},
              "alone:", {k: f"{g}/{t}" for k, (g, t) in alone[name][chosen].items()})
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cv-only", action="store_true")
    parser.add_argument("--threshold", type=float, default=None, help="skip the estimate, use this threshold")
    args = parser.parse_args()
    threshold = args.threshold if args.threshold is not None else cross_validate()
    if args.cv_only:
        return
    index, weights, bias, _ = fit([row for split in DEVELOPMENT for row in examples(load(split))])
    names = np.array(sorted(index, key=index.get))
    np.savez_compressed(learned.WEIGHTS, names=names, weights=weights.astype(np.float32),
                        bias=np.float32(bias), threshold=np.float64(threshold), corpora=np.array(fingerprint()))
    print(f"wrote {learned.WEIGHTS} ({len(names)} features, threshold {threshold})")


if __name__ == "__main__":
    main()
