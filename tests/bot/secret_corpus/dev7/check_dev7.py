#!/usr/bin/env python3
"""Validate corpus_dev7.json: structure, kinds, ids, split rule, substrings, checksum claims. Exit 1 on any error.

dev6's checker extended. Checksum claims are verified with python-stdnum (independent of ids_dev7.py, which computes
the check digits itself); the two types stdnum lacks are re-implemented here: `gb_nino` (UK National Insurance
number format: prefix letters and suffix A-D) and `icao` (ICAO 9303 7-3-1 document-number check digit).
"""
import json
import os
import re
import sys
from collections import Counter

from stdnum import luhn
from stdnum.at import vnr
from stdnum.au import tfn
from stdnum.be import nn, vat as be_vat
from stdnum.bg import egn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.ch import ssn as ch_ssn
from stdnum.cl import rut
from stdnum.cn import ric
from stdnum.cz import rc
from stdnum.de import idnr, vat as de_vat
from stdnum.dk import cpr
from stdnum.ec import ci
from stdnum.ee import ik
from stdnum.es import dni, nie
from stdnum.fi import hetu
from stdnum.fr import nir, siren
from stdnum.gb import nhs
from stdnum.gr import amka
from stdnum.hr import oib
from stdnum.ie import pps
from stdnum.il import idnr as il_idnr
from stdnum.in_ import aadhaar, pan
from stdnum.is_ import kennitala
from stdnum.it import codicefiscale, iva
from stdnum.jp import in_ as jp_in
from stdnum.kr import rrn
from stdnum.mx import curp
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.nz import ird
from stdnum.pe import cui
from stdnum.pl import pesel
from stdnum.pt import nif
from stdnum.ro import cnp
from stdnum.se import personnummer
from stdnum.th import pin as th_pin
from stdnum.tr import tckimlik
from stdnum.us import itin, ssn
from stdnum.za import idnr as za_idnr

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"cvc_pin", "national_id", "password_phrase", "lookalike"}
LANGS = {"en", "de", "es", "fr", "it", "pt", "nl"}
FIELDS = {"id", "kind", "split", "messages", "secret", "keep", "language", "source"}
FROZEN, DEV = "frozen5", "dev7"


def gb_nino(s):
    c = re.sub(r"\s", "", s).upper()
    m = re.fullmatch(r"([A-Z])([A-Z])[0-9]{6}[A-D]", c)
    if not m:
        return False
    first, second = m.groups()
    return (first not in "DFIQUV" and second not in "DFIOQUV"
            and first + second not in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"})


def icao(s):
    if not re.fullmatch(r"[0-9A-Z<]{2,}[0-9]", s):
        return False
    weights = [7, 3, 1]
    total = 0
    for i, ch in enumerate(s[:-1]):
        value = 0 if ch == "<" else int(ch, 36)
        total += value * weights[i % 3]
    return total % 10 == int(s[-1])


VALIDATORS = {
    "us_ssn": ssn.is_valid, "us_itin": itin.is_valid, "gb_nhs": nhs.is_valid, "gb_nino": gb_nino,
    "de_idnr": idnr.is_valid, "icao": icao, "fr_nir": nir.is_valid, "it_cf": codicefiscale.is_valid,
    "es_dni": dni.is_valid, "es_nie": nie.is_valid, "nl_bsn": bsn.is_valid, "pt_nif": nif.is_valid,
    "br_cpf": cpf.is_valid, "mx_curp": curp.is_valid, "in_aadhaar": aadhaar.is_valid, "in_pan": pan.is_valid,
    "ca_sin": sin.is_valid, "au_tfn": tfn.is_valid, "pl_pesel": pesel.is_valid, "se_pnr": personnummer.is_valid,
    "be_nn": nn.is_valid, "ch_ahv": ch_ssn.is_valid, "at_vnr": vnr.is_valid, "ie_pps": pps.is_valid,
    "dk_cpr": cpr.is_valid, "fi_hetu": hetu.is_valid, "no_fnr": fodselsnummer.is_valid, "cn_ric": ric.is_valid,
    "jp_mynumber": jp_in.is_valid, "kr_rrn": rrn.is_valid, "tr_tc": tckimlik.is_valid, "il_id": il_idnr.is_valid,
    "za_id": za_idnr.is_valid, "cl_rut": rut.is_valid, "pe_cui": cui.is_valid, "ro_cnp": cnp.is_valid,
    "bg_egn": egn.is_valid, "cz_rc": rc.is_valid, "ee_ik": ik.is_valid, "hr_oib": oib.is_valid,
    "gr_amka": amka.is_valid, "is_kt": kennitala.is_valid, "ec_ci": ci.is_valid, "th_pin": th_pin.is_valid,
    "nz_ird": ird.is_valid, "de_vat": de_vat.is_valid, "fr_siren": siren.is_valid, "it_iva": iva.is_valid,
    "be_vat": be_vat.is_valid, "luhn": luhn.is_valid,
}


def claim_holds(kind, value):
    value = re.sub(r"\s+", "", value)  # spaces only group the digits (odd groupings in chat)
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
        if cid != f"{kind}-d7-{index:03d}":
            err(f"id should be {kind}-d7-{index:03d}")
        if c["split"] != (FROZEN if index % 5 in (0, 3) else DEV):
            err("split does not follow the index rule")
        if c["language"] not in LANGS:
            err(f"language {c['language']}")
        if not isinstance(c["source"], str) or not c["source"]:
            err("source empty")
        msgs = c["messages"]
        if not (isinstance(msgs, list) and 1 <= len(msgs) <= 2 and all(isinstance(m, str) and m for m in msgs)):
            err("messages")
            continue
        joined = "\n".join(msgs)
        if not (isinstance(c["secret"], list) and isinstance(c["keep"], list)):
            err("secret/keep are lists")
            continue
        if not all(isinstance(x, str) and x for x in c["secret"] + c["keep"]):
            err("empty or non-string secret/keep")
            continue
        if kind == "lookalike":
            if c["secret"]:
                err("a look-alike has no secret")
            if not c["keep"]:
                err("a look-alike keeps its value")
        else:
            if not c["secret"]:
                err("no secret")
            if not c["keep"]:
                err("a secret case keeps its context words")
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
        for s in c["secret"]:
            for m in re.finditer(re.escape(s), joined):
                for k in c["keep"]:
                    for km in re.finditer(re.escape(k), joined):
                        if km.start() < m.end() and m.start() < km.end():
                            err(f"keep {k!r} overlaps secret {s!r} in the text")
        # split cases (two messages): the secret only in the second, part of the label kept in the first
        if len(msgs) == 2:
            if any(s in msgs[0] or s not in msgs[1] for s in c["secret"]):
                err("a split case's secret is in the second message only")
            elif kind != "lookalike" and not any(k in msgs[0] for k in c["keep"]):
                err("a split case keeps part of its label")
        checks = c.get("checks", [])
        if not isinstance(checks, list) or ("checks" in c and not checks):
            err("checks is a non-empty list when present")
            continue
        for chk in checks:
            if set(chk) != {"type", "value"}:
                err(f"check fields {sorted(chk)}")
                continue
            if chk["value"] not in joined:
                err(f"checked value not in messages: {chk['value']!r}")
            if not claim_holds(chk["type"], chk["value"]):
                err(f"check {chk['type']} fails for {chk['value']!r}")
            if kind != "lookalike" and chk["type"].endswith("_fail"):
                err("secret cases claim only valid checksums")
            if kind == "national_id" and chk["value"] not in c["secret"] and not any(
                    chk["value"] in s for s in c["secret"]):
                err(f"a national_id claim is about one of its secrets: {chk['value']!r}")
    return errors


def main():
    corpus = json.load(open(os.path.join(HERE, "corpus_dev7.json"), encoding="utf-8"))
    errors = validate(corpus)
    for e in errors:
        print(e)
    counts = Counter((c["kind"], c["split"]) for c in corpus)
    print(f"{'kind':18} {FROZEN:>7} {DEV:>6} {'total':>6}")
    for kind in sorted({k for k, _ in counts}):
        f, d = counts[(kind, FROZEN)], counts[(kind, DEV)]
        print(f"{kind:18} {f:7} {d:6} {f + d:6}")
    langs = Counter(c["language"] for c in corpus)
    print("languages:", dict(sorted(langs.items())), "| cases", len(corpus),
          "| checksum claims", sum(len(c.get("checks", [])) for c in corpus))
    print("OK" if not errors else f"{len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
