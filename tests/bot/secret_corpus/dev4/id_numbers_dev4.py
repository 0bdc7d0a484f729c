"""Random identity numbers of 30 countries with their check digits, computed here from the public specs.

Used only by the dev4 case modules; check_dev4.py verifies every claim with python-stdnum.
"""
import datetime
import string

from values_dev4 import RNG, birth_date, digits, group, luhn_digit, luhn_number


def us_ssn():
    while True:
        area = RNG.randint(1, 899)
        if area != 666:
            return f"{area:03d}-{RNG.randint(1, 99):02d}-{RNG.randint(1, 9999):04d}"


def uk_nino():
    first = RNG.choice("ABCEGHJKLMNOPRSTWXYZ")
    second = RNG.choice("ABCEGHJKLMNPRSTWXYZ")
    if first + second in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}:
        return uk_nino()
    d = digits(6)
    return f"{first}{second} {d[:2]} {d[2:4]} {d[4:]} {RNG.choice('ABCD')}"


def ca_sin():
    return luhn_number(str(RNG.randint(1, 7)), 9)


def es_dni():
    n = RNG.randint(10000000, 99999999)
    return f"{n}{'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}"


def es_nie():
    lead = RNG.choice("XYZ")
    body = digits(7)
    n = int(str("XYZ".index(lead)) + body)
    return f"{lead}{body}{'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}"


CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21,
                    2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]))


def it_codice_fiscale(surname3, name3, female=False):
    born = birth_date()
    day = born.day + (40 if female else 0)
    body = (surname3 + name3 + f"{born.year % 100:02d}" + "ABCDEHLMPRST"[born.month - 1] + f"{day:02d}"
            + RNG.choice(["H501", "F205", "L219", "G273", "A944", "D612"]))
    total = 0
    for i, ch in enumerate(body):
        total += CF_ODD[ch] if i % 2 == 0 else (int(ch) if ch.isdigit() else ord(ch) - 65)
    return body + chr(65 + total % 26)


def fr_nir():
    born = birth_date()
    dept = RNG.choice(["75", "69", "13", "33", "59", "44", "67", "31", "06", "92"])
    body = f"{RNG.choice('12')}{born.year % 100:02d}{born.month:02d}{dept}{RNG.randint(1, 989):03d}{RNG.randint(1, 999):03d}"
    key = 97 - int(body) % 97
    return group(body + f"{key:02d}", [1, 2, 2, 2, 3, 3, 2])


def de_steuer_id():
    while True:
        pool = list("0123456789")
        RNG.shuffle(pool)
        ten = pool[:9]
        ten.insert(RNG.randrange(10), RNG.choice(ten))
        if ten[0] == "0":
            continue
        product = 10
        for ch in ten:
            s = (int(ch) + product) % 10 or 10
            product = (s * 2) % 11
        return "".join(ten) + str((11 - product) % 10)


def icao_check(field):
    values = {c: i for i, c in enumerate(string.digits + string.ascii_uppercase)}
    values["<"] = 0
    return str(sum(values[c] * (7, 3, 1)[i % 3] for i, c in enumerate(field)) % 10)


def de_ausweis():
    body = RNG.choice("LMNPRTVWXYZ") + "".join(RNG.choice("CFGHJKLMNPRTVWXYZ0123456789") for _ in range(8))
    return body + icao_check(body)


def nl_bsn():
    while True:
        d = str(RNG.randint(1, 9)) + digits(7)
        c = sum(int(x) * w for x, w in zip(d, range(9, 1, -1))) % 11
        if c < 10:
            return d + str(c)


def be_nn():
    born = birth_date()
    body = born.strftime("%y%m%d") + f"{RNG.randint(1, 997):03d}"
    return f"{body[:2]}.{body[2:4]}.{body[4:6]}-{body[6:9]}.{97 - int(body) % 97:02d}"


def se_personnummer(long=False):
    born = birth_date()
    body = born.strftime("%y%m%d") + digits(3)
    full = body + luhn_digit(body)
    return (born.strftime("%Y")[:2] if long else "") + full[:6] + "-" + full[6:]


def no_fnr():
    while True:
        born = birth_date()
        body = born.strftime("%d%m%y") + f"{RNG.randint(0, 499):03d}"
        k1 = (11 - sum(int(x) * w for x, w in zip(body, (3, 7, 6, 1, 8, 9, 4, 5, 2))) % 11) % 11
        if k1 == 10:
            continue
        body += str(k1)
        k2 = (11 - sum(int(x) * w for x, w in zip(body, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2))) % 11) % 11
        if k2 != 10:
            return body + str(k2)


def dk_cpr():
    born = birth_date()
    return born.strftime("%d%m%y") + "-" + str(RNG.randint(0, 3)) + digits(3)


def fi_hetu():
    born = birth_date()
    ind = f"{RNG.randint(2, 899):03d}"
    ctrl = "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(born.strftime("%d%m%y") + ind) % 31]
    return born.strftime("%d%m%y") + "-" + ind + ctrl


def pl_pesel():
    born = birth_date()
    body = born.strftime("%y%m%d") + digits(4)
    s = sum(int(x) * w for x, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)))
    return body + str((10 - s % 10) % 10)


def pt_nif():
    body = RNG.choice("12") + digits(7)
    c = 11 - sum(int(x) * w for x, w in zip(body, range(9, 1, -1))) % 11
    return body + str(0 if c >= 10 else c)


def pt_cc():
    civil = digits(8)
    c = 11 - sum(int(x) * w for x, w in zip(civil, range(9, 1, -1))) % 11
    nine = civil + str(0 if c >= 10 else c)
    version = RNG.choice("ZXY") + RNG.choice("Z0123456789")
    body = nine + version
    alphabet = string.digits + string.ascii_uppercase
    total = 0
    for i, ch in enumerate(reversed(body)):
        x = alphabet.index(ch)
        if i % 2 == 0:
            x *= 2
            x = x - 9 if x > 9 else x
        total += x
    return f"{nine[:8]} {nine[8]} {version}{(10 - total % 10) % 10}"


def br_cpf():
    d = digits(9)
    for n in (10, 11):
        s = sum(int(x) * w for x, w in zip(d, range(n, 1, -1)))
        d += str(s * 10 % 11 % 10)
    return f"{d[:3]}.{d[3:6]}.{d[6:9]}-{d[9:]}"


_V_D = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_V_P = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
_V_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def in_aadhaar():
    while True:
        body = str(RNG.randint(2, 9)) + digits(10)
        c = 0
        for i, ch in enumerate(reversed(body)):
            c = _V_D[c][_V_P[(i + 1) % 8][int(ch)]]
        full = body + str(_V_INV[c])
        if full != full[::-1]:
            return group(full, [4, 4, 4])


def in_pan():
    letters = string.ascii_uppercase
    return ("".join(RNG.choice(letters) for _ in range(3)) + "P" + RNG.choice(letters) + digits(4)
            + RNG.choice(letters))


_CURP_ALPHABET = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ"


def mx_curp(name4, consonants3, female=False):
    born = birth_date()
    body = (name4 + born.strftime("%y%m%d") + ("M" if female else "H") + RNG.choice(["DF", "JC", "NL", "PL", "VZ"])
            + consonants3 + "0")
    s = sum(_CURP_ALPHABET.index(c) * (18 - i) for i, c in enumerate(body))
    return body + str((10 - s % 10) % 10)


def ar_dni():
    return f"{RNG.randint(20, 45)}.{digits(3)}.{digits(3)}"


def ar_cuil(dni_dots):
    while True:
        body = RNG.choice(["20", "27"]) + dni_dots.replace(".", "")
        r = sum(int(x) * w for x, w in zip(body, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2))) % 11
        if r != 1:  # 11 - r == 10 has no digit; such people get prefix 23 instead
            return f"{body[:2]}-{body[2:]}-{(11 - r) % 11}"


def cl_rut():
    body = str(RNG.randint(8000000, 24999999))
    s = sum(int(x) * (2, 3, 4, 5, 6, 7)[i % 6] for i, x in enumerate(reversed(body)))
    check = {11: "0", 10: "K"}.get(11 - s % 11, str(11 - s % 11))
    return f"{int(body):,}".replace(",", ".") + "-" + check


def za_id():
    born = birth_date()
    body = born.strftime("%y%m%d") + digits(4) + "0" + "8"
    return body + luhn_digit(body)


def au_tfn():
    weights = (1, 4, 3, 7, 5, 8, 6, 9)
    while True:
        body = str(RNG.randint(1, 9)) + digits(7)
        s = sum(int(x) * w for x, w in zip(body, weights)) % 11
        if s != 10:
            return group(body + str(s), [3, 3, 3])


def jp_my_number():
    body = digits(11)
    s = sum(int(x) * w for x, w in zip(body, (6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)))
    r = s % 11
    return group(body + str(0 if r <= 1 else 11 - r), [4, 4, 4])


def kr_rrn():
    born = birth_date()
    body = born.strftime("%y%m%d") + RNG.choice("12") + f"{RNG.randint(0, 95):02d}" + digits(3)
    s = sum(int(x) * w for x, w in zip(body, (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)))
    full = body + str((11 - s % 11) % 10)
    return full[:6] + "-" + full[6:]


def cn_rid():
    born = birth_date(1960, 1999)
    body = RNG.choice(["110101", "110105", "310104"]) + born.strftime("%Y%m%d") + digits(3)
    s = sum(int(x) * pow(2, 17 - i, 11) for i, x in enumerate(body))
    c = (12 - s % 11) % 11
    return body + ("X" if c == 10 else str(c))


def tr_tckimlik():
    d = str(RNG.randint(1, 9)) + digits(8)
    d10 = (7 * sum(int(x) for x in d[0:9:2]) - sum(int(x) for x in d[1:8:2])) % 10
    d += str(d10)
    return d + str(sum(int(x) for x in d) % 10)


def il_id():
    return luhn_number(str(RNG.randint(0, 3)), 9)


def ie_pps():
    body = digits(7)
    return body + "WABCDEFGHIJKLMNOPQRSTUV"[sum(int(x) * w for x, w in zip(body, range(8, 1, -1))) % 23]


def ch_ahv():
    body = "756" + digits(9)
    s = sum(int(x) * (3 if i % 2 else 1) for i, x in enumerate(body))
    full = body + str((10 - s % 10) % 10)
    return f"{full[:3]}.{full[3:7]}.{full[7:11]}.{full[11:]}"


def at_svnr():
    while True:
        born = birth_date()
        serial = str(RNG.randint(1, 9)) + digits(2)
        rest = born.strftime("%d%m%y")
        s = sum(int(x) * w for x, w in zip(serial + "0" + rest, (3, 7, 9, 0, 5, 8, 4, 2, 1, 6))) % 11
        if s != 10:
            return f"{serial}{s} {rest}"


def mrz_td3(country, surname, given, sex="F"):
    """Both lines of a passport's machine-readable zone (ICAO Doc 9303 part 4)."""
    line1 = f"P<{country}{surname}<<{given.replace(' ', '<')}".ljust(44, "<")
    number = RNG.choice("CFGHJK") + "".join(RNG.choice("CFGHJKLMNPRTVWXYZ0123456789") for _ in range(8))
    born = birth_date().strftime("%y%m%d")
    expiry = (datetime.date.today() + datetime.timedelta(days=RNG.randint(200, 3000))).strftime("%y%m%d")
    optional = "<" * 14
    part = number + icao_check(number) + country + born + icao_check(born) + sex + expiry + icao_check(expiry)
    part += optional + icao_check(optional)
    composite = part[0:10] + part[13:20] + part[21:43]
    return line1, part + icao_check(composite)
