"""Random identity numbers, PINs, passwords and company numbers for dev7, and the case helper.

Self-contained: every check digit is computed here from the published rule of its format (no python-stdnum
import); check_dev7.py verifies the claims with python-stdnum where it has the type and with its own code where
it lacks one (UK NINO format, ICAO 9303 7-3-1 document check digit).
"""
import datetime
import secrets
import string

RNG = secrets.SystemRandom()
UPPER = string.ascii_uppercase


def digits(n):
    return "".join(str(RNG.randrange(10)) for _ in range(n))


def birth_date(first=1950, last=2003):
    start = datetime.date(first, 1, 1).toordinal()
    return datetime.date.fromordinal(RNG.randint(start, datetime.date(last, 12, 28).toordinal()))


def case(kind, messages, secret, keep, language, source, checks=()):
    """One corpus item, before its id and split are assigned."""
    messages = [messages] if isinstance(messages, str) else list(messages)
    return {"kind": kind, "messages": messages, "secret": list(secret), "keep": list(keep), "language": language,
            "source": source, "checks": [{"type": t, "value": v} for t, v in checks]}


# ---- generic check-digit rules ------------------------------------------------------------------

def luhn_digit(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        x = int(ch) * (2 if i % 2 == 0 else 1)
        total += x - 9 if x > 9 else x
    return str((10 - total % 10) % 10)


def mod11_10(body):
    """ISO 7064 MOD 11,10 check digit."""
    p = 10
    for ch in body:
        s = (int(ch) + p) % 10 or 10
        p = (2 * s) % 11
    return str((11 - p) % 10)


_VD = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
       [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
       [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
       [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_VP = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
       [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
       [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
_VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_digit(body):
    c = 0
    for i, ch in enumerate(reversed(body)):
        c = _VD[c][_VP[(i + 1) % 8][int(ch)]]
    return str(_VINV[c])


def icao_digit(field):
    """ICAO 9303 check digit, weights 7 3 1, letters A=10..Z=35, '<' = 0."""
    def val(ch):
        return int(ch) if ch.isdigit() else 0 if ch == "<" else ord(ch) - 55
    return str(sum(val(ch) * (7, 3, 1)[i % 3] for i, ch in enumerate(field)) % 10)


# ---- personal numbers ---------------------------------------------------------------------------

def us_ssn():
    while True:
        area = RNG.randint(1, 899)
        if area != 666:
            return f"{area:03d}-{RNG.randint(1, 99):02d}-{RNG.randint(1, 9999):04d}"


def us_itin():
    return f"9{digits(2)}-{RNG.choice([70, 71, 72, 73, 78, 80, 83, 88, 90, 92, 94, 99])}-{digits(4)}"


def gb_nino():
    first = RNG.choice("ABCEGHJKLMNPRSTWXYZ")
    while True:
        second = RNG.choice("ABCEGHJKLMNPRSTWXYZ")
        if first + second not in ("BG", "GB", "NK", "KN", "TN", "NT", "ZZ"):
            break
    d = digits(6)
    return f"{first}{second} {d[:2]} {d[2:4]} {d[4:]} {RNG.choice('ABCD')}"


def gb_nhs():
    while True:
        body = str(RNG.randint(400, 799)) + digits(6)
        c = 11 - sum(int(d) * w for d, w in zip(body, range(10, 1, -1))) % 11
        c = 0 if c == 11 else c
        if c != 10:
            s = body + str(c)
            return f"{s[:3]} {s[3:6]} {s[6:]}"


def de_steuer_id():
    """German IdNr: in the first 10 digits one digit occurs exactly twice, one digit not at all; MOD 11,10."""
    while True:
        pool = RNG.sample(range(10), 9)
        ten = pool + [RNG.choice(pool)]
        RNG.shuffle(ten)
        if ten[0] != 0 and all(ten[i] != ten[i + 1] for i in range(9)):
            b = "".join(map(str, ten))
            return b + mod11_10(b)


def fr_nir():
    b = birth_date(1950, 2002)
    dept = RNG.choice([d for d in range(1, 96) if d != 20])
    body = f"{RNG.choice('12')}{b:%y%m}{dept:02d}{RNG.randint(1, 990):03d}{RNG.randint(1, 999):03d}"
    key = 97 - int(body) % 97
    return f"{body[0]} {body[1:3]} {body[3:5]} {body[5:7]} {body[7:10]} {body[10:13]} {key:02d}"


_CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8,
                    12, 14, 16, 10, 22, 25, 24, 23]))


def _cf_even(ch):
    return int(ch) if ch.isdigit() else ord(ch) - 65


def _cf_part(word, is_name):
    cons = [c for c in word if c not in "AEIOU"]
    vows = [c for c in word if c in "AEIOU"]
    if is_name and len(cons) >= 4:
        cons = [cons[0], cons[2], cons[3]]
    return ("".join(cons + vows) + "XXX")[:3]


def it_codice_fiscale(surname, name, female=False):
    b = birth_date(1950, 2002)
    day = b.day + (40 if female else 0)
    body = (_cf_part(surname.upper(), False) + _cf_part(name.upper(), True) + f"{b:%y}" + "ABCDEHLMPRST"[b.month - 1]
            + f"{day:02d}" + RNG.choice(["H501", "F205", "F839", "L219", "G273", "A944", "D612", "L736"]))
    total = sum(_CF_ODD[c] if i % 2 == 0 else _cf_even(c) for i, c in enumerate(body))
    return body + UPPER[total % 26]


def es_dni():
    n = RNG.randint(10_000_000, 79_999_999)
    return f"{n}{'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}"


def es_nie():
    p = RNG.choice("XYZ")
    n = digits(7)
    return f"{p}{n}{'TRWAGMYFPDXBNJZSQVHLCKE'[int('XYZ'.index(p).__str__() + n) % 23]}"


def nl_bsn():
    while True:
        body = str(RNG.randint(1, 6)) + digits(7)
        s = sum(int(d) * w for d, w in zip(body, range(9, 1, -1))) % 11
        if s < 10:
            return body + str(s)


def pt_nif():
    body = RNG.choice("123") + digits(7)
    c = 11 - sum(int(d) * w for d, w in zip(body, range(9, 1, -1))) % 11
    return body + str(0 if c >= 10 else c)


def br_cpf():
    while True:
        d = [int(x) for x in digits(9)]
        if len(set(d)) > 1:
            break
    for n in (10, 11):
        s = sum(x * w for x, w in zip(d, range(n, 1, -1)))
        d.append(s * 10 % 11 % 10)
    s = "".join(map(str, d))
    return f"{s[:3]}.{s[3:6]}.{s[6:9]}-{s[9:]}"


_CURP_ALPHA = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"


def mx_curp(initials, female=False):
    b = birth_date(1960, 2004)
    state = RNG.choice(["DF", "JC", "NL", "PL", "VZ", "YN", "GT", "OC", "MC"])
    inner = "".join(RNG.choice("BCDFGHJKLMNPRSTVZ") for _ in range(3))
    homo = RNG.choice("0123456789") if b.year < 2000 else RNG.choice("ABCDEF")
    body = f"{initials}{b:%y%m%d}{'M' if female else 'H'}{state}{inner}{homo}"
    s = sum(_CURP_ALPHA.index(c) * (18 - i) for i, c in enumerate(body))
    return body + str((10 - s % 10) % 10)


def in_aadhaar(spaced=True):
    while True:
        body = str(RNG.randint(2, 9)) + digits(10)
        s = body + verhoeff_digit(body)
        if s != s[::-1]:
            return f"{s[:4]} {s[4:8]} {s[8:]}" if spaced else s


def in_pan(surname_initial):
    return "".join(RNG.choice(UPPER) for _ in range(3)) + "P" + surname_initial + digits(4) + RNG.choice(UPPER)


def ca_sin():
    body = str(RNG.choice([1, 2, 3, 4, 5, 6, 7])) + digits(7)
    s = body + luhn_digit(body)
    return f"{s[:3]} {s[3:6]} {s[6:]}"


def au_tfn():
    while True:
        body = digits(8)
        w = (1, 4, 3, 7, 5, 8, 6, 9)
        s = sum(int(d) * x for d, x in zip(body, w))
        for last in range(10):
            if (s + last * 10) % 11 == 0 and body[0] != "0":
                t = body + str(last)
                return f"{t[:3]} {t[3:6]} {t[6:]}"


def pl_pesel(female=None):
    b = birth_date(1950, 2005)
    month = b.month + (20 if b.year >= 2000 else 0)
    female = RNG.choice([True, False]) if female is None else female
    serial = digits(3) + str(RNG.choice([0, 2, 4, 6, 8] if female else [1, 3, 5, 7, 9]))
    body = f"{b:%y}{month:02d}{b:%d}{serial}"
    s = sum(int(d) * w for d, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)))
    return body + str((10 - s % 10) % 10)


def se_pnr(long=False):
    b = birth_date(1950, 2003)
    body = f"{b:%y%m%d}{digits(3)}"
    s = f"{b:%y%m%d}-{body[6:]}{luhn_digit(body)}"
    return (f"{b.year // 100}" + s) if long else s


def be_nn():
    b = birth_date(1950, 2004)
    body = f"{b:%y%m%d}{RNG.randint(1, 997):03d}"
    key = 97 - int(("2" if b.year >= 2000 else "") + body) % 97
    return f"{body[:2]}.{body[2:4]}.{body[4:6]}-{body[6:]}.{key:02d}"


def ch_ahv():
    body = "756" + digits(9)
    s = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(body))
    s = body + str((10 - s % 10) % 10)
    return f"{s[:3]}.{s[3:7]}.{s[7:11]}.{s[11:]}"


def at_svnr():
    while True:
        b = birth_date(1950, 2003)
        serial = str(RNG.randint(1, 9)) + digits(2)
        tail = f"{b:%d%m%y}"
        w = (3, 7, 9, 5, 8, 4, 2, 1, 6)
        c = sum(int(d) * x for d, x in zip(serial + tail, w)) % 11
        if c < 10:
            return f"{serial}{c} {tail}"


def ie_pps(new=None):
    new = RNG.choice([True, False]) if new is None else new
    body = digits(7)
    s = sum(int(d) * w for d, w in zip(body, range(8, 1, -1))) + (9 if new else 0)
    return body + "WABCDEFGHIJKLMNOPQRSTUV"[s % 23] + ("A" if new else "")


def dk_cpr():
    b = birth_date(1950, 1999)
    return f"{b:%d%m%y}-{RNG.randint(0, 3)}{digits(3)}"


def fi_hetu():
    b = birth_date(1950, 2004)
    sep = "-" if b.year < 2000 else "A"
    z = RNG.randint(2, 899)
    n = int(f"{b:%d%m%y}{z:03d}")
    return f"{b:%d%m%y}{sep}{z:03d}{'0123456789ABCDEFHJKLMNPRSTUVWXY'[n % 31]}"


def no_fnr():
    while True:
        b = birth_date(1950, 1999)
        body = f"{b:%d%m%y}{RNG.randint(0, 499):03d}"
        k1 = 11 - sum(int(d) * w for d, w in zip(body, (3, 7, 6, 1, 8, 9, 4, 5, 2))) % 11
        k1 = 0 if k1 == 11 else k1
        if k1 == 10:
            continue
        body += str(k1)
        k2 = 11 - sum(int(d) * w for d, w in zip(body, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2))) % 11
        k2 = 0 if k2 == 11 else k2
        if k2 != 10:
            return body + str(k2)


def cn_ric():
    b = birth_date(1960, 2003)
    body = RNG.choice(["110101", "310104", "110105", "110102", "310101"]) + f"{b:%Y%m%d}" + digits(3)
    s = sum(int(d) * (2 ** (17 - i) % 11) for i, d in enumerate(body))
    return body + "10X98765432"[s % 11]


def jp_my_number(spaced=True):
    body = str(RNG.randint(1, 9)) + digits(10)
    s = sum(int(d) * w for d, w in zip(body, (6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)))
    r = s % 11
    t = body + str(0 if r <= 1 else 11 - r)
    return f"{t[:4]} {t[4:8]} {t[8:]}" if spaced else t


def kr_rrn(female=None):
    b = birth_date(1960, 1999)
    female = RNG.choice([True, False]) if female is None else female
    body = f"{b:%y%m%d}{'2' if female else '1'}{RNG.randint(0, 95):02d}{digits(3)}"
    s = sum(int(d) * w for d, w in zip(body, (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)))
    return f"{body[:6]}-{body[6:]}{(11 - s % 11) % 10}"


def tr_tckimlik():
    d = [RNG.randint(1, 9)] + [int(x) for x in digits(8)]
    d.append(((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10)
    d.append(sum(d) % 10)
    return "".join(map(str, d))


def il_teudat_zehut():
    body = RNG.choice("0123") + digits(7)
    # Israeli ID: weights 1 2 1 2 ... with digit sums (= Luhn over 9 digits)
    return body + luhn_digit(body)


def za_idnr():
    b = birth_date(1955, 2003)
    body = f"{b:%y%m%d}{RNG.randint(0, 9999):04d}{RNG.choice('00001')}8"
    return body + luhn_digit(body)


def cl_rut(dotted=True):
    n = RNG.randint(6_000_000, 24_999_999)
    s = sum(int(d) * w for d, w in zip(reversed(str(n)), [2, 3, 4, 5, 6, 7] * 2))
    c = 11 - s % 11
    dv = "0" if c == 11 else "K" if c == 10 else str(c)
    if not dotted:
        return f"{n}-{dv}"
    t = f"{n:,}".replace(",", ".")
    return f"{t}-{dv}"


def pe_dni_cui():
    body = digits(8)
    c = sum(int(d) * w for d, w in zip(body, (3, 2, 7, 6, 5, 4, 3, 2))) % 11
    return body, "65432110987"[c]


def co_cedula():
    n = RNG.randint(10_000_000, 1_099_999_999)
    return f"{n:,}".replace(",", ".")


def ro_cnp(female=None):
    b = birth_date(1950, 2003)
    female = RNG.choice([True, False]) if female is None else female
    s = (1 if b.year < 2000 else 5) + (1 if female else 0)
    body = f"{s}{b:%y%m%d}{RNG.randint(1, 46):02d}{RNG.randint(1, 999):03d}"
    c = sum(int(d) * w for d, w in zip(body, (2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9))) % 11
    return body + str(1 if c == 10 else c)


def bg_egn():
    b = birth_date(1950, 1999)
    body = f"{b:%y%m%d}{digits(3)}"
    c = sum(int(d) * w for d, w in zip(body, (2, 4, 8, 5, 10, 9, 7, 3, 6))) % 11
    return body + str(0 if c == 10 else c)


def cz_rc(female=None):
    while True:
        b = birth_date(1954, 2003)
        female = RNG.choice([True, False]) if female is None else female
        m = b.month + (50 if female else 0)
        body = f"{b:%y}{m:02d}{b:%d}{digits(3)}"
        c = int(body) % 11
        if c != 10:
            return f"{body[:6]}/{body[6:]}{c}"


def ee_isikukood(female=None):
    b = birth_date(1950, 2003)
    female = RNG.choice([True, False]) if female is None else female
    g = (3 if b.year < 2000 else 5) + (1 if female else 0)
    body = f"{g}{b:%y%m%d}{digits(3)}"
    d = [int(x) for x in body]
    c = sum(x * ((i % 9) + 1) for i, x in enumerate(d)) % 11
    if c == 10:
        c = sum(x * (((i + 2) % 9) + 1) for i, x in enumerate(d)) % 11
        c = 0 if c == 10 else c
    return body + str(c)


def hr_oib():
    body = str(RNG.randint(1, 9)) + digits(9)
    return body + mod11_10(body)


def gr_amka():
    b = birth_date(1950, 2003)
    body = f"{b:%d%m%y}{digits(4)}"
    return body + luhn_digit(body)


def is_kennitala():
    while True:
        b = birth_date(1950, 1999)
        body = f"{b:%d%m%y}{RNG.randint(20, 99):02d}"
        c = 11 - sum(int(d) * w for d, w in zip(body, (3, 2, 7, 6, 5, 4, 3, 2))) % 11
        c = 0 if c == 11 else c
        if c != 10:
            return f"{body[:6]}-{body[6:]}{c}9"


def ec_ci():
    while True:
        body = f"{RNG.randint(1, 24):02d}{RNG.randint(0, 5)}" + digits(6)
        s = 0
        for i, d in enumerate(body):
            x = int(d) * (2 if i % 2 == 0 else 1)
            s += x - 9 if x > 9 else x
        c = (10 - s % 10) % 10
        return body + str(c)


def th_pin():
    body = str(RNG.randint(1, 8)) + digits(11)
    c = (11 - sum(int(d) * w for d, w in zip(body, range(13, 1, -1))) % 11) % 10
    t = body + str(c)
    return f"{t[0]}-{t[1:5]}-{t[5:10]}-{t[10:12]}-{t[12]}"


def nz_ird():
    while True:
        body = str(RNG.randint(1_000_000, 14_999_999)).zfill(8)
        s = sum(int(d) * w for d, w in zip(body, (3, 2, 7, 6, 5, 4, 3, 2))) % 11
        c = 0 if s == 0 else 11 - s
        if c == 10:
            s = sum(int(d) * w for d, w in zip(body, (7, 4, 3, 2, 5, 2, 7, 6))) % 11
            c = 0 if s == 0 else 11 - s
            if c == 10:
                continue
        t = (body + str(c)).lstrip("0")
        if 10_000_000 < int(t) < 150_000_000:
            return f"{t[:-6]}-{t[-6:-3]}-{t[-3:]}"


def de_personalausweis():
    """German ID card document number: 9 characters (no vowels except in fixed positions) + ICAO check digit."""
    alpha = "CFGHJKLMNPRTVWXYZ0123456789"
    body = RNG.choice("LMNPRTVWXYZCFGHJK") + "".join(RNG.choice(alpha) for _ in range(8))
    return body + icao_digit(body)


def uk_driving_licence(surname, first_initial, female=False):
    b = birth_date(1955, 2000)
    month = b.month + (50 if female else 0)
    return (surname.upper() + "99999")[:5] + f"{b.year % 100 // 10}{month:02d}{b:%d}{b.year % 10}" + \
        first_initial + "9" + RNG.choice("ABCDEFGHJKLMNPRSTUVWXYZ") + digits(2)


# ---- other values --------------------------------------------------------------------------------

def pin(n=4):
    while True:
        p = digits(n)
        if len(set(p)) > 1 and p not in "0123456789" and p not in "9876543210" and not p.startswith(("19", "20")):
            return p


def password(n=14, symbols="!#%&*+-=?@^_"):
    alphabet = string.ascii_letters + string.digits + symbols
    while True:
        p = "".join(RNG.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in p) and any(c.isupper() for c in p) and any(c.islower() for c in p):
            return p


def de_vat():
    body = str(RNG.randint(1, 9)) + digits(7)
    return "DE" + body + mod11_10(body)


def fr_siren():
    body = str(RNG.randint(3, 9)) + digits(7)
    s = body + luhn_digit(body)
    return f"{s[:3]} {s[3:6]} {s[6:]}"


def it_partita_iva():
    body = digits(7) + RNG.choice(["001", "015", "058", "063", "037"])
    return body + luhn_digit(body)


def be_vat():
    body = "0" + str(RNG.randint(200, 999)) + digits(4)
    return f"BE{body}{97 - int(body) % 97:02d}"


def luhn_number(n, prefix=""):
    body = prefix + digits(n - 1 - len(prefix))
    return body + luhn_digit(body)


def spoil_digit(value, index=-1):
    positions = [i for i, ch in enumerate(value) if ch.isdigit()]
    i = positions[index]
    return value[:i] + str((int(value[i]) + RNG.randint(1, 9)) % 10) + value[i + 1:]
