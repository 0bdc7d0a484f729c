#!/usr/bin/env python3
"""One-shot generator of corpus_dev4.json. Values come from `secrets`, so a re-run gives new values.

Refuses to overwrite corpus_dev4.json without --force, and writes nothing unless check_dev4.py accepts the result.
Split rule: a case's index within its kind, mod 5, in {0, 3} -> "frozen2" (held out), else "dev4".
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cases_ids_dev4 import national_ids  # noqa: E402
from cases_other_dev4 import others  # noqa: E402
from cases_split_dev4 import lookalikes, splits  # noqa: E402
import check_dev4  # noqa: E402

OUT = os.path.join(HERE, "corpus_dev4.json")


def build():
    cases = national_ids() + splits() + lookalikes() + others()
    counters = {}
    result = []
    for c in cases:
        index = counters.get(c["kind"], 0)
        counters[c["kind"]] = index + 1
        item = {"id": f"{c['kind']}-d4-{index:03d}",
                "kind": c["kind"], "split": "frozen2" if index % 5 in (0, 3) else "dev4"}
        item.update({k: c[k] for k in ("messages", "secret", "keep", "language", "source")})
        if c["checks"]:
            item["checks"] = c["checks"]
        result.append(item)
    return result


def main():
    if os.path.exists(OUT) and "--force" not in sys.argv:
        sys.exit(f"{OUT} exists; pass --force to overwrite it (never after results on frozen2 were recorded)")
    corpus = build()
    errors = check_dev4.validate(corpus)
    if errors:
        sys.exit("not written:\n" + "\n".join(errors))
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(corpus, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(corpus)} cases to {OUT}")


if __name__ == "__main__":
    main()
