"""Assemble corpus.json from the hand-written gen_*.py files.
Split rule (fixed before any tuning): within each part, the 1-based ordinal n of an
entry (the number in its id; for mandates their position) is frozen iff n % 5 in {0, 3}."""
import json
from gen_mandates import MANDATES
from gen_incoming import IN
from gen_outgoing import OUT

def split(n):
    return "frozen" if n % 5 in (0, 3) else "dev"

mandates = []
for n, m in enumerate(MANDATES, 1):
    mandates.append({**m, "split": split(n)})
incoming = []
for n, e in enumerate(IN, 1):
    incoming.append({"id": f"in-{n:03d}", **e, "split": split(n)})
outgoing = []
for n, e in enumerate(OUT, 1):
    outgoing.append({"id": f"out-{n:03d}", **e, "split": split(n)})
with open("corpus.json", "w", encoding="utf-8") as f:
    json.dump({"version": 1, "split_rule": "1-based ordinal n within each part; frozen iff n % 5 in {0, 3}",
               "mandates": mandates, "incoming": incoming, "outgoing": outgoing}, f, ensure_ascii=False, indent=1)
print(len(mandates), len(incoming), len(outgoing))
