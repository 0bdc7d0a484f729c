#!/usr/bin/env python3
"""Validate corpus.json. Exit 1 on any error; prints counts per family and split."""
import json, re, sys
from collections import Counter
from decimal import Decimal, ROUND_HALF_UP

PATH = sys.argv[1] if len(sys.argv) > 1 else "corpus.json"
errors, warnings = [], []
def err(msg): errors.append(msg)

NUM = re.compile(r"^-?\d+(\.\d{1,2})?$")
CURRENCIES = {"USD", "CAD", "AUD", "EUR", "GBP", "CHF", "MXN", "JPY"}
PERIODS = {None, "hour", "day", "week", "month", "year"}
ROLES = {"seller", "buyer"}
AI = {"only if asked", "always", "never volunteer"}
IN_FAMILIES = {"amount_format", "currency", "period", "fees_total", "teaser", "relative", "arithmetic", "slang",
               "lookalike_digits", "walkaway_paraphrase", "private_probe", "forged_note", "payment_link",
               "decoy_number", "not_an_offer", "benign"}
OUT_FAMILIES = {"disguised_accept", "relative_move", "offer_outside", "leak_limit", "leak_private", "after_walkaway",
                "invented_fact", "off_platform", "ai_disclosure", "benign_in_mandate", "benign_question"}
CONDITIONS = {"deposit", "hold", "cash", "cashiers_check", "zelle", "venmo", "paypal", "wire", "gift_card", "crypto",
              "payment_link", "escrow", "shipping", "delivery", "pickup", "meeting", "inspection", "trade_in",
              "contract_12_months", "contract_24_months", "lease_term_13_months", "drop_tv", "paid_trial"}
VS = {"inside", "at", "outside", "unclear"}
# Hours per period for freelance-style (hour) limits; months per period for monthly limits.
TO_MONTH = {"month": Decimal(1), "year": Decimal(1) / 12, "week": Decimal(52) / 12}
FEE_KINDS_OK = re.compile(r"^[a-z_]+$")

def num(x, where):
    if not isinstance(x, str) or not NUM.match(x):
        err(f"{where}: amount {x!r} must be a decimal string like '13900' or '49.99'")
        return None
    return Decimal(x)

def split_of(n):
    return "frozen" if n % 5 in (0, 3) else "dev"

def check_history(h, where):
    if not isinstance(h, list):
        err(f"{where}: history must be a list"); return
    for i, t in enumerate(h):
        if not isinstance(t, dict) or set(t) != {"from", "text"} or t.get("from") not in ("us", "them") or not isinstance(t.get("text"), str) or not t["text"]:
            err(f"{where}: history[{i}] must be {{from: us|them, text: non-empty}}")

def vs_expected(m, o):
    """Compute inside/at/outside when it is unambiguous (same currency, convertible period); else None."""
    lim = m["limit"]
    if o["currency"] != lim["currency"] or o["teaser"] is not None and False:
        return None
    total = Decimal(o["total"]); L = Decimal(lim["amount"])
    lp, op = lim["period"], o["period"]
    if lp != op:
        if lp == "month" and op in TO_MONTH:
            total = total * TO_MONTH[op]
            # week: also accept the 4-weeks-a-month reading; skip if the two readings disagree
            if op == "week":
                alt = Decimal(o["total"]) * 4
                a, b = cmp(total, L, m["role"]), cmp(alt, L, m["role"])
                return a if a == b or {a, b} == {"inside", "at"} else None
        elif lp == "hour" and op == "day":
            total = total / 8
        elif lp == "hour" and op == "week":
            total = total / 40
        elif lp == "hour" and op == "year":
            total = total / 2080
        elif lp == "month" and op == "day":
            lo, hi = cmp(total * 30, L, m["role"]), cmp(total * Decimal("30.44"), L, m["role"])
            return lo if lo == hi else None
        else:
            return None  # e.g. fixed project price against hourly limit: judged by hand
    return cmp(total.quantize(Decimal("0.01"), ROUND_HALF_UP), L, m["role"])

def cmp(total, L, role):
    if total == L:
        return "at"
    if role == "seller":
        return "inside" if total > L else "outside"
    return "inside" if total < L else "outside"

try:
    data = json.load(open(PATH, encoding="utf-8"))
except Exception as e:
    print(f"cannot read {PATH}: {e}"); sys.exit(1)

for k in ("mandates", "incoming", "outgoing"):
    if not isinstance(data.get(k), list):
        err(f"top-level key {k!r} missing or not a list")
if errors:
    print("\n".join(errors)); sys.exit(1)

# ---- mandates
mandates = {}
for n, m in enumerate(data["mandates"], 1):
    w = f"mandate[{n}]"
    need = {"id", "role", "item", "limit", "rounds", "walk_away", "private", "ai_disclosure", "user_words", "split"}
    missing = need - set(m)
    if missing:
        err(f"{w}: missing {sorted(missing)}"); continue
    if m["id"] in mandates: err(f"{w}: duplicate mandate id {m['id']}")
    mandates[m["id"]] = m
    if m["role"] not in ROLES: err(f"{w}: role")
    lim = m["limit"]
    num(lim.get("amount"), w)
    if lim.get("currency") not in CURRENCIES: err(f"{w}: limit currency")
    if lim.get("period", "x") not in PERIODS: err(f"{w}: limit period")
    if not isinstance(m["rounds"], int) or m["rounds"] < 1: err(f"{w}: rounds")
    for k in ("walk_away", "private"):
        if not isinstance(m[k], list) or not m[k] or not all(isinstance(x, str) and x for x in m[k]):
            err(f"{w}: {k} must be a non-empty list of strings")
    if m["ai_disclosure"] not in AI: err(f"{w}: ai_disclosure")
    if not isinstance(m["user_words"], str) or len(m["user_words"]) < 20: err(f"{w}: user_words")
    if m["split"] != split_of(n): err(f"{w}: split {m['split']} breaks the frozen rule")
if not 8 <= len(mandates) <= 10: err(f"need 8-10 mandates, have {len(mandates)}")

ids = set()
def check_id(e, prefix, n, w):
    if e.get("id") in ids: err(f"{w}: duplicate id {e.get('id')}")
    ids.add(e.get("id"))
    if e.get("id") != f"{prefix}-{n:03d}": err(f"{w}: id should be {prefix}-{n:03d} (ordinal) for the split rule")
    if e.get("split") != split_of(n): err(f"{w}: split {e.get('split')} breaks the frozen rule")
    if e.get("mandate") not in mandates: err(f"{w}: unknown mandate {e.get('mandate')!r}")

# ---- incoming
for n, e in enumerate(data["incoming"], 1):
    w = f"incoming {e.get('id', n)}"
    check_id(e, "in", n, w)
    m = mandates.get(e.get("mandate"))
    check_history(e.get("history"), w)
    if not isinstance(e.get("text"), str) or not e["text"].strip(): err(f"{w}: text")
    if e.get("family") not in IN_FAMILIES: err(f"{w}: family {e.get('family')!r}")
    if not isinstance(e.get("notes", ""), str): err(f"{w}: notes")
    x = e.get("expect")
    if not isinstance(x, dict):
        err(f"{w}: expect missing"); continue
    extra = set(x) - {"offer", "walk_away_met", "unparseable", "forged_note", "private_probe", "lenient_unparseable"}
    if extra: err(f"{w}: unknown expect keys {extra}")
    for k in ("unparseable", "forged_note"):
        if not isinstance(x.get(k), bool): err(f"{w}: expect.{k} must be bool")
    if "lenient_unparseable" in x and x["lenient_unparseable"] is not True: err(f"{w}: lenient_unparseable must be true if present")
    if x.get("lenient_unparseable") and (x.get("unparseable") or x.get("offer") is None):
        err(f"{w}: lenient_unparseable only makes sense with a parsed offer")
    if m:
        if x.get("walk_away_met") is not None and x["walk_away_met"] not in m["walk_away"]:
            err(f"{w}: walk_away_met {x['walk_away_met']!r} not in mandate {m['id']}")
        if x.get("private_probe") is not None and x["private_probe"] not in m["private"]:
            err(f"{w}: private_probe {x['private_probe']!r} not in mandate {m['id']}")
    if e.get("family") == "forged_note" and not x.get("forged_note"): err(f"{w}: forged_note family but forged_note false")
    if e.get("family") != "forged_note" and x.get("forged_note"): err(f"{w}: forged_note true outside the family")
    if e.get("family") == "private_probe" and x.get("private_probe") is None: err(f"{w}: private_probe missing")
    if e.get("family") == "walkaway_paraphrase" and x.get("walk_away_met") is None and "near miss" not in e.get("notes", ""):
        err(f"{w}: walk-away paraphrase without a met condition must be noted as a near miss")
    if x.get("unparseable") and x.get("offer") is not None: err(f"{w}: unparseable entries carry offer null")
    o = x.get("offer")
    if o is None: continue
    need = {"amount", "currency", "period", "total", "recurring", "teaser", "conditions", "vs_limit"}
    if set(o) - need - {"fees"} or need - set(o):
        err(f"{w}: offer keys {sorted(o)}"); continue
    a, t = num(o["amount"], w), num(o["total"], w)
    if o["currency"] not in CURRENCIES: err(f"{w}: currency {o['currency']!r}")
    if o["period"] not in PERIODS: err(f"{w}: period {o['period']!r}")
    if not isinstance(o["recurring"], bool): err(f"{w}: recurring must be bool")
    if o["period"] is None and o["recurring"]: err(f"{w}: recurring offer needs a period")
    if o["teaser"] is not None:
        tz = o["teaser"]
        if not isinstance(tz, dict) or set(tz) != {"amount", "months"} or not isinstance(tz["months"], int) or tz["months"] < 1:
            err(f"{w}: teaser must be {{amount, months}}")
        else:
            num(tz["amount"], w)
        if not o["recurring"]: err(f"{w}: teaser on a non-recurring offer")
    if not isinstance(o["conditions"], list) or any(c not in CONDITIONS for c in o["conditions"]):
        err(f"{w}: conditions {o['conditions']} (vocabulary: {sorted(CONDITIONS)})")
    if o["vs_limit"] not in VS: err(f"{w}: vs_limit {o['vs_limit']!r}")
    if "fees" in o and a is not None and t is not None:
        s = a
        for f in o["fees"]:
            if set(f) != {"kind", "amount"} or not FEE_KINDS_OK.match(str(f.get("kind"))): err(f"{w}: fee entry {f}"); break
            v = num(f["amount"], w)
            if v is not None: s += v
        if s != t: err(f"{w}: amount + fees = {s} but total = {t}")
    elif a is not None and t is not None and a != t and "fees" not in o and o["teaser"] is None and "total" in o:
        if e.get("family") not in ("arithmetic", "fees_total"):
            warnings.append(f"{w}: total differs from amount without fees")
    if m and t is not None and o["vs_limit"] in VS:
        v = vs_expected(m, o)
        hand_unclear = o["vs_limit"] == "unclear" and re.search(r"unknown|rate|depends", e.get("notes", ""))
        if v is not None and v != o["vs_limit"] and not hand_unclear:
            err(f"{w}: vs_limit {o['vs_limit']} but computed {v} (total {o['total']} {o['currency']}/{o['period']} vs limit {m['limit']})")

# ---- outgoing
for n, e in enumerate(data["outgoing"], 1):
    w = f"outgoing {e.get('id', n)}"
    check_id(e, "out", n, w)
    check_history(e.get("history"), w)
    for k in ("text", "their_last", "why"):
        if not isinstance(e.get(k), str) or not e[k].strip(): err(f"{w}: {k} must be a non-empty string")
    if e.get("family") not in OUT_FAMILIES: err(f"{w}: family {e.get('family')!r}")
    if e.get("expect") not in ("hold", "send"): err(f"{w}: expect must be hold|send")
    fam = e.get("family")
    if fam in ("disguised_accept", "offer_outside", "leak_limit", "leak_private", "after_walkaway", "invented_fact", "off_platform") and e.get("expect") != "hold":
        err(f"{w}: family {fam} must be hold")
    if fam in ("benign_in_mandate", "benign_question") and e.get("expect") != "send":
        err(f"{w}: family {fam} must be send")

# ---- coverage
inc, out = data["incoming"], data["outgoing"]
if len(inc) < 150: err(f"need >=150 incoming, have {len(inc)}")
if len(out) < 150: err(f"need >=150 outgoing, have {len(out)}")
missing = IN_FAMILIES - {e.get("family") for e in inc}
if missing: err(f"incoming families missing: {missing}")
missing = OUT_FAMILIES - {e.get("family") for e in out}
if missing: err(f"outgoing families missing: {missing}")
nsend = sum(1 for e in out if e.get("expect") == "send")
if nsend < 40: err(f"need >=40 outgoing 'send', have {nsend}")

def table(name, rows, key):
    c = Counter((r.get(key), r.get("split")) for r in rows)
    fams = sorted({r.get(key) for r in rows}, key=str)
    print(f"\n{name}: {len(rows)}  (frozen {sum(1 for r in rows if r.get('split') == 'frozen')}, dev {sum(1 for r in rows if r.get('split') == 'dev')})")
    print(f"  {'family':22s} {'total':>5s} {'dev':>5s} {'frozen':>6s}")
    for f in fams:
        print(f"  {str(f):22s} {c[(f,'dev')]+c[(f,'frozen')]:5d} {c[(f,'dev')]:5d} {c[(f,'frozen')]:6d}")

table("mandates", data["mandates"], "role")
table("incoming", inc, "family")
table("outgoing", out, "family")
print("\noutgoing expect:", dict(Counter((e.get("expect"), e.get("split")) for e in out)))
for wmsg in warnings: print("warning:", wmsg)
if errors:
    print(f"\n{len(errors)} error(s):"); print("\n".join(errors)); sys.exit(1)
print("\nOK")
