#!/usr/bin/env python3
"""Validate corpus_dev4.json: structure, ids, split rule, substrings, checksum claims. Exit 1 on any error.

Checksum claims are verified with python-stdnum (an implementation separate from the generator's); the few
formats stdnum lacks (UK NINO, ICAO 9303 check digits, UPU S10, BIP-39, French RIB key,
Italian CIN) are re-implemented here, written apart
from values_dev4.py.
"""
import hashlib
import json
import os
import re
import sys
from collections import Counter

from stdnum import ean, iban, luhn
from stdnum.ar import cuit as ar_cuit, dni as ar_dni
from stdnum.at import vnr
from stdnum.au import tfn
from stdnum.be import nn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.ch import ssn as ch_ssn
from stdnum.cl import rut
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.dk import cpr
from stdnum.es import dni, nie
from stdnum.fi import hetu
from stdnum.fr import nir
from stdnum.ie import pps
from stdnum.il import idnr as il_idnr
from stdnum.in_ import aadhaar, pan
from stdnum.it import codicefiscale
from stdnum.jp import in_ as jp_in
from stdnum.kr import rrn
from stdnum.mx import curp
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.pt import cc as pt_cc, nif
from stdnum.se import personnummer
from stdnum.tr import tckimlik
from stdnum.us import ssn
from stdnum.za import idnr as za_idnr

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"card", "cvc_pin", "password_phrase", "login", "vendor_key", "private_key", "seed_phrase", "otp",
         "iban", "national_id", "connection_string", "jwt", "split", "lookalike"}
LANGS = {"en", "de", "es", "fr", "it", "pt", "nl"}
FIELDS = {"id", "kind", "split", "messages", "secret", "keep", "language", "source"}
WORDS = open(os.path.join(HERE, "..", "bip39_english.txt")).read().split()


def _mrz_digit(field):
    total = 0
    for position, ch in enumerate(field):
        value = 0 if ch == "<" else int(ch) if ch.isdigit() else ord(ch) - ord("A") + 10
        total += value * [7, 3, 1][position % 3]
    return total % 10


def uk_nino(s):
    c = s.replace(" ", "").upper()
    return (re.fullmatch(r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z][0-9]{6}[A-D]", c) is not None
            and c[:2] not in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def de_ausweis(s):
    return re.fullmatch(r"[CFGHJKLMNPRTVWXYZ0-9]{9}[0-9]", s) is not None and _mrz_digit(s[:9]) == int(s[9])


def mrz_td3(line):
    if len(line) != 44 or not re.fullmatch(r"[A-Z0-9<]+", line):
        return False
    fields = [(0, 9, 9), (13, 19, 19), (21, 27, 27), (28, 42, 42)]
    if any(_mrz_digit(line[a:b]) != int(line[c]) for a, b, c in fields):
        return False
    return _mrz_digit(line[0:10] + line[13:20] + line[21:43]) == int(line[43])


def upu_s10(s):
    m = re.fullmatch(r"[A-Z]{2}([0-9]{8})([0-9])[A-Z]{2}", s)
    if not m:
        return False
    r = 11 - sum(int(d) * w for d, w in zip(m.group(1), (8, 6, 4, 2, 3, 5, 9, 7))) % 11
    return {10: 0, 11: 5}.get(r, r) == int(m.group(2))


def bip39(s):
    ws = s.split()
    if len(ws) not in (12, 15, 18, 21, 24) or any(w not in WORDS for w in ws):
        return False
    bits = "".join(format(WORDS.index(w), "011b") for w in ws)
    ent = len(bits) * 32 // 33
    entropy = int(bits[:ent], 2).to_bytes(ent // 8, "big")
    return format(hashlib.sha256(entropy).digest()[0], "08b")[: len(bits) - ent] == bits[ent:]


def fr_iban_rib(s):
    c = s.replace(" ", "")
    if not (c.startswith("FR") and len(c) == 27 and c[4:].isdigit()):
        return False
    bank, branch, account, key = int(c[4:9]), int(c[9:14]), int(c[14:25]), int(c[25:])
    return (89 * bank + 15 * branch + 3 * account + key) % 97 == 0


_CIN_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]


def it_iban_cin(s):
    c = s.replace(" ", "")
    if not (c.startswith("IT") and len(c) == 27):
        return False
    total = 0
    for position, ch in enumerate(c[5:], start=1):
        value = int(ch) if ch.isdigit() else ord(ch) - ord("A")
        total += _CIN_ODD[value] if position % 2 else value
    return chr(ord("A") + total % 26) == c[4]


VALIDATORS = {
    "fr_iban_rib": fr_iban_rib, "it_iban_cin": it_iban_cin,
    "us_ssn": ssn.is_valid, "uk_nino": uk_nino, "ca_sin": sin.is_valid, "es_dni": dni.is_valid,
    "es_nie": nie.is_valid, "it_cf": codicefiscale.is_valid, "fr_nir": nir.is_valid, "de_idnr": idnr.is_valid,
    "de_ausweis": de_ausweis, "nl_bsn": bsn.is_valid, "be_nn": nn.is_valid, "se_pnr": personnummer.is_valid,
    "no_fnr": fodselsnummer.is_valid, "dk_cpr": cpr.is_valid, "fi_hetu": hetu.is_valid, "pl_pesel": pesel.is_valid,
    "pt_nif": nif.is_valid, "pt_cc": pt_cc.is_valid, "br_cpf": cpf.is_valid, "in_aadhaar": aadhaar.is_valid,
    "in_pan": pan.is_valid, "mx_curp": curp.is_valid, "ar_dni": ar_dni.is_valid, "ar_cuit": ar_cuit.is_valid,
    "cl_rut": rut.is_valid, "za_id": za_idnr.is_valid, "au_tfn": tfn.is_valid, "jp_in": jp_in.is_valid,
    "kr_rrn": rrn.is_valid, "cn_ric": ric.is_valid, "tr_tckimlik": tckimlik.is_valid, "il_idnr": il_idnr.is_valid,
    "ie_pps": pps.is_valid, "ch_ahv": ch_ssn.is_valid, "at_vnr": vnr.is_valid, "icao_mrz_td3": mrz_td3,
    "iban": iban.is_valid, "luhn": luhn.is_valid, "gs1": ean.is_valid, "upu_s10": upu_s10, "bip39": bip39,
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
        if cid != f"{kind}-d4-{index:03d}":
            err(f"id should be {kind}-d4-{index:03d}")
        if c["split"] != ("frozen2" if index % 5 in (0, 3) else "dev4"):
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
        if kind == "split":
            if len(msgs) != 2:
                err("a split case has two messages")
            elif any(s in msgs[0] or s not in msgs[1] for s in c["secret"]):
                err("a split case's secret is in the second message only")
            elif not any(k in msgs[0] for k in c["keep"]):
                err("a split case keeps part of its label")
        for chk in c.get("checks", []):
            if chk["value"] not in joined and re.sub(r"\D", "", chk["value"]) not in re.sub(r"\D", "", joined):
                err(f"checked value not in messages: {chk['value']!r}")
            if not claim_holds(chk["type"], chk["value"]):
                err(f"check {chk['type']} fails for {chk['value']!r}")
            if kind != "lookalike" and chk["type"].endswith("_fail"):
                err("secret cases claim only valid checksums")
    return errors


def main():
    corpus = json.load(open(os.path.join(HERE, "corpus_dev4.json"), encoding="utf-8"))
    errors = validate(corpus)
    for e in errors:
        print(e)
    counts = Counter((c["kind"], c["split"]) for c in corpus)
    print(f"{'kind':18} {'frozen2':>7} {'dev4':>6} {'total':>6}")
    for kind in sorted({k for k, _ in counts}):
        f, d = counts[(kind, "frozen2")], counts[(kind, "dev4")]
        print(f"{kind:18} {f:7} {d:6} {f + d:6}")
    langs = Counter(c["language"] for c in corpus)
    print("languages:", dict(sorted(langs.items())), "| cases", len(corpus),
          "| checksum claims", sum(len(c.get("checks", [])) for c in corpus))
    print("OK" if not errors else f"{len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
