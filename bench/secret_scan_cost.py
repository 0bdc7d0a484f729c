"""What reading one chat message for secrets costs.

    python -m bench.secret_scan_cost [--rounds 20] [--all-sets]

Every message, caption, command and button reply passes `deputy.core.secret_scan.find_secrets`
before anything is stored, so its cost is paid on every update. The messages are the whole
evaluation corpus (tests/bot/secret_corpus: secrets, look-alikes, ordinary requests in seven
languages) plus long ordinary goals (with `--all-sets`, the second to fifth sets' messages
too); each is timed alone, after one warm-up pass (the rule set
is compiled once per process). The target is under 1 ms at p99. On a shared machine a single
timing may include time the process was not running at all, so each message's cost is the
median of its rounds; the p99 is taken over messages. Every raw timing is summarised too.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time

from bench.secret_recall import CORPUS, CORPUS_DEV2, CORPUS_DEV3, CORPUS_DEV4, CORPUS_DEV5
from bench.stats import Summary
from deputy.core.secret_scan import find_secrets

_LONG = ("Find me a 4-day trip to Chicago under $1,200 that fits my calendar, prefer a window seat, "
         "no red-eye flights, and a hotel near the river with free cancellation. ") * 8


def messages(all_sets: bool = False) -> list[str]:
    corpora = (CORPUS, CORPUS_DEV2, CORPUS_DEV3, CORPUS_DEV4, CORPUS_DEV5) if all_sets else (CORPUS,)
    texts = [message for corpus in corpora for item in json.loads(corpus.read_text(encoding="utf-8"))
             for message in item["messages"]]
    return texts + [_LONG, _LONG[:400], "ok", "thanks!"]


def run(rounds: int = 20, all_sets: bool = False) -> tuple[Summary, Summary, Summary]:
    """(per-message median wall time, per-message median CPU time, every raw wall-clock timing)."""
    texts = messages(all_sets)
    for text in texts:
        find_secrets(text)
    wall: list[list[float]] = [[] for _ in texts]
    cpu: list[list[float]] = [[] for _ in texts]
    gc.collect()
    for _ in range(rounds):
        for index, text in enumerate(texts):
            started, started_cpu = time.perf_counter(), time.thread_time()
            find_secrets(text)
            cpu[index].append(time.thread_time() - started_cpu)
            wall[index].append(time.perf_counter() - started)
    return (Summary.of([statistics.median(times) for times in wall]),
            Summary.of([statistics.median(times) for times in cpu]),
            Summary.of([t for times in wall for t in times]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--all-sets", action="store_true", help="also the second to fifth sets")
    args = parser.parse_args()
    for name, summary in zip(("per message", "CPU per msg", "raw timings"), run(args.rounds, args.all_sets)):
        print(f"{name:12} n={summary.n}: median {summary.median * 1e3:.3f} ms, p99 {summary.p99 * 1e3:.3f} ms, "
              f"mean {summary.mean * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
