"""Recall and precision of the chat's secret scanner on a corpus it was not written against.

    python -m bench.secret_recall [--split frozen|dev|dev2|dev3|dev4|frozen2|dev5|frozen3|dev6|frozen4|dev7|frozen5|all] [--corpus PATH] [--misses]

The corpus (tests/bot/secret_corpus/, see its README; `dev2` and `dev3` are a second and a third development
set in tests/bot/secret_corpus/dev2/ and dev3/, each written later by someone who had not read the scanner;
the fourth, in dev4/, was written the same way, with a development part `dev4` and a held-out part `frozen2`, and
so were the fifth, in dev5/, with `dev5` and its held-out part `frozen3`, and the sixth, in dev6/, with `dev6` and
`frozen4`, and the seventh, in dev7/, with `dev7` and `frozen5`)
lists messages as a user would send them, each with the secret values that must not survive and text that must. An item with
secrets counts as caught when none of its values is left in what Deputy keeps (the message
with each secret replaced by a handle) and its context words are; a look-alike counts as kept when nothing in it is
taken for a secret. Messages of one item are read in order, as the chat reads them (a
message naming a secret without its value is read with the next one).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from deputy.core.secret_scan import find_secrets_after, is_lead, normalise

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "bot" / "secret_corpus" / "corpus.json"
CORPUS_DEV2 = CORPUS.parent / "dev2" / "corpus_dev2.json"
CORPUS_DEV3 = CORPUS.parent / "dev3" / "corpus_dev3.json"
CORPUS_DEV4 = CORPUS.parent / "dev4" / "corpus_dev4.json"
CORPUS_DEV5 = CORPUS.parent / "dev5" / "corpus_dev5.json"
CORPUS_DEV6 = CORPUS.parent / "dev6" / "corpus_dev6.json"
CORPUS_DEV7 = CORPUS.parent / "dev7" / "corpus_dev7.json"
DEVELOPMENT = ("dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7")


def load(split: str, corpus: Path | None = None) -> list[dict]:
    """The items of one split ("frozen", "dev", "dev2" ... "dev7", "frozen2" ... "frozen5", or "all" of the first corpus)."""
    sets = {"dev2": CORPUS_DEV2, "dev3": CORPUS_DEV3, "dev4": CORPUS_DEV4, "frozen2": CORPUS_DEV4, "dev5": CORPUS_DEV5,
            "frozen3": CORPUS_DEV5, "dev6": CORPUS_DEV6, "frozen4": CORPUS_DEV6,
            "dev7": CORPUS_DEV7, "frozen5": CORPUS_DEV7}
    path = corpus or sets.get(split, CORPUS)
    return [i for i in json.loads(path.read_text(encoding="utf-8")) if split == "all" or i["split"] == split]


def kept_text(messages: list[str]) -> tuple[list[str], bool]:
    """What Deputy keeps of each message, and whether anything was taken for a secret."""
    kept, flagged, lead = [], False, None
    for message in messages:
        scan = find_secrets_after(lead, message)
        flagged = flagged or scan.found
        kept.append(scan.redacted() if scan.found else scan.text)
        lead = scan.text if not scan.found and is_lead(scan.text) else None
    return kept, flagged


def judge(item: dict) -> bool:
    kept, flagged = kept_text(item["messages"])
    if not item["secret"]:
        return not flagged
    joined = "\n".join(kept)
    caught = all(secret not in joined and normalise(secret) not in joined for secret in item["secret"])
    return caught and all(normalise(keep) in joined for keep in item["keep"])


def evaluate(items: list[dict]) -> dict[str, tuple[int, int]]:
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        tally[item["kind"]][0] += judge(item)
        tally[item["kind"]][1] += 1
    return {kind: (good, total) for kind, (good, total) in sorted(tally.items())}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="frozen")
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    if args.misses and args.split not in DEVELOPMENT:
        parser.error("--misses is for the development sets only: nobody reads the frozen part's misses")
    items = load(args.split, Path(args.corpus) if args.corpus else None)
    started = time.perf_counter()
    results = evaluate(items)
    elapsed = time.perf_counter() - started
    for kind, (good, total) in results.items():
        what = "kept" if kind == "lookalike" else "caught"
        print(f"{kind:20} {good:4}/{total:<4} {what} {100 * good / total:6.1f} %")
    print(f"{len(items)} items in {elapsed * 1000:.0f} ms")
    if args.misses:
        for item in items:
            if not judge(item):
                print(item["kind"], repr(item["messages"])[:200], "| secret:", repr(item["secret"])[:80])


if __name__ == "__main__":
    main()
