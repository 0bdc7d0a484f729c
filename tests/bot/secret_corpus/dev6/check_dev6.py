#!/usr/bin/env python3
"""Validate corpus_dev6.json: structure, ids, split rule, substrings, checksum claims. Exit 1 on any error.

Checksum claims are verified with python-stdnum where it has the type; the formats stdnum lacks (Taiwan national ID,
Hong Kong HKID, Kazakhstan IIN, Russian SNILS, Iranian kod melli, Kuwaiti civil ID, Salvadoran DUI, Nicaraguan
cédula, Guatemalan CUI, JMBG/EMBG, Moldovan IDNP, Emirates ID, Saudi ID, Egyptian national ID and Sri Lankan NIC
formats) are re-implemented here, written apart from the generator's code (ids_dev6.py).
"""
import datetime
import json
import os
import re
import sys
from collections import Counter

from stdnum import luhn
from stdnum.ad import nrt
from stdnum.al import nipt
from stdnum.ar import cuit
from stdnum.cr import cpf as cr_cpf, cr as cr_cr
from stdnum.cu import ni as cu_ni
from stdnum.eg import tn as eg_tn
from stdnum.gh import tin as gh_tin
from stdnum.gt import nit as gt_nit
from stdnum.ke import pin as ke_pin
from stdnum.ma import ice
from stdnum.md import idno
from stdnum.mk import edb
from stdnum.mu import nid as mu_nid
from stdnum.mz import nuit
from stdnum.py import ruc
from stdnum.rs import pib
from stdnum.ru import inn
from stdnum.sv import nit as sv_nit
from stdnum.tw import ubn
from stdnum.ua import edrpou, rntrc
from stdnum.ve import rif
from stdnum.vn import mst

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"card", "cvc_pin", "password_phrase", "login", "vendor_key", "private_key", "seed_phrase", "otp",
         "iban", "national_id", "connection_string", "jwt", "split", "lookalike"}
LANGS = {"en", "de", "es", "fr", "it", "pt", "nl"}
FIELDS = {"id", "kind", "split", "messages", "secret", "keep", "language", "source"}


def _digits(s):
    return re.sub(r"\D", "", s)


def _date_ok(y, m, d):
    try:
        datetime.date(y, m, d)
        return True
    except ValueError:
        return False


def tw_id(s):
    # letter values per the Ministry of the Interior table (I, O, W, Z out of order)
    table = {"A": 10, "B": 11, "C": 12, "D": 13, "E": 14, "F": 15, "G": 16, "H": 17, "I": 34, "J": 18, "K": 19,
             "L": 20, "M": 21, "N": 22, "O": 35, "P": 23, "Q": 24, "R": 25, "S": 26, "T": 27, "U": 28, "V": 29,
             "W": 32, "X": 30, "Y": 31, "Z": 33}
    if not re.fullmatch(r"[A-Z][12][0-9]{8}", s):
        return False
    n = table[s[0]]
    seq = [n // 10, n % 10] + [int(c) for c in s[1:]]
    weights = [1, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1]
    return sum(a * b for a, b in zip(seq, weights)) % 10 == 0


def hk_hkid(s):
    m = re.fullmatch(r"([A-Z]{1,2})([0-9]{6})\(?([0-9A])\)?", s)
    if not m:
        return False
    letters = m.group(1).rjust(2, " ")
    values = [36 if c == " " else string_value(c) for c in letters] + [int(c) for c in m.group(2)]
    values.append(10 if m.group(3) == "A" else int(m.group(3)))
    return sum(v * w for v, w in zip(values, [9, 8, 7, 6, 5, 4, 3, 2, 1])) % 11 == 0


def string_value(c):
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ".index(c) + 10


def kz_iin(s):
    c = _digits(s)
    if len(c) != 12 or c[6] not in "123456":
        return False
    century = {"1": 1800, "2": 1800, "3": 1900, "4": 1900, "5": 2000, "6": 2000}[c[6]]
    if not _date_ok(century + int(c[:2]), int(c[2:4]), int(c[4:6])):
        return False
    d = [int(x) for x in c]
    r = sum(d[i] * (i + 1) for i in range(11)) % 11
    if r == 10:
        r = sum(d[i] * ((i + 2) % 11 + 1) for i in range(11)) % 11
    return r != 10 and r == d[11]


def ru_snils(s):
    c = _digits(s)
    if len(c) != 11:
        return False
    total = sum(int(c[i]) * (9 - i) for i in range(9))
    while total > 101:
        total %= 101
    control = 0 if total in (100, 101) else total
    return control == int(c[9:])


def ir_melli(s):
    c = _digits(s)
    if len(c) != 10 or len(set(c)) == 1:
        return False
    r = sum(int(c[i]) * (10 - i) for i in range(9)) % 11
    return int(c[9]) == (r if r < 2 else 11 - r)


def kw_civil(s):
    c = _digits(s)
    if len(c) != 12 or c[0] not in "23":
        return False
    if not _date_ok((1900 if c[0] == "2" else 2000) + int(c[1:3]), int(c[3:5]), int(c[5:7])):
        return False
    w = [2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return (11 - sum(int(c[i]) * w[i] for i in range(11)) % 11) == int(c[11])


def sv_dui(s):
    c = _digits(s)
    if len(c) != 9:
        return False
    total = sum(int(c[i]) * (9 - i) for i in range(8))
    return (total + int(c[8])) % 10 == 0


def ni_cedula(s):
    m = re.fullmatch(r"([0-9]{3})-?([0-9]{6})-?([0-9]{4})([A-Z])", s)
    if not m:
        return False
    dd, mm, yy = int(m.group(2)[:2]), int(m.group(2)[2:4]), int(m.group(2)[4:])
    if not _date_ok(2000 + yy, mm, dd) and not _date_ok(1900 + yy, mm, dd):
        return False
    number = int(m.group(1) + m.group(2) + m.group(3))
    return "ABCDEFGHJKLMNPQRSTUVWXY"[number - 23 * (number // 23)] == m.group(4)


def gt_cui(s):
    c = _digits(s)
    if len(c) != 13:
        return False
    dept, muni = int(c[9:11]), int(c[11:13])
    counts = [17, 8, 16, 16, 13, 14, 19, 8, 24, 21, 9, 30, 32, 21, 8, 17, 14, 5, 11, 11, 7, 17]
    if not (1 <= dept <= 22 and 1 <= muni <= counts[dept - 1]):
        return False
    return sum(int(c[i]) * (i + 2) for i in range(8)) % 11 == int(c[8])


def jmbg(s):
    c = _digits(s)
    if len(c) != 13:
        return False
    year = int(c[4:7]) + (1000 if c[4] == "9" else 2000)
    if not _date_ok(year, int(c[2:4]), int(c[0:2])):
        return False
    a = [int(x) for x in c]
    total = sum((7 - i % 6) * a[i] for i in range(12))
    m = 11 - total % 11
    return m != 10 and (0 if m == 11 else m) == a[12]


def md_idnp(s):
    c = _digits(s)
    if len(c) != 13 or c[0] not in "02":
        return False
    w = [7, 3, 1] * 4
    return sum(int(c[i]) * w[i] for i in range(12)) % 10 == int(c[12])


def ae_eid(s):
    c = _digits(s)
    return len(c) == 15 and c.startswith("784") and 1900 <= int(c[3:7]) <= 2025 and luhn.is_valid(c)


def sa_id(s):
    c = _digits(s)
    return len(c) == 10 and c[0] in "12" and luhn.is_valid(c)


def eg_nid_format(s):
    c = _digits(s)
    govs = {1, 2, 3, 4, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35,
            88}
    return (len(c) == 14 and c[0] in "23" and int(c[7:9]) in govs
            and _date_ok((1900 if c[0] == "2" else 2000) + int(c[1:3]), int(c[3:5]), int(c[5:7])))


def lk_nic_format(s):
    old = re.fullmatch(r"([0-9]{2})([0-9]{3})[0-9]{4}[VvXx]", s)
    new = re.fullmatch(r"(19[0-9]{2}|20[0-9]{2})([0-9]{3})[0-9]{5}", s)
    m = old or new
    if not m:
        return False
    day = int(m.group(2))
    return 1 <= day <= 366 or 501 <= day <= 866


VALIDATORS = {
    "tw_id": tw_id, "hk_hkid": hk_hkid, "kz_iin": kz_iin, "ru_snils": ru_snils, "ir_melli": ir_melli,
    "kw_civil": kw_civil, "sv_dui": sv_dui, "ni_cedula": ni_cedula, "gt_cui": gt_cui, "jmbg": jmbg,
    "md_idnp": md_idnp, "ae_eid": ae_eid, "sa_id": sa_id, "eg_nid_format": eg_nid_format,
    "lk_nic_format": lk_nic_format,
    "ar_cuit": cuit.is_valid, "ve_rif": rif.is_valid, "cr_cpf": cr_cpf.is_valid, "cr_dimex": cr_cr.is_valid,
    "gt_nit": gt_nit.is_valid, "sv_nit": sv_nit.is_valid, "py_ruc": ruc.is_valid, "ua_rntrc": rntrc.is_valid,
    "ru_inn": inn.is_valid, "ke_pin": ke_pin.is_valid, "ad_nrt": nrt.is_valid, "mu_nid": mu_nid.is_valid,
    "cu_ni": cu_ni.is_valid, "mz_nuit": nuit.is_valid, "gh_tin": gh_tin.is_valid, "vn_mst": mst.is_valid,
    "tw_ubn": ubn.is_valid, "al_nipt": nipt.is_valid, "ma_ice": ice.is_valid, "eg_tn": eg_tn.is_valid,
    "rs_pib": pib.is_valid, "mk_edb": edb.is_valid, "md_idno": idno.is_valid, "ua_edrpou": edrpou.is_valid,
    "luhn": luhn.is_valid,
}


def claim_holds(kind, value):
    if kind.endswith("_fail"):
        base = kind[: -len("_fail")]
        return base in VALIDATORS and not VALIDATORS[base](value)
    return kind in VALIDATORS and VALIDATORS[kind](value)


def validate(corpus):
    errors = []
    ids = Counter(c.get("id") for c in corpus)
    errors += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
    per_kind = Counter()
    for c in corpus:
        cid = c.get("id", "?")

        def err(msg):
            errors.append(f"{cid}: {msg}")
        if not FIELDS <= set(c) or set(c) - FIELDS - {"checks"}:
            err(f"fields {sorted(c)}")
            continue
        kind = c["kind"]
        if kind not in KINDS:
            err(f"kind {kind}")
        index = per_kind[kind]
        per_kind[kind] += 1
        if cid != f"{kind}-d6-{index:03d}":
            err(f"id should be {kind}-d6-{index:03d}")
        if c["split"] != ("frozen4" if index % 5 in (0, 3) else "dev6"):
            err("split does not follow the index rule")
        if c["language"] not in LANGS:
            err(f"language {c['language']}")
        msgs = c["messages"]
        if not (isinstance(msgs, list) and 1 <= len(msgs) <= 2 and all(isinstance(m, str) and m for m in msgs)):
            err("messages")
            continue
        joined = "\n".join(msgs)
        if not c["source"]:
            err("source empty")
        if not all(isinstance(x, str) and x for x in c["secret"] + c["keep"]):
            err("empty or non-string secret/keep")
            continue
        if kind == "lookalike":
            if c["secret"]:
                err("a look-alike has no secret")
            if not c["keep"]:
                err("a look-alike keeps its value")
        elif not c["secret"]:
            err("no secret")
        for s in c["secret"]:
            if s not in joined:
                err(f"secret not in messages: {s!r}")
            if len(s) < 8 and joined.count(s) != 1:
                err(f"short secret occurs {joined.count(s)} times: {s!r}")
            if any(k in s or s in k for k in c["keep"]):
                err(f"secret and keep overlap: {s!r}")
        for k in c["keep"]:
            if k not in joined:
                err(f"keep not in messages: {k!r}")
        # a keep string must not sit inside (or around) any occurrence of a secret in the text
        for s in c["secret"]:
            for m in re.finditer(re.escape(s), joined):
                for k in c["keep"]:
                    for km in re.finditer(re.escape(k), joined):
                        if km.start() < m.end() and m.start() < km.end():
                            err(f"keep {k!r} overlaps secret {s!r} in the text")
        if kind == "split":
            if len(msgs) != 2:
                err("a split case has two messages")
            elif any(s in msgs[0] or s not in msgs[1] for s in c["secret"]):
                err("a split case's secret is in the second message only")
            elif not any(k in msgs[0] for k in c["keep"]):
                err("a split case keeps part of its label")
        for chk in c.get("checks", []):
            if chk["value"] not in joined:
                err(f"checked value not in messages: {chk['value']!r}")
            if not claim_holds(chk["type"], chk["value"]):
                err(f"check {chk['type']} fails for {chk['value']!r}")
            if kind != "lookalike" and chk["type"].endswith("_fail"):
                err("secret cases claim only valid checksums")
    return errors


def main():
    corpus = json.load(open(os.path.join(HERE, "corpus_dev6.json"), encoding="utf-8"))
    errors = validate(corpus)
    for e in errors:
        print(e)
    counts = Counter((c["kind"], c["split"]) for c in corpus)
    print(f"{'kind':18} {'frozen4':>7} {'dev6':>6} {'total':>6}")
    for kind in sorted({k for k, _ in counts}):
        f, d = counts[(kind, "frozen4")], counts[(kind, "dev6")]
        print(f"{kind:18} {f:7} {d:6} {f + d:6}")
    langs = Counter(c["language"] for c in corpus)
    print("languages:", dict(sorted(langs.items())), "| cases", len(corpus),
          "| checksum claims", sum(len(c.get("checks", [])) for c in corpus))
    print("OK" if not errors else f"{len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
