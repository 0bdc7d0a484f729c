"""Checksum / format rules shared by gen_dev2.py (to build values) and used as the
reference in check_dev2.py (which re-implements the validators independently where
practical, see there).  Written from public format specifications only."""
import re

# ---------------------------------------------------------------- generic
def luhn_sum(digits: str) -> int:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10


def luhn_complete(payload: str) -> str:
    """Return payload + Luhn check digit."""
    for c in "0123456789":
        if luhn_sum(payload + c) == 0:
            return payload + c
    raise AssertionError


def mod97_alnum(s: str) -> int:
    n = "".join(str(int(c, 36)) for c in s)
    return int(n) % 97


# ---------------------------------------------------------------- IDs
DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni_letter(num8: str) -> str:
    return DNI_LETTERS[int(num8) % 23]


def bsn_sum(d9: str) -> int:
    return sum(int(d9[i]) * (9 - i) for i in range(8)) - int(d9[8])


def nif_pt_check(d8: str) -> int:
    s = sum(int(d8[i]) * (9 - i) for i in range(8))
    c = 11 - s % 11
    return 0 if c >= 10 else c


def nir_key(n13: str) -> int:
    n13 = n13.upper().replace("2A", "19", 1) if n13[5:7].upper() == "2A" else n13
    n13 = n13.upper().replace("2B", "18", 1) if n13[5:7].upper() == "2B" else n13
    return 97 - int(n13) % 97


def steuer_check(d10: str) -> int:
    product = 10
    for ch in d10:
        s = (int(ch) + product) % 10
        if s == 0:
            s = 10
        product = (s * 2) % 11
    c = 11 - product
    return 0 if c == 10 else c


def steuer_digit_rule(d10: str) -> bool:
    if d10[0] == "0":
        return False
    counts = {c: d10.count(c) for c in set(d10)}
    multi = [c for c, n in counts.items() if n > 1]
    if len(multi) != 1 or counts[multi[0]] > 3:
        return False
    if counts[multi[0]] == 3 and multi[0] * 3 in d10:
        return False
    return True


def pesel_check(d10: str) -> int:
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    return (10 - sum(int(d10[i]) * w[i] for i in range(10)) % 10) % 10


def cpf_digits(d9: str) -> str:
    s = sum(int(d9[i]) * (10 - i) for i in range(9))
    r = s % 11
    c1 = 0 if r < 2 else 11 - r
    d10 = d9 + str(c1)
    s = sum(int(d10[i]) * (11 - i) for i in range(10))
    r = s % 11
    c2 = 0 if r < 2 else 11 - r
    return d9 + str(c1) + str(c2)


def cnpj_digits(d12: str) -> str:
    w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    w2 = [6] + w1
    r = sum(int(d12[i]) * w1[i] for i in range(12)) % 11
    c1 = 0 if r < 2 else 11 - r
    d13 = d12 + str(c1)
    r = sum(int(d13[i]) * w2[i] for i in range(13)) % 11
    c2 = 0 if r < 2 else 11 - r
    return d13 + str(c2)


VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6], [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2], [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
VERHOEFF_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_ok(num: str) -> bool:
    c = 0
    for i, ch in enumerate(reversed(num)):
        c = VERHOEFF_D[c][VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


def verhoeff_digit(payload: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(payload)):
        c = VERHOEFF_D[c][VERHOEFF_P[(i + 1) % 8][int(ch)]]
    return str(VERHOEFF_INV[c])


CF_ODD = {**dict(zip("0123456789", [1, 0, 5, 7, 9, 13, 15, 17, 19, 21])),
          **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                     [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14,
                      16, 10, 22, 25, 24, 23]))}
CF_MONTHS = "ABCDEHLMPRST"


def cf_check_char(first15: str) -> str:
    s = 0
    for i, ch in enumerate(first15.upper()):
        if i % 2 == 0:            # 1st, 3rd, ... character (odd positions, 1-based)
            s += CF_ODD[ch]
        else:
            s += int(ch) if ch.isdigit() else ord(ch) - 65
    return chr(65 + s % 26)


DE_ID_ALPHABET = "0123456789CFGHJKLMNPRTVWXYZ"


def icao_check(s: str) -> int:
    w = [7, 3, 1]
    total = 0
    for i, ch in enumerate(s.upper()):
        v = 0 if ch == "<" else int(ch, 36)
        total += v * w[i % 3]
    return total % 10


def cc_pt_ok(s12: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(s12.upper())):
        v = int(ch, 36)
        if i % 2 == 1:
            v *= 2
            if v > 9:
                v -= 9
        total += v
    return total % 10 == 0


def s10_check(d8: str) -> int:
    w = [8, 6, 4, 2, 3, 5, 9, 7]
    c = 11 - sum(int(d8[i]) * w[i] for i in range(8)) % 11
    return {10: 0, 11: 5}.get(c, c)


NINO_BAD_FIRST = set("DFIQUV")
NINO_BAD_SECOND = set("DFIOQUV")
NINO_BAD_PREFIX = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def nino_ok(s: str) -> bool:
    s = re.sub(r"\s", "", s.upper())
    m = re.fullmatch(r"([A-Z])([A-Z])\d{6}[A-D]", s)
    if not m:
        return False
    a, b = m.group(1), m.group(2)
    return a not in NINO_BAD_FIRST and b not in NINO_BAD_SECOND and a + b not in NINO_BAD_PREFIX


def ssn_ok(s: str) -> bool:
    d = re.sub(r"[\s-]", "", s)
    if not re.fullmatch(r"\d{9}", d):
        return False
    area, group, serial = int(d[:3]), int(d[3:5]), int(d[5:])
    return 0 < area < 900 and area != 666 and group != 0 and serial != 0


# ---------------------------------------------------------------- self-test
# Published example values (Wikipedia / issuing-authority examples) that each rule
# must accept; run by check_dev2.py before it trusts the validators.
REFERENCE_VECTORS = [
    ("luhn", lambda: luhn_sum("4111111111111111") == 0),
    ("luhn SIN 046 454 286", lambda: luhn_sum("046454286") == 0),
    ("se_pnr 811228-9874", lambda: luhn_sum("8112289874") == 0),
    ("dni 12345678Z", lambda: dni_letter("12345678") == "Z"),
    ("bsn 111222333", lambda: bsn_sum("111222333") % 11 == 0),
    ("nif_pt 123456789", lambda: nif_pt_check("12345678") == 9),
    ("nir 2 55 08 14 168 025 38", lambda: nir_key("2550814168025") == 38),
    ("steuer_id 86095742719", lambda: steuer_check("8609574271") == 9 and steuer_digit_rule("8609574271")),
    ("pesel 44051401359", lambda: pesel_check("4405140135") == 9),
    ("cpf 111.444.777-35", lambda: cpf_digits("111444777") == "11144477735"),
    ("cnpj 11.222.333/0001-81", lambda: cnpj_digits("112223330001") == "11222333000181"),
    ("verhoeff 2363", lambda: verhoeff_digit("236") == "3" and verhoeff_ok("2363")),
    ("codice fiscale RSSMRA85T10A562S", lambda: cf_check_char("RSSMRA85T10A562") == "S"),
    ("de id card T220001293", lambda: icao_check("T22000129") == 3),
    ("de id card L9F6MKYMJ0", lambda: icao_check("L9F6MKYMJ") == 0),
    ("pt cc 000000000ZZ4", lambda: cc_pt_ok("000000000ZZ4")),
    ("upu s10 RA473124829GB", lambda: s10_check("47312482") == 9),
    ("iban DE89370400440532013000", lambda: mod97_alnum("370400440532013000DE89") == 1),
    ("rf RF18539007547034", lambda: mod97_alnum("539007547034RF18") == 1),
    ("nino QQ123456C not allocated", lambda: not nino_ok("QQ123456C")),
    ("ssn 987-65-4321 advertising range", lambda: not ssn_ok("987-65-4321")),
]


def self_test():
    bad = [name for name, f in REFERENCE_VECTORS if not f()]
    if bad:
        raise SystemExit("idcodes self-test failed: " + ", ".join(bad))
