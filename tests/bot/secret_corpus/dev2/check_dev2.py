#!/usr/bin/env python3
"""Validator for corpus_dev2.json (+ checks_extra_dev2.json).

python3 check_dev2.py            -> prints counts, exit 0 when everything is valid
Checks: format (fields, kinds, split "dev2", languages), id pattern and uniqueness
(<kind with ->-d2-<3-digit index within kind, file order, from 001>), every secret
and keep substring occurs in the messages, keep strings are not covered by secrets,
split conventions, minimum counts, the `checks` claims (types of secret_format.md) and
the extra checksum/format claims in checks_extra_dev2.json.
"""
import hashlib
import json
import os
import re
import sys
from collections import Counter, defaultdict
from datetime import date

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import idcodes as ic  # noqa: E402

CORPUS = os.path.join(HERE, "corpus_dev2.json")
EXTRA = os.path.join(HERE, "checks_extra_dev2.json")
BIP39 = os.path.join(HERE, "..", "bip39_english.txt")
BIP39_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"

KINDS = {"card", "cvc_pin", "password_phrase", "login", "vendor_key", "private_key", "seed_phrase", "otp", "iban",
         "national_id", "connection_string", "jwt", "split", "lookalike"}
LANGS = {"en", "de", "es", "fr", "it", "pt", "nl"}
REQUIRED = {"id", "kind", "split", "messages", "secret", "keep", "language", "source"}
OPTIONAL = {"checks"}
MIN_COUNTS = {"password_phrase": 40, "login": 35, "connection_string": 30, "otp": 25, "national_id": 45,
              "split": 25, "card": 15, "cvc_pin": 10, "lookalike": 120}

errors = []


def err(msg):
    errors.append(msg)


def norm(v):
    return re.sub(r"[\s.\-/+]", "", v).upper()


def valid_date(y, m, d):
    try:
        date(y, m, d)
        return True
    except ValueError:
        return False


# ---------------------------------------------------------------- validators: secret_format.md types
def v_luhn(v):
    d = norm(v)
    return d.isdigit() and len(d) >= 8 and ic.luhn_sum(d) == 0


def v_luhn_fail(v):
    d = norm(v)
    return d.isdigit() and len(d) >= 8 and ic.luhn_sum(d) != 0


IBAN_LEN = {"DE": 22, "ES": 24, "IT": 27, "FR": 27, "NL": 18, "BE": 16, "PT": 25, "AT": 20, "CH": 21, "GB": 22}


def v_iban(v):
    s = norm(v)
    return (re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", s) is not None and IBAN_LEN.get(s[:2]) == len(s)
            and ic.mod97_alnum(s[4:] + s[:4]) == 1)


def v_dni(v):
    s = norm(v)
    m = re.fullmatch(r"([XYZ]\d{7}|\d{8})([A-Z])", s)
    if not m:
        return False
    num = m.group(1)
    if num[0] in "XYZ":
        num = str("XYZ".index(num[0])) + num[1:]
    return ic.dni_letter(num) == m.group(2)


def v_bsn(v):
    s = norm(v)
    return re.fullmatch(r"\d{9}", s) is not None and ic.bsn_sum(s) % 11 == 0


def v_nir(v):
    s = norm(v)
    if not re.fullmatch(r"[12]\d{4}(\d{2}|2A|2B)\d{8}", s):
        return False
    if not 1 <= int(s[3:5]) <= 12:
        return False
    return ic.nir_key(s[:13]) == int(s[13:])


def v_nif_pt(v):
    s = norm(v)
    return re.fullmatch(r"\d{9}", s) is not None and ic.nif_pt_check(s[:8]) == int(s[8])


def v_be_nn(v):
    s = norm(v)
    if not re.fullmatch(r"\d{11}", s):
        return False
    c = int(s[9:])
    ok19 = 97 - int(s[:9]) % 97 == c and valid_date(1900 + int(s[:2]), int(s[2:4]), int(s[4:6]))
    ok20 = 97 - int("2" + s[:9]) % 97 == c and valid_date(2000 + int(s[:2]), int(s[2:4]), int(s[4:6]))
    return ok19 or ok20


def v_se_pnr(v):
    s = norm(v)
    if not re.fullmatch(r"\d{10}|\d{12}", s):
        return False
    s = s[-10:]
    return ic.luhn_sum(s) == 0 and 1 <= int(s[2:4]) <= 12 and 1 <= int(s[4:6]) <= 31


def v_steuer_id(v):
    s = norm(v)
    return (re.fullmatch(r"\d{11}", s) is not None and ic.steuer_digit_rule(s[:10])
            and ic.steuer_check(s[:10]) == int(s[10]))


with open(BIP39) as f:
    BIP_WORDS = [w.strip() for w in f if w.strip()]


def bip39_ok(words):
    if len(words) not in (12, 15, 18, 21, 24) or any(w not in BIP_WORDS for w in words):
        return False
    bits = "".join(f"{BIP_WORDS.index(w):011b}" for w in words)
    n = len(bits) // 33
    ent, cs = bits[:-n], bits[-n:]
    h = hashlib.sha256(int(ent, 2).to_bytes(len(ent) // 8, "big")).digest()
    return f"{h[0]:08b}"[:n] == cs


def words_of(v):
    return [w for w in re.split(r"[\s,;]+", v.lower()) if w]


def v_bip39(v):
    return bip39_ok(words_of(v))


MAIN = {"luhn": v_luhn, "luhn_fail": v_luhn_fail, "iban": v_iban, "dni": v_dni, "bsn": v_bsn, "nir": v_nir,
        "nif_pt": v_nif_pt, "be_nn": v_be_nn, "se_pnr": v_se_pnr, "steuer_id": v_steuer_id, "bip39": v_bip39}


# ---------------------------------------------------------------- validators: extra types (checks_extra_dev2.json)
def v_cf_it(v):
    s = v.replace(" ", "").upper()
    m = re.fullmatch(r"[A-Z]{6}(\d{2})([ABCDEHLMPRST])(\d{2})[A-Z]\d{3}([A-Z])", s)
    if not m:
        return False
    day = int(m.group(3))
    if not (1 <= day <= 31 or 41 <= day <= 71):
        return False
    return ic.cf_check_char(s[:15]) == s[15]


def v_pesel(v):
    s = norm(v)
    if not re.fullmatch(r"\d{11}", s):
        return False
    mm = int(s[2:4])
    century = {0: 1900, 20: 2000, 40: 2100, 60: 2200, 80: 1800}[(mm - 1) // 20 * 20] if 1 <= mm <= 92 else None
    if century is None or not valid_date(century + int(s[:2]), (mm - 1) % 20 + 1, int(s[4:6])):
        return False
    return ic.pesel_check(s[:10]) == int(s[10])


def v_cc_pt(v):
    s = v.replace(" ", "").upper()
    if not re.fullmatch(r"\d{9}[A-Z0-9]{2}\d", s):
        return False
    t = sum(int(s[i]) * (9 - i) for i in range(8)) + (int(s[8]) or 10)
    return t % 11 == 0 and ic.cc_pt_ok(s)


def v_cpf(v):
    s = norm(v)
    return re.fullmatch(r"\d{11}", s) is not None and len(set(s)) > 1 and ic.cpf_digits(s[:9]) == s


def v_cnpj(v):
    s = norm(v)
    return re.fullmatch(r"\d{14}", s) is not None and ic.cnpj_digits(s[:12]) == s


def v_aadhaar(v):
    s = norm(v)
    return re.fullmatch(r"[2-9]\d{11}", s) is not None and ic.verhoeff_ok(s)


def v_de_idcard(v):
    s = v.upper()
    if re.fullmatch(r"[CFGHJKLMNPRTVWXYZ][0-9CFGHJKLMNPRTVWXYZ]{8}", s):
        return True
    if re.fullmatch(r"[CFGHJKLMNPRTVWXYZ][0-9CFGHJKLMNPRTVWXYZ]{8}\d", s):
        return ic.icao_check(s[:9]) == int(s[9])
    return False


def v_s10(v):
    m = re.fullmatch(r"[A-Z]{2}(\d{8})(\d)[A-Z]{2}", v.replace(" ", ""))
    return bool(m) and ic.s10_check(m.group(1)) == int(m.group(2))


def v_isbn13(v):
    s = norm(v)
    return (re.fullmatch(r"97[89]\d{10}", s) is not None
            and sum(int(s[i]) * (1 if i % 2 == 0 else 3) for i in range(13)) % 10 == 0)


def v_ogm_be(v):
    d = re.sub(r"\D", "", v)
    return len(d) == 12 and (int(d[:10]) % 97 or 97) == int(d[10:])


def v_rf(v):
    s = norm(v)
    return re.fullmatch(r"RF\d{2}[A-Z0-9]{1,21}", s) is not None and ic.mod97_alnum(s[4:] + s[:4]) == 1


def v_iban_fail(v):
    s = norm(v)
    return (re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", s) is not None and IBAN_LEN.get(s[:2]) == len(s)
            and ic.mod97_alnum(s[4:] + s[:4]) != 1)


def v_bip39_fail(v):
    w = words_of(v)
    return all(x in BIP_WORDS for x in w) and not bip39_ok(w)


EXTRA_TYPES = {
    "cf_it": v_cf_it,
    "nino": ic.nino_ok,
    "ssn": ic.ssn_ok,
    "passport_nl": lambda v: re.fullmatch(r"[A-NP-Z]{2}[A-NP-Z0-9]{6}\d", v) is not None,
    "passport_it": lambda v: re.fullmatch(r"[A-Z]{2}\d{7}", v) is not None,
    "de_idcard": v_de_idcard,
    "pesel": v_pesel,
    "cc_pt": v_cc_pt,
    "cpf": v_cpf,
    "aadhaar": v_aadhaar,
    "pan": lambda v: re.fullmatch(r"[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z]", v) is not None,
    "s10": v_s10,
    "cnpj": v_cnpj,
    "isbn13": v_isbn13,
    "ogm_be": v_ogm_be,
    "rf": v_rf,
    # deliberate failures (look-alikes in the shape of an ID that fail its checksum / rules)
    "bsn_fail": lambda v: re.fullmatch(r"\d{9}", norm(v)) is not None and not v_bsn(v),
    "dni_fail": lambda v: re.fullmatch(r"\d{8}[A-Z]", norm(v)) is not None and not v_dni(v),
    "nir_fail": lambda v: re.fullmatch(r"[12]\d{14}", norm(v)) is not None and not v_nir(v),
    "steuer_id_fail": lambda v: re.fullmatch(r"\d{11}", norm(v)) is not None and not v_steuer_id(v),
    "cpf_fail": lambda v: re.fullmatch(r"\d{11}", norm(v)) is not None and not v_cpf(v),
    "nif_pt_fail": lambda v: re.fullmatch(r"\d{9}", norm(v)) is not None and not v_nif_pt(v),
    "ssn_invalid": lambda v: re.fullmatch(r"\d{3}-?\d{2}-?\d{4}", v) is not None and not ic.ssn_ok(v),
    "nino_invalid": lambda v: re.fullmatch(r"[A-Z]{2}\d{6}[A-D]", norm(v)) is not None and not ic.nino_ok(v),
    "iban_fail": v_iban_fail,
    "bip39_fail": v_bip39_fail,
}
FAIL_TYPES = {"luhn_fail", "bsn_fail", "dni_fail", "nir_fail", "steuer_id_fail", "cpf_fail", "nif_pt_fail",
              "ssn_invalid", "nino_invalid", "iban_fail", "bip39_fail"}


def spans(text, sub):
    out, i = [], text.find(sub)
    while i >= 0:
        out.append((i, i + len(sub)))
        i = text.find(sub, i + 1)
    return out


def main():
    ic.self_test()
    with open(BIP39, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != BIP39_SHA256:
            err("bip39_english.txt sha256 mismatch")
    with open(CORPUS, encoding="utf-8") as f:
        corpus = json.load(f)
    if not isinstance(corpus, list):
        sys.exit("corpus is not a list")

    by_id, per_kind, seen_msgs = {}, defaultdict(int), {}
    n_checks = 0
    for pos, c in enumerate(corpus):
        cid = c.get("id", f"#{pos}")
        if not isinstance(c, dict):
            err(f"{cid}: not an object")
            continue
        keys = set(c)
        if REQUIRED - keys:
            err(f"{cid}: missing {sorted(REQUIRED - keys)}")
            continue
        if keys - REQUIRED - OPTIONAL:
            err(f"{cid}: unexpected fields {sorted(keys - REQUIRED - OPTIONAL)}")
        kind = c["kind"]
        if kind not in KINDS:
            err(f"{cid}: bad kind {kind}")
            continue
        per_kind[kind] += 1
        want = f"{kind.replace('_', '-')}-d2-{per_kind[kind]:03d}"
        if cid != want:
            err(f"{cid}: id should be {want}")
        if cid in by_id:
            err(f"{cid}: duplicate id")
        by_id[cid] = c
        if c["split"] != "dev2":
            err(f"{cid}: split must be 'dev2'")
        if c["language"] not in LANGS:
            err(f"{cid}: bad language {c['language']}")
        if not isinstance(c["source"], str) or not c["source"].strip():
            err(f"{cid}: empty source")
        msgs = c["messages"]
        if not (isinstance(msgs, list) and msgs and all(isinstance(m, str) and m.strip() for m in msgs)):
            err(f"{cid}: messages must be a non-empty list of non-empty strings")
            continue
        if kind == "split" and len(msgs) != 2:
            err(f"{cid}: split case needs exactly 2 messages")
        if kind != "split" and len(msgs) > 2:
            err(f"{cid}: too many messages")
        key = tuple(msgs)
        if key in seen_msgs:
            err(f"{cid}: same messages as {seen_msgs[key]}")
        seen_msgs[key] = cid
        sec, keep = c["secret"], c["keep"]
        for name, lst in (("secret", sec), ("keep", keep)):
            if not (isinstance(lst, list) and all(isinstance(x, str) and x for x in lst)):
                err(f"{cid}: {name} must be a list of non-empty strings")
            if len(set(lst)) != len(lst):
                err(f"{cid}: duplicate {name} entries")
        if kind == "lookalike":
            if sec:
                err(f"{cid}: lookalike with secrets")
            if not keep:
                err(f"{cid}: lookalike without keep")
        elif not sec:
            err(f"{cid}: no secret")
        for s in sec + keep:
            if not any(s in m for m in msgs):
                err(f"{cid}: {s!r} not found in messages")
        for k in keep:
            for s in sec:
                if s in k or k in s:
                    err(f"{cid}: keep {k!r} and secret {s!r} overlap")
            free = False
            for m in msgs:
                ss = [sp for s in sec for sp in spans(m, s)]
                if any(all(b <= x0 or a >= x1 for x0, x1 in ss) for a, b in spans(m, k)):
                    free = True
            if not free:
                err(f"{cid}: keep {k!r} only occurs inside a secret")
        if kind == "split" and len(msgs) == 2:
            if any(s in msgs[0] for s in sec):
                err(f"{cid}: split secret appears in the label message")
            if not all(s in msgs[1] for s in sec):
                err(f"{cid}: split secret not in the second message")
            if not any(k in msgs[0] for k in keep):
                err(f"{cid}: split label (first message) not kept")
        checks = c.get("checks", [])
        if "checks" in c and not checks:
            err(f"{cid}: empty checks list")
        for chk in checks:
            n_checks += 1
            t, v = chk.get("type"), chk.get("value")
            if set(chk) != {"type", "value"} or t not in MAIN or not isinstance(v, str):
                err(f"{cid}: malformed check {chk}")
                continue
            if not any(v in m for m in msgs):
                err(f"{cid}: check value {v!r} not in messages")
            if not MAIN[t](v):
                err(f"{cid}: check {t} fails for {v!r}")
            if kind != "lookalike" and t not in FAIL_TYPES and v not in sec:
                err(f"{cid}: positive check value {v!r} is not a secret")
            if kind == "lookalike" and not any(v in k for k in keep):
                err(f"{cid}: look-alike check value {v!r} is not kept")
        if kind == "card":
            lv = [chk["value"] for chk in checks if chk.get("type") == "luhn"]
            if not lv:
                err(f"{cid}: card case without luhn check")

    # extra claims
    n_extra = 0
    if os.path.exists(EXTRA):
        with open(EXTRA, encoding="utf-8") as f:
            extra = json.load(f)
        for e in extra:
            n_extra += 1
            cid, t, v = e.get("id"), e.get("type"), e.get("value")
            if set(e) != {"id", "type", "value"} or cid not in by_id or t not in EXTRA_TYPES:
                err(f"extra: malformed or unknown {e}")
                continue
            c = by_id[cid]
            if not any(v in m for m in c["messages"]):
                err(f"extra {cid}: value {v!r} not in messages")
            if not EXTRA_TYPES[t](v):
                err(f"extra {cid}: {t} fails for {v!r}")
            if c["kind"] != "lookalike" and t not in FAIL_TYPES and v not in c["secret"]:
                err(f"extra {cid}: positive value {v!r} is not a secret")
            if c["kind"] == "lookalike" and not any(v in k for k in c["keep"]):
                err(f"extra {cid}: look-alike value {v!r} is not kept")
    else:
        err("checks_extra_dev2.json missing")

    used = Counter(s for c in corpus for s in c.get("secret", []))
    for s, n in used.items():
        if n > 1:
            err(f"secret value {s!r} used in {n} cases")

    for k, n in MIN_COUNTS.items():
        if per_kind[k] < n:
            err(f"kind {k}: {per_kind[k]} cases < required {n}")

    # report
    langs = ["en", "de", "es", "fr", "it", "pt", "nl"]
    table = Counter((c["kind"], c["language"]) for c in corpus if isinstance(c, dict) and "kind" in c)
    print(f"{'kind':18s}" + "".join(f"{l:>5s}" for l in langs) + f"{'total':>7s}")
    for k in sorted(per_kind):
        print(f"{k:18s}" + "".join(f"{table[(k, l)]:5d}" for l in langs) + f"{per_kind[k]:7d}")
    tot = Counter(c["language"] for c in corpus)
    print(f"{'total':18s}" + "".join(f"{tot[l]:5d}" for l in langs) + f"{len(corpus):7d}")
    n_sec = sum(1 for c in corpus if c["kind"] != "lookalike")
    print(f"secret cases {n_sec}, lookalikes {len(corpus) - n_sec}, checks {n_checks} (corpus) + {n_extra} (extra)")
    if errors:
        for e in errors:
            print("ERROR", e)
        print(f"{len(errors)} error(s)")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
