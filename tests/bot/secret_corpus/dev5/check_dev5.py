#!/usr/bin/env python3
"""Validate corpus_dev5.json: structure, ids, split rule, substrings, checksum claims. Exit 1 on any error.

Checksum claims are verified with python-stdnum; the formats stdnum lacks (UK NINO, ICAO 9303 check digits,
UPU S10, BIP-39, French RIB key, Italian CIN, Hungarian adóazonosító jel, Luxembourg matricule, Uruguayan cédula,
Singapore NRIC, Spanish NSS, German KVNR) are re-implemented here, written apart from the generator's code.
"""
import hashlib
import json
import os
import re
import sys
from collections import Counter

from stdnum import ean, iban, luhn, verhoeff
from stdnum.be import bis
from stdnum.bg import egn
from stdnum.ca import bc_phn
from stdnum.co import nit
from stdnum.cz import rc as cz_rc
from stdnum.do import cedula as do_cedula
from stdnum.ec import ci as ec_ci
from stdnum.ee import ik as ee_ik
from stdnum.fr import nif as fr_nif
from stdnum.gb import nhs
from stdnum.gr import amka
from stdnum.hr import oib
from stdnum.id import nik
from stdnum.is_ import kennitala
from stdnum.lt import asmens
from stdnum.lv import pvn
from stdnum.my import nric as my_nric
from stdnum.nl import identiteitskaartnummer
from stdnum.nz import ird
from stdnum.pe import cui as pe_cui
from stdnum.pk import cnic
from stdnum.ro import cnp
from stdnum.si import emso
from stdnum.sk import rc as sk_rc
from stdnum.th import pin as th_pin
from stdnum.us import itin
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


def hu_adoazonosito(s):
    c = re.sub(r"\D", "", s)
    if not re.fullmatch(r"8[0-9]{9}", c):
        return False
    return sum(int(c[i]) * (i + 1) for i in range(9)) % 11 == int(c[9])


def lu_matricule(s):
    c = re.sub(r"\D", "", s)
    if len(c) != 13:
        return False
    try:
        import datetime
        datetime.date(int(c[:4]), int(c[4:6]), int(c[6:8]))
    except ValueError:
        return False
    return luhn.is_valid(c[:12]) and verhoeff.is_valid(c[:11] + c[12])


def uy_ci(s):
    c = re.sub(r"\D", "", s)
    if len(c) != 8:
        return False
    total = sum(int(c[i]) * (2, 9, 8, 7, 6, 3, 4)[i] for i in range(7))
    return (10 - total % 10) % 10 == int(c[7])


def sg_nric(s):
    m = re.fullmatch(r"([STFG])([0-9]{7})([A-Z])", s.upper())
    if not m:
        return False
    total = sum(int(m.group(2)[i]) * (2, 7, 6, 5, 4, 3, 2)[i] for i in range(7))
    total += 4 if m.group(1) in "TG" else 0
    letters = "JZIHGFEDCBA" if m.group(1) in "ST" else "XWUTRQPNMLK"
    return letters[total % 11] == m.group(3)


def es_nss(s):
    c = re.sub(r"\D", "", s)
    return len(c) == 12 and int(c[:10]) % 97 == int(c[10:])


def de_kvnr(s):
    m = re.fullmatch(r"([A-Z])([0-9]{8})([0-9])", s)
    if not m:
        return False
    seq = "%02d" % (ord(m.group(1)) - 64) + m.group(2)
    total = 0
    for i, ch in enumerate(seq):
        product = int(ch) * (2 if i % 2 else 1)
        total += sum(int(x) for x in str(product))
    return total % 10 == int(m.group(3))


VALIDATORS = {
    "hu_adoazonosito": hu_adoazonosito, "lu_matricule": lu_matricule, "uy_ci": uy_ci, "sg_nric": sg_nric,
    "es_nss": es_nss, "de_kvnr": de_kvnr, "ee_ik": ee_ik.is_valid, "lt_asmens": asmens.is_valid,
    "lv_pk": pvn.is_valid, "cz_rc": cz_rc.is_valid, "sk_rc": sk_rc.is_valid, "ro_cnp": cnp.is_valid,
    "bg_egn": egn.is_valid, "hr_oib": oib.is_valid, "si_emso": emso.is_valid, "gr_amka": amka.is_valid,
    "is_kennitala": kennitala.is_valid, "ec_ci": ec_ci.is_valid, "pe_cui": pe_cui.is_valid, "co_nit": nit.is_valid,
    "my_nric": my_nric.is_valid, "th_pin": th_pin.is_valid, "id_nik": nik.is_valid, "nz_ird": ird.is_valid,
    "ca_bc_phn": bc_phn.is_valid, "gb_nhs": nhs.is_valid, "us_itin": itin.is_valid, "pk_cnic": cnic.is_valid,
    "do_cedula": do_cedula.is_valid, "be_bis": bis.is_valid, "fr_nif": fr_nif.is_valid,
    "nl_idkaart": identiteitskaartnummer.is_valid,
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
        if cid != f"{kind}-d5-{index:03d}":
            err(f"id should be {kind}-d5-{index:03d}")
        if c["split"] != ("frozen3" if index % 5 in (0, 3) else "dev5"):
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
    corpus = json.load(open(os.path.join(HERE, "corpus_dev5.json"), encoding="utf-8"))
    errors = validate(corpus)
    for e in errors:
        print(e)
    counts = Counter((c["kind"], c["split"]) for c in corpus)
    print(f"{'kind':18} {'frozen3':>7} {'dev5':>6} {'total':>6}")
    for kind in sorted({k for k, _ in counts}):
        f, d = counts[(kind, "frozen3")], counts[(kind, "dev5")]
        print(f"{kind:18} {f:7} {d:6} {f + d:6}")
    langs = Counter(c["language"] for c in corpus)
    print("languages:", dict(sorted(langs.items())), "| cases", len(corpus),
          "| checksum claims", sum(len(c.get("checks", [])) for c in corpus))
    print("OK" if not errors else f"{len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
