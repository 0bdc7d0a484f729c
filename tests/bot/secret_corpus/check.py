#!/usr/bin/env python3
"""Validate corpus.json (structure, substrings, frozen rule, checksums). Exit 1 on any error."""
import hashlib, json, os, re, sys, unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"card", "cvc_pin", "password_phrase", "login", "vendor_key", "private_key", "seed_phrase", "otp",
         "iban", "national_id", "connection_string", "jwt", "split", "lookalike"}
LANGS = {"en", "de", "es", "fr", "it", "pt", "nl"}
IBAN_LEN = {"DE": 22, "GB": 22, "FR": 27, "ES": 24, "IT": 27, "NL": 18, "BE": 16, "PT": 25, "AT": 20, "CH": 21, "IE": 22}
WORDS = open(os.path.join(HERE, "bip39_english.txt")).read().split()
WIDX = {w: i for i, w in enumerate(WORDS)}

def digits(s):
    out = []
    for ch in s:
        if ch.isdigit(): out.append(str(unicodedata.digit(ch)))   # handles full-width digits
        elif ch in " -.\n\t/": continue
        else: return None
    return "".join(out)

def luhn(s, minlen=12):
    d = digits(s)
    if not d or len(d) < minlen: return False
    t = 0
    for i, x in enumerate(int(c) for c in reversed(d)):
        t += x if i % 2 == 0 else (x * 2 - 9 if x * 2 > 9 else x * 2)
    return t % 10 == 0

def iban(s):
    c = re.sub(r"\s", "", s).upper()
    if not re.fullmatch(r"[A-Z]{2}[0-9]{2}[A-Z0-9]+", c): return False
    if IBAN_LEN.get(c[:2]) not in (None, len(c)): return False
    r = c[4:] + c[:4]
    return int("".join(str(int(ch, 36)) for ch in r)) % 97 == 1

def dni(s):
    c = re.sub(r"[.\-\s]", "", s).upper()
    m = re.fullmatch(r"([XYZ]?)([0-9]{7,8})([A-Z])", c)
    if not m: return False
    n = int(str("XYZ".index(m.group(1))) + m.group(2)) if m.group(1) else int(m.group(2))
    return "TRWAGMYFPDXBNJZSQVHLCKE"[n % 23] == m.group(3)

def bsn(s):
    d = digits(s)
    if not d or len(d) != 9: return False
    return (sum(int(x) * w for x, w in zip(d[:8], range(9, 1, -1))) - int(d[8])) % 11 == 0

def nir(s):
    d = digits(s)
    return bool(d) and len(d) == 15 and 97 - int(d[:13]) % 97 == int(d[13:])

def nif_pt(s):
    d = digits(s)
    if not d or len(d) != 9: return False
    c = 11 - sum(int(x) * w for x, w in zip(d[:8], range(9, 1, -1))) % 11
    return (0 if c >= 10 else c) == int(d[8])

def be_nn(s):
    d = digits(s)
    return bool(d) and len(d) == 11 and (97 - int(d[:9]) % 97 == int(d[9:]) or 97 - int("2" + d[:9]) % 97 == int(d[9:]))

def se_pnr(s):
    d = digits(s)
    return bool(d) and len(d) == 10 and luhn(d, 10)

def steuer_id(s):
    d = digits(s)
    if not d or len(d) != 11 or d[0] == "0": return False
    cnt = Counter(d[:10]).values()
    if not (sorted(cnt, reverse=True)[0] in (2, 3) and sum(1 for v in cnt if v > 1) == 1): return False
    prod = 10
    for x in d[:10]:
        t = (int(x) + prod) % 10 or 10
        prod = (t * 2) % 11
    c = 11 - prod
    return (0 if c == 10 else c) == int(d[10])

def bip39(s):
    ws = re.findall(r"[a-z]+", s)
    if len(ws) not in (12, 15, 18, 21, 24) or any(w not in WIDX for w in ws): return False
    bits = "".join(bin(WIDX[w])[2:].zfill(11) for w in ws)
    cs = len(bits) // 33; ent = bits[:-cs]
    h = hashlib.sha256(int(ent, 2).to_bytes(len(ent) // 8, "big")).digest()
    return bin(h[0])[2:].zfill(8)[:cs] == bits[-cs:]

CHECKS = {"luhn": luhn, "luhn_fail": lambda s: digits(s) is not None and not luhn(s), "iban": iban, "dni": dni, "bsn": bsn,
          "nir": nir, "nif_pt": nif_pt, "be_nn": be_nn, "se_pnr": se_pnr, "steuer_id": steuer_id, "bip39": bip39}

def main(path=os.path.join(HERE, "corpus.json")):
    data = json.load(open(path, encoding="utf-8"))
    errs, warns = [], []
    ids = Counter(c.get("id") for c in data)
    for i, n in ids.items():
        if n > 1: errs.append("duplicate id %s" % i)
    kind_idx = defaultdict(int)
    for c in data:
        cid = c.get("id")
        for f in ("id", "kind", "split", "messages", "secret", "keep", "language", "source"):
            if f not in c: errs.append("%s: missing field %s" % (cid, f))
        if c.get("kind") not in KINDS: errs.append("%s: bad kind %r" % (cid, c.get("kind")))
        if c.get("language") not in LANGS: errs.append("%s: bad language %r" % (cid, c.get("language")))
        if not c.get("source"): errs.append("%s: empty source" % cid)
        msgs = c.get("messages") or []
        if not msgs or not all(isinstance(m, str) and m for m in msgs): errs.append("%s: messages must be non-empty strings" % cid)
        if c.get("kind") == "split" and len(msgs) != 2: errs.append("%s: split case needs 2 messages" % cid)
        text = "\n".join(msgs)
        # frozen rule: index within kind (file order) mod 5 in {0, 3}
        k = c.get("kind"); idx = kind_idx[k]; kind_idx[k] += 1
        want = "frozen" if idx % 5 in (0, 3) else "dev"
        if c.get("split") != want: errs.append("%s: split %r but frozen rule says %r" % (cid, c.get("split"), want))
        if k == "lookalike":
            if c.get("secret"): errs.append("%s: lookalike with secrets" % cid)
            if not c.get("keep"): errs.append("%s: lookalike without keep" % cid)
        elif not c.get("secret"):
            errs.append("%s: secret case without secret" % cid)
        for s in c.get("secret", []):
            if not s or not any(s in m for m in msgs): errs.append("%s: secret %r not in any message" % (cid, s[:40]))
            if len(s) < 6:
                occ = text.count(s) - sum(o.count(s) for o in c["secret"] if o != s and s in o)
                if occ > 1: warns.append("%s: short secret %r occurs %d times" % (cid, s, occ))
        for kp in c.get("keep", []):
            if not kp or not any(kp in m for m in msgs): errs.append("%s: keep %r not in any message" % (cid, kp[:40]))
            for s in c.get("secret", []):
                if s in kp or kp in s: errs.append("%s: keep %r overlaps secret %r" % (cid, kp[:30], s[:30]))
        for ch in c.get("checks", []):
            f = CHECKS.get(ch.get("type"))
            if f is None: errs.append("%s: unknown check %r" % (cid, ch.get("type"))); continue
            if ch.get("value") not in text: errs.append("%s: checked value not in messages" % cid)
            if not f(ch["value"]): errs.append("%s: %s check fails for %r" % (cid, ch["type"], ch["value"]))
    cnt = Counter((c["kind"], c["split"]) for c in data)
    print("%-18s %6s %6s %6s" % ("kind", "frozen", "dev", "total"))
    for k in sorted(KINDS):
        print("%-18s %6d %6d %6d" % (k, cnt[(k, "frozen")], cnt[(k, "dev")], cnt[(k, "frozen")] + cnt[(k, "dev")]))
        if k != "lookalike" and cnt[(k, "frozen")] + cnt[(k, "dev")] < 15: errs.append("kind %s has fewer than 15 cases" % k)
    nsec = sum(1 for c in data if c["kind"] != "lookalike"); nlook = len(data) - nsec
    print("secret cases %d, lookalikes %d, checksum claims %d" % (nsec, nlook, sum(len(c.get("checks", [])) for c in data)))
    if nsec < 300: errs.append("fewer than 300 secret cases")
    if nlook < nsec: errs.append("fewer lookalikes than secret cases")
    for w in warns: print("WARN", w)
    for e in errs: print("ERROR", e)
    print("OK" if not errs else "FAILED (%d errors)" % len(errs))
    return 1 if errs else 0

if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
