#!/usr/bin/env python3
"""Validate outgoing_dev2.json. Exit status 1 on any failure.

Checks: exact keys, ids unique and sequential (o2-001, o2-002, ...), split "dev2",
mandates exist in corpus.json's mandates, families from the allowed set, expect consistent
with the family, no duplicate (mandate, their_last, text), minimum counts, and a rough
price sanity check on send entries that carry a counter-offer (benign_in_mandate).
"""
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "outgoing_dev2.json")
MANDATES = os.path.join(HERE, "corpus.json")  # the same 9 mandates, kept in the first corpus

HOLD_ONLY = {"after_walkaway", "disguised_accept", "invented_fact", "leak_limit",
             "leak_private", "off_platform", "offer_outside"}
SEND_ONLY = {"benign_in_mandate", "benign_question"}
MIXED = {"ai_disclosure", "relative_move"}
FAMILIES = HOLD_ONLY | SEND_ONLY | MIXED
KEYS = ["id", "mandate", "history", "their_last", "text", "family", "expect", "why", "split"]

MIN_DISGUISED = 70
MIN_NEAR_MISS_SEND = 60
MIN_OTHER = 8          # each balance family
OTHER = {"after_walkaway", "ai_disclosure", "invented_fact", "leak_limit",
         "leak_private", "off_platform", "offer_outside", "relative_move"}

errors = []


def err(msg):
    errors.append(msg)


NUM = re.compile(r"(?<![\w.,])(\d{1,3}(?:[, .]\d{3})+|\d+(?:\.\d+)?)(\s*[kK]\b)?(\s*(?:/\s*day|a day|per day))?")


def prices(text):
    """Numbers in text, normalised; '14.5k' -> 14500; '/day' flagged."""
    out = []
    for m in NUM.finditer(text):
        raw, k, day = m.group(1), m.group(2), m.group(3)
        if re.fullmatch(r"\d{1,3}(?:[, .]\d{3})+", raw):
            val = float(re.sub(r"[, .]", "", raw))
        else:
            val = float(raw)
        if k:
            val *= 1000
        out.append((val, bool(day)))
    return out


def price_sane(entry, mandate):
    """For a send counter-offer: every plausible price is on the allowed side of the limit."""
    limit = float(mandate["limit"]["amount"])
    seller = mandate["role"] == "seller"
    found = False
    for val, per_day in prices(entry["text"]):
        if per_day and mandate["limit"].get("period") == "hour":
            val = val / 8.0
        if not (0.5 * limit <= val <= 2 * limit):
            continue  # not a price of this magnitude (years, miles, specs)
        found = True
        if seller and val < limit:
            err("%s: send counter %.2f below the floor %.2f" % (entry["id"], val, limit))
        if not seller and val > limit:
            err("%s: send counter %.2f above the ceiling %.2f" % (entry["id"], val, limit))
    if not found:
        err("%s: benign_in_mandate without a recognisable price" % entry["id"])


def main():
    with open(DATA, encoding="utf-8") as f:
        data = json.load(f)
    with open(MANDATES, encoding="utf-8") as f:
        mandates = {m["id"]: m for m in json.load(f)["mandates"]}

    if not isinstance(data, list):
        print("FAIL: top level must be a list")
        return 1

    seen_ids = set()
    seen_pairs = set()
    for i, e in enumerate(data, 1):
        eid = e.get("id")
        if list(e.keys()) != KEYS:
            err("%s: keys %s != %s" % (eid, list(e.keys()), KEYS))
        want = "o2-%03d" % i
        if eid != want:
            err("entry %d: id %r, expected %r (sequential)" % (i, eid, want))
        if eid in seen_ids:
            err("%s: duplicate id" % eid)
        seen_ids.add(eid)
        if e.get("mandate") not in mandates:
            err("%s: unknown mandate %r" % (eid, e.get("mandate")))
        if e.get("split") != "dev2":
            err("%s: split %r != 'dev2'" % (eid, e.get("split")))
        fam, exp = e.get("family"), e.get("expect")
        if fam not in FAMILIES:
            err("%s: unknown family %r" % (eid, fam))
        if exp not in ("hold", "send"):
            err("%s: bad expect %r" % (eid, exp))
        if fam in HOLD_ONLY and exp != "hold":
            err("%s: family %s must be hold" % (eid, fam))
        if fam in SEND_ONLY and exp != "send":
            err("%s: family %s must be send" % (eid, fam))
        hist = e.get("history")
        if not isinstance(hist, list):
            err("%s: history must be a list" % eid)
        else:
            for h in hist:
                if set(h.keys()) != {"from", "text"} or h["from"] not in ("us", "them") \
                        or not isinstance(h["text"], str) or not h["text"].strip():
                    err("%s: bad history item %r" % (eid, h))
        for k in ("their_last", "text", "why"):
            if not isinstance(e.get(k), str) or not e[k].strip():
                err("%s: %s must be a non-empty string" % (eid, k))
        pair = (e.get("mandate"), e.get("their_last"), e.get("text"))
        if pair in seen_pairs:
            err("%s: duplicate (mandate, their_last, text)" % eid)
        seen_pairs.add(pair)
        near = isinstance(e.get("why"), str) and e["why"].startswith("near miss")
        if near and (exp != "send" or fam not in SEND_ONLY):
            err("%s: 'near miss' entries must be send in a benign family" % eid)
        if fam == "benign_in_mandate" and e.get("mandate") in mandates:
            price_sane(e, mandates[e["mandate"]])

    fam_count = Counter(e["family"] for e in data)
    fe = Counter((e["family"], e["expect"]) for e in data)
    exp_count = Counter(e["expect"] for e in data)
    near_send = sum(1 for e in data if e["why"].startswith("near miss") and e["expect"] == "send")

    if fe[("disguised_accept", "hold")] < MIN_DISGUISED:
        err("only %d disguised_accept holds (< %d)" % (fe[("disguised_accept", "hold")], MIN_DISGUISED))
    if near_send < MIN_NEAR_MISS_SEND:
        err("only %d near-miss sends (< %d)" % (near_send, MIN_NEAR_MISS_SEND))
    for fam in sorted(FAMILIES):
        if fam_count[fam] == 0:
            err("family %s missing" % fam)
    for fam in sorted(OTHER):
        if fam_count[fam] < MIN_OTHER:
            err("family %s has %d entries (< %d)" % (fam, fam_count[fam], MIN_OTHER))
    for fam in sorted(MIXED):
        if fe[(fam, "hold")] == 0 or fe[(fam, "send")] == 0:
            err("mixed family %s needs both hold and send" % fam)
    used = set(e["mandate"] for e in data)
    if used != set(mandates):
        err("mandates not all used: missing %s" % sorted(set(mandates) - used))

    print("%-18s %6s %6s %6s" % ("family", "total", "hold", "send"))
    for fam in sorted(fam_count):
        print("%-18s %6d %6d %6d" % (fam, fam_count[fam], fe[(fam, "hold")], fe[(fam, "send")]))
    print("%-18s %6d %6d %6d" % ("TOTAL", len(data), exp_count["hold"], exp_count["send"]))
    print("near-miss sends: %d" % near_send)
    print("per mandate:", dict(sorted(Counter(e["mandate"] for e in data).items())))

    if errors:
        print("\nFAIL (%d problems):" % len(errors))
        for m in errors:
            print("  " + m)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
