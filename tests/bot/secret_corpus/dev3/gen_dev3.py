#!/usr/bin/env python3
"""One-shot generator for corpus_dev3.json (third development set of the chat secret-detector corpus).

Aimed at the kinds that were weakest on earlier sets: login, national_id, split, password_phrase,
connection_string, otp, plus hard look-alikes for each of them.

* Every value comes from random.Random(SEED) (seeded, so a re-run reproduces the same file).
* Check digits are *computed* here from the published algorithms (functions `cd_*` below);
  check_dev3.py *verifies* them with separate, independent code (and against ../check.py and,
  when installed, python-stdnum). The generator runs the validator on its output before writing.
* Refuses to overwrite corpus_dev3.json without --force.

Usage: python3 gen_dev3.py [--force] [--seed N] [--out PATH]
"""
import argparse, datetime, json, os, random, string, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 3_2025_0603
R = random.Random(SEED)          # replaced in main() when --seed is given

# ----------------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------------

def ascii_fold(s):
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))

def rdigits(n, first_nonzero=False):
    s = "".join(R.choice(string.digits) for _ in range(n))
    if first_nonzero and s[0] == "0":
        s = R.choice("123456789") + s[1:]
    return s

def rdate(y0=1952, y1=2004):
    start = datetime.date(y0, 1, 1).toordinal()
    return datetime.date.fromordinal(R.randint(start, datetime.date(y1, 12, 31).toordinal()))

def pin(n):
    """A PIN that is not all one digit and not a straight run (people are told not to pick those)."""
    while True:
        p = rdigits(n)
        if len(set(p)) > 2 and p not in "0123456789" and p not in "9876543210":
            return p

WORDS = {
    "en": ["Velvet", "Anchor", "Harbor", "Maple", "Copper", "Lantern", "Pepper", "Falcon", "Meadow", "Orbit",
           "Thistle", "Cobalt", "Juniper", "Saddle", "Marble", "Ember"],
    "de": ["Sonnenblume", "Wolke", "Apfelbaum", "Kater", "Leuchtturm", "Brezel", "Igel", "Tanne", "Zwerg", "Hafen"],
    "es": ["Girasol", "Mirlo", "Tortuga", "Limonero", "Canela", "Faro", "Almendra", "Lince"],
    "fr": ["Papillon", "Hibou", "Cerisier", "Marmotte", "Lavande", "Nuage", "Castor", "Brioche"],
    "it": ["Gabbiano", "Limone", "Tramonto", "Cipresso", "Nocciola", "Lupo", "Vespa", "Scoglio"],
    "pt": ["Andorinha", "Caju", "Saudade", "Gaivota", "Jacaranda", "Sardinha", "Farol", "Coruja"],
    "nl": ["Tulp", "Molen", "Zeehond", "Drop", "Reiger", "Klomp", "Duinroos", "Fietsbel"],
}
SAFE_SYM = "!#%*+-=?@_"

def pw_random(n=None, sym=SAFE_SYM):
    n = n or R.randint(10, 16)
    pool = string.ascii_letters + string.digits + sym
    while True:
        s = "".join(R.choice(pool) for _ in range(n))
        if (any(c.islower() for c in s) and any(c.isupper() for c in s) and any(c.isdigit() for c in s)
                and (not sym or any(c in sym for c in s)) and s[0].isalnum() and s[-1].isalnum()):
            return s

def pw_url(n=None):
    """URL/shell-safe password (no @ : / # ? % $ quotes)."""
    return pw_random(n or R.randint(14, 22), sym="-_.~")

def pw_words(lang="en"):
    a, b = R.sample(WORDS[lang], 2)
    return a + R.choice("-._!") + b + str(R.randint(10, 9999))

def pw_leet(lang="en"):
    w = R.choice(WORDS[lang])
    table = {"a": "4", "e": "3", "o": "0", "i": "1", "s": "$"}
    out = "".join(table[c] if c in table and R.random() < 0.6 else c for c in w)
    if out == w:
        out = w[:-1] + "@" if w[-1] == "a" else w + "!"
    return out + str(R.randint(1, 99)) + R.choice("!#*?")

def pw_lower(lang="en"):
    return ascii_fold(R.choice(WORDS[lang]).lower()) + str(R.randint(1960, 2019))

def passphrase(n=4, sep=" "):
    pool = ["purple", "tiger", "lamp", "gravel", "orchid", "wagon", "sunset", "pickle", "violin", "glacier",
            "basket", "mango", "tunnel", "comet", "walnut", "parade", "harbor", "feather", "cactus", "ladder"]
    return sep.join(R.sample(pool, n))

NAMES = {
    "en": (["Dana", "Marcus", "Priya", "Owen", "Chloe", "Tariq", "Hannah", "Leo", "Nadia", "Grant"],
           ["Whitfield", "Okafor", "Brennan", "Patel", "Hughes", "Marsh", "Kowalski", "Reyes", "Lindqvist", "Doyle"]),
    "de": (["Katrin", "Jonas", "Hilde", "Matthias", "Lena", "Tobias"], ["Weber", "Brandt", "Keller", "Hoffmann", "Schulze", "Vogt"]),
    "es": (["Marta", "Javier", "Lucía", "Andrés", "Nerea"], ["Ruiz", "García", "Navarro", "Ortega", "Iglesias"]),
    "fr": (["Camille", "Julien", "Élodie", "Hugo", "Maëlle"], ["Lefèvre", "Moreau", "Girard", "Faure", "Roussel"]),
    "it": (["Giulia", "Marco", "Chiara", "Davide", "Sara"], ["Rossi", "Bianchi", "Ferrari", "Esposito", "Galli"]),
    "pt": (["Inês", "Tiago", "Beatriz", "Rafael", "Joana"], ["Silva", "Costa", "Ferreira", "Almeida", "Matos"]),
    "nl": (["Sanne", "Pieter", "Femke", "Bram", "Noor"], ["de Vries", "Jansen", "Bakker", "Visser", "Smit"]),
}
_used_users = set()

def username(lang, style=None):
    first, last = NAMES[lang]
    while True:
        f = ascii_fold(R.choice(first)).lower()
        l = ascii_fold(R.choice(last)).lower().replace(" ", "")
        style_ = style or R.choice(["dot", "initial", "num", "under"])
        u = {"dot": f"{f}.{l}", "initial": f"{f[0]}{l}", "num": f"{f[0]}{l}{R.randint(70, 99)}",
             "under": f"{f}_{l[:3]}{R.randint(1, 9)}"}[style_]
        if u not in _used_users:
            _used_users.add(u)
            return u

def email(lang, domain=None):
    return username(lang, R.choice(["dot", "num"])) + "@" + (domain or R.choice(["example.com", "example.org", "example.net"]))

# ----------------------------------------------------------------------------------------------
# check-digit computation (the validator re-implements verification separately)
# ----------------------------------------------------------------------------------------------

def cd_luhn(payload):
    s = 0
    for i, ch in enumerate(reversed(payload)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9: d -= 9
        s += d
    return str((10 - s % 10) % 10)

def cd_mod97_iban(cc, bban):
    n = int("".join(str(int(c, 36)) for c in bban + cc + "00"))
    return "%02d" % (98 - n % 97)

def gen_iban_de():
    bban = rdigits(8, True) + rdigits(10)
    return "DE" + cd_mod97_iban("DE", bban) + bban

def gen_iban_be():
    body = "%03d" % R.randint(1, 49) + rdigits(7)        # bank code 001-049 (NBB list: BNP Paribas Fortis)
    k = int(body) % 97 or 97
    bban = body + "%02d" % k
    return "BE" + cd_mod97_iban("BE", bban) + bban

def gen_iban_fr():
    bank, branch, acct = rdigits(5, True), rdigits(5), rdigits(11)
    key = 97 - (89 * int(bank) + 15 * int(branch) + 3 * int(acct)) % 97
    bban = bank + branch + acct + "%02d" % key
    return "FR" + cd_mod97_iban("FR", bban) + bban

def group(s, n=4, sep=" "):
    return sep.join(s[i:i + n] for i in range(0, len(s), n))

def gen_ssn():
    while True:
        a, g, s = R.randint(1, 899), R.randint(1, 99), R.randint(1, 9999)
        v = "%03d-%02d-%04d" % (a, g, s)
        if a != 666 and v not in ("078-05-1120", "219-09-9999", "123-45-6789"):
            return v

NINO1, NINO2 = "ABCEGHJKLMNOPRSTWXYZ", "ABCEGHJKLMNPRSTWXYZ"
def gen_nino():
    while True:
        p = R.choice(NINO1) + R.choice(NINO2)
        if p not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
            return p + rdigits(6) + R.choice("ABCD")

def cd_steuer_id(d10):
    prod = 10
    for x in d10:
        t = (int(x) + prod) % 10 or 10
        prod = (t * 2) % 11
    c = 11 - prod
    return "0" if c == 10 else str(c)

def gen_steuer_id():
    while True:
        dup = R.choice(string.digits)
        others = R.sample([d for d in string.digits if d != dup], 8)
        ds = others + [dup, dup]
        R.shuffle(ds)
        s = "".join(ds)
        if s[0] != "0" and dup * 2 not in s:      # keep the duplicated digit apart (simplest valid case)
            return s + cd_steuer_id(s)

def gen_nir():
    d = rdate(1955, 2003)
    dept = R.choice(["%02d" % x for x in list(range(1, 20)) + list(range(21, 96))])
    body = "%d%02d%02d%s%03d%03d" % (R.choice([1, 2]), d.year % 100, d.month, dept, R.randint(1, 990), R.randint(1, 999))
    return body + "%02d" % (97 - int(body) % 97)

def fmt_nir(n):
    return " ".join([n[0], n[1:3], n[3:5], n[5:7], n[7:10], n[10:13], n[13:]])

DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
def gen_dni():
    n = rdigits(8, True)
    return n + DNI_LETTERS[int(n) % 23]

def gen_nie():
    p = R.choice("XYZ"); n = rdigits(7)
    return p + n + DNI_LETTERS[int(str("XYZ".index(p)) + n) % 23]

CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                  [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14,
                   16, 10, 22, 25, 24, 23]))
CF_EVEN = {c: (int(c) if c.isdigit() else ord(c) - 65) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
def cd_cf(first15):
    s = sum(CF_ODD[c] if i % 2 == 0 else CF_EVEN[c] for i, c in enumerate(first15))
    return chr(65 + s % 26)

def _cf_part(name, is_first):
    name = ascii_fold(name).upper().replace(" ", "").replace("'", "")
    cons = [c for c in name if c.isalpha() and c not in "AEIOU"]
    vow = [c for c in name if c in "AEIOU"]
    if is_first and len(cons) >= 4:
        cons = [cons[0], cons[2], cons[3]]
    return ("".join(cons + vow) + "XXX")[:3]

def gen_cf(surname, first, female):
    d = rdate(1955, 2002)
    comune = R.choice(["H501", "F205", "F839", "L219", "A944", "G273", "D612"])   # Roma Milano Napoli Torino Bologna Palermo Firenze
    body = (_cf_part(surname, False) + _cf_part(first, True) + "%02d" % (d.year % 100) + "ABCDEHLMPRST"[d.month - 1]
            + "%02d" % (d.day + (40 if female else 0)) + comune)
    return body + cd_cf(body)

def gen_bsn():
    while True:
        d8 = R.choice("123456") + rdigits(7)
        r = sum(int(x) * w for x, w in zip(d8, range(9, 1, -1))) % 11
        if r < 10:
            return d8 + str(r)

def gen_be_nn(after2000=False):
    d = rdate(2000, 2006) if after2000 else rdate(1950, 1999)
    body = "%02d%02d%02d%03d" % (d.year % 100, d.month, d.day, R.randint(1, 997))
    k = 97 - int(("2" if after2000 else "") + body) % 97
    return body + "%02d" % k

def fmt_be(n):
    return "%s.%s.%s-%s.%s" % (n[0:2], n[2:4], n[4:6], n[6:9], n[9:])

def gen_se_pnr():
    d = rdate(1950, 2004)
    body = "%02d%02d%02d%03d" % (d.year % 100, d.month, d.day, R.randint(0, 999))
    return d, body[:6] + "-" + body[6:] + cd_luhn(body)

def gen_dk_cpr():
    while True:
        d = rdate(1960, 1999)
        body = "%02d%02d%02d%s%s" % (d.day, d.month, d.year % 100, R.choice("0123"), rdigits(2))
        s = sum(w * int(x) for w, x in zip((4, 3, 2, 7, 6, 5, 4, 3, 2), body))
        c = (-s) % 11
        if c < 10:
            return body[:6] + "-" + body[6:] + str(c)

HETU_CH = "0123456789ABCDEFHJKLMNPRSTUVWXY"
def gen_hetu(y2k=False):
    d = rdate(2000, 2006) if y2k else rdate(1950, 1999)
    ind = R.randint(2, 899)
    core = "%02d%02d%02d%03d" % (d.day, d.month, d.year % 100, ind)
    return core[:6] + ("A" if y2k else "-") + core[6:] + HETU_CH[int(core) % 31]

def gen_no_fnr():
    while True:
        d = rdate(1950, 1999)
        body = "%02d%02d%02d%03d" % (d.day, d.month, d.year % 100, R.randint(0, 499))
        k1 = (11 - sum(w * int(x) for w, x in zip((3, 7, 6, 1, 8, 9, 4, 5, 2), body))) % 11
        if k1 == 10: continue
        body += str(k1)
        k2 = (11 - sum(w * int(x) for w, x in zip((5, 4, 3, 2, 7, 6, 5, 4, 3, 2), body))) % 11
        if k2 == 10: continue
        return body + str(k2)

def gen_pesel(y2k=False):
    d = rdate(2000, 2008) if y2k else rdate(1950, 1999)
    body = "%02d%02d%02d%s" % (d.year % 100, d.month + (20 if y2k else 0), d.day, rdigits(4))
    s = sum(w * int(x) for w, x in zip((1, 3, 7, 9, 1, 3, 7, 9, 1, 3), body))
    return body + str((10 - s % 10) % 10)

def cd_mod11_pt(d8):
    c = 11 - sum(int(x) * w for x, w in zip(d8, range(9, 1, -1))) % 11
    return "0" if c >= 10 else str(c)

def gen_nif_pt():
    d8 = R.choice("123") + rdigits(7)
    return d8 + cd_mod11_pt(d8)

def gen_pt_cc():
    civil = rdigits(8, True)
    civil += cd_mod11_pt(civil)          # 9th digit: old BI mod-11 rule (not claimed in checks)
    ver = R.choice(["ZZ", "ZY", "ZX", "ZW"])
    payload = civil + ver
    alpha = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    s = 0
    for i, c in enumerate(reversed(payload)):
        v = alpha.index(c)
        if i % 2 == 0:
            v *= 2
            if v > 9: v -= 9
        s += v
    return "%s %s %s%d" % (civil[:8], civil[8], ver, (10 - s % 10) % 10)

PPS_ALPHA = "WABCDEFGHIJKLMNOPQRSTUV"
def gen_ppsn(second=""):
    d7 = rdigits(7)
    s = sum(int(x) * (8 - i) for i, x in enumerate(d7)) + (9 * PPS_ALPHA.index(second) if second else 0)
    return d7 + PPS_ALPHA[s % 23] + second

def cd_gs1(payload):
    s = sum(int(x) * (3 if i % 2 == 0 else 1) for i, x in enumerate(reversed(payload)))
    return str((10 - s % 10) % 10)

def gen_ahv():
    p = "756" + rdigits(9)
    n = p + cd_gs1(p)
    return "%s.%s.%s.%s" % (n[:3], n[3:7], n[7:11], n[11:])

def gen_at_sv():
    while True:
        d = rdate(1950, 2004)
        serial = R.choice("123456789") + rdigits(2)
        dd = "%02d%02d%02d" % (d.day, d.month, d.year % 100)
        full = serial + "0" + dd
        c = sum(w * int(x) for w, x in zip((3, 7, 9, 0, 5, 8, 4, 2, 1, 6), full)) % 11
        if c < 10:
            return serial + str(c) + " " + dd

VD = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
      [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
      [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
VP = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
      [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
      [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]
def cd_verhoeff(payload):
    c = 0
    for i, x in enumerate(reversed(payload)):
        c = VD[c][VP[(i + 1) % 8][int(x)]]
    return str(VINV[c])

def gen_aadhaar():
    while True:
        p = R.choice("23456789") + rdigits(10)
        n = p + cd_verhoeff(p)
        if n != n[::-1]:
            return n

def gen_cpf():
    while True:
        d9 = rdigits(9)
        if len(set(d9)) == 1: continue
        d1 = sum(int(x) * w for x, w in zip(d9, range(10, 1, -1))) * 10 % 11 % 10
        d10 = d9 + str(d1)
        d2 = sum(int(x) * w for x, w in zip(d10, range(11, 1, -1))) * 10 % 11 % 10
        return d10 + str(d2)

def fmt_cpf(n):
    return "%s.%s.%s-%s" % (n[:3], n[3:6], n[6:9], n[9:])

def gen_sin():
    while True:
        p = R.choice("1234567") + rdigits(7)
        n = p + cd_luhn(p)
        if n != "046454286":          # the SIN shown on ESDC's sample card
            return n

CN_W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
def gen_cn_rid():
    d = rdate(1960, 2002)
    region = R.choice(["110101", "110105", "310104"])     # Beijing Dongcheng, Beijing Chaoyang, Shanghai Xuhui
    body = region + d.strftime("%Y%m%d") + rdigits(3)
    return body + "10X98765432"[sum(int(x) * w for x, w in zip(body, CN_W)) % 11]

def mrz_cd(s):
    val = lambda c: 0 if c == "<" else (int(c) if c.isdigit() else ord(c) - 55)
    return str(sum(val(c) * (7, 3, 1)[i % 3] for i, c in enumerate(s)) % 10)

def gen_mrz_de(surname, given, female):
    doc = R.choice("CFGHJK") + "".join(R.choice("CFGHJKLMNPRTVWXYZ0123456789") for _ in range(8))
    dob = rdate(1960, 2000); exp = datetime.date(2027 + R.randint(0, 6), R.randint(1, 12), R.randint(1, 28))
    d_s, e_s = dob.strftime("%y%m%d"), exp.strftime("%y%m%d")
    line2 = doc + mrz_cd(doc) + "D<<" + d_s + mrz_cd(d_s) + ("F" if female else "M") + e_s + mrz_cd(e_s) + "<" * 14 + "<"
    comp = line2[0:10] + line2[13:20] + line2[21:43]
    line2 += mrz_cd(comp)
    line1 = ("P<D<<" + ascii_fold(surname).upper() + "<<" + ascii_fold(given).upper()).ljust(44, "<")
    assert len(line1) == 44 and len(line2) == 44
    return line1, line2

def gen_uk_dl(surname, initials, dob, female):
    s5 = ascii_fold(surname).upper().replace(" ", "")[:5].ljust(5, "9")
    mm = dob.month + (50 if female else 0)
    return "%s%d%02d%02d%d%s9%s" % (s5, (dob.year // 10) % 10, mm, dob.day, dob.year % 10, initials.ljust(2, "9"),
                                     "".join(R.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2)))

def cd_s10(d8):
    c = 11 - sum(int(x) * w for x, w in zip(d8, (8, 6, 4, 2, 3, 5, 9, 7))) % 11
    return {10: "0", 11: "5"}.get(c, str(c))

def bitlocker_key():
    return "-".join("%06d" % (11 * R.randint(1, 65535)) for _ in range(8))

def break_check(valid, is_valid_fn, positions=(-1,)):
    """Return the number with one check-relevant digit changed so that it no longer validates."""
    pos = positions[0] if len(positions) == 1 else R.choice(positions)
    pos = pos % len(valid)
    for d in R.sample(string.digits, 10):
        cand = valid[:pos] + d + valid[pos + 1:]
        if cand != valid and not is_valid_fn(cand):
            return cand
    raise RuntimeError("cannot break " + valid)

def random_failing(n, is_valid_fn, first="123456789"):
    while True:
        c = R.choice(first) + rdigits(n - 1)
        if not is_valid_fn(c):
            return c

# ----------------------------------------------------------------------------------------------
# corpus
# ----------------------------------------------------------------------------------------------
CASES = []

def add(kind, messages, secret, keep, lang, source, checks=None):
    if isinstance(messages, str):
        messages = [messages]
    c = {"kind": kind, "split": "dev3", "messages": messages, "secret": list(secret), "keep": list(keep),
         "language": lang, "source": source}
    if checks:
        c["checks"] = [{"type": t, "value": v} for t, v in checks]
    CASES.append(c)

SRC_CHAT = "chat phrasing written for this corpus (credential shared in a personal message)"
SRC_FWD = "forwarded e-mail layout as produced by common mail clients ('Forwarded message' header block)"


def build_login():
    k = "login"
    u, p = username("en"), pw_random()
    add(k, f"user: {u} / pw: {p}", [p], ["user:", u, "pw:"], "en", SRC_CHAT)
    e, p = email("en"), pw_words("en")
    add(k, f"login is {e} and password {p}", [p], ["login is", e, "and password"], "en", SRC_CHAT)
    e, p = email("en"), pw_random(12)
    add(k, f"Netflix: {e} / {p}", [p], ["Netflix:", e], "en", SRC_CHAT + "; streaming-account sharing")
    u, p = username("en"), pw_lower("en")
    add(k, f"for the gym app it's {u} / {p} if you want to book the spin class", [p], ["gym app", u, "book the spin class"], "en", SRC_CHAT)
    u, p = username("en", "dot"), pw_random(14)
    add(k, "---------- Forwarded message ---------\nFrom: IT Service Desk <servicedesk@example.org>\n"
           "Date: Mon, 3 Mar 2025 at 09:14\nSubject: Your new account\nTo: <" + u + "@example.org>\n\n"
           f"Hi,\nyour account has been created.\n\nUsername: {u}\nTemporary password: {p}\n\n"
           "You will be asked to change it at first sign-in.\n\nIT Service Desk",
        [p], ["Forwarded message", "servicedesk@example.org", "Username:", "Temporary password:", "first sign-in"], "en", SRC_FWD)
    u, p = "s" + rdigits(7, True), pw_leet("en")
    add(k, f"Moodle login:\n- site: moodle.example.edu\n- user: {u}\n- pass: {p}", [p],
        ["Moodle login:", "moodle.example.edu", "- user:", u, "- pass:"], "en", SRC_CHAT + "; bullet list")
    u, p = username("en"), pw_random(11)
    add(k, f"acct {u} pasword {p}", [p], ["acct", u, "pasword"], "en", SRC_CHAT + "; misspelled keyword 'pasword'")
    e, p = email("en"), pw_words("en")
    add(k, f"username {e} passwrd {p} (its the old work one)", [p], ["username", e, "passwrd", "old work one"], "en",
        SRC_CHAT + "; misspelled keyword 'passwrd'")
    u, p = username("en", "under"), pw_random(13)
    add(k, f"wordpress admin -> user: {u} pwd: {p}", [p], ["wordpress admin", u, "pwd:"], "en", SRC_CHAT + "; abbreviation 'pwd'")
    p = pw_random(10)
    add(k, f"router login admin p/w {p}", [p], ["router login admin", "p/w"], "en", SRC_CHAT + "; abbreviation 'p/w'")
    e, p = email("en"), pw_words("en")
    add(k, f"u/p for the shared Dropbox: {e} {p}", [p], ["u/p for the shared Dropbox", e], "en", SRC_CHAT + "; abbreviation 'u/p'")
    e, p = email("en"), pw_leet("en")
    add(k, f"Can you log into my Amazon and check the order? Email's {e}, password's {p} thanks",
        [p], ["log into my Amazon", e, "password's", "thanks"], "en", SRC_CHAT)
    u, p = username("en", "initial"), pw_random(12)
    add(k, f"sign in to the portal with {u} and {p}, then go to Payroll > Payslips", [p],
        ["sign in to the portal with", u, "Payroll > Payslips"], "en", SRC_CHAT + "; no credential keyword at all")
    u, p = "deploy", pw_random(18)
    add(k, f"Credentials for the staging box: username `{u}`, password `{p}`", [p],
        ["Credentials for the staging box", "username `deploy`", "password `"], "en", SRC_CHAT + "; markdown code spans")
    u, p = username("en"), pw_random(12)
    add(k, '{"site": "hub.example.com", "username": "' + u + '", "password": "' + p + '"}', [p],
        ['"site": "hub.example.com"', '"username": "' + u + '"', '"password": "'], "en", SRC_CHAT + "; JSON pasted from a password-manager export")
    # de
    u, p = username("de"), pw_words("de")
    add(k, f"Zugangsdaten fürs Kundenportal: Benutzername {u}, Passwort {p}", [p],
        ["Zugangsdaten fürs Kundenportal", "Benutzername", u, "Passwort"], "de", SRC_CHAT)
    e, p = email("de"), pw_random(12)
    add(k, f"Login: {e}\nKennwort: {p}", [p], ["Login:", e, "Kennwort:"], "de", SRC_CHAT)
    u, p = username("de"), pw_leet("de")
    add(k, f"Benutzer {u} Passwrot {p} – bitte nicht weitergeben", [p], ["Benutzer", u, "Passwrot", "bitte nicht weitergeben"], "de",
        SRC_CHAT + "; misspelled keyword 'Passwrot'")
    u, p = rdigits(9, True), pw_random(10)
    add(k, "-------- Weitergeleitete Nachricht --------\nBetreff: Ihre Zugangsdaten\n"
           "Von: Stadtwerke Kundenservice <kundenservice@stadtwerke.example>\n\nSehr geehrte Frau Weber,\n"
           f"Ihre Zugangsdaten für das Online-Kundencenter lauten:\nBenutzer (Vertragskontonummer): {u}\nInitialpasswort: {p}\n\n"
           "Mit freundlichen Grüßen\nIhre Stadtwerke",
        [p], ["Weitergeleitete Nachricht", "kundenservice@stadtwerke.example", "Benutzer (Vertragskontonummer):", u, "Initialpasswort:"],
        "de", SRC_FWD + " (German client: 'Weitergeleitete Nachricht')")
    u, p = username("de"), pw_random(12)
    add(k, f"Nutzer: {u} | PW: {p} (Telekom-Router)", [p], ["Nutzer:", u, "| PW:", "(Telekom-Router)"], "de", SRC_CHAT)
    # es
    u, p = username("es"), pw_random(11)
    add(k, f"usuario: {u} / contraseña: {p}", [p], ["usuario:", u, "contraseña:"], "es", SRC_CHAT)
    u, p = username("es"), pw_words("es")
    add(k, f"el login del banco es {u} y la clave {p}, no se la pases a nadie", [p],
        ["el login del banco es", u, "y la clave", "no se la pases a nadie"], "es", SRC_CHAT)
    u, p = username("es", "num"), pw_leet("es")
    add(k, f"Datos del portal del cole:\n• usuario: {u}\n• contraseña: {p}", [p], ["Datos del portal del cole", "• usuario:", u, "• contraseña:"],
        "es", SRC_CHAT + "; bullet list")
    e, p = email("es"), pw_lower("es")
    add(k, f"usuario {e} contrasena {p}", [p], ["usuario", e, "contrasena"], "es", SRC_CHAT + "; keyword without ñ")
    # fr
    u, p = username("fr"), pw_random(12)
    add(k, f"identifiant : {u}\nmot de passe : {p}", [p], ["identifiant :", u, "mot de passe :"], "fr", SRC_CHAT)
    u, p = username("fr"), pw_words("fr")
    add(k, f"Pour l'ENT de la petite : identifiant {u}, mdp {p}", [p], ["Pour l'ENT de la petite", u, "mdp"], "fr", SRC_CHAT + "; abbreviation 'mdp'")
    u, p = username("fr", "dot"), pw_random(10)
    add(k, "----- Message transféré -----\nDe : Support Mutuelle <support@mutuelle.example.fr>\nObjet : Vos identifiants\n\n"
           f"Bonjour,\nVotre identifiant : {u}\nVotre mot de passe provisoire : {p}\nPensez à le modifier lors de votre première connexion.",
        [p], ["Message transféré", "support@mutuelle.example.fr", "Votre identifiant :", u, "mot de passe provisoire :"], "fr",
        SRC_FWD + " (French client: 'Message transféré')")
    e, p = email("fr"), pw_leet("fr")
    add(k, f"login {e} — pwd {p}", [p], ["login", e, "— pwd"], "fr", SRC_CHAT)
    # it
    u, p = username("it"), pw_random(12)
    add(k, f"nome utente {u} password {p}", [p], ["nome utente", u, "password"], "it", SRC_CHAT)
    u, p = username("it", "num"), pw_words("it")
    add(k, f"Le credenziali del registro elettronico: utente {u}, pw {p}", [p], ["credenziali del registro elettronico", u, "pw"], "it", SRC_CHAT)
    e, p = email("it"), pw_random(14)
    add(k, f"Per entrare su SPID usa {e} e la password {p}", [p], ["Per entrare su SPID usa", e, "e la password"], "it", SRC_CHAT)
    u, p = username("it"), pw_lower("it")
    add(k, f"utente: {u}\npassword: {p}\n(è lo stesso account del Wi-Fi dell'ufficio)", [p],
        ["utente:", u, "password:", "Wi-Fi dell'ufficio"], "it", SRC_CHAT)
    # pt
    e, p = email("pt"), pw_random(11)
    add(k, f"usuário: {e} senha: {p}", [p], ["usuário:", e, "senha:"], "pt", SRC_CHAT + " (pt-BR)")
    u, p = username("pt"), pw_words("pt")
    add(k, f"Utilizador {u} e palavra-passe {p} para o portal da escola", [p], ["Utilizador", u, "palavra-passe", "portal da escola"], "pt",
        SRC_CHAT + " (pt-PT)")
    u, p = username("pt"), pw_leet("pt")
    add(k, f"login {u} / senha {p} (Globoplay)", [p], ["login", u, "/ senha", "(Globoplay)"], "pt", SRC_CHAT)
    u, p = username("pt", "dot"), pw_random(10)
    add(k, f"O acesso do Moodle é {u} com a senha {p}.", [p], ["O acesso do Moodle é", u, "com a senha"], "pt", SRC_CHAT)
    # nl
    u, p = username("nl"), pw_random(12)
    add(k, f"gebruikersnaam: {u}\nwachtwoord: {p}", [p], ["gebruikersnaam:", u, "wachtwoord:"], "nl", SRC_CHAT)
    e, p = email("nl"), pw_words("nl")
    add(k, f"Inloggen bij de bieb: {e} met wachtwoord {p}", [p], ["Inloggen bij de bieb", e, "met wachtwoord"], "nl", SRC_CHAT)
    u, p = "admin", pw_random(12)
    add(k, f"ww voor de NAS: {p}, user is {u}", [p], ["ww voor de NAS", "user is admin"], "nl", SRC_CHAT + "; Dutch abbreviation 'ww' (wachtwoord)")
    u, p = username("nl"), pw_lower("nl")
    add(k, f"Account van oma bij de bank: {u} / {p}", [p], ["Account van oma bij de bank", u], "nl", SRC_CHAT + "; bare 'x / y' pair")


def build_national_id():
    k = "national_id"
    ssn = gen_ssn()
    add(k, f"SSN for the lease application: {ssn}", [ssn], ["SSN for the lease application"], "en",
        "SSA SSN structure (area-group-serial; no 000/666/9xx area, no 00 group, no 0000 serial)", [("us_ssn", ssn)])
    ssn = gen_ssn()
    add(k, f"They want my social security number again for the loan... it's {ssn.replace('-', ' ')}", [ssn.replace("-", " ")],
        ["social security number", "for the loan"], "en", "SSA SSN structure; written with spaces", [("us_ssn", ssn.replace("-", " "))])
    ssn = gen_ssn()
    add(k, f"For the new-hire form:\n- Name: Dana Whitfield\n- DOB: 04/11/1987\n- SSN: {ssn}\n- Start date: 03/17/2025", [ssn],
        ["new-hire form", "DOB: 04/11/1987", "- SSN:", "Start date: 03/17/2025"], "en", "SSA SSN structure; HR form bullet list",
        [("us_ssn", ssn)])
    n = gen_nino(); f = "%s %s %s %s %s" % (n[:2], n[2:4], n[4:6], n[6:8], n[8])
    add(k, f"NI number is {f}", [f], ["NI number is"], "en", "HMRC National Insurance number format (2 prefix letters, 6 digits, suffix A-D; "
        "prefix letters D F I Q U V never used, O not second, BG GB KN NK NT TN ZZ not allocated)", [("uk_nino", f)])
    n = gen_nino()
    add(k, f"National Insurance no. {n} for the new job, payroll asked", [n], ["National Insurance no.", "payroll asked"], "en",
        "HMRC National Insurance number format", [("uk_nino", n)])
    s = gen_steuer_id(); f = "%s %s %s %s" % (s[:2], s[2:5], s[5:8], s[8:])
    add(k, f"Meine Steuer-ID lautet {f}, steht auch auf der Lohnsteuerbescheinigung", [f], ["Meine Steuer-ID lautet", "Lohnsteuerbescheinigung"],
        "de", "§139b AO steuerliche Identifikationsnummer; BZSt check digit ISO/IEC 7064 MOD 11,10 + digit-repetition rule", [("steuer_id", f)])
    s = gen_steuer_id()
    add(k, f"Steuerliche Identifikationsnummer: {s}", [s], ["Steuerliche Identifikationsnummer:"], "de",
        "§139b AO steuerliche Identifikationsnummer (BZSt)", [("steuer_id", s)])
    n = gen_nir(); f = fmt_nir(n)
    add(k, f"mon numéro de sécurité sociale : {f}", [f], ["mon numéro de sécurité sociale"], "fr",
        "INSEE NIR (sexe, année, mois, département, commune, ordre) + clé = 97 − (NIR mod 97)", [("nir", f)])
    n = gen_nir()
    add(k, f"N° de sécu {n} pour la mutuelle, tu peux remplir le formulaire ?", [n], ["N° de sécu", "pour la mutuelle"], "fr",
        "INSEE NIR + clé de contrôle", [("nir", n)])
    d = gen_dni()
    add(k, f"mi DNI es {d}, para la reserva del hotel", [d], ["mi DNI es", "reserva del hotel"], "es",
        "Ministerio del Interior: DNI letra de control (número mod 23)", [("dni", d)])
    d = gen_nie(); f = d[0] + "-" + d[1:8] + "-" + d[8]
    add(k, f"NIE: {f} (me lo pide la gestoría)", [f], ["NIE:", "me lo pide la gestoría"], "es",
        "Ministerio del Interior: NIE (X/Y/Z → 0/1/2) + letra mod 23", [("dni", f)])
    d = gen_dni()
    add(k, f"el número del carnet de conducir es el mismo que el del DNI: {d}", [d], ["carnet de conducir", "el mismo que el del DNI"], "es",
        "DGT: Spanish driving-licence number = DNI number with control letter", [("dni", d)])
    cf = gen_cf("Bianchi", "Giulia", True)
    add(k, f"Codice fiscale: {cf}", [cf], ["Codice fiscale:"], "it",
        "DM 23/12/1976 codice fiscale (cognome, nome, data, comune Belfiore) + carattere di controllo", [("it_cf", cf)])
    cf = gen_cf("Esposito", "Davide", False).lower()
    add(k, f"il mio codice fiscale è {cf}, scritto tutto minuscolo scusa", [cf], ["il mio codice fiscale è", "scritto tutto minuscolo"], "it",
        "codice fiscale + carattere di controllo; typed in lower case", [("it_cf", cf)])
    b = gen_bsn()
    add(k, f"BSN: {b}", [b], ["BSN:"], "nl", "Wet algemene bepalingen BSN: elfproef (weights 9..2, −1)", [("bsn", b)])
    b = gen_bsn(); f = "%s.%s.%s" % (b[:4], b[4:6], b[6:])
    add(k, f"mijn burgerservicenummer is {f}, voor de zorgverzekering", [f], ["mijn burgerservicenummer is", "voor de zorgverzekering"], "nl",
        "BSN elfproef; written with dots as on the Dutch ID card", [("bsn", f)])
    n = gen_be_nn(); f = fmt_be(n)
    add(k, f"rijksregisternummer {f}", [f], ["rijksregisternummer"], "nl",
        "Belgian Rijksregister: YYMMDD + volgnummer + controle 97 − (mod 97)", [("be_nn", f)])
    n = gen_be_nn(after2000=True); f = fmt_be(n)
    add(k, f"numéro de registre national de ma fille : {f} (née en 20{n[:2]})", [f],
        ["numéro de registre national de ma fille"], "fr", "Belgian national number, born ≥2000 (check over '2' + first nine digits)",
        [("be_nn", f)])
    d_, p = gen_se_pnr()
    add(k, f"Swedish personnummer {p}", [p], ["Swedish personnummer"], "en", "Skatteverket personnummer YYMMDD-NNNC, Luhn check digit",
        [("se_pnr", p)])
    d_, p = gen_se_pnr(); full = "%d%s" % (d_.year // 100, p)
    add(k, f"personnummer for the Klarna form: {full}", [full], ["personnummer for the Klarna form"], "en",
        "Skatteverket personnummer, 12-digit form with century", [("se_pnr", p)])
    c = gen_dk_cpr()
    add(k, f"CPR-nummer: {c}", [c], ["CPR-nummer:"], "en", "Danish CPR DDMMYY-SSSS (mod-11 rule of the CPR office, generated to satisfy it)",
        [("dk_cpr", c)])
    h = gen_hetu()
    add(k, f"Finnish henkilötunnus: {h}", [h], ["Finnish henkilötunnus:"], "en",
        "DVV henkilötunnus DDMMYY C ZZZ Q, control character = number mod 31", [("fi_hetu", h)])
    h = gen_hetu(y2k=True)
    add(k, f"HETU of my son for the Kela form is {h}", [h], ["HETU of my son", "Kela form"], "en", "DVV henkilötunnus, century sign A (2000s)",
        [("fi_hetu", h)])
    n = gen_no_fnr()
    add(k, f"fødselsnummer {n}", [n], ["fødselsnummer"], "en", "Skatteetaten fødselsnummer, two mod-11 control digits", [("no_fnr", n)])
    n = gen_pesel()
    add(k, f"PESEL: {n}", [n], ["PESEL:"], "en", "PESEL (Polish population register), weights 1-3-7-9", [("pl_pesel", n)])
    n = gen_nif_pt()
    add(k, f"O meu NIF é {n}", [n], ["O meu NIF é"], "pt", "Autoridade Tributária NIF, check digit mod 11", [("nif_pt", n)])
    n = gen_nif_pt(); f = "%s %s %s" % (n[:3], n[3:6], n[6:])
    add(k, f"contribuinte nº {f}, põe na fatura por favor", [f], ["contribuinte nº", "põe na fatura"], "pt", "Portuguese NIF (3-3-3 grouping)",
        [("nif_pt", f)])
    cc = gen_pt_cc()
    add(k, f"Cartão de Cidadão n.º {cc}, validade 2031", [cc], ["Cartão de Cidadão n.º", "validade 2031"], "pt",
        "Cartão de Cidadão document number (civil number + version letters + check digit)", [("pt_cc", cc)])
    n = gen_ppsn()
    add(k, f"PPS number {n}", [n], ["PPS number"], "en", "Revenue PPSN: 7 digits + check letter (weights 8..2, mod 23)", [("ie_ppsn", n)])
    n = gen_ppsn("A")
    add(k, f"my PPSN is {n} — it's the new format with the A at the end", [n], ["my PPSN is", "new format with the A at the end"], "en",
        "Revenue PPSN 2013 format (second letter A, weighted 9 in the check)", [("ie_ppsn", n)])
    a = gen_ahv()
    add(k, f"AHV-Nummer: {a}", [a], ["AHV-Nummer:"], "de", "ZAS AHV-Nummer: 756 + 9 digits + EAN-13 check digit", [("ch_ahv", a)])
    a = gen_ahv()
    add(k, f"mon numéro AVS c'est le {a}, pour la caisse maladie", [a], ["mon numéro AVS", "pour la caisse maladie"], "fr",
        "CdC numéro AVS 756.xxxx.xxxx.xx, EAN-13 check digit", [("ch_ahv", a)])
    s = gen_at_sv()
    add(k, f"Sozialversicherungsnummer {s.replace(' ', '')}", [s.replace(" ", "")], ["Sozialversicherungsnummer"], "de",
        "Dachverband der österreichischen Sozialversicherung: SV-Nummer (3-digit serial, check digit, DDMMYY; weights 3 7 9 5 8 4 2 1 6, mod 11)",
        [("at_svnr", s.replace(" ", ""))])
    a = gen_aadhaar(); f = group(a)
    add(k, f"Aadhaar: {f}", [f], ["Aadhaar:"], "en", "UIDAI Aadhaar: 12 digits, first 2-9, Verhoeff check digit", [("in_aadhaar", f)])
    a = gen_aadhaar()
    add(k, f"aadhaar no {a} for the bank KYC, dad's one", [a], ["aadhaar no", "bank KYC"], "en", "UIDAI Aadhaar, Verhoeff check digit",
        [("in_aadhaar", a)])
    c = gen_cpf(); f = fmt_cpf(c)
    add(k, f"meu CPF é {f}", [f], ["meu CPF é"], "pt", "Receita Federal CPF, two mod-11 check digits", [("br_cpf", f)])
    c = gen_cpf()
    add(k, f"CPF {c} pra cadastrar no app da farmácia", [c], ["CPF", "app da farmácia"], "pt", "Receita Federal CPF, unformatted", [("br_cpf", c)])
    s = gen_sin(); f = "%s %s %s" % (s[:3], s[3:6], s[6:])
    add(k, f"SIN {f} for the T4, thx", [f], ["SIN", "for the T4"], "en", "ESDC Social Insurance Number, Luhn check digit", [("ca_sin", f)])
    s = gen_sin(); f = "%s-%s-%s" % (s[:3], s[3:6], s[6:])
    add(k, f"mon NAS est le {f}", [f], ["mon NAS est le"], "fr", "ESDC numéro d'assurance sociale (NAS), Luhn", [("ca_sin", f)])
    r = gen_cn_rid()
    add(k, f"Chinese resident ID of my colleague for the visa invitation letter: {r}", [r],
        ["Chinese resident ID", "visa invitation letter"], "en", "GB 11643-1999 citizen identity number, ISO 7064 MOD 11-2 check character",
        [("cn_rid", r)])
    pp = R.choice("ACEFGHJK") + rdigits(8)
    add(k, f"passport number {pp}, expires 2032, for the ESTA", [pp], ["passport number", "expires 2032", "for the ESTA"], "en",
        "U.S. Department of State next-generation passport book number (1 letter + 8 digits)")
    pp = R.choice("CFGHJK") + "".join(R.choice("CFGHJKLMNPRTVWXYZ0123456789") for _ in range(8))
    add(k, f"Reisepassnummer: {pp} – für den Online-Check-in bei der Lufthansa", [pp], ["Reisepassnummer:", "Online-Check-in bei der Lufthansa"],
        "de", "German Reisepass serial number (9 characters, digits and C F G H J K L M N P R T V W X Y Z; ICAO Doc 9303)")
    pp = "%02d%s%05d" % (R.randint(10, 24), "".join(R.choice(string.ascii_uppercase) for _ in range(2)), R.randint(0, 99999))
    add(k, f"numéro de passeport {pp}, délivré à Lyon", [pp], ["numéro de passeport", "délivré à Lyon"], "fr",
        "French passport number format (2 digits, 2 letters, 5 digits)")
    pp = "Y" + R.choice("ABC") + rdigits(7)
    add(k, f"numero di passaporto {pp}, serve per la prenotazione del traghetto", [pp],
        ["numero di passaporto", "prenotazione del traghetto"], "it", "Italian passport number format (2 letters + 7 digits)")
    pp = "".join(R.choice("ABCDEFGHIJKLMNPRSTUVWXYZ") for _ in range(2)) + "".join(
        R.choice("ABCDEFGHIJKLMNPRSTUVWXYZ0123456789") for _ in range(6)) + rdigits(1)
    add(k, f"paspoortnummer {pp}, geldig tot 2030", [pp], ["paspoortnummer", "geldig tot 2030"], "nl",
        "Dutch passport document number (9 positions, letters without O, last a digit; Rijksdienst voor Identiteitsgegevens)")
    l1, l2 = gen_mrz_de("Brandt", "Jonas", False)
    add(k, f"Hier die MRZ aus meinem Reisepass für den Online-Check-in:\n{l1}\n{l2}", [l2], ["die MRZ aus meinem Reisepass", "Online-Check-in"],
        "de", "ICAO Doc 9303 Part 4 TD3 machine-readable zone (check digits 7-3-1 over document number, birth date, expiry, composite)",
        [("icao_mrz_td3", l2)])
    dob = rdate(1965, 1995); dl = gen_uk_dl("Hughes", "PR", dob, True)
    add(k, f"driving licence number {dl} (the long one in section 5)", [dl], ["driving licence number", "section 5"], "en",
        "DVLA GB driving licence number (5 surname chars, decade, month+50 for women, day, year, initials, 9, 2 check chars)")
    dl = "D" + rdigits(7)
    add(k, f"California DL# {dl} for the rental car", [dl], ["California DL#", "for the rental car"], "en",
        "California DMV driver licence number format (1 letter + 7 digits)")


def build_split():
    k = "split"
    p = pw_random(13)
    add(k, ["my password is:", p], [p], ["my password is:"], "en", SRC_CHAT + "; label then value in the next message")
    p = pw_random(12, sym="-")
    add(k, ["wifi code coming", p], [p], ["wifi code coming"], "en", SRC_CHAT + "; label then value")
    p = pin(4)
    add(k, ["here's the pin", p], [p], ["here's the pin"], "en", SRC_CHAT + "; label then bare PIN")
    i = gen_iban_de(); f = group(i)
    add(k, ["IBAN next message", f], [f], ["IBAN next message"], "en", "ISO 13616 IBAN (DE), label then value", [("iban", f)])
    s = gen_steuer_id()
    add(k, ["Steuer-ID kommt gleich", s], [s], ["Steuer-ID kommt gleich"], "de", "§139b AO Steuer-IdNr, label then value", [("steuer_id", s)])
    p = pw_words("es")
    add(k, ["la clave es", p], [p], ["la clave es"], "es", SRC_CHAT + "; label then value")
    p = R.choice("AB") + pin(4)
    add(k, ["le code de la porte, je te l'envoie juste après", p], [p], ["le code de la porte"], "fr", SRC_CHAT + "; digicode (letter + digits)")
    cf = gen_cf("Ferrari", "Marco", False)
    add(k, ["ti mando il codice fiscale per il contratto", cf], [cf], ["codice fiscale per il contratto"], "it",
        "codice fiscale, label then value", [("it_cf", cf)])
    b = gen_bsn()
    add(k, ["BSN volgt", b], [b], ["BSN volgt"], "nl", "BSN elfproef, label then value", [("bsn", b)])
    p = pw_leet("pt")
    add(k, ["a senha do wi-fi é", p], [p], ["a senha do wi-fi é"], "pt", SRC_CHAT + "; label then value")
    s = gen_ssn()
    add(k, ["for the W-9, my SSN:", s], [s], ["for the W-9, my SSN:"], "en", "SSA SSN structure, label then value", [("us_ssn", s)])
    e, p = email("en"), pw_random(12)
    add(k, ["login for the Hulu account ->", f"{e} pw {p}"], [p], ["login for the Hulu account", e], "en",
        SRC_CHAT + "; username+password in the second message")
    o = pin(6)
    add(k, ["the 2FA code they sent", o], [o], ["the 2FA code they sent"], "en", "RFC 6238 TOTP 6-digit code, label then value")
    pp = R.choice("CFGHJK") + "".join(R.choice("CFGHJKLMNPRTVWXYZ0123456789") for _ in range(8))
    add(k, ["Passnummer für die Buchung:", pp], [pp], ["Passnummer für die Buchung:"], "de", "German Reisepass serial number, label then value")
    d = gen_dni()
    add(k, ["te paso mi DNI para la reserva", d], [d], ["te paso mi DNI para la reserva"], "es", "DNI letra mod 23, label then value",
        [("dni", d)])
    codes = [rdigits(4, True) + " " + rdigits(4) for _ in range(4)]
    add(k, ["backup codes, save them somewhere safe", "\n".join(codes)], codes, ["backup codes, save them somewhere safe"], "en",
        "Google account 2-Step Verification backup codes (8 digits, shown as two groups of 4)")
    key = "sk_test_" + "".join(R.choice(string.ascii_letters + string.digits) for _ in range(24))
    add(k, ["API key for the staging Stripe account coming", key], [key], ["API key for the staging Stripe account coming"], "en",
        "Stripe API keys documentation (sk_test_ secret key prefix), label then value")
    p = pw_words("de")
    add(k, ["Das Passwort fürs Gäste-WLAN:", p], [p], ["Das Passwort fürs Gäste-WLAN:"], "de", SRC_CHAT + "; label then value")
    n = gen_nir(); f = fmt_nir(n)
    add(k, ["mon numéro de sécu pour la mutuelle :", f], [f], ["mon numéro de sécu pour la mutuelle"], "fr", "INSEE NIR + clé, label then value",
        [("nir", f)])
    p = pw_random(11)
    add(k, ["la password della mail nuova", f"è {p}, poi la cambio"], [p], ["la password della mail nuova", "poi la cambio"], "it",
        SRC_CHAT + "; value in a short sentence")
    p = pw_random(14)
    add(k, ["wachtwoord van de Ziggo-router", p], [p], ["wachtwoord van de Ziggo-router"], "nl", SRC_CHAT + "; label then value")
    n = gen_nif_pt()
    add(k, ["o meu NIF para a fatura", n], [n], ["o meu NIF para a fatura"], "pt", "Portuguese NIF mod 11, label then value", [("nif_pt", n)])
    ans = R.choice(["Rusty Peugeot 205", "Blue Vauxhall Corsa", "Old Ford Escort"])
    add(k, ["security answer (first car):", ans], [ans], ["security answer (first car):"], "en", SRC_CHAT + "; security-question answer")
    p = pin(4)
    add(k, ["el PIN de la tarjeta nueva", p], [p], ["el PIN de la tarjeta nueva"], "es", SRC_CHAT + "; card PIN, label then value")
    s = gen_sin(); f = "%s %s %s" % (s[:3], s[3:6], s[6:])
    add(k, ["SIN for the payroll form", f], [f], ["SIN for the payroll form"], "en", "ESDC SIN Luhn, label then value", [("ca_sin", f)])
    i = gen_iban_de(); f = group(i)
    add(k, ["Kontonummer/IBAN für die Kaution:", f], [f], ["Kontonummer/IBAN für die Kaution:"], "de", "ISO 13616 IBAN (DE)", [("iban", f)])
    p = pw_lower("fr")
    add(k, ["mdp netflix", p], [p], ["mdp netflix"], "fr", SRC_CHAT + "; abbreviation 'mdp'")
    p = pin(5)
    add(k, ["PIN del bancomat, non dirlo a nessuno", p], [p], ["PIN del bancomat, non dirlo a nessuno"], "it", SRC_CHAT + "; 5-digit bancomat PIN")
    p = pin(6)
    add(k, ["De code van de kluis stuur ik zo", p], [p], ["De code van de kluis stuur ik zo"], "nl", SRC_CHAT + "; safe code, label then value")
    c = gen_cpf(); f = fmt_cpf(c)
    add(k, ["CPF pra nota fiscal", f], [f], ["CPF pra nota fiscal"], "pt", "Receita Federal CPF, label then value", [("br_cpf", f)])
    pp_ = passphrase(4)
    add(k, ["passphrase for the backup drive, 4 words", pp_], [pp_], ["passphrase for the backup drive, 4 words"], "en",
        "diceware-style passphrase (4 common words), label then value")
    p = pin(6)
    add(k, ["Zugang für Omas Tablet, Benutzer ist oma.hilde", f"PIN ist {p}, sechsstellig"], [p],
        ["Zugang für Omas Tablet", "oma.hilde", "sechsstellig"], "de", SRC_CHAT + "; value in a short sentence")
    p = pin(5)
    add(k, ["door code for the Airbnb", f"it's {p}# — keypad is left of the door"], [p], ["door code for the Airbnb", "keypad is left of the door"],
        "en", SRC_CHAT + "; value in a short sentence")
    p = pw_random(12)
    add(k, ["la contraseña del router, ojo con las mayúsculas", p], [p], ["la contraseña del router", "ojo con las mayúsculas"], "es", SRC_CHAT)
    i = gen_iban_fr(); f = group(i)
    add(k, ["IBAN pour le virement du loyer", f], [f], ["IBAN pour le virement du loyer"], "fr", "ISO 13616 IBAN (FR, with RIB key)", [("iban", f)])
    i = gen_iban_be(); f = group(i)
    add(k, ["mijn Belgische rekening", f], [f], ["mijn Belgische rekening"], "nl", "ISO 13616 IBAN (BE, with national mod-97 check)", [("iban", f)])
    pp = R.choice("ACEFGHJK") + rdigits(8)
    add(k, ["passport no. for the visa form, next msg", pp], [pp], ["passport no. for the visa form, next msg"], "en",
        "U.S. passport book number format, label then value")
    p = pw_words("nl")
    add(k, ["DigiD wachtwoord (voor de belastingaangifte)", p], [p], ["DigiD wachtwoord", "voor de belastingaangifte"], "nl", SRC_CHAT)
    a = gen_aadhaar(); f = group(a)
    add(k, ["aadhaar for the KYC", f], [f], ["aadhaar for the KYC"], "en", "UIDAI Aadhaar Verhoeff, label then value", [("in_aadhaar", f)])
    s = gen_at_sv()
    add(k, ["SV-Nummer für den Arbeitgeber", s], [s], ["SV-Nummer für den Arbeitgeber"], "de", "Austrian SV-Nummer, label then value",
        [("at_svnr", s)])


def build_password_phrase():
    k = "password_phrase"
    p = pw_lower("en")
    add(k, f"it's {p} for the router", [p], ["for the router"], "en", SRC_CHAT)
    p = pw_random(12)
    add(k, f"pw is {p}", [p], ["pw is"], "en", SRC_CHAT)
    pc = "".join(R.choice(string.ascii_letters + string.digits) for _ in range(6))
    add(k, f"the passcode for tomorrow's Zoom is {pc}", [pc], ["passcode for tomorrow's Zoom"], "en", "Zoom meeting passcode (6 characters)")
    p = pin(5)
    add(k, f"the code to the door is {p}, then push hard", [p], ["the code to the door is", "then push hard"], "en", SRC_CHAT)
    p = pin(4)
    add(k, f"my banking pin is {p}, don't tell anyone lol", [p], ["my banking pin is", "don't tell anyone"], "en", SRC_CHAT)
    ans = "Mr Whiskers"
    add(k, f"security answer is {ans} (capital M and W)", [ans], ["security answer is", "(capital M and W)"], "en", SRC_CHAT + "; security-question answer")
    ans = "Castellanos"
    add(k, f"mother's maiden name for the bank question: {ans}", [ans], ["mother's maiden name for the bank question:"], "en",
        SRC_CHAT + "; security-question answer")
    p = pin(4)
    add(k, f"the alarm code is {p}, disarm it as soon as you get in", [p], ["the alarm code is", "disarm it"], "en", SRC_CHAT)
    pp_ = passphrase(4)
    add(k, f'passphrase for the encrypted drive is "{pp_}"', [pp_], ["passphrase for the encrypted drive is"], "en",
        "diceware-style passphrase (4 common words)")
    c = "%02d-%02d-%02d" % tuple(R.sample(range(1, 40), 3))
    add(k, f"locker combo is {c}, locker 112 in the changing room", [c], ["locker combo is", "locker 112"], "en", SRC_CHAT + "; combination lock")
    p = pin(6)
    add(k, f"phone unlock PIN is {p} if it dies and you need the photos", [p], ["phone unlock PIN is", "need the photos"], "en", SRC_CHAT)
    mp = passphrase(5, "-")
    add(k, f"master password for 1Password: {mp}", [mp], ["master password for 1Password:"], "en",
        "1Password master password advice (multi-word passphrase)")
    bk = bitlocker_key()
    add(k, f"BitLocker recovery key for the work laptop: {bk}", [bk], ["BitLocker recovery key for the work laptop:"], "en",
        "Microsoft BitLocker recovery password: 48 digits in 8 blocks of 6, each block divisible by 11", [("bitlocker", bk)])
    # de
    p = pw_random(16)
    add(k, f"Das WLAN-Passwort ist {p}", [p], ["Das WLAN-Passwort ist"], "de", SRC_CHAT)
    p = pin(4)
    add(k, f"PIN für die Girocard: {p}", [p], ["PIN für die Girocard:"], "de", SRC_CHAT + "; card PIN")
    p = pin(5)
    add(k, f"Der Code für die Haustür lautet {p}, danach die Raute", [p], ["Der Code für die Haustür lautet", "danach die Raute"], "de", SRC_CHAT)
    ans = "Krümel"
    add(k, f"Sicherheitsfrage (Name des ersten Haustiers): {ans}", [ans], ["Sicherheitsfrage (Name des ersten Haustiers):"], "de",
        SRC_CHAT + "; security-question answer")
    p = "%02d-%02d-%02d" % tuple(R.sample(range(0, 60), 3))
    add(k, f"Tresor-Kombination: {p}", [p], ["Tresor-Kombination:"], "de", SRC_CHAT + "; safe combination")
    # es
    p = pw_words("es")
    add(k, f"la contraseña del wifi es {p}", [p], ["la contraseña del wifi es"], "es", SRC_CHAT)
    p = pin(6)
    add(k, f"el pin del móvil es {p}", [p], ["el pin del móvil es"], "es", SRC_CHAT)
    ans = "Tío Paco"
    add(k, f"la respuesta de seguridad es {ans}", [ans], ["la respuesta de seguridad es"], "es", SRC_CHAT + "; security-question answer")
    p = pw_lower("es")
    add(k, f"clave del portátil: {p}", [p], ["clave del portátil:"], "es", SRC_CHAT)
    # fr
    p = pw_random(12)
    add(k, f"le code wifi c'est {p}", [p], ["le code wifi c'est"], "fr", SRC_CHAT)
    p = R.choice("AB") + pin(4)
    add(k, f"le digicode de l'immeuble : {p}", [p], ["le digicode de l'immeuble"], "fr", SRC_CHAT + "; digicode")
    p = pin(4)
    add(k, f"mon code secret de carte bleue est {p}", [p], ["mon code secret de carte bleue est"], "fr", SRC_CHAT + "; card PIN")
    p = pw_leet("fr")
    add(k, f"le mot de passe de la box c'est {p}, ne le note nulle part", [p], ["le mot de passe de la box", "ne le note nulle part"], "fr", SRC_CHAT)
    # it
    p = pw_words("it")
    add(k, f"la password del wifi è {p}", [p], ["la password del wifi è"], "it", SRC_CHAT)
    p = pin(5)
    add(k, f"il codice del cancello è {p}", [p], ["il codice del cancello è"], "it", SRC_CHAT)
    p1, p2 = pin(4), pin(8)
    add(k, f"il PIN della SIM è {p1}, il PUK {p2}", [p1, p2], ["il PIN della SIM è", "il PUK"], "it",
        "3GPP TS 31.102 SIM PIN (4-8 digits) and PUK (8 digits)")
    # pt
    p = pw_random(12)
    add(k, f"a senha do wi-fi é {p}", [p], ["a senha do wi-fi é"], "pt", SRC_CHAT)
    p = pin(4)
    add(k, f"a senha do cartão é {p}", [p], ["a senha do cartão é"], "pt", SRC_CHAT + "; card PIN (pt-BR 'senha')")
    p = pin(4)
    add(k, f"o código do portão é {p}*", [p], ["o código do portão é"], "pt", SRC_CHAT)
    # nl
    p = pw_words("nl")
    add(k, f"het wifi-wachtwoord is {p}", [p], ["het wifi-wachtwoord is"], "nl", SRC_CHAT)
    p = pin(4)
    add(k, f"pincode van mijn bankpas is {p}", [p], ["pincode van mijn bankpas is"], "nl", SRC_CHAT)
    p = pin(4)
    add(k, f"de code van het sleutelkastje is {p}, sleutel hangt aan de blauwe hanger", [p],
        ["de code van het sleutelkastje is", "blauwe hanger"], "nl", SRC_CHAT)


def build_connection_string():
    k = "connection_string"
    S_PG = "PostgreSQL libpq connection URI (postgresql://user:password@host:port/dbname)"
    p = pw_url()
    add(k, f"prod db: postgres://app_user:{p}@db-prod.example.internal:5432/shop", [p], ["prod db:", "db-prod.example.internal:5432/shop"], "en", S_PG)
    u, p = username("de"), pw_url()
    add(k, f"DATABASE_URL=postgresql://{u}:{p}@10.20.0.15:5432/crm", [p], ["DATABASE_URL=", "10.20.0.15:5432/crm"], "de",
        S_PG + "; 12-factor env var line")
    u, p = username("es"), pw_url()
    add(k, f"la conexión de Mongo es mongodb+srv://{u}:{p}@cluster0.ab1cd.mongodb.net/ventas", [p],
        ["la conexión de Mongo es", "cluster0.ab1cd.mongodb.net/ventas"], "es", "MongoDB connection string (mongodb+srv:// SRV format)")
    p = pw_url()
    add(k, f"REDIS_URL=redis://:{p}@cache.example.com:6380/0", [p], ["REDIS_URL=", "cache.example.com:6380/0"], "en",
        "IANA provisional 'redis' URI scheme (redis://[user]:password@host:port/db)")
    u, p = username("fr"), pw_url()
    add(k, f"broker : amqps://{u}:{p}@rabbit.example.fr:5671/%2F", [p], ["broker :", "rabbit.example.fr:5671"], "fr", "RabbitMQ AMQP URI specification")
    u, p = username("it"), pw_url()
    add(k, f"ftp://{u}:{p}@ftp.example.it/upload è il server per le foto", [p], ["ftp.example.it/upload", "server per le foto"], "it",
        "RFC 1738 ftp URL with user:password")
    p = pw_url()
    add(k, f"SMTP_URL=smtps://noreply%40example.com:{p}@smtp.example.com:465", [p], ["SMTP_URL=", "smtp.example.com:465"], "en",
        "smtps URL with percent-encoded user (RFC 3986)")
    p = pw_url()
    add(k, f"jdbc:postgresql://pg.example.net:5432/billing?user=billing&password={p}&ssl=true", [p],
        ["jdbc:postgresql://pg.example.net:5432/billing", "&ssl=true"], "en", "PostgreSQL JDBC driver URL parameters (user, password, ssl)")
    p = pw_random(16, sym="!#%*+-=?@_")
    add(k, f"Server=tcp:sql-prod.example.net,1433;Database=Orders;User ID=orders_app;Password={p};Encrypt=True;", [p],
        ["Server=tcp:sql-prod.example.net,1433", "User ID=orders_app", "Encrypt=True"], "en",
        "Microsoft ADO.NET SqlClient connection string keywords (Password=)")
    p = pw_url()
    add(k, 'in appsettings.json staat:\n"ConnectionStrings": { "Default": "Host=pg01;Database=webshop;Username=shop;Password=' + p + '" }',
        [p], ["appsettings.json", "Host=pg01;Database=webshop;Username=shop;"], "nl", "Npgsql / ASP.NET Core appsettings.json ConnectionStrings")
    p = pw_url()
    add(k, f"docker run -d -e POSTGRES_PASSWORD={p} -p 5432:5432 postgres:16", [p], ["docker run -d -e POSTGRES_PASSWORD=", "postgres:16"], "en",
        "Docker Official Image 'postgres' environment variables (POSTGRES_PASSWORD)")
    p = pw_url()
    add(k, f"so starte ich die DB: docker run --name mariadb -e MARIADB_ROOT_PASSWORD={p} -d mariadb:11", [p],
        ["so starte ich die DB", "MARIADB_ROOT_PASSWORD=", "mariadb:11"], "de", "Docker Official Image 'mariadb' (MARIADB_ROOT_PASSWORD)")
    p = pw_url()
    add(k, f"kubectl create secret generic api-db --from-literal=username=api --from-literal=password={p}", [p],
        ["kubectl create secret generic api-db", "--from-literal=username=api"], "en",
        "Kubernetes docs: kubectl create secret generic --from-literal")
    p = pw_url()
    add(k, f"usei isto: kubectl create secret docker-registry regcred --docker-server=registry.example.com --docker-username=ci --docker-password={p}",
        [p], ["kubectl create secret docker-registry regcred", "--docker-server=registry.example.com", "--docker-username=ci"], "pt",
        "Kubernetes docs: kubectl create secret docker-registry")
    p = pw_random(14, sym="")
    add(k, f"mysql -h db.example.com -u admin -p{p} inventory", [p], ["mysql -h db.example.com -u admin", "inventory"], "en",
        "MySQL client option -p<password> (no space)")
    p = pw_url()
    add(k, f"PGPASSWORD={p} psql -h pg.example.com -U reporting analytics", [p], ["psql -h pg.example.com -U reporting analytics"], "en",
        "PostgreSQL libpq environment variable PGPASSWORD")
    p = pw_random(14, sym="!#%*+-=?@_")
    add(k, f"config.yaml:\ndatabase:\n  host: db.example.es\n  user: pedidos\n  password: \"{p}\"", [p],
        ["config.yaml:", "host: db.example.es", "user: pedidos"], "es", "YAML application config snippet")
    u, p = username("en"), pw_url()
    add(k, 'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="' + u + '" password="' + p + '";',
        [p], ["sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required", 'username="' + u + '"'], "en",
        "Apache Kafka SASL/PLAIN JAAS configuration")
    import base64
    ak = base64.b64encode(bytes(R.getrandbits(8) for _ in range(64))).decode()
    add(k, f"DefaultEndpointsProtocol=https;AccountName=stshopfiles;AccountKey={ak};EndpointSuffix=core.windows.net", [ak],
        ["DefaultEndpointsProtocol=https;AccountName=stshopfiles;", "EndpointSuffix=core.windows.net"], "en",
        "Azure Storage connection string (AccountKey = base64 of 64 bytes)")
    p = pw_url()
    add(k, f"pour tester l'API du NAS : curl -u admin:{p} https://nas.example.fr:5001/api", [p],
        ["pour tester l'API du NAS", "curl -u admin:", "https://nas.example.fr:5001/api"], "fr", "curl -u user:password (curl man page)")
    u = username("en", "under"); tok = "ghp_" + "".join(R.choice(string.ascii_letters + string.digits) for _ in range(36))
    add(k, f"git remote set-url origin https://{u}:{tok}@github.com/example-org/app.git", [tok],
        ["git remote set-url origin", "github.com/example-org/app.git"], "en", "GitHub personal access token (ghp_ + 36) in an HTTPS remote URL")
    p = pw_url()
    add(k, f".env:\nDB_HOST=mysql.example.it\nDB_USER=gestionale\nDB_PASSWORD={p}", [p], [".env:", "DB_HOST=mysql.example.it", "DB_USER=gestionale"],
        "it", "dotenv file lines")
    p = pw_url()
    add(k, f'psql "host=pg.example.com port=5432 dbname=hr user=hr_ro password={p} sslmode=require"', [p],
        ["host=pg.example.com port=5432 dbname=hr user=hr_ro", "sslmode=require"], "en", "PostgreSQL libpq keyword/value connection string")
    p = pw_url()
    add(k, f'ldapsearch -x -H ldaps://ldap.example.de -D "cn=admin,dc=example,dc=de" -w {p} -b dc=example,dc=de', [p],
        ["ldapsearch -x -H ldaps://ldap.example.de", "cn=admin,dc=example,dc=de"], "de", "OpenLDAP ldapsearch -w passwd option")
    u, p = username("nl"), pw_url()
    add(k, f"WebDAV-koppeling: https://{u}:{p}@webdav.example.nl/remote.php/dav", [p], ["WebDAV-koppeling:", "webdav.example.nl/remote.php/dav"],
        "nl", "RFC 3986 userinfo in an https URL (Nextcloud WebDAV path)")


def build_otp():
    k = "otp"
    o = pin(6)
    add(k, f"got this text: 'Your verification code is {o}. It expires in 10 minutes.'", [o], ["Your verification code is", "expires in 10 minutes"],
        "en", "RFC 6238 TOTP / SMS one-time code (6 digits)")
    o = pin(6)
    add(k, f"G-{o} is your Google verification code.", [o], ["is your Google verification code"], "en", "Google SMS verification code format (G-######)")
    o = pin(6); f = o[:3] + "-" + o[3:]
    add(k, f"Your WhatsApp code: {f}\nDon't share this code with others", [f], ["Your WhatsApp code:", "Don't share this code"], "en",
        "WhatsApp registration SMS (6 digits shown as 3-3)")
    o = pin(6)
    add(k, f"Ihr Bestätigungscode lautet: {o}. Geben Sie ihn nicht weiter.", [o], ["Ihr Bestätigungscode lautet:", "Geben Sie ihn nicht weiter"], "de",
        "SMS one-time code (6 digits)")
    o = pin(6)
    add(k, f"mTAN für Überweisung an M. Keller über 250,00 EUR: {o}", [o], ["mTAN für Überweisung an M. Keller", "250,00 EUR"], "de",
        "PSD2 dynamic linking: SMS TAN bound to payee and amount")
    o = pin(6)
    add(k, f"Tu código de verificación es {o}. No lo compartas con nadie.", [o], ["Tu código de verificación es", "No lo compartas con nadie"], "es",
        "SMS one-time code (6 digits)")
    o = pin(6)
    add(k, f"el código que me llegó por SMS es el {o}", [o], ["el código que me llegó por SMS"], "es", "SMS one-time code relayed in chat")
    o = pin(6)
    add(k, f"Votre code de vérification : {o}. Il expire dans 5 minutes.", [o], ["Votre code de vérification", "Il expire dans 5 minutes"], "fr",
        "SMS one-time code (6 digits)")
    o = pin(6)
    add(k, f"code de confirmation 3D Secure pour un paiement de 89,90 € chez FNAC : {o}", [o],
        ["code de confirmation 3D Secure", "89,90 €", "chez FNAC"], "fr", "EMV 3-D Secure SMS OTP")
    o = pin(6)
    add(k, f"Il tuo codice OTP è {o}, valido 3 minuti", [o], ["Il tuo codice OTP è", "valido 3 minuti"], "it", "SMS OTP (6 digits)")
    o = pin(6); f = " ".join(o[i:i + 2] for i in (0, 2, 4))
    add(k, f"codice di accesso: {f} (me l'hanno mandato adesso)", [f], ["codice di accesso:", "me l'hanno mandato adesso"], "it",
        "one-time code read out in pairs")
    o = pin(6)
    add(k, f"Código de verificação: {o}. Não partilhe este código.", [o], ["Código de verificação:", "Não partilhe este código"], "pt",
        "SMS one-time code (pt-PT)")
    o = pin(6)
    add(k, f"Seu código de acesso é {o}", [o], ["Seu código de acesso é"], "pt", "SMS one-time code (pt-BR)")
    o = pin(6)
    add(k, f"Je verificatiecode is {o}. Deel deze code met niemand.", [o], ["Je verificatiecode is", "Deel deze code met niemand"], "nl",
        "SMS one-time code (6 digits)")
    codes = [rdigits(4, True) + " " + rdigits(4) for _ in range(5)]
    add(k, "2FA backup codes:\n" + "\n".join(f"{i + 1}. {c}" for i, c in enumerate(codes)) + "\n(each works once)", codes,
        ["2FA backup codes:", "(each works once)"], "en", "Google 2-Step Verification backup codes (8 digits)")
    codes = ["".join(R.choice("0123456789abcdef") for _ in range(5)) + "-" + "".join(R.choice("0123456789abcdef") for _ in range(5))
             for _ in range(4)]
    add(k, "GitHub recovery codes, keep them:\n" + "\n".join(codes), codes, ["GitHub recovery codes, keep them:"], "en",
        "GitHub two-factor recovery codes (10 hex characters, xxxxx-xxxxx)")
    o = pin(6); f = o[:3] + " " + o[3:]
    add(k, f"authenticator says {f} right now, quick", [f], ["authenticator says", "right now, quick"], "en", "RFC 6238 TOTP as displayed by authenticator apps (3+3)")
    sg = "".join(R.choice("23456789BCDFGHJKMNPQRTVWXY") for _ in range(5))
    add(k, f"Steam Guard code: {sg}", [sg], ["Steam Guard code:"], "en", "Steam Guard mobile authenticator code (5 characters)")
    o = pin(7)
    add(k, f"Use {o} as Microsoft account security code", [o], ["as Microsoft account security code"], "en", "Microsoft account security code SMS")
    codes = [rdigits(4, True) + " " + rdigits(4) for _ in range(3)]
    add(k, "Backup-Codes für das Google-Konto: " + ", ".join(codes), codes, ["Backup-Codes für das Google-Konto:"], "de",
        "Google 2-Step Verification backup codes")


def build_lookalike():
    k = "lookalike"
    # --- login / password look-alikes (a credential is named but not given)
    add(k, "What's the login for the Disney+ account again? I only remember the email, not the password.",
        [], ["What's the login for the Disney+ account again?", "not the password"], "en", "credential talk without a credential")
    add(k, "Username: jmarsh_77 — password I'll tell you in person, not over text.", [], ["Username: jmarsh_77", "password I'll tell you in person"],
        "en", "username alone is not a secret")
    add(k, "Benutzername ist meine E-Mail, das Passwort ist dasselbe wie beim letzten Mal.", [],
        ["Benutzername ist meine E-Mail", "das Passwort ist dasselbe wie beim letzten Mal"], "de", "'same as before'")
    add(k, "usuario: lgarcia / contraseña: la de siempre", [], ["usuario: lgarcia", "contraseña: la de siempre"], "es", "'the usual one'")
    add(k, "identifiant : mon numéro d'adhérent, mot de passe : ******** (je te le dirai demain)", [],
        ["identifiant : mon numéro d'adhérent", "mot de passe : ********"], "fr", "masked password")
    add(k, "wachtwoord vergeten, ik krijg zo een resetlink op mijn mail", [], ["wachtwoord vergeten", "resetlink"], "nl", "password reset talk")
    add(k, "Le credenziali sono sul post-it sotto la tastiera, nome utente e password.", [], ["Le credenziali sono sul post-it", "nome utente e password"],
        "it", "location of a credential, not the credential")
    add(k, "A senha do portal tem de ter pelo menos 12 caracteres, uma maiúscula e um número.", [],
        ["A senha do portal tem de ter pelo menos 12 caracteres"], "pt", "password policy text")
    add(k, "login: <your email>  password: <your password> — that's literally what the template says", [],
        ["login: <your email>", "password: <your password>"], "en", "documentation placeholders")
    add(k, "user: admin / pw: same as before", [], ["user: admin", "pw: same as before"], "en", "'same as before'")
    add(k, "The Wi-Fi is CasaRossi_5G, the password is on the card next to the TV", [], ["CasaRossi_5G", "the password is on the card next to the TV"],
        "en", "SSID is public; password location only")
    add(k, "La password deve contenere almeno 8 caratteri, tra cui un simbolo (es. ! o #)", [], ["almeno 8 caratteri", "(es. ! o #)"], "it",
        "password policy text")
    # --- split look-alikes: the label alone, value never sent
    add(k, "IBAN schick ich dir gleich, muss erst die Banking-App öffnen", [], ["IBAN schick ich dir gleich", "Banking-App öffnen"], "de",
        "announces a value that is not in the message")
    add(k, "I'll send the door code tomorrow morning, remind me", [], ["I'll send the door code tomorrow morning"], "en", "announces a value")
    add(k, "la clave te la digo luego por teléfono", [], ["la clave te la digo luego por teléfono"], "es", "announces a value")
    # --- password_phrase / PIN look-alikes
    add(k, "J'ai changé le code de la porte, je te le donne quand tu arrives", [], ["J'ai changé le code de la porte"], "fr", "code talk without a code")
    add(k, "security question: What was the name of your first pet? (haven't set it yet)", [],
        ["security question: What was the name of your first pet?"], "en", "security question without an answer")
    # --- connection-string look-alikes
    add(k, "Local dev DB is postgres://localhost:5432/shop_dev, no auth needed", [], ["postgres://localhost:5432/shop_dev"], "en",
        "URI without userinfo")
    add(k, "DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app", [], ["DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app"],
        "en", "shell-variable placeholders (trufflehog uri detector skips $-variables)")
    add(k, "mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/?retryWrites=true&w=majority", [],
        ["mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/?retryWrites=true&w=majority"], "en",
        "MongoDB Atlas documentation placeholder")
    add(k, "docker run -e POSTGRES_PASSWORD_FILE=/run/secrets/postgres-passwd -d postgres:16", [],
        ["POSTGRES_PASSWORD_FILE=/run/secrets/postgres-passwd"], "en", "Docker 'postgres' image _FILE variant: a path, not a password")
    add(k, "kubectl create secret generic db-creds --from-file=password=./db-password.txt", [],
        ["--from-file=password=./db-password.txt"], "en", "kubectl --from-file: a file name, not a password")
    add(k, "Der Connection-String steht im Vault unter secret/data/shop/db, nicht hier im Chat", [], ["secret/data/shop/db"], "de",
        "path to a secret store, not a secret")
    add(k, "Server=sql01.example.local;Database=Sales;Integrated Security=true;", [], ["Server=sql01.example.local;Database=Sales;Integrated Security=true;"],
        "en", "ADO.NET connection string with Windows authentication (no password)")
    add(k, "clone it with https://deploy@git.example.com/shop.git, it will prompt for the password", [],
        ["https://deploy@git.example.com/shop.git", "prompt for the password"], "en", "userinfo with a user but no password")
    add(k, "Password=<your_password>; in de connection string zetten en niet committen", [], ["Password=<your_password>;"], "nl", "placeholder")
    # --- OTP look-alikes
    add(k, "The code expires in 10 minutes and I still didn't get the SMS", [], ["The code expires in 10 minutes"], "en", "OTP talk without a code")
    add(k, "Bestellung 482913 ist versandt, Lieferung Donnerstag", [], ["Bestellung 482913"], "de", "6-digit order number")
    add(k, "Je afspraak is op 14-03 om 10:45 in kamer 1402", [], ["14-03", "10:45", "kamer 1402"], "nl", "date, time, room")
    add(k, "Cupom de desconto BEMVINDO10 vale até domingo", [], ["BEMVINDO10"], "pt", "public promo code")
    add(k, "2FA is set up with the authenticator app, backup codes are printed in the safe", [], ["backup codes are printed in the safe"], "en",
        "OTP talk without a code")
    add(k, "Ticketnummer #48213 im Helpdesk, bitte drauf antworten", [], ["#48213"], "de", "helpdesk ticket number")
    # --- national-ID shaped numbers that fail their check, in innocent context
    bad = break_check(gen_bsn(), lambda s: sum(int(x) * w for x, w in zip(s[:8], range(9, 1, -1))) % 11 == int(s[8]))
    add(k, f"Bestelnummer {bad}, bezorging morgen tussen 14:00 en 16:00", [], [bad, "14:00 en 16:00"], "nl",
        "9-digit order number that fails the BSN elfproef", [("bsn_fail", bad)])
    st = gen_steuer_id(); bad = st[:10] + str((int(st[10]) + R.randint(1, 9)) % 10)
    add(k, f"Kundennummer {bad}, bitte bei Rückfragen angeben", [], [bad], "de", "11-digit customer number that fails the Steuer-ID check digit",
        [("steuer_id_fail", bad)])
    c = gen_cpf(); bad = c[:9] + str((int(c[9]) + 1) % 10) + c[10]
    add(k, f"Protocolo de atendimento: {bad}", [], [bad], "pt", "11-digit protocol number failing the CPF check digits", [("br_cpf_fail", bad)])
    a = gen_aadhaar(); bad = a[:11] + str((int(a[11]) + R.randint(1, 9)) % 10)
    add(k, f"UPI transaction ID {bad} — payment of ₹1,250 received", [], [bad, "₹1,250"], "en",
        "NPCI UPI 12-digit transaction reference failing the Aadhaar Verhoeff check", [("in_aadhaar_fail", bad)])
    pz = gen_pesel(); bad = pz[:10] + str((int(pz[10]) + R.randint(1, 9)) % 10)
    add(k, f"Invoice no. {bad} from the Warsaw supplier, due in 30 days", [], [bad, "due in 30 days"], "en",
        "11-digit invoice number failing the PESEL check", [("pl_pesel_fail", bad)])
    sn = gen_sin(); bad = sn[:8] + str((int(sn[8]) + R.randint(1, 9)) % 10)
    add(k, f"Order #{bad} from Canadian Tire ships Monday", [], ["#" + bad], "en", "9-digit order number failing Luhn (SIN shape)",
        [("ca_sin_fail", bad)])
    d = gen_dni(); bad = d[:8] + R.choice([c for c in DNI_LETTERS if c != d[8]])
    add(k, f"número de socio del club de pádel: {bad}", [], [bad], "es", "membership number in DNI shape with a wrong control letter", [("dni_fail", bad)])
    d_, p = gen_se_pnr(); bad = p[:10] + str((int(p[10]) + R.randint(1, 9)) % 10)
    add(k, f"Booking ref {bad} for the Stockholm ferry, cabin 7012", [], [bad, "cabin 7012"], "en",
        "booking reference in YYMMDD-NNNC shape that fails the personnummer Luhn check", [("se_pnr_fail", bad)])
    n = gen_nif_pt(); bad = n[:8] + str((int(n[8]) + R.randint(1, 9)) % 10)
    add(k, f"Nº de encomenda {bad}, levantamento na loja", [], [bad], "pt", "9-digit order number failing the NIF mod-11 check", [("nif_pt_fail", bad)])
    add(k, "HMRC's example NI number is QQ 12 34 56 C — that's the placeholder on the form, don't copy it", [], ["QQ 12 34 56 C"], "en",
        "HMRC specimen NINO (QQ prefix is never allocated)")
    add(k, "SSN: XXX-XX-XXXX (we never ask for it over chat)", [], ["SSN: XXX-XX-XXXX"], "en", "masked SSN placeholder")
    add(k, "Steuernummer der Firma: 21/815/08150 (steht auf jeder Rechnung)", [], ["21/815/08150"], "de",
        "business tax number printed on invoices (§14 UStG), not the personal Steuer-ID")
    body = rdigits(7, True) + "%03d" % R.randint(1, 100)       # matricola + codice ufficio (001-100)
    piva = body + cd_luhn(body)
    add(k, f"Partita IVA {piva}, la trovi in fondo alla fattura", [], [piva], "it", "Italian VAT number of a business (public, Luhn-style check)",
        [("it_piva", piva)])
    siren = rdigits(8, True); siren += cd_luhn(siren)          # SIREN is Luhn-valid on its own
    sb = siren + rdigits(4)
    siret = sb + cd_luhn(sb)
    add(k, f"SIRET de l'entreprise : {siret[:3]} {siret[3:6]} {siret[6:9]} {siret[9:]}", [], [f"{siret[:3]} {siret[3:6]} {siret[6:9]} {siret[9:]}"],
        "fr", "INSEE SIRET (public business identifier, Luhn)", [("luhn", f"{siret[:3]} {siret[3:6]} {siret[6:9]} {siret[9:]}")])
    # --- order / tracking / booking / flight / invoice / meeting / misc.
    on = "%03d-%07d-%07d" % (R.randint(100, 999), R.randint(0, 9999999), R.randint(0, 9999999))
    add(k, f"Your order {on} has shipped", [], [on], "en", "Amazon order number format (3-7-7)")
    d8 = rdigits(8); s10 = "RR" + d8 + cd_s10(d8) + "DE"
    add(k, f"Einschreiben, Sendungsnummer {s10}", [], [s10], "de", "UPU S10 item identifier with mod-11 check digit", [("upu_s10", s10)])
    d8 = rdigits(8); s10 = "LX" + d8 + cd_s10(d8) + "FR"
    add(k, f"Votre colis {s10} sera livré demain avant 13h", [], [s10, "avant 13h"], "fr", "UPU S10 item identifier", [("upu_s10", s10)])
    add(k, "Vol AF 1234 départ 07:45, terminal 2F, porte K42", [], ["AF 1234", "07:45", "porte K42"], "fr", "flight number, gate, time")
    pnr = "".join(R.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
    add(k, f"Booking reference {pnr}, seat 23A, checked bag included", [], [pnr, "seat 23A"], "en", "IATA PNR record locator (6 characters)")
    pnr = "".join(R.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
    add(k, f"Mi vuelo es el IB3166, localizador {pnr}", [], ["IB3166", pnr], "es", "IATA flight number and PNR locator")
    tk = "220-" + rdigits(10)
    add(k, f"Il numero del biglietto è {tk}, posto 31C", [], [tk, "posto 31C"], "it", "IATA 13-digit ticket number (airline prefix 220)")
    add(k, "Factura nº FV-2025-004817, importe 1.249,00 €", [], ["FV-2025-004817", "1.249,00 €"], "es", "invoice number and price")
    add(k, "call me on 07700 900461 after six", [], ["07700 900461"], "en", "Ofcom drama range 07700 900000-900999 (fictional UK mobile)")
    add(k, "Meeting ID: 845 2291 0734 — the passcode is in the calendar invite", [], ["845 2291 0734", "passcode is in the calendar invite"], "en",
        "Zoom meeting ID (public in invitations), passcode not given")
    mc = "-".join("".join(R.choice(string.ascii_lowercase) for _ in range(n)) for n in (3, 4, 3))
    add(k, f"join here: meet.google.com/{mc}", [], ["meet.google.com/" + mc], "en", "Google Meet meeting code (xxx-xxxx-xxx)")
    add(k, "Postcode 1012 AB, huisnummer 14", [], ["1012 AB"], "nl", "Dutch postcode")
    add(k, "rendez-vous le 14/03/2025 à 10h30 au 75011", [], ["14/03/2025", "10h30", "75011"], "fr", "date, time, postcode")
    add(k, "bumped to v2.14.3 (build 20250311.4) this morning", [], ["v2.14.3", "build 20250311.4"], "en", "version and build numbers")
    add(k, "Use #1E90FF for the header and #F4F4F4 for the background", [], ["#1E90FF", "#F4F4F4"], "en", "hex colour codes")
    sha = "".join(R.choice("0123456789abcdef") for _ in range(40))
    add(k, f"the regression came in with commit {sha}, can you revert it?", [], ["commit " + sha], "en", "git commit SHA-1 named as such")
    short = "".join(R.choice("0123456789abcdef") for _ in range(7))
    add(k, f"fixed in {short} on main, see the PR", [], [short, "on main"], "en", "abbreviated git commit hash")
    add(k, "SKU MBP14-M3P-512-SLV, 2 left in stock", [], ["MBP14-M3P-512-SLV"], "en", "product SKU")
    eb = "84" + rdigits(10); ean = eb + cd_gs1(eb)
    add(k, f"Código de barras del producto: {ean}", [], [ean], "es", "GS1 EAN-13 (prefix 84 = GS1 Spain), check digit", [("gs1", ean)])
    bk = rdigits(15, True); bk += cd_luhn(bk); bk = bk[:15] + str((int(bk[15]) + R.randint(1, 9)) % 10)
    bkf = group(bk)
    add(k, f"Betalingskenmerk {bkf}, factuur van de energieleverancier", [], [bkf], "nl",
        "16-digit Dutch payment reference that fails Luhn (not a card)", [("luhn_fail", bkf)])


def build():
    build_login(); build_national_id(); build_split(); build_password_phrase()
    build_connection_string(); build_otp(); build_lookalike()
    idx = {}
    for c in CASES:
        i = idx.get(c["kind"], 0); idx[c["kind"]] = i + 1
        c_id = "%s-d3-%03d" % (c["kind"].replace("_", "-"), i)
        c["id"] = c_id
    # put id first for readability
    return [dict([("id", c["id"])] + [(f, c[f]) for f in ("kind", "split", "messages", "secret", "keep", "language", "source", "checks") if f in c])
            for c in CASES]


def main():
    global R
    ap = argparse.ArgumentParser()
    ap.add_argument("--force", action="store_true", help="overwrite an existing corpus_dev3.json")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", default=os.path.join(HERE, "corpus_dev3.json"))
    a = ap.parse_args()
    if os.path.exists(a.out) and not a.force:
        sys.exit("%s exists; refusing to overwrite without --force" % a.out)
    R = random.Random(a.seed)
    data = build()
    sys.path.insert(0, HERE)
    import check_dev3
    errs = check_dev3.validate(data)
    if errs:
        for e in errs: print("ERROR", e)
        sys.exit("generated corpus does not validate; nothing written")
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(data), a.out))


if __name__ == "__main__":
    main()
