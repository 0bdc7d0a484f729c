#!/usr/bin/env python3
"""Validate corpus_dev3.json: structure, ids, substrings, and every checksum claim. Exit 1 on any error.

Checksum verification here is written independently of the check-digit *computation* in gen_dev3.py.
For the check types shared with ../check.py the result must also agree with that validator, and when
python-stdnum is importable every national-ID claim is cross-checked against it as well (optional).

Usage: python3 check_dev3.py [path/to/corpus_dev3.json]
"""
import datetime, importlib.util, json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"card", "cvc_pin", "password_phrase", "login", "vendor_key", "private_key", "seed_phrase", "otp",
         "iban", "national_id", "connection_string", "jwt", "split", "lookalike"}
LANGS = {"en", "de", "es", "fr", "it", "pt", "nl"}
IBAN_LEN = {"DE": 22, "GB": 22, "FR": 27, "ES": 24, "IT": 27, "NL": 18, "BE": 16, "PT": 25, "AT": 20, "CH": 21, "IE": 22}


def compact(s, seps=" -./\n\t"):
    out = []
    for ch in s:
        if ch in seps: continue
        if ch.isdigit(): ch = str(unicodedata.digit(ch))
        out.append(ch)
    return "".join(out).upper()

def isdig(s): return bool(s) and all(c in "0123456789" for c in s)

def valid_date(y, m, d):
    try: return datetime.date(y, m, d)
    except ValueError: return None

def luhn_ok(d):
    tot = 0
    for i, c in enumerate(reversed(d)):
        x = int(c)
        if i % 2: x = x * 2 - 9 if x * 2 > 9 else x * 2
        tot += x
    return tot % 10 == 0

# Each check returns (shape_ok, valid). "<type>_fail" claims shape_ok and not valid.

def ck_luhn(v):
    d = compact(v); return isdig(d) and len(d) >= 12, isdig(d) and luhn_ok(d)

def ck_iban(v):
    c = compact(v, " ")
    shape = bool(re.fullmatch(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}", c))
    ok = shape and IBAN_LEN.get(c[:2], len(c)) == len(c) and int("".join(str(int(ch, 36)) for ch in c[4:] + c[:4])) % 97 == 1
    return shape, ok

def ck_dni(v):
    c = compact(v)
    m = re.fullmatch(r"([XYZ]?)([0-9]{7,8})([A-Z])", c)
    if not m: return False, False
    prefix = str("XYZ".index(m.group(1))) if m.group(1) else ""
    num = int(prefix + m.group(2))
    return True, "TRWAGMYFPDXBNJZSQVHLCKE"[num % 23] == m.group(3)

def ck_bsn(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 9): return False, False
    return True, (sum(int(x) * (9 - i) for i, x in enumerate(d[:8])) - int(d[8])) % 11 == 0

def ck_nir(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 15): return False, False
    return True, int(d[13:]) == 97 - int(d[:13]) % 97 and d[0] in "12" and 1 <= int(d[3:5]) <= 12

def ck_nif_pt(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 9): return False, False
    r = 11 - sum(int(x) * (9 - i) for i, x in enumerate(d[:8])) % 11
    return True, (0 if r >= 10 else r) == int(d[8])

def ck_be_nn(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 11): return False, False
    k = int(d[9:])
    return True, k in (97 - int(d[:9]) % 97, 97 - int("2" + d[:9]) % 97)

def ck_se_pnr(v):
    d = compact(v.replace("+", "-"))
    if not (isdig(d) and len(d) in (10, 12)): return False, False
    d = d[-10:]
    yy, mm, dd = int(d[:2]), int(d[2:4]), int(d[4:6]) % 60          # day + 60 = samordningsnummer
    return True, luhn_ok(d) and bool(valid_date(1900 + yy, mm, dd) or valid_date(2000 + yy, mm, dd))

def ck_steuer_id(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 11 and d[0] != "0"): return False, False
    cnt = Counter(d[:10])
    reps = [n for n in cnt.values() if n > 1]
    if len(reps) != 1 or reps[0] not in (2, 3): return True, False
    p = 10
    for x in d[:10]:
        s = (int(x) + p) % 10
        if s == 0: s = 10
        p = 2 * s % 11
    c = (11 - p) % 10
    return True, c == int(d[10])

def ck_us_ssn(v):
    m = re.fullmatch(r"(\d{3})[- ]?(\d{2})[- ]?(\d{4})", v.strip())
    if not m: return False, False
    a, g, s = m.groups()
    bad = {"078051120", "219099999", "123456789"} | {"98765432%d" % i for i in range(10)}
    return True, a not in ("000", "666") and a[0] != "9" and g != "00" and s != "0000" and a + g + s not in bad

def ck_uk_nino(v):
    c = compact(v)
    if not re.fullmatch(r"[A-Z]{2}\d{6}[A-D]", c): return False, False
    return True, (c[0] not in "DFIQUV" and c[1] not in "DFIOQUV" and c[:2] not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"))

_CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]   # A..Z (0..9 = A..J)
def ck_it_cf(v):
    c = compact(v)
    if not re.fullmatch(r"[A-Z]{6}\d{2}[ABCDEHLMPRST]\d{2}[A-Z]\d{3}[A-Z]", c): return False, False
    tot = 0
    for i, ch in enumerate(c[:15]):
        idx = int(ch) if ch.isdigit() else ord(ch) - 65
        tot += _CF_ODD[idx] if i % 2 == 0 else idx
    day = int(c[9:11]) % 40
    ok_date = valid_date(2000, "ABCDEHLMPRST".index(c[8]) + 1, day) is not None
    return True, chr(65 + tot % 26) == c[15] and ok_date

def ck_dk_cpr(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 10): return False, False
    ok_date = valid_date(1900 + int(d[4:6]), int(d[2:4]), int(d[:2])) or valid_date(2000 + int(d[4:6]), int(d[2:4]), int(d[:2]))
    return True, bool(ok_date) and sum(w * int(x) for w, x in zip((4, 3, 2, 7, 6, 5, 4, 3, 2, 1), d)) % 11 == 0

def ck_fi_hetu(v):
    c = v.strip().upper()
    m = re.fullmatch(r"(\d{2})(\d{2})(\d{2})([-+A-FU-Y])(\d{3})([0-9A-Y])", c)
    if not m: return False, False
    dd, mm, yy, sign, ind, ctl = m.groups()
    century = 1800 if sign == "+" else (2000 if sign in "ABCDEF" else 1900)
    ok = (valid_date(century + int(yy), int(mm), int(dd)) is not None and 2 <= int(ind) <= 899
          and "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(dd + mm + yy + ind) % 31] == ctl)
    return True, ok

def ck_no_fnr(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 11): return False, False
    w1, w2 = (3, 7, 6, 1, 8, 9, 4, 5, 2, 1), (5, 4, 3, 2, 7, 6, 5, 4, 3, 2, 1)
    ok = sum(a * int(b) for a, b in zip(w1, d)) % 11 == 0 and sum(a * int(b) for a, b in zip(w2, d)) % 11 == 0
    return True, ok and valid_date(1900 + int(d[4:6]), int(d[2:4]), int(d[:2]) % 40) is not None

def ck_pl_pesel(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 11): return False, False
    ok = sum(w * int(x) for w, x in zip((1, 3, 7, 9, 1, 3, 7, 9, 1, 3, 1), d)) % 10 == 0
    mm = int(d[2:4]); year = {0: 1900, 1: 2000, 2: 2100, 3: 2200, 4: 1800}[mm // 20] + int(d[:2])
    return True, ok and valid_date(year, mm % 20, int(d[4:6])) is not None

def ck_pt_cc(v):
    c = compact(v)
    if not re.fullmatch(r"\d{9}[A-Z0-9]{2}\d", c): return False, False
    tot = 0
    for i, ch in enumerate(reversed(c)):          # the check digit itself is position 0 (not doubled)
        x = int(ch, 36)
        if i % 2: x = x * 2 - 9 if x * 2 > 9 else x * 2
        tot += x
    return True, tot % 10 == 0

def ck_ie_ppsn(v):
    c = compact(v)
    m = re.fullmatch(r"(\d{7})([A-W])([ABHW]?)", c)
    if not m: return False, False
    alpha = "WABCDEFGHIJKLMNOPQRSTUV"
    tot = sum(int(x) * (8 - i) for i, x in enumerate(m.group(1))) + (9 * alpha.index(m.group(3)) if m.group(3) else 0)
    return True, alpha[tot % 23] == m.group(2)

def gs1_ok(d):
    return sum(int(x) * (1 if i % 2 == 0 else 3) for i, x in enumerate(reversed(d))) % 10 == 0

def ck_gs1(v):
    d = compact(v)
    if not (isdig(d) and len(d) in (8, 12, 13, 14, 18)): return False, False
    return True, gs1_ok(d)

def ck_ch_ahv(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 13 and d.startswith("756")): return False, False
    return True, gs1_ok(d)

def ck_at_svnr(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 10 and d[0] != "0"): return False, False
    c = sum(w * int(x) for w, x in zip((3, 7, 9, 0, 5, 8, 4, 2, 1, 6), d)) % 11
    ok_date = valid_date(1900 + int(d[8:]), int(d[6:8]), int(d[4:6])) or valid_date(2000 + int(d[8:]), int(d[6:8]), int(d[4:6]))
    return True, c == int(d[3]) and bool(ok_date)

_D = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6], [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
      [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1], [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
      [8, 7, 6, 5, 9, 3, 2, 1, 0, 4], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_P = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2], [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
      [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1], [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
def ck_in_aadhaar(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 12 and d[0] in "23456789"): return False, False
    c = 0
    for i, x in enumerate(reversed(d)):
        c = _D[c][_P[i % 8][int(x)]]
    return True, c == 0 and d != d[::-1]

def ck_br_cpf(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 11): return False, False
    if len(set(d)) == 1: return True, False
    r1 = sum(int(x) * (10 - i) for i, x in enumerate(d[:9])) % 11
    r2 = sum(int(x) * (11 - i) for i, x in enumerate(d[:10])) % 11
    return True, int(d[9]) == (0 if r1 < 2 else 11 - r1) and int(d[10]) == (0 if r2 < 2 else 11 - r2)

def ck_ca_sin(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 9 and d[0] not in "08"): return False, False
    return True, luhn_ok(d)

def ck_cn_rid(v):
    c = compact(v)
    if not re.fullmatch(r"\d{17}[0-9X]", c): return False, False
    tot = sum(int(x) * (2 ** (17 - i) % 11) for i, x in enumerate(c[:17])) + (10 if c[17] == "X" else int(c[17]))
    return True, tot % 11 == 1 and valid_date(int(c[6:10]), int(c[10:12]), int(c[12:14])) is not None

def _mrz_cd(s):
    return sum((0 if ch == "<" else int(ch, 36)) * (7, 3, 1)[i % 3] for i, ch in enumerate(s)) % 10

def ck_icao_mrz_td3(v):
    c = v.strip()
    if not re.fullmatch(r"[A-Z0-9<]{44}", c): return False, False
    def okd(field, cd):
        return (cd == "<" and set(field) == {"<"}) or (cd.isdigit() and _mrz_cd(field) == int(cd))
    ok = (okd(c[0:9], c[9]) and okd(c[13:19], c[19]) and okd(c[21:27], c[27]) and okd(c[28:42], c[42])
          and _mrz_cd(c[0:10] + c[13:20] + c[21:43]) == int(c[43]))
    return True, ok

def ck_upu_s10(v):
    c = compact(v, " ")
    if not re.fullmatch(r"[A-Z]{2}\d{9}[A-Z]{2}", c): return False, False
    r = 11 - sum(int(x) * w for x, w in zip(c[2:10], (8, 6, 4, 2, 3, 5, 9, 7))) % 11
    return True, {10: 0, 11: 5}.get(r, r) == int(c[10])

def ck_bitlocker(v):
    blocks = v.strip().split("-")
    if len(blocks) != 8 or not all(re.fullmatch(r"\d{6}", b) for b in blocks): return False, False
    return True, all(int(b) % 11 == 0 and int(b) // 11 < 65536 for b in blocks)

def ck_it_piva(v):
    d = compact(v)
    if not (isdig(d) and len(d) == 11): return False, False
    return True, luhn_ok(d)

BASE = {"luhn": ck_luhn, "iban": ck_iban, "dni": ck_dni, "bsn": ck_bsn, "nir": ck_nir, "nif_pt": ck_nif_pt, "be_nn": ck_be_nn,
        "se_pnr": ck_se_pnr, "steuer_id": ck_steuer_id, "us_ssn": ck_us_ssn, "uk_nino": ck_uk_nino, "it_cf": ck_it_cf,
        "dk_cpr": ck_dk_cpr, "fi_hetu": ck_fi_hetu, "no_fnr": ck_no_fnr, "pl_pesel": ck_pl_pesel, "pt_cc": ck_pt_cc,
        "ie_ppsn": ck_ie_ppsn, "ch_ahv": ck_ch_ahv, "at_svnr": ck_at_svnr, "in_aadhaar": ck_in_aadhaar, "br_cpf": ck_br_cpf,
        "ca_sin": ck_ca_sin, "cn_rid": ck_cn_rid, "icao_mrz_td3": ck_icao_mrz_td3, "upu_s10": ck_upu_s10, "gs1": ck_gs1,
        "bitlocker": ck_bitlocker, "it_piva": ck_it_piva}

def run_check(typ, value):
    """True when the claim holds."""
    if typ.endswith("_fail"):
        shape, ok = BASE[typ[:-5]](value)
        return shape and not ok
    shape, ok = BASE[typ](value)
    return shape and ok

def known_type(typ):
    return typ in BASE or (typ.endswith("_fail") and typ[:-5] in BASE)

# optional second opinions ------------------------------------------------------------------------

def _load_check_py():
    p = os.path.join(os.path.dirname(HERE), "check.py")
    if not os.path.exists(p): return None
    spec = importlib.util.spec_from_file_location("corpus_check", p)
    m = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(m)
    except Exception:
        return None
    return m

STDNUM = {"us_ssn": "us.ssn", "steuer_id": "de.idnr", "nir": "fr.nir", "it_cf": "it.codicefiscale", "bsn": "nl.bsn",
          "be_nn": "be.nn", "se_pnr": "se.personnummer", "dk_cpr": "dk.cpr", "fi_hetu": "fi.hetu", "no_fnr": "no.fodselsnummer",
          "pl_pesel": "pl.pesel", "nif_pt": "pt.nif", "pt_cc": "pt.cc", "ie_ppsn": "ie.pps", "ch_ahv": "ch.ssn", "at_svnr": "at.vnr",
          "in_aadhaar": "in_.aadhaar", "br_cpf": "br.cpf", "ca_sin": "ca.sin", "cn_rid": "cn.ric", "iban": "iban", "gs1": "ean",
          "it_piva": "it.iva", "luhn": "luhn"}

def stdnum_opinion(typ, value):
    """None if python-stdnum is not installed or has no module for the type, else its is_valid()."""
    base = typ[:-5] if typ.endswith("_fail") else typ
    if base == "dni":
        mod = "es.nie" if compact(value)[0] in "XYZ" else "es.dni"
    else:
        mod = STDNUM.get(base)
    if not mod: return None
    try:
        m = importlib.import_module("stdnum." + mod)
    except ImportError:
        return None
    v = value
    if base in ("us_ssn",):
        v = compact(v)
    if base == "se_pnr" and len(compact(v)) == 10 and "-" not in v and "+" not in v:
        v = v[:6] + "-" + v[6:]
    if base in ("luhn",):
        return m.is_valid(compact(v))
    return bool(m.is_valid(v))

# -------------------------------------------------------------------------------------------------

def validate(data):
    errs = []
    seen = Counter()
    per_kind = Counter()
    for c in data:
        cid = c.get("id")
        seen[cid] += 1
        for f in ("id", "kind", "split", "messages", "secret", "keep", "language", "source"):
            if f not in c: errs.append("%s: missing field %s" % (cid, f))
        kind = c.get("kind")
        if kind not in KINDS: errs.append("%s: bad kind %r" % (cid, kind)); continue
        want = "%s-d3-%03d" % (kind.replace("_", "-"), per_kind[kind]); per_kind[kind] += 1
        if cid != want: errs.append("%s: id should be %s (kind-d3-index in file order)" % (cid, want))
        if c.get("split") != "dev3": errs.append("%s: split must be 'dev3'" % cid)
        if c.get("language") not in LANGS: errs.append("%s: bad language %r" % (cid, c.get("language")))
        if not c.get("source"): errs.append("%s: empty source" % cid)
        msgs = c.get("messages") or []
        if not msgs or not all(isinstance(m, str) and m.strip() for m in msgs): errs.append("%s: messages must be non-empty strings" % cid)
        if kind == "split":
            if len(msgs) != 2: errs.append("%s: split case needs exactly 2 messages" % cid)
        elif len(msgs) != 1:
            errs.append("%s: only split cases may have 2 messages" % cid)
        text = "\n".join(msgs)
        secrets, keeps = c.get("secret", []), c.get("keep", [])
        if kind == "lookalike":
            if secrets: errs.append("%s: lookalike with secrets" % cid)
            if not keeps: errs.append("%s: lookalike without keep" % cid)
        else:
            if not secrets: errs.append("%s: secret case without secret" % cid)
            if not keeps: errs.append("%s: secret case without keep (context words)" % cid)
        for s in secrets:
            if not s or not any(s in m for m in msgs): errs.append("%s: secret %r not in any message" % (cid, s[:40])); continue
            if kind == "split" and len(msgs) == 2:
                if s in msgs[0]: errs.append("%s: split secret %r appears in the first (label) message" % (cid, s[:40]))
                if s not in msgs[1]: errs.append("%s: split secret %r not in the second message" % (cid, s[:40]))
            if len(s) < 8:
                occ = text.count(s) - sum(o.count(s) for o in secrets if o != s and s in o)
                if occ != 1: errs.append("%s: short secret %r occurs %d times" % (cid, s, occ))
        for kp in keeps:
            if not kp or not any(kp in m for m in msgs): errs.append("%s: keep %r not in any message" % (cid, kp[:40]))
            for s in secrets:
                if s and kp and (s in kp or kp in s): errs.append("%s: keep %r overlaps secret %r" % (cid, kp[:30], s[:30]))
        if kind == "split" and len(msgs) == 2 and not any(kp in msgs[0] for kp in keeps):
            errs.append("%s: split case must keep (part of) the label message" % cid)
        for ch in c.get("checks", []):
            t, v = ch.get("type"), ch.get("value")
            if not known_type(t): errs.append("%s: unknown check type %r" % (cid, t)); continue
            if not v or v not in text: errs.append("%s: checked value %r not in messages" % (cid, v)); continue
            if not run_check(t, v): errs.append("%s: %s check fails for %r" % (cid, t, v))
            if kind == "lookalike" and not t.endswith("_fail") and t not in ("upu_s10", "gs1", "it_piva", "luhn"):
                errs.append("%s: lookalike claims a valid %s" % (cid, t))
    for i, n in seen.items():
        if n > 1: errs.append("duplicate id %s" % i)
    return errs

def second_opinions(data):
    errs, notes = [], Counter()
    old = _load_check_py()
    for c in data:
        for ch in c.get("checks", []):
            t, v = ch["type"], ch["value"]
            expect = not t.endswith("_fail")
            if old is not None and t in old.CHECKS:
                notes["check.py"] += 1
                if not old.CHECKS[t](v): errs.append("%s: ../check.py disagrees on %s %r" % (c["id"], t, v))
            elif old is not None and t.endswith("_fail") and t[:-5] in old.CHECKS:
                notes["check.py"] += 1
                if old.CHECKS[t[:-5]](v): errs.append("%s: ../check.py says %r is a valid %s" % (c["id"], v, t[:-5]))
            op = stdnum_opinion(t, v)
            if op is not None:
                notes["python-stdnum"] += 1
                if op != expect: errs.append("%s: python-stdnum disagrees on %s %r (is_valid=%s)" % (c["id"], t, v, op))
    return errs, notes

def main(path=os.path.join(HERE, "corpus_dev3.json")):
    data = json.load(open(path, encoding="utf-8"))
    errs = validate(data)
    e2, notes = second_opinions(data)
    errs += e2
    cnt = Counter(c["kind"] for c in data)
    langs = Counter(c["language"] for c in data)
    types = Counter(ch["type"] for c in data for ch in c.get("checks", []))
    print("%-18s %5s" % ("kind", "cases"))
    for k in sorted(cnt): print("%-18s %5d" % (k, cnt[k]))
    print("total %d; languages %s" % (len(data), ", ".join("%s %d" % kv for kv in sorted(langs.items()))))
    print("checksum claims %d (%d types): %s" % (sum(types.values()), len(types), ", ".join("%s %d" % kv for kv in sorted(types.items()))))
    print("second opinions: %s" % (", ".join("%s %d" % kv for kv in sorted(notes.items())) or "none available"))
    if "python-stdnum" not in notes: print("note: python-stdnum not installed; cross-check skipped (pip install python-stdnum)")
    for e in errs: print("ERROR", e)
    print("OK" if not errs else "FAILED (%d errors)" % len(errs))
    return 1 if errs else 0

if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
