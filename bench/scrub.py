"""How fast the vault's scrubber takes every known secret out of a text.

    python -m bench.scrub [--megabytes 1] [--secrets 50]

Everything Deputy writes where a person or the model could read it (logs, audit records,
tool results, error messages) passes through `vault.Scrubber` first, so its cost is paid
on every tool result. The text is ordinary words with one of the secrets on every line,
the worst case for a scrubber that stops at each hit. The baseline is the obvious way,
one `str.replace` per secret; the target is at least a megabyte per second and no slower
than the baseline by more than a small factor, whatever the number of secrets.
"""

from __future__ import annotations

import argparse
import random
import secrets
import time

from bench.stats import table
from deputy.vault import REDACTED, Scrubber

_WORDS = ("the meeting moved to thursday please bring the signed form and your invoice number from last month "
          "our driver will call when the parcel arrives at the front desk").split()


def sample(megabytes: float, count: int, seed: int = 1) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    known = [secrets.token_urlsafe(rng.randint(6, 40)) for _ in range(count)]
    chunks: list[str] = []
    size = 0
    while size < megabytes * 1_000_000:
        chunk = " ".join(rng.choice(_WORDS) for _ in range(50)) + " " + rng.choice(known) + "\n"
        chunks.append(chunk)
        size += len(chunk)
    return "".join(chunks), known


def _best_of(rounds: int, work) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def run(megabytes: float = 1.0, count: int = 50, rounds: int = 5) -> dict[str, float]:
    text, known = sample(megabytes, count)
    scrubber = Scrubber(known)
    out = scrubber.scrub(text)
    assert not any(secret in out for secret in known), "the scrubber missed a secret"

    def naive() -> str:
        result = text
        for secret in sorted(known, key=len, reverse=True):
            result = result.replace(secret, REDACTED)
        return result

    ours = _best_of(rounds, lambda: scrubber.scrub(text))
    baseline = _best_of(rounds, naive)
    figures = {"seconds": ours, "mb_per_second": megabytes / ours, "baseline_seconds": baseline,
               "ratio_to_baseline": ours / baseline}
    print(table(["", "Scrubber", "one replace per secret"], [
        ["seconds per MB", f"{ours / megabytes:.3f}", f"{baseline / megabytes:.3f}"],
        ["MB per second", f"{megabytes / ours:.1f}", f"{megabytes / baseline:.1f}"],
    ]))
    print(f"{count} secrets, {megabytes:g} MB; Scrubber / baseline time: {ours / baseline:.2f}x "
          f"(target: at least 1 MB/s)")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=1.0)
    parser.add_argument("--secrets", type=int, default=50)
    args = parser.parse_args()
    run(args.megabytes, args.secrets)


if __name__ == "__main__":
    main()
