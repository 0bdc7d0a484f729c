#!/usr/bin/env python3
"""One-shot generator of corpus_dev7.json (run with the project venv: check_dev7 needs python-stdnum).

Values come from `secrets`, so a re-run gives new values. It refuses to overwrite corpus_dev7.json without
--force, and writes nothing unless check_dev7.validate accepts the result (it redraws up to 30 times when a short
code happens to occur twice in its message). Do not regenerate once frozen5 results exist.
"""
import json
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases_cvc_pin_dev7  # noqa: E402
import cases_lookalike_dev7  # noqa: E402
import cases_national_id_dev7  # noqa: E402
import cases_password_phrase_dev7  # noqa: E402
from check_dev7 import DEV, FROZEN, validate  # noqa: E402

OUT = os.path.join(HERE, "corpus_dev7.json")
FIELD_ORDER = ("id", "kind", "split", "messages", "secret", "keep", "language", "source", "checks")
MODULES = (cases_cvc_pin_dev7, cases_national_id_dev7, cases_password_phrase_dev7, cases_lookalike_dev7)


def build():
    corpus, per_kind = [], Counter()
    for module in MODULES:
        for item in module.cases():
            index = per_kind[item["kind"]]
            per_kind[item["kind"]] += 1
            item["id"] = f"{item['kind']}-d7-{index:03d}"
            item["split"] = FROZEN if index % 5 in (0, 3) else DEV
            if not item["checks"]:
                del item["checks"]
            corpus.append({k: item[k] for k in FIELD_ORDER if k in item})
    return corpus


def main():
    if os.path.exists(OUT) and "--force" not in sys.argv:
        sys.exit(f"{OUT} exists; pass --force to overwrite (never once {FROZEN} results exist)")
    errors = []
    for _ in range(30):
        corpus = build()
        errors = validate(corpus)
        if not errors:
            break
    if errors:
        print("\n".join(errors))
        sys.exit("not written: the checker rejected every draw")
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(corpus, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(corpus)} cases to {OUT}")


if __name__ == "__main__":
    main()
