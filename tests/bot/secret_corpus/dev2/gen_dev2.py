#!/usr/bin/env python3
"""One-shot generator for corpus_dev2.json (secret-detector evaluation, split "dev2").

Hand-written message templates (below) + random values from Python's `secrets`
module.  Template tokens:
    <<S:gen>>   secret value      -> listed in "secret"
    <<N:gen>>   neutral value     -> neither secret nor keep (usernames, expiry dates,
                                     names on cards, storage account names)
    <<K:gen>>   look-alike / context value that must survive -> listed in "keep"
    <<X:gen#2>> a second, independent value from the same generator
The same token (gen + instance) used twice in one case gives the same value, so it
can be repeated in a "keep" string.

Usage:  python3 gen_dev2.py [--force]
Refuses to overwrite corpus_dev2.json / checks_extra_dev2.json without --force.
"""
import json
import os
import re
import secrets
import string
import sys
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import idcodes as ic  # noqa: E402

OUT = os.path.join(HERE, "corpus_dev2.json")
OUT_EXTRA = os.path.join(HERE, "checks_extra_dev2.json")
BIP39 = os.path.join(HERE, "..", "bip39_english.txt")

ch = secrets.choice


def digits(n, first="0123456789"):
    return ch(first) + "".join(ch("0123456789") for _ in range(n - 1)) if n else ""


def rand_date(y0, y1):
    start = date(y0, 1, 1).toordinal()
    end = date(y1, 12, 31).toordinal()
    return date.fromordinal(start + secrets.randbelow(end - start + 1))


def shuffle(lst):
    lst = list(lst)
    for i in range(len(lst) - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        lst[i], lst[j] = lst[j], lst[i]
    return lst


with open(BIP39) as f:
    BIP_WORDS = [w.strip() for w in f if w.strip()]
assert len(BIP_WORDS) == 2048

# ------------------------------------------------------------------ value generators
# Each returns (value, main_checks, extra_checks); checks are (type, value-as-written).
SPEC = {}   # generator name -> short description used in "source"


def gen(spec):
    def deco(f):
        SPEC[f.__name__] = spec
        return f
    return deco


def plain(v):
    return v, [], []


# --- passwords & phrases
WORDS = {
    "en": ["Sunflower", "Blueberry", "Harbour", "Pumpkin", "Marmalade", "Lighthouse", "Otter", "Cobblestone"],
    "de": ["Sonnenblume", "Kaffeetasse", "Schneeflocke", "Bergsee", "Apfelbaum", "Igelchen", "Wanderweg"],
    "es": ["Girasol", "Mariposa", "Naranjo", "Tortuga", "Sardina", "Alcachofa", "Montaña"],
    "fr": ["Papillon", "Framboise", "Tournesol", "Citrouille", "Chaussette", "Escargot"],
    "it": ["Girasole", "Farfalla", "Limoncello", "Gattino", "Pistacchio", "Lucciola"],
    "pt": ["Saudade", "Girassol", "Andorinha", "Pastel", "Sardinha", "Caravela"],
    "nl": ["Tulpenveld", "Stroopwafel", "Fietsbel", "Zonnebloem", "Hagelslag", "Molenwiek"],
}
LOWER_WORDS = ["marmelade", "kiwi", "tigre", "panda", "bolacha", "koekje", "ciambella", "otter",
               "muffin", "zebra", "pinguin", "chouquette", "sardine", "falcon", "noodle"]
PW_SYMBOLS = "!#$%&*+-?@_"


def _pw_human(lang):
    w = ch(WORDS[lang])
    sep = ch(["", "", "_", "-", "."])
    num = ch([str(1950 + secrets.randbelow(60)), digits(2), digits(3), digits(4)])
    sym = ch(["", "!", "#", "?", "*", "$"])
    return f"{w}{sep}{num}{sym}"


for _l in WORDS:
    def _mk(l=_l):
        def f():
            return plain(_pw_human(l))
        f.__name__ = f"pw_human_{l}"
        return f
    globals()[f"pw_human_{_l}"] = _mk()
    SPEC[f"pw_human_{_l}"] = "human-style password (word + number + symbol, secrets.choice)"


def _mixed(n, alphabet, need_sym=True, last_ok=None):
    while True:
        s = "".join(ch(alphabet) for _ in range(n))
        if not (any(c.islower() for c in s) and any(c.isupper() for c in s) and any(c.isdigit() for c in s)):
            continue
        if need_sym and not any(c in PW_SYMBOLS for c in s):
            continue
        if not s[0].isalnum():
            continue
        if last_ok and s[-1] not in last_ok:
            continue
        return s


@gen("random 10-16 char password (secrets)")
def pw_strong():
    return plain(_mixed(10 + secrets.randbelow(7), string.ascii_letters + string.digits + PW_SYMBOLS,
                        last_ok=string.ascii_letters + string.digits + "#%&*"))


@gen("lowercase word + digits password (secrets)")
def pw_lower():
    return plain(ch(LOWER_WORDS) + digits(3 + secrets.randbelow(2)))


@gen("random WPA2 key (secrets)")
def pw_wifi():
    if secrets.randbelow(2):
        a = string.ascii_letters + string.digits
        return plain("-".join("".join(ch(a) for _ in range(4)) for _ in range(3)))
    return plain(_mixed(14 + secrets.randbelow(6), string.ascii_letters + string.digits, need_sym=False))


@gen("random connection-string password without ; = quotes or spaces (secrets)")
def pw_conn():
    return plain(_mixed(14 + secrets.randbelow(9), string.ascii_letters + string.digits + "!#$%*-_.",
                        need_sym=False, last_ok=string.ascii_letters + string.digits))


@gen("random URL-userinfo password, RFC 3986 unreserved chars or percent-encoded (secrets)")
def pw_conn_url():
    base = _mixed(12 + secrets.randbelow(8), string.ascii_letters + string.digits + "-_.~", need_sym=False,
                  last_ok=string.ascii_letters + string.digits)
    if secrets.randbelow(2):
        i = 3 + secrets.randbelow(len(base) - 5)
        base = base[:i] + ch(["%40", "%21", "%23", "%24", "%2F", "%3A"]) + base[i:]
    return plain(base)


@gen("random Oracle password (letters, digits, _ # $) (secrets)")
def pw_conn_oracle():
    return plain(_mixed(12 + secrets.randbelow(6), string.ascii_letters + string.digits + "_#$", need_sym=False,
                        last_ok=string.ascii_letters + string.digits))


@gen("random password containing ; and = (needs ODBC {braces} quoting) (secrets)")
def pw_semicolon():
    a = _mixed(6, string.ascii_letters + string.digits, need_sym=False)
    b = _mixed(6, string.ascii_letters + string.digits, need_sym=False)
    return plain(f"{a};{b[:3]}={b[3:]}!")


@gen("random 32-hex Redis requirepass (secrets.token_hex)")
def pw_hex():
    return plain(secrets.token_hex(16))


@gen("4 BIP-39 words joined by '-' (diceware-style passphrase, not a seed phrase)")
def passphrase_bip():
    return plain("-".join(ch(BIP_WORDS) for _ in range(4)))


@gen("3 capitalised BIP-39 words + digit, '.'-joined passphrase")
def passphrase_bip_caps():
    return plain(".".join(ch(BIP_WORDS).capitalize() for _ in range(3)) + digits(1))


@gen("German 4-word passphrase (secrets.choice)")
def passphrase_de():
    w = ["Wolke", "Tisch", "Regen", "Fuchs", "Brezel", "Anker", "Laterne", "Nebel", "Kiesel", "Hummel", "Zwiebel"]
    return plain(" ".join(ch(w).lower() for _ in range(4)))


@gen("French 4-word passphrase (secrets.choice)")
def passphrase_fr():
    w = ["nuage", "table", "pluie", "renard", "brioche", "ancre", "lanterne", "brume", "caillou", "abeille", "oignon"]
    return plain("-".join(ch(w) for _ in range(4)))


@gen("random Zoom-style passcode (secrets)")
def zoom_pass():
    return plain(_mixed(6 + secrets.randbelow(4), string.ascii_letters + string.digits, need_sym=False))


ANS = {
    "ans_pet": ["Biscuit", "Pepper", "Rocco", "Minou", "Fleckchen", "Pipoca", "Tobi", "Chispa", "Bruno",
                "Lola", "Snuffles", "Kiki", "Moustache", "Polpetta", "Dribbel"],
    "ans_maiden": ["Hollingsworth", "Kowalczyk", "Brandstetter", "Etxeberria", "Vandenberghe", "Esposito",
                   "Carvalho", "Lefebvre", "Van der Meulen", "Oyelaran", "Pennywhistle", "Quaresma"],
    "ans_city": ["Bad Kissingen", "Cuenca", "Montelimar", "Ravenna", "Viseu", "Zwolle", "Tallahassee",
                 "Pforzheim", "Ourense", "Chambery", "Lecce", "Tomar", "Deventer"],
    "ans_school": ["St Bartholomew's", "Hillcrest Primary", "Greenfield Academy", "Oakwood Juniors",
                   "Saint Aidan's", "Riverside Infants"],
    "ans_street": ["Maple Close", "Kingfisher Lane", "Orchard Row", "Willow Crescent", "Tanner Street"],
}
for _k, _v in ANS.items():
    def _mk(v=_v, k=_k):
        def f():
            return plain(ch(v))
        f.__name__ = k
        return f
    globals()[_k] = _mk()
    SPEC[_k] = "security-question answer (secrets.choice from a hand-written list)"


# --- one-time codes
@gen("6-digit OTP (RFC 6238 length)")
def otp6():
    return plain(digits(6))


@gen("6-digit OTP written '123 456'")
def otp6_spaced():
    d = digits(6)
    return plain(d[:3] + " " + d[3:])


@gen("6-digit OTP written '123-456'")
def otp6_dash():
    d = digits(6)
    return plain(d[:3] + "-" + d[3:])


@gen("4-digit SMS code")
def otp4():
    return plain(digits(4))


@gen("8-digit OTP / TAN")
def otp8():
    return plain(digits(8))


@gen("8-digit backup code written '1234 5678'")
def backup8():
    return plain(digits(4) + " " + digits(4))


@gen("Steam Guard style 5-char code")
def steam5():
    return plain("".join(ch("23456789BCDFGHJKMNPQRTVWXY") for _ in range(5)))


B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


@gen("TOTP seed, 32 base32 chars (RFC 4648)")
def totp_b32():
    return plain("".join(ch(B32) for _ in range(32)))


@gen("TOTP seed, 32 base32 chars shown lowercase in groups of 4")
def totp_b32_spaced():
    s = "".join(ch(B32) for _ in range(32)).lower()
    return plain(" ".join(s[i:i + 4] for i in range(0, 32, 4)))


# --- cards (test-card BIN prefixes from Stripe/PayPal testing docs, random tail, Luhn)
CARD_PREFIX = {"visa": ["411111", "424242", "400000"], "mc": ["555555", "510510", "222300", "520082"],
               "amex": ["378282", "371449"], "disc": ["601111"], "jcb": ["353011"], "cb": ["400002"]}


def _card(brand, fmt):
    n = 15 if brand == "amex" else 16
    num = ic.luhn_complete(ch(CARD_PREFIX[brand]) + digits(n - 7))
    if brand == "amex" and fmt in ("spaced", "dash"):
        sep = " " if fmt == "spaced" else "-"
        out = sep.join([num[:4], num[4:10], num[10:]])
    elif fmt == "spaced":
        out = " ".join(num[i:i + 4] for i in range(0, 16, 4))
    elif fmt == "dash":
        out = "-".join(num[i:i + 4] for i in range(0, 16, 4))
    else:
        out = num
    return out, [("luhn", out)], []


for _b in CARD_PREFIX:
    for _f in ("spaced", "dash", "plain"):
        def _mk(b=_b, f_=_f):
            def f():
                return _card(b, f_)
            f.__name__ = f"card_{b}_{f_}"
            return f
        globals()[f"card_{_b}_{_f}"] = _mk()
        SPEC[f"card_{_b}_{_f}"] = "card number: test-card BIN prefix + random digits + Luhn (ISO/IEC 7812)"


@gen("card expiry MM/YY")
def exp():
    return plain(f"{1 + secrets.randbelow(12):02d}/{26 + secrets.randbelow(5)}")


@gen("3-digit CVC")
def cvc3():
    return plain(digits(3))


@gen("4-digit Amex CID")
def cvc4():
    return plain(digits(4))


@gen("4-digit PIN")
def pin4():
    return plain(digits(4))


@gen("5-digit PIN")
def pin5():
    return plain(digits(5))


@gen("6-digit PIN")
def pin6():
    return plain(digits(6))


@gen("8-digit SIM PUK")
def puk8():
    return plain(digits(8))


# --- national IDs
@gen("Belgian national number YY.MM.DD-SSS.CC, CC = 97 - (n mod 97), '2'-prefix for births >= 2000")
def be_nn():
    v = _be_nn()
    s = f"{v[0:2]}.{v[2:4]}.{v[4:6]}-{v[6:9]}.{v[9:]}"
    return s, [("be_nn", s)], []


@gen("Belgian national number, 11 digits unformatted")
def be_nn_compact():
    v = _be_nn()
    return v, [("be_nn", v)], []


def _be_nn():
    d = rand_date(1950, 2006)
    base = d.strftime("%y%m%d") + f"{1 + secrets.randbelow(997):03d}"
    n = int(("2" if d.year >= 2000 else "") + base)
    return base + f"{97 - n % 97:02d}"


def _bsn():
    while True:
        d8 = digits(8, "123456")
        c = sum(int(d8[i]) * (9 - i) for i in range(8)) % 11
        if c < 10:
            return d8 + str(c)


@gen("Dutch BSN, 9 digits passing the 11-test")
def bsn():
    v = _bsn()
    return v, [("bsn", v)], []


@gen("Dutch BSN written '1234.56.789'")
def bsn_dotted():
    v = _bsn()
    s = f"{v[:4]}.{v[4:6]}.{v[6:]}"
    return s, [("bsn", s)], []


NL_PP_LETTERS = "ABCDEFGHIJKLMNPQRSTUVWXYZ"  # no O


@gen("Dutch passport number: 2 letters, 6 letters/digits, 1 digit, no letter O")
def pp_nl():
    s = "".join(ch(NL_PP_LETTERS) for _ in range(2)) + "".join(ch(NL_PP_LETTERS + "0123456789") for _ in range(6)) + digits(1)
    return s, [], [("passport_nl", s)]


@gen("Italian passport number: 2 letters + 7 digits")
def pp_it():
    s = "".join(ch(string.ascii_uppercase) for _ in range(2)) + digits(7)
    return s, [], [("passport_it", s)]


IT_SURNAMES = ["Rossi", "Bianchi", "Esposito", "Ferrari", "Romano", "Colombo", "Ricci", "Marino", "Greco",
               "Bruno", "Gallo", "Conti", "De Luca", "Mancini", "Costa", "Giordano"]
IT_M = ["Marco", "Luca", "Giuseppe", "Alessandro", "Andrea", "Matteo", "Francesco", "Lorenzo"]
IT_F = ["Giulia", "Francesca", "Chiara", "Sara", "Martina", "Elena", "Valentina", "Alessia"]
IT_COMUNI = ["H501", "F205", "L219", "F839", "G273", "A944", "D612", "L736", "D969", "A662"]


def _cf_part(s, is_name):
    s = "".join(c for c in s.upper() if c.isalpha())
    cons = [c for c in s if c not in "AEIOU"]
    vow = [c for c in s if c in "AEIOU"]
    if is_name and len(cons) >= 4:
        cons = [cons[0], cons[2], cons[3]]
    return "".join((cons + vow + ["X"] * 3)[:3])


def _cf():
    female = secrets.randbelow(2) == 1
    d = rand_date(1950, 2004)
    s = (_cf_part(ch(IT_SURNAMES), False) + _cf_part(ch(IT_F if female else IT_M), True)
         + d.strftime("%y") + ic.CF_MONTHS[d.month - 1] + f"{d.day + (40 if female else 0):02d}" + ch(IT_COMUNI))
    return s + ic.cf_check_char(s)


@gen("Italian codice fiscale (DM 23/12/1976): surname/name letters, date, Belfiore code, check character")
def cf_it():
    s = _cf()
    return s, [], [("cf_it", s)]


@gen("Italian codice fiscale typed in lowercase")
def cf_it_lower():
    s = _cf().lower()
    return s, [], [("cf_it", s)]


def _nino():
    while True:
        a, b = ch(string.ascii_uppercase), ch(string.ascii_uppercase)
        if a in ic.NINO_BAD_FIRST or b in ic.NINO_BAD_SECOND or a + b in ic.NINO_BAD_PREFIX:
            continue
        return a + b + digits(6) + ch("ABCD")


@gen("UK National Insurance number (HMRC prefix rules, suffix A-D)")
def nino():
    s = _nino()
    return s, [], [("nino", s)]


@gen("UK NI number written 'AB 12 34 56 C'")
def nino_spaced():
    v = _nino()
    s = f"{v[:2]} {v[2:4]} {v[4:6]} {v[6:8]} {v[8]}"
    return s, [], [("nino", s)]


@gen("UK NI number typed in lowercase")
def nino_lower():
    s = _nino().lower()
    return s, [], [("nino", s)]


def _ssn():
    while True:
        area = 1 + secrets.randbelow(899)
        if area != 666:
            break
    return f"{area:03d}", f"{1 + secrets.randbelow(99):02d}", f"{1 + secrets.randbelow(9999):04d}"


@gen("US SSN AAA-GG-SSSS (area 001-899 except 666, group and serial non-zero)")
def ssn():
    s = "-".join(_ssn())
    return s, [], [("ssn", s)]


@gen("US SSN without dashes")
def ssn_nodash():
    s = "".join(_ssn())
    return s, [], [("ssn", s)]


@gen("Spanish DNI: 8 digits + mod-23 letter")
def dni():
    d = digits(8)
    s = d + ic.dni_letter(d)
    return s, [("dni", s)], []


@gen("Spanish DNI written '12345678-Z'")
def dni_dash():
    d = digits(8)
    s = d + "-" + ic.dni_letter(d)
    return s, [("dni", s)], []


@gen("Spanish NIE: X/Y/Z + 7 digits + mod-23 letter (X=0, Y=1, Z=2)")
def nie():
    p = ch("XYZ")
    d = digits(7)
    s = p + d + ic.dni_letter(str("XYZ".index(p)) + d)
    return s, [("dni", s)], []


def _nir(corse=False):
    d = rand_date(1976 if corse else 1950, 2004)   # 2A/2B exist since 1976
    dept = ch(["2A", "2B"]) if corse else f"{ch([x for x in range(1, 96) if x != 20]):02d}"
    n13 = f"{ch('12')}{d.strftime('%y%m')}{dept}{1 + secrets.randbelow(990):03d}{1 + secrets.randbelow(999):03d}"
    return n13 + f"{ic.nir_key(n13):02d}"


@gen("French NIR (n° de sécurité sociale), 13 digits + key 97 - (n mod 97), written in groups")
def nir_spaced():
    v = _nir()
    s = f"{v[0]} {v[1:3]} {v[3:5]} {v[5:7]} {v[7:10]} {v[10:13]} {v[13:]}"
    return s, [("nir", s)], []


@gen("French NIR, 15 characters unformatted")
def nir_compact():
    v = _nir()
    return v, [("nir", v)], []


@gen("French NIR of a person born in Corsica (2A/2B replaced by 19/18 for the key)")
def nir_corse():
    v = _nir(corse=True)
    s = f"{v[0]} {v[1:3]} {v[3:5]} {v[5:7]} {v[7:10]} {v[10:13]} {v[13:]}"
    return s, [("nir", s)], []


def _steuer():
    while True:
        missing = secrets.randbelow(10)
        dbl = ch([x for x in range(10) if x != missing])
        ds = [str(x) for x in range(10) if x != missing] + [str(dbl)]
        d10 = "".join(shuffle(ds))
        if ic.steuer_digit_rule(d10):
            return d10 + str(ic.steuer_check(d10))


@gen("German Steuer-IdNr: 11 digits, digit-repetition rule, ISO 7064 MOD 11,10 check digit")
def steuer_id():
    v = _steuer()
    return v, [("steuer_id", v)], []


@gen("German Steuer-IdNr written '12 345 678 901'")
def steuer_id_spaced():
    v = _steuer()
    s = f"{v[:2]} {v[2:5]} {v[5:8]} {v[8:]}"
    return s, [("steuer_id", s)], []


@gen("German ID card number (since 2010): 9 chars from [CFGHJKLMNPRTVWXYZ0-9], first a letter")
def de_id():
    s = ch("CFGHJKLMNPRTVWXYZ") + "".join(ch(ic.DE_ID_ALPHABET) for _ in range(8))
    return s, [], [("de_idcard", s)]


@gen("German ID card number + ICAO 9303 7-3-1 check digit (as in the MRZ)")
def de_id_check():
    s = ch("CFGHJKLMNPRTVWXYZ") + "".join(ch(ic.DE_ID_ALPHABET) for _ in range(8))
    s += str(ic.icao_check(s))
    return s, [], [("de_idcard", s)]


def _se():
    d = rand_date(1950, 2005)
    return d, ic.luhn_complete(d.strftime("%y%m%d") + digits(3))


@gen("Swedish personnummer YYMMDD-NNNC, Luhn check digit")
def se_pnr():
    _, v = _se()
    s = v[:6] + "-" + v[6:]
    return s, [("se_pnr", s)], []


@gen("Swedish personnummer, 12-digit form YYYYMMDD-NNNC")
def se_pnr12():
    d, v = _se()
    s = d.strftime("%Y") + v[2:6] + "-" + v[6:]
    return s, [("se_pnr", s)], []


@gen("Polish PESEL: YYMMDD (+20 months for 2000s) ZZZX Q, weights 1-3-7-9")
def pesel():
    d = rand_date(1950, 2008)
    mm = d.month + (20 if d.year >= 2000 else 0)
    d10 = f"{d.year % 100:02d}{mm:02d}{d.day:02d}" + digits(4)
    s = d10 + str(ic.pesel_check(d10))
    return s, [], [("pesel", s)]


def _nif_pt(first="123"):
    d8 = digits(8, first)
    return d8 + str(ic.nif_pt_check(d8))


@gen("Portuguese NIF (individual, first digit 1-3), mod-11 check digit")
def nif_pt():
    v = _nif_pt()
    return v, [("nif_pt", v)], []


@gen("Portuguese NIF written '123 456 789'")
def nif_pt_spaced():
    v = _nif_pt()
    s = f"{v[:3]} {v[3:6]} {v[6:]}"
    return s, [("nif_pt", s)], []


@gen("Portuguese Cartão de Cidadão document number 'DDDDDDDD C AAT' (AMA validation algorithm)")
def cc_pt():
    while True:
        d8 = digits(8)
        s = sum(int(d8[i]) * (9 - i) for i in range(8))
        c = (11 - s % 11) % 11
        if c == 0:
            continue
        c1 = 0 if c == 10 else c
        ver = ch(["ZZ", "ZY", "ZX", "ZW"])
        for t in "0123456789":
            if ic.cc_pt_ok(d8 + str(c1) + ver + t):
                v = f"{d8} {c1} {ver}{t}"
                return v, [], [("cc_pt", v)]


def _cpf():
    while True:
        d9 = digits(9)
        if len(set(d9)) > 1:
            return ic.cpf_digits(d9)


@gen("Brazilian CPF 123.456.789-09, two mod-11 check digits")
def cpf():
    v = _cpf()
    s = f"{v[:3]}.{v[3:6]}.{v[6:9]}-{v[9:]}"
    return s, [], [("cpf", s)]


@gen("Brazilian CPF, 11 digits unformatted")
def cpf_plain():
    v = _cpf()
    return v, [], [("cpf", v)]


def _aadhaar():
    p = digits(11, "23456789")
    return p + ic.verhoeff_digit(p)


@gen("Indian Aadhaar: 12 digits, first 2-9, Verhoeff check digit, '1234 5678 9012'")
def aadhaar():
    v = _aadhaar()
    s = f"{v[:4]} {v[4:8]} {v[8:]}"
    return s, [], [("aadhaar", s)]


@gen("Indian Aadhaar, unformatted")
def aadhaar_plain():
    v = _aadhaar()
    return v, [], [("aadhaar", v)]


@gen("Indian PAN: AAAPA9999A (4th char P = individual)")
def pan():
    U = string.ascii_uppercase
    s = "".join(ch(U) for _ in range(3)) + "P" + ch(U) + digits(4) + ch(U)
    return s, [], [("pan", s)]


@gen("Canadian SIN, 9 digits, first 1-7, Luhn, '123 456 789'")
def sin():
    v = ic.luhn_complete(digits(8, "1234567"))
    s = f"{v[:3]} {v[3:6]} {v[6:]}"
    return s, [("luhn", s)], []


# --- neutral / context
FIRST = ["jan", "maria", "lukas", "sofia", "pierre", "giulia", "joao", "emma", "noah", "lea", "tom", "ines", "sven"]
LAST = ["keller", "garcia", "dubois", "rossi", "silva", "jansen", "smith", "novak", "weber", "moreau", "costa"]


@gen("username")
def user():
    f, l = ch(FIRST), ch(LAST)
    return plain(ch([f"{f}.{l}", f"{f[0]}{l}", f"{f}_{l[0]}{digits(2)}", f"{l}{digits(2)}", f"{f}{l}{digits(1)}"]))


@gen("admin-type username")
def user_admin():
    return plain(ch(["admin", "administrator", "root", "deploy", "svc_backup", "sa"]))


@gen("e-mail address used as a login")
def email():
    f, l = ch(FIRST), ch(LAST)
    return plain(f"{f}.{l}{digits(2)}@{ch(['gmail.com', 'gmx.de', 'web.de', 'outlook.com', 'yahoo.es', 'orange.fr', 'libero.it', 'sapo.pt', 'ziggo.nl'])}")


@gen("e-mail login percent-encoded in a URL")
def email_enc():
    f, l = ch(FIRST), ch(LAST)
    return plain(f"{f}.{l}%40{ch(['gmail.com', 'gmx.de', 'orange.fr', 'libero.it'])}")


@gen("bank customer / contract number used as login")
def custno():
    return plain(digits(10, "123456789"))


@gen("cardholder name")
def name():
    return plain(f"{ch(FIRST).capitalize()} {ch(LAST).capitalize()}")


@gen("Azure storage account name")
def storage_acct():
    return plain("st" + ch(["backup", "media", "logs", "invoices"]) + digits(3))


@gen("internal database host name")
def host_int():
    return plain(f"{ch(['db', 'sql', 'pg', 'mysql', 'mongo', 'redis', 'mq', 'app'])}-{ch(['prod', 'stage', 'dev', 'test', 'acc'])}-{digits(2)}."
                 f"{ch(['internal', 'corp.local', 'lan', 'svc.cluster.local'])}")


@gen("Azure SQL server host")
def azure_sql_host():
    return plain(f"{ch(['crm', 'erp', 'shop', 'billing'])}-{digits(3)}.database.windows.net")


@gen("MongoDB Atlas cluster host")
def mongo_host():
    return plain("cluster0." + "".join(ch(string.ascii_lowercase + string.digits) for _ in range(5)) + ".mongodb.net")


@gen("made-up company domain")
def domain():
    return plain(f"{ch(['kanzlei-brandt', 'druckhaus-ost', 'ferreteria-sol', 'atelier-lune', 'studio-verde', 'bakkerij-vos'])}{digits(2)}."
                 f"{ch(['de', 'es', 'fr', 'it', 'pt', 'nl', 'eu'])}")


@gen("public file-server host")
def host_pub():
    return plain(f"{ch(['files', 'ftp', 'dav', 'share'])}.{domain()[0]}")


@gen("Azure Service Bus namespace")
def sb_ns():
    return plain(f"{ch(['orders', 'events', 'acme'])}-bus-{digits(3)}")


@gen("Azure storage AccountKey (base64 of 64 random bytes)")
def azure_key():
    import base64
    return plain(base64.b64encode(secrets.token_bytes(64)).decode())


@gen("Azure SharedAccessKey (base64 of 32 random bytes)")
def sas_key():
    import base64
    return plain(base64.b64encode(secrets.token_bytes(32)).decode())


@gen("GitLab personal access token used as HTTPS password (glpat- + 20 chars)")
def glpat():
    return plain("glpat-" + "".join(ch(string.ascii_letters + string.digits + "_-") for _ in range(20)))


@gen("public GitHub repo path")
def gh_repo():
    return plain(f"{ch(['acme-labs', 'openfoo', 'team-kiwi'])}/{ch(['website', 'docs', 'cli', 'infra-scripts'])}")


# --- look-alike values
@gen("random digits")
def d1(): return plain(digits(1))
@gen("random digits")
def d2(): return plain(digits(2))
@gen("random digits")
def d3(): return plain(digits(3))
@gen("random digits")
def d4(): return plain(digits(4))
@gen("random digits")
def d5(): return plain(digits(5))
@gen("random digits")
def d6(): return plain(digits(6, "123456789"))
@gen("random digits")
def d7(): return plain(digits(7))
@gen("random digits")
def d8(): return plain(digits(8))


@gen("Amazon order number 3-7-7")
def amazon_order():
    return plain(f"{digits(3, '1234')}-{digits(7)}-{digits(7)}")


def _s10(cc):
    d8 = digits(8)
    return f"{ch(['RR', 'LX', 'CP', 'EE', 'RB'])}{d8}{ic.s10_check(d8)}{cc}"


@gen("UPU S10 item id (Deutsche Post), valid check digit")
def s10_de():
    s = _s10("DE")
    return s, [], [("s10", s)]


@gen("UPU S10 item id (CTT), valid check digit")
def s10_pt():
    s = _s10("PT")
    return s, [], [("s10", s)]


@gen("PostNL barcode 3S + 4 letters + 9 digits")
def postnl():
    return plain("3S" + "".join(ch(string.ascii_uppercase) for _ in range(4)) + digits(9))


@gen("8 digits + letter failing the DNI mod-23 letter")
def dni_fail():
    d = digits(8)
    s = d + ch([c for c in ic.DNI_LETTERS if c != ic.dni_letter(d)])
    return s, [], [("dni_fail", s)]


@gen("9 digits failing the BSN 11-test")
def bsn_fail():
    while True:
        s = digits(9, "123456789")
        if ic.bsn_sum(s) % 11:
            return s, [], [("bsn_fail", s)]


@gen("11 digits failing CPF check digits")
def cpf_fail_plain():
    while True:
        s = digits(11, "123456789")
        if ic.cpf_digits(s[:9]) != s:
            return s, [], [("cpf_fail", s)]


@gen("SSN-shaped number in the never-issued 9xx area")
def ssn_invalid():
    s = f"9{digits(2)}-{digits(2, '123456789')}-{digits(4, '123456789')}"
    return s, [], [("ssn_invalid", s)]


@gen("15 digits starting 1/2 failing the NIR key")
def nir_fail_compact():
    while True:
        s = digits(15, "12")
        if ic.nir_key(s[:13]) != int(s[13:]):
            return s, [], [("nir_fail", s)]


@gen("11 digits failing the Steuer-IdNr check")
def steuer_fail():
    while True:
        s = digits(11, "123456789")
        if not (ic.steuer_digit_rule(s[:10]) and ic.steuer_check(s[:10]) == int(s[10])):
            return s, [], [("steuer_id_fail", s)]


@gen("16-digit number starting 7 (no card network) passing Luhn")
def luhn16_nonIIN():
    s = ic.luhn_complete("7" + digits(14))
    return s, [("luhn", s)], []


def _luhn_fail(first):
    while True:
        s = first + digits(15)
        if ic.luhn_sum(s):
            return s


@gen("16 digits starting 4 failing Luhn")
def luhn_fail_4():
    s = _luhn_fail("4")
    return s, [("luhn_fail", s)], []


@gen("16 digits starting 5 failing Luhn, in groups of 4")
def luhn_fail_5_spaced():
    v = _luhn_fail("5")
    s = " ".join(v[i:i + 4] for i in range(0, 16, 4))
    return s, [("luhn_fail", s)], []


@gen("Dutch 16-digit payment reference (betalingskenmerk) in groups of 4, failing Luhn")
def kenmerk16():
    v = _luhn_fail(ch("0123456789"))
    s = " ".join(v[i:i + 4] for i in range(0, 16, 4))
    return s, [("luhn_fail", s)], []


@gen("HMRC example NINO QQ 12 34 56 C (prefix QQ never allocated)")
def nino_hmrc_example():
    return "QQ 12 34 56 C", [], [("nino_invalid", "QQ 12 34 56 C")]


@gen("SSN 987-65-4321 (SSA advertising range 987-65-4320..4329, area 9xx never issued)")
def ssn_ad_example():
    return "987-65-4321", [], [("ssn_invalid", "987-65-4321")]


@gen("airline booking reference (PNR)")
def pnr():
    return plain("".join(ch("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6)))


IBAN_LEN = {"DE": 22, "ES": 24, "IT": 27, "FR": 27, "NL": 18}


def _iban_fail(cc):
    while True:
        n = IBAN_LEN[cc]
        if cc == "IT":
            bban = ch(string.ascii_uppercase) + digits(22)
        elif cc == "NL":
            bban = "".join(ch(string.ascii_uppercase) for _ in range(4)) + digits(10)
        else:
            bban = digits(n - 4)
        s = cc + digits(2) + bban
        if ic.mod97_alnum(s[4:] + s[:4]) != 1:
            return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


for _c in IBAN_LEN:
    def _mk(c=_c):
        def f():
            s = _iban_fail(c)
            return s, [], [("iban_fail", s)]
        f.__name__ = f"iban_fail_{c.lower()}"
        return f
    globals()[f"iban_fail_{_c.lower()}"] = _mk()
    SPEC[f"iban_fail_{_c.lower()}"] = "IBAN-shaped string (country length) failing ISO 13616 mod-97"


@gen("ISO 11649 creditor reference RF + check digits (passes mod-97, not an IBAN)")
def rf_ref():
    ref = digits(12 + secrets.randbelow(6))
    chk = 98 - ic.mod97_alnum(ref + "RF00")
    v = f"RF{chk:02d}{ref}"
    s = " ".join(v[i:i + 4] for i in range(0, len(v), 4))
    return s, [], [("rf", s)]


@gen("Multibanco payment reference, 9 digits '123 456 789' failing the NIF check")
def mb_ref():
    while True:
        v = digits(9)
        if ic.nif_pt_check(v[:8]) != int(v[8]):
            return f"{v[:3]} {v[3:6]} {v[6:]}", [], [("nif_pt_fail", f"{v[:3]} {v[3:6]} {v[6:]}")]


@gen("Belgian structured communication +++123/4567/89002+++ (mod 97)")
def ogm():
    b = digits(10)
    c = int(b) % 97 or 97
    v = b + f"{c:02d}"
    s = f"+++{v[:3]}/{v[3:7]}/{v[7:]}+++"
    return s, [], [("ogm_be", s)]


@gen("Zoom meeting ID, 11 digits '845 1234 5678'")
def zoom_id():
    v = digits(11, "89")
    return plain(f"{v[:3]} {v[3:7]} {v[7:]}")


@gen("Zoom meeting ID, 11 digits unformatted")
def zoom_id_plain():
    return plain(digits(11, "89"))


@gen("Google Meet code abc-defg-hij")
def meet_code():
    L = string.ascii_lowercase
    return plain("-".join("".join(ch(L) for _ in range(k)) for k in (3, 4, 3)))


@gen("Teams meeting ID, 12 digits '234 567 890 123'")
def teams_id():
    v = digits(12, "123456789")
    return plain(" ".join(v[i:i + 3] for i in range(0, 12, 3)))


@gen("Webex meeting number '2634 123 4567'")
def webex_id():
    v = digits(11, "2")
    return plain(f"{v[:4]} {v[4:7]} {v[7:]}")


@gen("semantic version")
def semver():
    return plain(f"{1 + secrets.randbelow(9)}.{secrets.randbelow(30)}.{secrets.randbelow(20)}")


@gen("flight number")
def flight():
    return plain(f"{ch(['LH', 'IB', 'AF', 'AZ', 'TP', 'KL', 'BA', 'UX'])} {digits(3 + secrets.randbelow(2), '123456789')}")


@gen("company NIF/NIPC (Portugal, first digit 5), valid mod-11 - printed on invoices")
def nipc_pt():
    v = _nif_pt("5")
    return v, [("nif_pt", v)], []


@gen("Brazilian CNPJ (company id, public), valid check digits")
def cnpj():
    v = ic.cnpj_digits(digits(8) + "0001")
    s = f"{v[:2]}.{v[2:5]}.{v[5:8]}/{v[8:12]}-{v[12:]}"
    return s, [], [("cnpj", s)]


@gen("ISBN-13 with valid check digit")
def isbn13():
    p = "978" + digits(9)
    c = (10 - sum(int(p[i]) * (1 if i % 2 == 0 else 3) for i in range(12)) % 10) % 10
    s = p + str(c)
    return s, [], [("isbn13", s)]


@gen("device serial number")
def serial():
    return plain("".join(ch(string.ascii_uppercase + string.digits) for _ in range(12)))


@gen("Wi-Fi network name")
def ssid():
    return plain(ch(["FRITZ!Box 7590 KQ", "Vodafone-8C21", "MOVISTAR_5A3F", "Livebox-7E10", "TIM-2842", "MEO-4C1A", "Ziggo7723"]))


@gen("12 BIP-39 words as a shopping list, failing the BIP-39 checksum")
def bip_shopping():
    base = ["milk", "bread", "butter", "cheese", "apple", "lemon", "sugar", "coffee", "orange", "tomato", "rice", "chicken"]
    while True:
        words = shuffle(base)
        if not _bip39_ok(words):
            s = ", ".join(words)
            return s, [], [("bip39_fail", s)]


def _bip39_ok(words):
    import hashlib
    idx = [BIP_WORDS.index(w) for w in words]
    bits = "".join(f"{i:011b}" for i in idx)
    ent, cs = bits[:-len(bits) // 33], bits[-len(bits) // 33:]
    h = hashlib.sha256(int(ent, 2).to_bytes(len(ent) // 8, "big")).digest()
    return f"{h[0]:08b}"[:len(cs)] == cs


GEN = {name: globals()[name] for name in SPEC}

# ------------------------------------------------------------------ templates
# (language, messages, keep)  messages: str or [label, value] for split
T = {}

T["password_phrase"] = [
    ("en", "the security question answer is <<S:ans_pet>>", ["the security question answer is"]),
    ("en", "security q: mother's maiden name -> <<S:ans_maiden>>", ["security q: mother's maiden name"]),
    ("en", "ok so my new password is <<S:pw_human_en>> pls remember it for me", ["ok so my new password is", "pls remember it for me"]),
    ("en", "pw for the pdf: <<S:pw_strong>>", ["pw for the pdf"]),
    ("en", "Zoom passcode: <<S:zoom_pass>> (meeting starts at 3)", ["Zoom passcode", "(meeting starts at 3)"]),
    ("en", "hey can you remind me tomorrow to call the plumber about the leak. also the wifi at the cabin is \"<<S:pw_wifi>>\" for when we go up on saturday, and book a table at the thai place",
     ["remind me tomorrow to call the plumber about the leak", "the wifi at the cabin is", "for when we go up on saturday, and book a table at the thai place"]),
    ("en", "can you save this for me. keystore passphrase\n<<S:passphrase_bip>>", ["can you save this for me. keystore passphrase"]),
    ("en", "answer to 'name of your first school' is <<S:ans_school>>, caps matter", ["answer to 'name of your first school' is", "caps matter"]),
    ("en", "I changed the router admin password to <<S:pw_lower>> btw", ["I changed the router admin password to", "btw"]),
    ("en", "the passwrod for grandmas laptop is <<S:pw_human_en>>", ["the passwrod for grandmas laptop is"]),
    ("en", "Remind me: the 1Password master password is <<S:passphrase_bip_caps>> and the emergency kit is in the drawer", ["the 1Password master password is", "and the emergency kit is in the drawer"]),
    ("en", "The encryption password for the backup drive:\n<<S:pw_strong>>\nDon't share it with anyone", ["The encryption password for the backup drive", "Don't share it with anyone"]),
    ("en", "if the bank asks the security question (street I grew up on) it's <<S:ans_street>>", ["if the bank asks the security question (street I grew up on)"]),
    ("de", "Mein neues Passwort lautet <<S:pw_human_de>>", ["Mein neues Passwort lautet"]),
    ("de", "kennwort fürs nas: <<S:pw_lower>>", ["kennwort fürs nas"]),
    ("de", "Antwort auf die Sicherheitsfrage (Geburtsort der Mutter): <<S:ans_city>>", ["Antwort auf die Sicherheitsfrage (Geburtsort der Mutter)"]),
    ("de", "WLAN-Schlüssel für die Ferienwohnung ist <<S:pw_wifi>> und der Router steht im Flur", ["WLAN-Schlüssel für die Ferienwohnung ist", "und der Router steht im Flur"]),
    ("de", "das passwort vom pdf mit der steuererklärung ist „<<S:pw_strong>>“", ["das passwort vom pdf mit der steuererklärung ist"]),
    ("de", "Merk dir bitte die Tresor-Passphrase: <<S:passphrase_de>>", ["Merk dir bitte die Tresor-Passphrase"]),
    ("es", "mi contraseña nueva es <<S:pw_human_es>>", ["mi contraseña nueva es"]),
    ("es", "la respuesta a la pregunta de seguridad es <<S:ans_pet>>", ["la respuesta a la pregunta de seguridad es"]),
    ("es", "clave del wifi: <<S:pw_wifi>>", ["clave del wifi"]),
    ("es", "oye guardame la contrasena del portal del cole <<S:pw_lower>> q siempre se me olvida", ["oye guardame la contrasena del portal del cole", "q siempre se me olvida"]),
    ("es", "Contraseña del PDF de la nómina -> <<S:pw_strong>>", ["Contraseña del PDF de la nómina"]),
    ("fr", "mon mot de passe c'est <<S:pw_human_fr>> stp note le", ["mon mot de passe c'est", "stp note le"]),
    ("fr", "mdp : <<S:pw_strong>>", ["mdp"]),
    ("fr", "Réponse à la question secrète : <<S:ans_maiden>>", ["Réponse à la question secrète"]),
    ("fr", "le code wifi de la maison c'est <<S:pw_wifi>>", ["le code wifi de la maison c'est"]),
    ("fr", "mot de pass du coffre-fort numérique\n<<S:passphrase_fr>>", ["mot de pass du coffre-fort numérique"]),
    ("it", "la mia password è <<S:pw_human_it>>", ["la mia password è"]),
    ("it", "risposta alla domanda di sicurezza: <<S:ans_city>>", ["risposta alla domanda di sicurezza"]),
    ("it", "password del wifi \"<<S:pw_wifi>>\"", ["password del wifi"]),
    ("it", "ti segno la parola d'ordine del portale: <<S:pw_lower>> non dirla a nessuno", ["ti segno la parola d'ordine del portale", "non dirla a nessuno"]),
    ("it", "Passcode Zoom per la riunione di domani: <<S:zoom_pass>>", ["Passcode Zoom per la riunione di domani"]),
    ("pt", "a minha senha nova é <<S:pw_human_pt>>", ["a minha senha nova é"]),
    ("pt", "palavra-passe do email: <<S:pw_strong>>", ["palavra-passe do email"]),
    ("pt", "resposta da pergunta de segurança: <<S:ans_pet>>", ["resposta da pergunta de segurança"]),
    ("pt", "senha do wifi é <<S:pw_lower>> tudo minúsculo", ["senha do wifi é", "tudo minúsculo"]),
    ("nl", "mijn wachtwoord is <<S:pw_human_nl>>", ["mijn wachtwoord is"]),
    ("nl", "ww voor de nas: <<S:pw_lower>>", ["ww voor de nas"]),
    ("nl", "antwoord op de beveiligingsvraag: <<S:ans_maiden>>", ["antwoord op de beveiligingsvraag"]),
    ("nl", "wifi wachtwoord van het vakantiehuis: <<S:pw_wifi>> (router staat in de meterkast)", ["wifi wachtwoord van het vakantiehuis", "(router staat in de meterkast)"]),
]

T["login"] = [
    ("en", "login for the router admin page\nuser: <<N:user>>\npass: <<S:pw_strong>>", ["login for the router admin page"]),
    ("en", "netflix: <<N:email>> / <<S:pw_human_en>>", ["netflix"]),
    ("en", "creds for staging box are <<N:user_admin>>:<<S:pw_strong>>", ["creds for staging box are"]),
    ("en", "Username <<N:user>> Password <<S:pw_lower>>", ["Username", "Password"]),
    ("en", "email <<N:email>> pw <<S:pw_human_en>> for the school portal thx", ["for the school portal thx"]),
    ("en", "here are my bank login details: customer number <<N:custno>>, online banking PIN <<S:pin5>>", ["here are my bank login details: customer number", "online banking PIN"]),
    ("en", "| site | login | password |\n|---|---|---|\n| amazon | <<N:email>> | <<S:pw_strong>> |", ["| site | login | password |", "| amazon |"]),
    ("en", "ssh <<N:user>>@<<K:host_int>> password is <<S:pw_strong>>", ["<<K:host_int>>", "password is"]),
    ("en", "my gym app login is <<N:user>> and the password <<S:pw_lower>>", ["my gym app login is", "and the password"]),
    ("en", "login: <<N:email>>\npassword: \"<<S:pw_strong>>\"\n(the quotes aren't part of it)", ["(the quotes aren't part of it)"]),
    ("en", "use <<N:user>> / <<S:pw_human_en>> to get into the wordpress dashboard", ["to get into the wordpress dashboard"]),
    ("en", "fyi the shared spotify acct is <<N:email>> pass <<S:pw_lower>>", ["fyi the shared spotify acct is"]),
    ("de", "Benutzername: <<N:user>>\nKennwort: <<S:pw_human_de>>", ["Benutzername", "Kennwort"]),
    ("de", "Zugangsdaten fürs Kundenportal der Stadtwerke: <<N:user>> / <<S:pw_strong>>", ["Zugangsdaten fürs Kundenportal der Stadtwerke"]),
    ("de", "login beim router ist admin und pw <<S:pw_lower>>", ["login beim router ist"]),
    ("de", "Online-Banking: Anmeldename <<N:user>>, PIN <<S:pin5>>", ["Online-Banking: Anmeldename"]),
    ("de", "email <<N:email>> passwort <<S:pw_strong>> – kannst du dich da mal einloggen und die rechnung runterladen?", ["kannst du dich da mal einloggen und die rechnung runterladen?"]),
    ("es", "usuario: <<N:user>> contraseña: <<S:pw_human_es>>", ["usuario", "contraseña"]),
    ("es", "para entrar en la intranet usa <<N:email>> y la clave <<S:pw_strong>>", ["para entrar en la intranet usa", "y la clave"]),
    ("es", "datos de acceso del banco\nnº de cliente <<N:custno>>\nclave <<S:pin6>>", ["datos de acceso del banco"]),
    ("es", "mi login de la uni es <<N:user>>:<<S:pw_lower>>", ["mi login de la uni es"]),
    ("es", "user <<N:user>> pass <<S:pw_strong>> (es la cuenta de netflix compartida)", ["(es la cuenta de netflix compartida)"]),
    ("fr", "identifiant : <<N:user>>\nmot de passe : <<S:pw_human_fr>>", ["identifiant", "mot de passe"]),
    ("fr", "pour le compte free : <<N:email>> / <<S:pw_strong>>", ["pour le compte free"]),
    ("fr", "login <<N:user>> mdp <<S:pw_lower>> pour le wifi de l'hôtel", ["pour le wifi de l'hôtel"]),
    ("fr", "Accès au NAS : utilisateur <<N:user_admin>>, mot de passe « <<S:pw_strong>> »", ["Accès au NAS : utilisateur", "mot de passe «"]),
    ("it", "nome utente: <<N:user>> password: <<S:pw_human_it>>", ["nome utente"]),
    ("it", "credenziali dello SPID: <<N:email>> / <<S:pw_strong>>", ["credenziali dello SPID"]),
    ("it", "utente <<N:user>> pwd <<S:pw_lower>> per entrare nel gestionale", ["per entrare nel gestionale"]),
    ("it", "Accesso al registro elettronico – user <<N:user>> – password \"<<S:pw_strong>>\"", ["Accesso al registro elettronico"]),
    ("pt", "utilizador: <<N:user>>\npalavra-passe: <<S:pw_human_pt>>", ["utilizador", "palavra-passe"]),
    ("pt", "login do portal da escola: <<N:email>> senha <<S:pw_lower>>", ["login do portal da escola"]),
    ("pt", "usuário <<N:user>> e senha <<S:pw_strong>> pro painel da hospedagem", ["pro painel da hospedagem"]),
    ("nl", "gebruikersnaam <<N:user>> wachtwoord <<S:pw_human_nl>>", ["gebruikersnaam", "wachtwoord"]),
    ("nl", "inlog voor de ouderportal: <<N:email>> / <<S:pw_strong>>", ["inlog voor de ouderportal"]),
    ("nl", "DigiD? nee, dit is voor de sportschool: <<N:user>> ww <<S:pw_lower>>", ["DigiD? nee, dit is voor de sportschool"]),
]

T["connection_string"] = [
    ("en", "prod conn string, dont commit it:\nServer=tcp:<<K:azure_sql_host>>,1433;Initial Catalog=crm;Persist Security Info=False;User ID=<<N:user>>;Password=<<S:pw_conn>>;MultipleActiveResultSets=False;Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;",
     ["prod conn string, dont commit it", "<<K:azure_sql_host>>", "Initial Catalog=crm", "Encrypt=True"]),
    ("en", "Data Source=<<K:host_int>>;Initial Catalog=Payroll;User Id=<<N:user>>;Pwd=<<S:pw_conn>>;", ["Data Source=<<K:host_int>>", "Initial Catalog=Payroll"]),
    ("en", "jdbc:postgresql://<<K:host_int>>:5432/orders?user=<<N:user>>&password=<<S:pw_conn_url>>&ssl=true", ["jdbc:postgresql://<<K:host_int>>:5432/orders", "ssl=true"]),
    ("en", "jdbc:mysql://<<N:user>>:<<S:pw_conn_url>>@<<K:host_int>>:3306/shop", ["<<K:host_int>>:3306/shop"]),
    ("en", "jdbc:sqlserver://<<K:host_int>>:1433;databaseName=inventory;user=<<N:user>>;password=<<S:pw_conn>>;encrypt=true", ["jdbc:sqlserver://<<K:host_int>>:1433;databaseName=inventory", "encrypt=true"]),
    ("en", "jdbc:oracle:thin:<<N:user>>/<<S:pw_conn_oracle>>@//<<K:host_int>>:1521/ORCLPDB1", ["//<<K:host_int>>:1521/ORCLPDB1"]),
    ("en", "Driver={ODBC Driver 18 for SQL Server};Server=<<K:host_int>>;Database=reporting;Uid=<<N:user>>;Pwd={<<S:pw_semicolon>>};Encrypt=yes;",
     ["Driver={ODBC Driver 18 for SQL Server}", "Server=<<K:host_int>>", "Database=reporting", "Encrypt=yes"]),
    ("en", "DATABASE_URL=postgres://<<N:user>>:<<S:pw_conn_url>>@<<K:host_int>>:5432/app_production", ["<<K:host_int>>:5432/app_production"]),
    ("en", "mongodb+srv://<<N:user>>:<<S:pw_conn_url>>@<<K:mongo_host>>/?retryWrites=true&w=majority", ["<<K:mongo_host>>/?retryWrites=true&w=majority"]),
    ("en", "REDIS_URL=redis://:<<S:pw_hex>>@<<K:host_int>>:6379/0", ["<<K:host_int>>:6379/0"]),
    ("en", "the broker is amqps://<<N:user>>:<<S:pw_conn_url>>@<<K:host_int>>/billing if you need it", ["the broker is", "<<K:host_int>>/billing", "if you need it"]),
    ("en", "here's the ftp for the printer shop ftp://<<N:user>>:<<S:pw_conn_url>>@<<K:host_pub>>/uploads drop the files there",
     ["here's the ftp for the printer shop", "<<K:host_pub>>/uploads", "drop the files there"]),
    ("en", "DefaultEndpointsProtocol=https;AccountName=<<N:storage_acct>>;AccountKey=<<S:azure_key>>;EndpointSuffix=core.windows.net", ["DefaultEndpointsProtocol=https", "EndpointSuffix=core.windows.net"]),
    ("en", "Endpoint=sb://<<K:sb_ns>>.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=<<S:sas_key>>",
     ["Endpoint=sb://<<K:sb_ns>>.servicebus.windows.net/", "SharedAccessKeyName=RootManageSharedAccessKey"]),
    ("en", "host=<<K:host_int>> port=5432 dbname=analytics user=<<N:user>> password=<<S:pw_conn>> sslmode=require", ["host=<<K:host_int>> port=5432 dbname=analytics", "sslmode=require"]),
    ("en", "pushing fails with 403, remote is https://oauth2:<<S:glpat>>@gitlab.com/acme/infra.git any idea?", ["pushing fails with 403, remote is", "gitlab.com/acme/infra.git", "any idea?"]),
    ("en", "smtp://<<N:email_enc>>:<<S:pw_conn_url>>@smtp.<<K:domain>>:587 is what I put in the app", ["smtp.<<K:domain>>:587", "is what I put in the app"]),
    ("de", "Hier der Connection-String für die Testdatenbank: Server=<<K:host_int>>;Database=Lager;User Id=<<N:user>>;Password=<<S:pw_conn>>;",
     ["Hier der Connection-String für die Testdatenbank", "Server=<<K:host_int>>", "Database=Lager"]),
    ("de", "kannst du mal schauen warum das nicht geht? postgresql://<<N:user>>:<<S:pw_conn_url>>@<<K:host_int>>/buchhaltung", ["kannst du mal schauen warum das nicht geht?", "<<K:host_int>>/buchhaltung"]),
    ("de", "spring.datasource.url=jdbc:mariadb://<<K:host_int>>:3306/crm\nspring.datasource.username=<<N:user>>\nspring.datasource.password=<<S:pw_conn>>",
     ["spring.datasource.url=jdbc:mariadb://<<K:host_int>>:3306/crm"]),
    ("de", "sftp://<<N:user>>:<<S:pw_conn_url>>@<<K:host_pub>>:22/export – da liegen die Rechnungen", ["<<K:host_pub>>:22/export", "da liegen die Rechnungen"]),
    ("es", "la cadena de conexión es: Server=<<K:host_int>>\\SQLEXPRESS;Database=Ventas;User ID=<<N:user>>;Password=<<S:pw_conn>>;TrustServerCertificate=True",
     ["la cadena de conexión es", "Server=<<K:host_int>>\\SQLEXPRESS", "Database=Ventas"]),
    ("es", "mysql://<<N:user>>:<<S:pw_conn_url>>@<<K:host_int>>:3306/tienda esta es la de producción ojo", ["<<K:host_int>>:3306/tienda", "esta es la de producción ojo"]),
    ("es", "mongodb://<<N:user>>:<<S:pw_conn_url>>@<<K:host_int>>:27017,<<K:host_int#2>>:27017/?replicaSet=rs0&authSource=admin",
     ["<<K:host_int>>:27017,<<K:host_int#2>>:27017/?replicaSet=rs0&authSource=admin"]),
    ("fr", "chaîne de connexion : Provider=SQLOLEDB;Data Source=<<K:host_int>>;Initial Catalog=Compta;User ID=<<N:user>>;Password=<<S:pw_conn>>;",
     ["chaîne de connexion", "Provider=SQLOLEDB;Data Source=<<K:host_int>>;Initial Catalog=Compta"]),
    ("fr", "pour thunderbird j'ai mis imaps://<<N:email_enc>>:<<S:pw_conn_url>>@imap.<<K:domain>>:993 mais ça marche pas", ["pour thunderbird j'ai mis", "imap.<<K:domain>>:993", "mais ça marche pas"]),
    ("it", "stringa di connessione: User Id=<<N:user>>;Password=<<S:pw_conn>>;Data Source=//<<K:host_int>>:1521/ORCL", ["stringa di connessione", "Data Source=//<<K:host_int>>:1521/ORCL"]),
    ("it", "prova con mssql://<<N:user>>:<<S:pw_conn_url>>@<<K:host_int>>:1433/magazzino e dimmi se si collega", ["prova con", "<<K:host_int>>:1433/magazzino", "e dimmi se si collega"]),
    ("pt", "a string de conexão é Host=<<K:host_int>>;Port=5432;Database=clientes;Username=<<N:user>>;Password=<<S:pw_conn>>", ["a string de conexão é", "Host=<<K:host_int>>;Port=5432;Database=clientes"]),
    ("pt", "no kafka pus sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"<<N:user>>\" password=\"<<S:pw_conn>>\";",
     ["no kafka pus", "org.apache.kafka.common.security.plain.PlainLoginModule required"]),
    ("nl", "connectiestring van de acceptatieomgeving: Server=<<K:host_int>>;Database=Klanten;Uid=<<N:user>>;Pwd=<<S:pw_conn>>;", ["connectiestring van de acceptatieomgeving", "Server=<<K:host_int>>;Database=Klanten"]),
    ("nl", "https://<<N:user>>:<<S:pw_conn_url>>@<<K:host_pub>>/webdav/ werkt niet meer, kun je kijken?", ["<<K:host_pub>>/webdav/", "werkt niet meer, kun je kijken?"]),
    ("nl", "mqtt://<<N:user>>:<<S:pw_conn_url>>@<<K:host_int>>:1883 voor de slimme meter", ["<<K:host_int>>:1883", "voor de slimme meter"]),
]

T["otp"] = [
    ("en", "the code they texted me is <<S:otp6>>", ["the code they texted me is"]),
    ("en", "2FA: <<S:otp6>>", ["2FA"]),
    ("en", "ok got it — <<S:otp6_spaced>> — enter that quick before it expires", ["ok got it", "enter that quick before it expires"]),
    ("en", "verification code for amazon <<S:otp6>>", ["verification code for amazon"]),
    ("en", "G-<<S:otp6>> is the google one", ["is the google one"]),
    ("en", "here are my backup codes:\n<<S:backup8>>\n<<S:backup8#2>>\n<<S:backup8#3>>", ["here are my backup codes"]),
    ("en", "otpauth://totp/Acme:<<N:email>>?secret=<<S:totp_b32>>&issuer=Acme", ["issuer=Acme"]),
    ("en", "steam guard code <<S:steam5>>", ["steam guard code"]),
    ("en", "bank sent a 8 digit tan: <<S:otp8>>", ["bank sent a 8 digit tan"]),
    ("en", "the one-time password is <<S:otp6>>, can you type it in for me", ["the one-time password is", "can you type it in for me"]),
    ("de", "Bestätigungscode: <<S:otp6>>", ["Bestätigungscode"]),
    ("de", "die mTAN ist <<S:otp6>>", ["die mTAN ist"]),
    ("de", "hab grad den code bekommen <<S:otp6>> gib den mal ein", ["hab grad den code bekommen", "gib den mal ein"]),
    ("de", "TOTP-Secret für die Nextcloud: <<S:totp_b32_spaced>>", ["TOTP-Secret für die Nextcloud"]),
    ("es", "código de verificación: <<S:otp6>>", ["código de verificación"]),
    ("es", "me llegó el codigo <<S:otp4>> por sms", ["me llegó el codigo", "por sms"]),
    ("es", "la clave de un solo uso es <<S:otp8>>", ["la clave de un solo uso es"]),
    ("fr", "code de vérification : <<S:otp6_spaced>>", ["code de vérification"]),
    ("fr", "le code reçu par sms c'est <<S:otp6>>", ["le code reçu par sms c'est"]),
    ("fr", "Votre code de connexion à usage unique: <<S:otp6>>", ["Votre code de connexion à usage unique"]),
    ("it", "il codice OTP è <<S:otp6>>", ["il codice OTP è"]),
    ("it", "codice di verifica <<S:otp6>> scade tra 5 minuti", ["codice di verifica", "scade tra 5 minuti"]),
    ("pt", "código SMS <<S:otp6>>", ["código SMS"]),
    ("pt", "o código de confirmação que chegou é <<S:otp6>>", ["o código de confirmação que chegou é"]),
    ("nl", "verificatiecode: <<S:otp6>>", ["verificatiecode"]),
    ("nl", "de sms-code is <<S:otp6_dash>> (met streepje)", ["de sms-code is", "(met streepje)"]),
]

T["national_id"] = [
    ("nl", "mijn rijksregisternummer is <<S:be_nn>>", ["mijn rijksregisternummer is"]),
    ("fr", "numéro de registre national : <<S:be_nn_compact>>", ["numéro de registre national"]),
    ("en", "for the Belgian form they need my national number <<S:be_nn>> can you fill it in", ["for the Belgian form they need my national number", "can you fill it in"]),
    ("nl", "BSN: <<S:bsn>>", ["BSN"]),
    ("nl", "kun je dit doorsturen naar de huisarts? burgerservicenummer <<S:bsn_dotted>>, geboortedatum staat op de kaart", ["kun je dit doorsturen naar de huisarts? burgerservicenummer", "geboortedatum staat op de kaart"]),
    ("nl", "paspoortnummer <<S:pp_nl>> geldig tot 2031", ["paspoortnummer", "geldig tot 2031"]),
    ("en", "Dutch passport no. <<S:pp_nl>> for the booking pls", ["Dutch passport no.", "for the booking pls"]),
    ("it", "numero passaporto: <<S:pp_it>>", ["numero passaporto"]),
    ("it", "mi serve per il check-in, passaporto n. <<S:pp_it>> rilasciato a Milano", ["mi serve per il check-in, passaporto n.", "rilasciato a Milano"]),
    ("it", "codice fiscale <<S:cf_it>>", ["codice fiscale"]),
    ("it", "il mio cf è <<S:cf_it_lower>> (scritto minuscolo va bene?)", ["il mio cf è", "(scritto minuscolo va bene?)"]),
    ("en", "Italian tax code for the rental contract: <<S:cf_it>>", ["Italian tax code for the rental contract"]),
    ("en", "NI number: <<S:nino_spaced>>", ["NI number"]),
    ("en", "my national insurance no is <<S:nino>> for the payroll form", ["my national insurance no is", "for the payroll form"]),
    ("en", "ni no <<S:nino_lower>>", ["ni no"]),
    ("en", "SSN <<S:ssn>>", ["SSN"]),
    ("en", "my social is <<S:ssn_nodash>> can u put it on the W-9", ["my social is", "can u put it on the W-9"]),
    ("es", "mi número de seguro social es <<S:ssn>>", ["mi número de seguro social es"]),
    ("es", "DNI: <<S:dni>>", ["DNI"]),
    ("es", "mi dni es el <<S:dni_dash>>", ["mi dni es el"]),
    ("es", "NIE <<S:nie>> para el contrato del piso", ["para el contrato del piso"]),
    ("en", "spanish NIE number is <<S:nie>>", ["spanish NIE number is"]),
    ("fr", "mon numéro de sécu : <<S:nir_spaced>>", ["mon numéro de sécu"]),
    ("fr", "N° de sécurité sociale <<S:nir_compact>> pour la mutuelle", ["N° de sécurité sociale", "pour la mutuelle"]),
    ("fr", "numéro INSEE (né à Ajaccio) : <<S:nir_corse>>", ["numéro INSEE (né à Ajaccio)"]),
    ("de", "Steuer-ID: <<S:steuer_id>>", ["Steuer-ID"]),
    ("de", "meine steuerliche identifikationsnummer ist <<S:steuer_id_spaced>>", ["meine steuerliche identifikationsnummer ist"]),
    ("de", "für die Lohnabrechnung brauchen sie noch meine IdNr <<S:steuer_id>> und die Krankenkasse", ["für die Lohnabrechnung brauchen sie noch meine IdNr", "und die Krankenkasse"]),
    ("de", "Ausweisnummer: <<S:de_id>>", ["Ausweisnummer"]),
    ("de", "personalausweis nr <<S:de_id_check>> (mit prüfziffer, aus der unteren zeile)", ["personalausweis nr", "(mit prüfziffer, aus der unteren zeile)"]),
    ("en", "swedish personnummer <<S:se_pnr>>", ["swedish personnummer"]),
    ("de", "schwedische Personennummer meiner Frau: <<S:se_pnr12>>", ["schwedische Personennummer meiner Frau"]),
    ("en", "my PESEL is <<S:pesel>>", ["my PESEL is"]),
    ("de", "PESEL-Nummer für die polnische Behörde: <<S:pesel>>", ["PESEL-Nummer für die polnische Behörde"]),
    ("pt", "NIF: <<S:nif_pt>>", ["NIF"]),
    ("pt", "o meu número de contribuinte é <<S:nif_pt_spaced>>", ["o meu número de contribuinte é"]),
    ("pt", "nº do cartão de cidadão <<S:cc_pt>>", ["nº do cartão de cidadão"]),
    ("pt", "CPF: <<S:cpf>>", ["CPF"]),
    ("pt", "meu cpf é <<S:cpf_plain>> pode colocar na nota", ["meu cpf é", "pode colocar na nota"]),
    ("pt", "segue o CPF do titular <<S:cpf>> e o RG vai depois", ["segue o CPF do titular", "e o RG vai depois"]),
    ("en", "aadhaar no <<S:aadhaar>>", ["aadhaar no"]),
    ("en", "My Aadhaar number is <<S:aadhaar_plain>> and PAN is <<S:pan>>", ["My Aadhaar number is", "and PAN is"]),
    ("en", "PAN card: <<S:pan>>", ["PAN card"]),
    ("en", "pls fill the KYC form for my dad, his PAN is <<S:pan>>", ["pls fill the KYC form for my dad, his PAN is"]),
    ("en", "SIN: <<S:sin>>", ["SIN"]),
    ("fr", "mon numéro d'assurance sociale (NAS) est <<S:sin>>", ["mon numéro d'assurance sociale (NAS) est"]),
]

T["split"] = [
    ("en", ["my password for the bank is", "<<S:pw_strong>>"], []),
    ("en", ["wifi pw coming in next msg", "<<S:pw_wifi>>"], []),
    ("en", ["the code:", "<<S:otp6>>"], []),
    ("en", ["card number", "<<S:card_visa_spaced>>"], []),
    ("en", ["here's my ssn", "<<S:ssn>>"], []),
    ("en", ["security answer (first pet)", "<<S:ans_pet>>"], []),
    ("en", ["db password for prod", "<<S:pw_conn>> — dont paste it anywhere"], ["dont paste it anywhere"]),
    ("en", ["PIN for the debit card", "<<S:pin4>>"], []),
    ("en", ["connection string in the next message", "Server=<<K:host_int>>;Database=Sales;User Id=<<N:user>>;Password=<<S:pw_conn>>;"], ["Server=<<K:host_int>>;Database=Sales"]),
    ("de", ["Mein Passwort:", "<<S:pw_human_de>>"], []),
    ("de", ["Steuer-ID kommt hier", "<<S:steuer_id>>"], []),
    ("de", ["und der PIN für die EC-Karte ist", "<<S:pin4>>"], []),
    ("de", ["Bestätigungscode aus der SMS", "<<S:otp8>>"], []),
    ("es", ["mi contraseña es", "<<S:pw_human_es>>"], []),
    ("es", ["te paso el DNI", "<<S:dni>>"], []),
    ("es", ["número de la tarjeta:", "<<S:card_mc_plain>>"], []),
    ("fr", ["mot de passe :", "<<S:pw_strong>>"], []),
    ("fr", ["voici le code reçu", "<<S:otp6>>"], []),
    ("fr", ["mon numéro de sécu", "<<S:nir_spaced>>"], []),
    ("it", ["la password è", "<<S:pw_human_it>>"], []),
    ("it", ["codice fiscale:", "<<S:cf_it>>"], []),
    ("it", ["CVV", "<<S:cvc3>>"], []),
    ("pt", ["a senha é", "<<S:pw_human_pt>>"], []),
    ("pt", ["CPF", "<<S:cpf>>"], []),
    ("nl", ["wachtwoord", "<<S:pw_human_nl>>"], []),
    ("nl", ["BSN van mijn dochter:", "<<S:bsn>>"], []),
    ("nl", ["pincode van de bankpas", "<<S:pin4>>"], []),
]

T["card"] = [
    ("en", "can you book the hotel with my card <<S:card_visa_spaced>> exp <<N:exp>> cvc <<S:cvc3>> thanks", ["can you book the hotel with my card", "thanks"]),
    ("en", "use this one <<S:card_mc_plain>> for the groceries", ["use this one", "for the groceries"]),
    ("en", "amex <<S:card_amex_spaced>> exp <<N:exp>>, the 4 digit code on the front is <<S:cvc4>>", ["the 4 digit code on the front is"]),
    ("en", "the visa in the wallet app got blocked, the full number is <<S:card_visa_dash>> if you need it for the claim", ["the visa in the wallet app got blocked, the full number is", "if you need it for the claim"]),
    ("en", "Card number\n<<S:card_disc_spaced>>\nName on card: <<N:name>>", ["Card number", "Name on card"]),
    ("de", "Kreditkartennummer: <<S:card_visa_spaced>>, gültig bis <<N:exp>>, Prüfziffer <<S:cvc3>>", ["Kreditkartennummer", "gültig bis", "Prüfziffer"]),
    ("de", "kannst du mit meiner karte zahlen <<S:card_mc_plain>> ablauf <<N:exp>>", ["kannst du mit meiner karte zahlen"]),
    ("es", "número de tarjeta <<S:card_visa_spaced>> caducidad <<N:exp>> cvv <<S:cvc3>>", ["número de tarjeta", "caducidad"]),
    ("es", "paga con la mastercard <<S:card_mc_dash>> porfa", ["paga con la mastercard", "porfa"]),
    ("fr", "numéro de carte bancaire : <<S:card_cb_spaced>> date d'expiration <<N:exp>>", ["numéro de carte bancaire", "date d'expiration"]),
    ("fr", "ma carte <<S:card_jcb_spaced>> cryptogramme <<S:cvc3>>", ["ma carte", "cryptogramme"]),
    ("it", "numero carta <<S:card_visa_spaced>> scadenza <<N:exp>> cvv <<S:cvc3>>", ["numero carta", "scadenza"]),
    ("pt", "número do cartão: <<S:card_mc_spaced>> validade <<N:exp>> código de segurança <<S:cvc3>>", ["número do cartão", "validade", "código de segurança"]),
    ("nl", "creditcardnummer <<S:card_visa_plain>> vervaldatum <<N:exp>>", ["creditcardnummer", "vervaldatum"]),
    ("nl", "kaartnummer: <<S:card_amex_plain>>\nbeveiligingscode <<S:cvc4>>", ["kaartnummer", "beveiligingscode"]),
]

T["cvc_pin"] = [
    ("en", "cvv is <<S:cvc3>>", ["cvv is"]),
    ("en", "the pin for my debit card is <<S:pin4>> dont tell anyone lol", ["the pin for my debit card is", "dont tell anyone lol"]),
    ("en", "SIM PUK: <<S:puk8>>", ["SIM PUK"]),
    ("en", "security code on the back: <<S:cvc3>>", ["security code on the back"]),
    ("de", "Geheimzahl der Girocard: <<S:pin4>>", ["Geheimzahl der Girocard"]),
    ("de", "prüfnummer hinten auf der karte <<S:cvc3>>", ["prüfnummer hinten auf der karte"]),
    ("es", "el PIN de la tarjeta es <<S:pin4>>", ["el PIN de la tarjeta es"]),
    ("fr", "code PIN de la carte bleue : <<S:pin4>>", ["code PIN de la carte bleue"]),
    ("it", "il pin del bancomat è <<S:pin5>>", ["il pin del bancomat è"]),
    ("pt", "o código PIN do telemóvel é <<S:pin4>>", ["o código PIN do telemóvel é"]),
    ("nl", "pincode: <<S:pin4>>", ["pincode"]),
]

T["lookalike"] = [
    # --- password words, no password
    ("en", "my password is the one we discussed", ["my password is the one we discussed"]),
    ("en", "the wifi password is printed on the back of the router, look there", ["the wifi password is printed on the back of the router, look there"]),
    ("en", "password: •••••••• (hidden, I'll tell you in person)", ["••••••••", "(hidden, I'll tell you in person)"]),
    ("en", "I reset my password yesterday and now the app keeps logging me out", ["I reset my password yesterday and now the app keeps logging me out"]),
    ("en", "what's the security question answer supposed to be if I never had a pet?", ["what's the security question answer supposed to be if I never had a pet?"]),
    ("en", "remind me to change my netflix password on friday", ["remind me to change my netflix password on friday"]),
    ("en", "Password must be at least 12 characters and include a number", ["Password must be at least 12 characters and include a number"]),
    ("en", "user: admin / pass: <ask Tom>", ["<ask Tom>"]),
    ("de", "das Passwort ist dasselbe wie beim letzten Mal", ["das Passwort ist dasselbe wie beim letzten Mal"]),
    ("de", "Passwort: <dein Passwort>", ["<dein Passwort>"]),
    ("de", "Kennwort vergessen – der Link zum Zurücksetzen ist abgelaufen", ["Kennwort vergessen", "der Link zum Zurücksetzen ist abgelaufen"]),
    ("es", "la contraseña es la misma de siempre, la que usamos para todo", ["la contraseña es la misma de siempre, la que usamos para todo"]),
    ("es", "contraseña: (te la digo por teléfono)", ["(te la digo por teléfono)"]),
    ("fr", "le mot de passe est dans le gestionnaire, onglet Famille", ["le mot de passe est dans le gestionnaire, onglet Famille"]),
    ("fr", "mdp : voir post-it sur l'écran", ["voir post-it sur l'écran"]),
    ("it", "la password è quella che ti ho detto a voce", ["la password è quella che ti ho detto a voce"]),
    ("pt", "a senha é a mesma do wifi de casa, não mudou", ["a senha é a mesma do wifi de casa, não mudou"]),
    ("nl", "het wachtwoord staat in de kluis van 1Password, niet hier", ["het wachtwoord staat in de kluis van 1Password, niet hier"]),
    ("nl", "wachtwoord: ******** (zie sms)", ["********", "(zie sms)"]),
    # --- placeholders / credential-free connection strings
    ("en", "connection string template: postgres://USER:PASSWORD@HOST:5432/DBNAME", ["postgres://USER:PASSWORD@HOST:5432/DBNAME"], "documented placeholder (gitleaks fps style)"),
    ("en", "set DB_PASS=${DB_PASSWORD} in the compose file", ["DB_PASS=${DB_PASSWORD}"], "$-variable placeholder (trufflehog uri detector skips $-variables)"),
    ("en", "the docs example is Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword; — replace with yours", ["Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword;"], "documented placeholder connection string (connectionstrings.com style)"),
    ("en", "curl -u <user>:<password> https://api.example.com/v1/items", ["curl -u <user>:<password> https://api.example.com/v1/items"]),
    ("en", "jdbc:mysql://localhost:3306/test?user=${MYSQL_USER}&password=${MYSQL_PASSWORD}", ["jdbc:mysql://localhost:3306/test?user=${MYSQL_USER}&password=${MYSQL_PASSWORD}"]),
    ("de", "Server=<<K:host_int>>;Database=Lager;Integrated Security=SSPI; – läuft mit Windows-Anmeldung, kein Passwort nötig", ["Server=<<K:host_int>>;Database=Lager;Integrated Security=SSPI;", "kein Passwort nötig"]),
    ("en", "mongodb://localhost:27017/?directConnection=true", ["mongodb://localhost:27017/?directConnection=true"]),
    ("es", "redis://<<K:host_int>>:6379/0 (sin contraseña, es local)", ["redis://<<K:host_int>>:6379/0", "(sin contraseña, es local)"]),
    ("fr", "Data Source=<<K:host_int>>;Initial Catalog=Compta;Trusted_Connection=True;", ["Data Source=<<K:host_int>>;Initial Catalog=Compta;Trusted_Connection=True;"]),
    ("nl", "git clone https://github.com/<<K:gh_repo>>.git", ["https://github.com/<<K:gh_repo>>.git"]),
    ("it", "nel file .env metti password=<INSERISCI_QUI_LA_PASSWORD>", ["password=<INSERISCI_QUI_LA_PASSWORD>"]),
    ("pt", "senha: sua_senha_aqui (é só o exemplo do tutorial)", ["sua_senha_aqui", "(é só o exemplo do tutorial)"]),
    ("en", "export PGPASSWORD=$PGPASSWORD_FROM_VAULT before running the script", ["PGPASSWORD=$PGPASSWORD_FROM_VAULT"]),
    ("en", "run ssh -T git@github.com to test the key", ["ssh -T git@github.com"], "GitHub docs: ssh -T git@github.com (user 'git', no password)"),
    ("de", "Benutzername: <<N:user>> (Passwort schicke ich separat)", ["(Passwort schicke ich separat)"]),
    ("es", "el usuario es tu correo y la contraseña la que elegiste al registrarte", ["el usuario es tu correo y la contraseña la que elegiste al registrarte"]),
    ("en", "login page is https://portal.<<K:domain>>/login", ["https://portal.<<K:domain>>/login"]),
    # --- masked values
    ("en", "card ending ****<<K:d4>> was charged twice", ["****<<K:d4>>"]),
    ("en", "Visa •••• <<K:d4>> expires 09/27", ["•••• <<K:d4>>", "09/27"]),
    ("de", "Karte **** **** **** <<K:d4>> wurde abgelehnt", ["**** **** **** <<K:d4>>"]),
    ("es", "me cobraron dos veces en la tarjeta terminada en <<K:d4>>", ["tarjeta terminada en <<K:d4>>"]),
    ("fr", "IBAN FR76 **** **** **** **** ***<<K:d2>> sur le RIB", ["FR76 **** **** **** **** ***<<K:d2>>"]),
    ("it", "carta XXXX-XXXX-XXXX-<<K:d4>> bloccata", ["XXXX-XXXX-XXXX-<<K:d4>>"]),
    ("nl", "pas eindigend op <<K:d4>> is geblokkeerd", ["pas eindigend op <<K:d4>>"]),
    ("en", "SSN: ***-**-<<K:d4>>", ["***-**-<<K:d4>>"]),
    ("pt", "no gov.br aparece CPF ***.<<K:d3>>.<<K:d3#2>>-**", ["***.<<K:d3>>.<<K:d3#2>>-**"]),
    ("en", "PIN: **** (not typing it here)", ["****", "(not typing it here)"]),
    # --- order / tracking / reference numbers, some in ID formats
    ("en", "Amazon order # <<K:amazon_order>> still hasn't arrived", ["<<K:amazon_order>>"]),
    ("en", "UPS tracking 1Z999AA10123456784", ["1Z999AA10123456784"], "UPS documentation sample tracking number 1Z999AA10123456784"),
    ("de", "Sendungsnummer <<K:s10_de>>, kam heute nicht", ["<<K:s10_de>>"]),
    ("nl", "track & trace: <<K:postnl>>", ["<<K:postnl>>"]),
    ("es", "nº de pedido <<K:dni_fail>>", ["<<K:dni_fail>>"]),
    ("nl", "factuurnummer <<K:bsn_fail>>", ["<<K:bsn_fail>>"]),
    ("nl", "klantnummer <<K:bsn_fail>> (staat op je factuur)", ["<<K:bsn_fail>>", "(staat op je factuur)"]),
    ("pt", "protocolo de atendimento <<K:cpf_fail_plain>>", ["<<K:cpf_fail_plain>>"]),
    ("en", "support ticket #<<K:ssn_invalid>>", ["<<K:ssn_invalid>>"]),
    ("fr", "référence de commande <<K:nir_fail_compact>>", ["<<K:nir_fail_compact>>"]),
    ("de", "Bestellnummer <<K:steuer_fail>> – wann kommt das Paket?", ["<<K:steuer_fail>>", "wann kommt das Paket?"]),
    ("it", "numero ordine <<K:d8>>, spedito ieri", ["<<K:d8>>"]),
    ("en", "invoice reference <<K:luhn16_nonIIN>>", ["<<K:luhn16_nonIIN>>"]),
    ("en", "order number <<K:luhn_fail_4>>", ["<<K:luhn_fail_4>>"]),
    ("de", "Kundennummer <<K:luhn_fail_5_spaced>>", ["<<K:luhn_fail_5_spaced>>"]),
    ("nl", "betalingskenmerk <<K:kenmerk16>>", ["<<K:kenmerk16>>"]),
    ("es", "localizador de reserva: <<K:pnr>>", ["<<K:pnr>>"]),
    ("fr", "référence de réservation <<K:pnr>>", ["<<K:pnr>>"]),
    ("en", "payment reference <<K:iban_fail_de>>", ["<<K:iban_fail_de>>"]),
    ("it", "riferimento pratica <<K:iban_fail_it>>", ["<<K:iban_fail_it>>"]),
    ("es", "referencia de la transferencia <<K:iban_fail_es>> (no es mi cuenta, es la referencia)", ["<<K:iban_fail_es>>"]),
    ("fr", "numéro de dossier <<K:iban_fail_fr>>", ["<<K:iban_fail_fr>>"]),
    ("nl", "referentie <<K:iban_fail_nl>>", ["<<K:iban_fail_nl>>"]),
    ("de", "Verwendungszweck: Rechnung <<K:d8>> / Kd.-Nr. <<K:d6>>", ["Rechnung <<K:d8>> / Kd.-Nr. <<K:d6>>"]),
    ("fr", "référence de paiement <<K:rf_ref>>", ["<<K:rf_ref>>"]),
    ("pt", "referência multibanco: entidade <<K:d5>> referência <<K:mb_ref>> valor 42,90 €", ["entidade <<K:d5>> referência <<K:mb_ref>>"]),
    ("nl", "gestructureerde mededeling <<K:ogm>>", ["<<K:ogm>>"]),
    ("en", "your order <<K:d6>> has shipped", ["your order <<K:d6>> has shipped"]),
    # --- meeting ids
    ("en", "Zoom meeting ID: <<K:zoom_id>>", ["<<K:zoom_id>>"]),
    ("en", "join here https://zoom.us/j/<<K:zoom_id_plain>>", ["https://zoom.us/j/<<K:zoom_id_plain>>"]),
    ("de", "Google Meet: meet.google.com/<<K:meet_code>>", ["meet.google.com/<<K:meet_code>>"]),
    ("es", "ID de reunión de Teams: <<K:teams_id>>", ["<<K:teams_id>>"]),
    ("fr", "ID de réunion : <<K:zoom_id>> (pas de code secret)", ["<<K:zoom_id>>", "(pas de code secret)"]),
    ("it", "numero riunione Webex <<K:webex_id>>", ["<<K:webex_id>>"]),
    ("nl", "vergader-ID: <<K:teams_id>> – de link staat in de agenda", ["<<K:teams_id>>", "de link staat in de agenda"]),
    ("pt", "ID da reunião do Zoom: <<K:zoom_id>>", ["<<K:zoom_id>>"]),
    # --- versions, dates, phones, postcodes, flights
    ("en", "updated to v<<K:semver>> and now it crashes on startup", ["v<<K:semver>>"]),
    ("de", "Firmware <<K:semver>> installiert, Router startet neu", ["Firmware <<K:semver>> installiert"]),
    ("en", "release 2024.11.3 - changelog at the usual place", ["2024.11.3"]),
    ("es", "nos vemos el 14/03/2025 a las 18:30", ["14/03/2025", "18:30"]),
    ("fr", "RDV le 03.07.2025 à 9h15", ["03.07.2025", "9h15"]),
    ("en", "call me at +1 (415) 555-01<<K:d2>>", ["+1 (415) 555-01<<K:d2>>"]),
    ("de", "meine Handynummer ist 0151 <<K:d8>>", ["0151 <<K:d8>>"]),
    ("es", "mi móvil: +34 6<<K:d2>> <<K:d3>> <<K:d3#2>>", ["+34 6<<K:d2>> <<K:d3>> <<K:d3#2>>"]),
    ("fr", "mon numéro : 06 <<K:d2>> <<K:d2#2>> <<K:d2#3>> <<K:d2#4>>", ["06 <<K:d2>> <<K:d2#2>> <<K:d2#3>> <<K:d2#4>>"]),
    ("it", "chiamami al 347 <<K:d7>>", ["347 <<K:d7>>"]),
    ("nl", "bel me op 06-<<K:d8>>", ["06-<<K:d8>>"]),
    ("pt", "o meu telemóvel é 912 <<K:d3>> <<K:d3#2>>", ["912 <<K:d3>> <<K:d3#2>>"]),
    ("en", "the postcode is SW1A 2AA", ["SW1A 2AA"], "public postcode of 10 Downing Street"),
    ("de", "PLZ 80331 München", ["80331"]),
    ("nl", "postcode 1012 AB, huisnummer 14", ["1012 AB"]),
    ("es", "código postal 28013", ["28013"]),
    ("en", "flight <<K:flight>> lands at 17:45", ["<<K:flight>>"]),
    ("fr", "vol AF<<K:d4>> retardé de 2h", ["AF<<K:d4>>"]),
    ("it", "volo AZ <<K:d3>> gate B<<K:d2>>", ["AZ <<K:d3>>", "B<<K:d2>>"]),
    ("nl", "vlucht KL<<K:d4>>, boekingscode <<K:pnr>>", ["KL<<K:d4>>", "<<K:pnr>>"]),
    ("pt", "voo TP<<K:d4>> reserva <<K:pnr>>", ["TP<<K:d4>>", "<<K:pnr>>"]),
    # --- code words, no one-time code
    ("en", "I didn't get the verification code, can you resend it?", ["I didn't get the verification code, can you resend it?"]),
    ("en", "the code expires in 10 minutes, so be quick", ["the code expires in 10 minutes, so be quick"]),
    ("de", "Fehlercode 0x80070005 beim Update", ["0x80070005"]),
    ("en", "use discount code SPRING25 at checkout", ["SPRING25"]),
    ("es", "el código postal es 08001, no 08010", ["08001", "08010"]),
    ("fr", "code d'erreur 503, le serveur est down", ["code d'erreur 503"]),
    ("it", "codice articolo <<K:d8>>, taglia M", ["codice articolo <<K:d8>>"]),
    ("nl", "de code van de pakketautomaat? die krijg je pas morgen", ["de code van de pakketautomaat? die krijg je pas morgen"]),
    ("en", "HTTP 401 when I call the API with my key - do you know why?", ["HTTP 401"]),
    ("pt", "o código de rastreio é <<K:s10_pt>>", ["<<K:s10_pt>>"]),
    ("de", "Zimmer <<K:d3>>, den Code für die Tür bekommst du an der Rezeption", ["Zimmer <<K:d3>>", "den Code für die Tür bekommst du an der Rezeption"]),
    # --- ID words / documented examples / public company ids
    ("en", "NI number format is <<K:nino_hmrc_example>> (that's the HMRC example)", []),
    ("en", "the form says SSN e.g. <<K:ssn_ad_example>> but I don't have one yet", []),
    ("es", "para el NIE necesito cita previa, todavía no lo tengo", ["para el NIE necesito cita previa, todavía no lo tengo"]),
    ("it", "il codice fiscale lo trovi sul retro della tessera sanitaria", ["il codice fiscale lo trovi sul retro della tessera sanitaria"]),
    ("de", "Die Steuer-ID steht oben links auf dem Brief vom Bundeszentralamt", ["Die Steuer-ID steht oben links auf dem Brief vom Bundeszentralamt"]),
    ("fr", "le numéro de sécu commence par 1 pour les hommes et 2 pour les femmes", ["le numéro de sécu commence par 1 pour les hommes et 2 pour les femmes"]),
    ("nl", "je BSN vind je in je paspoort of op mijnoverheid.nl", ["je BSN vind je in je paspoort of op mijnoverheid.nl"]),
    ("pt", "o NIF da empresa na fatura é <<K:nipc_pt>>", ["<<K:nipc_pt>>"]),
    ("pt", "CNPJ da loja: <<K:cnpj>>", ["<<K:cnpj>>"]),
    ("en", "ISBN <<K:isbn13>> is the one for the course", ["<<K:isbn13>>"]),
    ("de", "Seriennummer des Geräts: <<K:serial>>", ["<<K:serial>>"]),
    ("en", "the Wi-Fi network is called <<K:ssid>>, password is on the fridge", ["<<K:ssid>>", "password is on the fridge"]),
    ("fr", "la banque m'a envoyé un nouveau code confidentiel par courrier, je l'ai pas encore ouvert", ["la banque m'a envoyé un nouveau code confidentiel par courrier"]),
    ("en", "The card number field only accepts 16 digits, no spaces", ["The card number field only accepts 16 digits, no spaces"]),
    ("nl", "de CVC staat op de achterkant van je pas, 3 cijfers", ["de CVC staat op de achterkant van je pas, 3 cijfers"]),
    ("en", "shopping list: <<K:bip_shopping>>", ["<<K:bip_shopping>>"]),
]

MIN_COUNTS = {"password_phrase": 40, "login": 35, "connection_string": 30, "otp": 25, "national_id": 45,
              "split": 25, "card": 15, "cvc_pin": 10, "lookalike": 120}

USED_SECRETS = set()
TOKEN = re.compile(r"<<([SNK]):([a-z0-9_A-Z]+)(?:#(\d+))?>>")


def spans(text, sub):
    out, i = [], text.find(sub)
    while i >= 0:
        out.append((i, i + len(sub)))
        i = text.find(sub, i + 1)
    return out


def build(kind, idx, lang, msgs, keep_tpl):
    msgs = [msgs] if isinstance(msgs, str) else list(msgs)
    cache, roles = {}, {}
    secret, keep, neutral, checks, extra, gens = [], [], [], [], [], []

    def sub(m):
        role, g, inst = m.group(1), m.group(2), m.group(3) or "1"
        key = (g, inst)
        if key not in cache:
            v, c, x = GEN[g]()
            cache[key] = v
            roles[key] = role
            if g not in gens:
                gens.append(g)
            if role in "SK":
                checks.extend(c)
                extra.extend(x)
            lst = {"S": secret, "K": keep, "N": neutral}[role]
            if v not in lst:
                lst.append(v)
        assert roles[key] == role, (kind, idx, key)
        return cache[key]

    msgs = [TOKEN.sub(sub, m) for m in msgs]

    def sub_keep(m):
        key = (m.group(2), m.group(3) or "1")
        assert key in cache, ("keep references unknown token", kind, idx, key)
        return cache[key]

    for k in keep_tpl:
        k = TOKEN.sub(sub_keep, k)
        if k not in keep:
            keep.append(k)
    if kind == "split":
        keep.insert(0, msgs[0])
    # a generated keep value that is already inside a longer keep string is redundant
    kvals = {v for (g, i), v in cache.items() if roles[(g, i)] == "K"}
    keep = [k for k in keep if not (k in kvals and any(k != o and k in o for o in keep))]
    allmsg = "\n".join(msgs)
    for s in secret + keep:
        assert s in allmsg, (kind, idx, s)
    for k in keep:
        for n in neutral:
            assert n not in k, ("keep contains neutral value", kind, idx, k, n)
        for s in secret:
            assert s not in k and k not in s, ("keep/secret overlap", kind, idx, k, s)
        ok = False
        for m in msgs:
            sec = [sp for s in secret for sp in spans(m, s)]
            for a, b in spans(m, k):
                if all(b <= x0 or a >= x1 for x0, x1 in sec):
                    ok = True
        assert ok, ("every occurrence of keep overlaps a secret", kind, idx, k)
    if kind == "split":
        assert all(s not in msgs[0] for s in secret) and all(s in msgs[1] for s in secret)
    for s in secret:
        assert s not in USED_SECRETS, ("secret value reused", kind, idx, s)   # draw again
    if kind == "lookalike":
        assert not secret
    else:
        assert secret, (kind, idx)
    src = f"hand-written {lang} template (gen_dev2.py); values: " + "; ".join(SPEC[g] for g in gens) if gens \
        else f"hand-written {lang} template (gen_dev2.py)"
    case = {"id": f"{kind.replace('_', '-')}-d2-{idx:03d}", "kind": kind, "split": "dev2", "messages": msgs,
            "secret": secret, "keep": keep, "language": lang, "source": src}
    if checks:
        case["checks"] = [{"type": t, "value": v} for t, v in checks]
    return case, [{"id": case["id"], "type": t, "value": v} for t, v in extra]


def main():
    force = "--force" in sys.argv[1:]
    for p in (OUT, OUT_EXTRA):
        if os.path.exists(p) and not force:
            sys.exit(f"{p} exists; refusing to overwrite without --force")
    corpus, extra = [], []
    order = ["password_phrase", "login", "connection_string", "otp", "national_id", "split", "card", "cvc_pin", "lookalike"]
    for kind in order:
        assert len(T[kind]) >= MIN_COUNTS[kind], (kind, len(T[kind]))
        for i, (lang, msgs, keep, *note) in enumerate(T[kind], 1):
            for attempt in range(20):   # a random value may collide with context text; draw again
                try:
                    c, x = build(kind, i, lang, msgs, keep)
                    USED_SECRETS.update(c["secret"])
                    if note:
                        c["source"] += "; " + note[0]
                    break
                except AssertionError:
                    if attempt == 19:
                        raise
            corpus.append(c)
            extra.extend(x)
    seen = set()
    for c in corpus:
        key = tuple(c["messages"])
        assert key not in seen, c["id"]
        seen.add(key)
    with open(OUT + ".tmp", "w", encoding="utf-8") as f:
        json.dump(corpus, f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(OUT_EXTRA + ".tmp", "w", encoding="utf-8") as f:
        json.dump(extra, f, ensure_ascii=False, indent=1)
        f.write("\n")
    os.replace(OUT + ".tmp", OUT)
    os.replace(OUT_EXTRA + ".tmp", OUT_EXTRA)
    print(f"wrote {len(corpus)} cases to {OUT}, {len(extra)} extra checks to {OUT_EXTRA}")


if __name__ == "__main__":
    main()
