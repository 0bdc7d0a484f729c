"""Random identity numbers of the countries dev6 adds, other values its cases need, and the case helper.

Numbers with a python-stdnum module (ar.cuit, ve.rif, cr.cpf, cr.cr, gt.nit, sv.nit, py.ruc, ua.rntrc, ru.inn,
ke.pin, ad.nrt, mu.nid, cu.ni, mz.nuit, gh.tin, vn.mst, md.idno's algorithm) are drawn as structured random digits
and the first draw stdnum accepts is kept. The formats stdnum lacks are computed here from their public rules and
re-implemented apart in check_dev6.py: Taiwan national ID, Hong Kong HKID, Kazakhstan IIN, Russian SNILS, Iranian
kod melli, Kuwaiti civil ID, Salvadoran DUI, Nicaraguan cédula, Guatemalan CUI/DPI, JMBG/EMBG (Serbia, North
Macedonia, Montenegro, Bosnia), Moldovan IDNP, Emirates ID and Saudi ID (Luhn), Egyptian national ID and Sri Lankan
NIC (format and date only: no public check digit).
"""
import datetime
import secrets
import string

from stdnum import luhn
from stdnum.ad import nrt
from stdnum.ar import cuit
from stdnum.cr import cpf as cr_cpf_mod, cr as cr_cr_mod
from stdnum.cu import ni as cu_ni_mod
from stdnum.gh import tin as gh_tin_mod
from stdnum.gt import nit as gt_nit_mod
from stdnum.ke import pin as ke_pin_mod
from stdnum.md import idno
from stdnum.mu import nid as mu_nid_mod
from stdnum.mz import nuit
from stdnum.py import ruc
from stdnum.ru import inn
from stdnum.sv import nit as sv_nit_mod
from stdnum.ua import rntrc
from stdnum.ve import rif
from stdnum.vn import mst

RNG = secrets.SystemRandom()
UPPER = string.ascii_uppercase


def digits(n):
    return "".join(str(RNG.randrange(10)) for _ in range(n))


def birth_date(first=1950, last=2002):
    start = datetime.date(first, 1, 1).toordinal()
    return datetime.date.fromordinal(RNG.randint(start, datetime.date(last, 12, 28).toordinal()))


def _draw(make, valid):
    for _ in range(10000):
        value = make()
        if valid(value):
            return value
    raise RuntimeError("no valid draw")


def luhn_digit(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        x = int(ch) * (2 if i % 2 == 0 else 1)
        total += x - 9 if x > 9 else x
    return str((10 - total % 10) % 10)


def spoil_digit(value, index=-1):
    """The value with one digit changed (counted from the end), so its check no longer holds."""
    positions = [i for i, ch in enumerate(value) if ch.isdigit()]
    i = positions[index]
    return value[:i] + str((int(value[i]) + RNG.randint(1, 9)) % 10) + value[i + 1:]


def pin(n=4):
    while True:
        p = digits(n)
        if len(set(p)) > 1 and p not in "0123456789" and p not in "9876543210" and not p.startswith(("19", "20")):
            return p


def password(n=14):
    alphabet = string.ascii_letters + string.digits + "!#%&*+-=?@^_"
    while True:
        p = "".join(RNG.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in p) and any(c.isupper() for c in p) and any(c.islower() for c in p):
            return p


def case(kind, messages, secret, keep, language, source, checks=()):
    """One corpus item, before its id and split are assigned."""
    messages = [messages] if isinstance(messages, str) else list(messages)
    return {"kind": kind, "messages": messages, "secret": list(secret), "keep": list(keep), "language": language,
            "source": source, "checks": [{"type": t, "value": v} for t, v in checks]}


# ---- with a python-stdnum module ---------------------------------------------------------------

def ar_dni():
    return str(RNG.randint(20_000_000, 45_999_999))


def ar_cuil(dni=None, prefix=None):
    """CUIL of a person: 20/27 (23 when the check would be 10) + DNI + check, as 20-12345678-9."""
    dni = dni or ar_dni()
    for p in ([prefix] if prefix else RNG.sample(["20", "27"], 2)) + ["23"]:
        body = p + dni.zfill(8)
        value = f"{p}-{dni.zfill(8)}-{cuit.calc_check_digit(body)}"
        if cuit.is_valid(value):
            return value
    return ar_cuil()


def ve_cedula():
    return str(RNG.randint(6_000_000, 31_999_999))


def ve_rif_person(cedula=None):
    cedula = (cedula or ve_cedula()).zfill(8)
    value = f"V-{cedula}-{rif.calc_check_digit('V' + cedula)}"
    assert rif.is_valid(value)
    return value


def cr_cedula():
    def make():
        return f"{RNG.randint(1, 7)}-{RNG.randint(100, 1999):04d}-{RNG.randint(1, 999):04d}"
    return _draw(make, cr_cpf_mod.is_valid)


def cr_dimex():
    return _draw(lambda: "1" + RNG.choice(["558", "484", "170", "862", "340"]) + digits(RNG.choice([7, 8])),
                 cr_cr_mod.is_valid)


def gt_nit():
    def make():
        body = str(RNG.randint(1_000_000, 99_999_999))
        return f"{body}-{gt_nit_mod.calc_check_digit(body)}"
    return _draw(make, gt_nit_mod.is_valid)


def sv_nit():
    def make():
        b = birth_date()
        body = f"{RNG.choice(['0614', '0210', '1217', '0511'])}{b:%d%m%y}{RNG.randint(101, 199):03d}"
        return f"{body[:4]}-{body[4:10]}-{body[10:13]}-{sv_nit_mod.calc_check_digit(body)}"
    return _draw(make, sv_nit_mod.is_valid)


def py_ruc():
    def make():
        body = str(RNG.randint(1_500_000, 6_999_999))
        return f"{body}-{ruc.calc_check_digit(body)}"
    return _draw(make, ruc.is_valid)


def ua_rntrc():
    def make():
        days = (birth_date(1950, 2000) - datetime.date(1899, 12, 31)).days
        return f"{days:05d}" + digits(5)
    return _draw(make, rntrc.is_valid)


def ru_inn():
    def make():
        body = RNG.choice(["77", "78", "50", "66", "54", "16"]) + digits(8)
        return body + inn.calc_personal_check_digits(body)
    return _draw(make, inn.is_valid)


def ke_pin():
    return _draw(lambda: "A" + digits(9) + RNG.choice(UPPER), ke_pin_mod.is_valid)


def ad_nrt():
    return _draw(lambda: f"F-{RNG.randint(0, 699999):06d}-{RNG.choice(UPPER)}", nrt.is_valid)


def mu_nid(initial):
    def make():
        b = birth_date(1960, 1999)
        body = f"{initial}{b:%d%m%y}" + digits(6)
        return body + mu_nid_mod.calc_check_digit(body)
    return _draw(make, mu_nid_mod.is_valid)


def cu_ni():
    def make():
        b = birth_date(1950, 1999)
        return f"{b:%y%m%d}" + digits(5)
    return _draw(make, cu_ni_mod.is_valid)


def mz_nuit():
    def make():
        body = "1" + digits(7)
        return f"{body[:3]} {body[3:6]} {body[6:]}" + nuit.calc_check_digit(body)
    return _draw(make, nuit.is_valid)


def gh_tin():
    def make():
        body = "P00" + digits(7)
        return body + gh_tin_mod.calc_check_digit(body)
    return _draw(make, gh_tin_mod.is_valid)


def vn_mst():
    def make():
        body = RNG.choice(["01", "03", "04", "79", "80"]) + digits(7)
        return body + mst.calc_check_digit(body)
    return _draw(make, mst.is_valid)


def md_idnp():
    """Moldovan personal number: 13 digits starting 2, check digit as the IDNO (weights 7 3 1, mod 10)."""
    def make():
        body = "2" + str(RNG.randint(2000, 2021)) + digits(7)
        return body + idno.calc_check_digit(body)
    return _draw(make, idno.is_valid)


# ---- public rules stdnum lacks ------------------------------------------------------------------

TW_CODES = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36)))


def tw_id():
    letter = RNG.choice("ABEFHKMNPRST")
    body = letter + RNG.choice("12") + digits(7)
    code = TW_CODES[letter]
    total = code // 10 + (code % 10) * 9 + sum(int(d) * w for d, w in zip(body[1:], range(8, 0, -1)))
    return body + str((10 - total % 10) % 10)


def hkid(paren=True):
    prefix = RNG.choice(["K", "P", "R", "Y", "Z", "C", "D", "E", "G", "H", "M", "V", "XA"])
    nums = digits(6)
    vals = ([36] if len(prefix) == 1 else []) + [ord(c) - 55 for c in prefix]
    total = vals[0] * 9 + vals[1] * 8 + sum(int(d) * w for d, w in zip(nums, range(7, 1, -1)))
    check = (11 - total % 11) % 11
    ch = "A" if check == 10 else str(check)
    return f"{prefix}{nums}({ch})" if paren else f"{prefix}{nums}{ch}"


def kz_iin():
    while True:
        b = birth_date(1950, 2005)
        century = RNG.choice("34") if b.year < 2000 else RNG.choice("56")
        body = f"{b:%y%m%d}{century}" + digits(4)
        s = sum(int(d) * w for d, w in zip(body, range(1, 12))) % 11
        if s == 10:
            s = sum(int(d) * w for d, w in zip(body, (3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2))) % 11
        if s != 10:
            return body + str(s)


def ru_snils():
    while True:
        body = digits(9)
        if int(body) <= 1001998:
            continue
        s = sum(int(d) * w for d, w in zip(body, range(9, 0, -1)))
        c = s if s < 100 else 0 if s in (100, 101) else s % 101
        c = 0 if c == 100 else c
        return f"{body[:3]}-{body[3:6]}-{body[6:]} {c:02d}"


def ir_melli():
    while True:
        body = RNG.choice(["00", "01", "02", "04", "12", "27", "44"]) + digits(7)
        if len(set(body)) < 3:
            continue
        r = sum(int(d) * w for d, w in zip(body, range(10, 1, -1))) % 11
        return body + str(r if r < 2 else 11 - r)


KW_WEIGHTS = (2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def kw_civil():
    while True:
        b = birth_date(1950, 2005)
        body = ("2" if b.year < 2000 else "3") + f"{b:%y%m%d}" + digits(4)
        c = 11 - sum(int(d) * w for d, w in zip(body, KW_WEIGHTS)) % 11
        if c < 10:
            return body + str(c)


def sv_dui():
    body = "0" + digits(7)
    c = (10 - sum(int(d) * w for d, w in zip(body, range(9, 1, -1))) % 10) % 10
    return f"{body}-{c}"


NI_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXY"


def ni_cedula():
    b = birth_date(1955, 2003)
    muni = RNG.choice(["001", "081", "121", "161", "201", "241", "281", "401", "441", "601"])
    body = f"{muni}{b:%d%m%y}" + f"{RNG.randint(1, 999):04d}"
    return f"{body[:3]}-{body[3:9]}-{body[9:]}{NI_LETTERS[int(body) % 23]}"


GT_MUNIS = [17, 8, 16, 16, 13, 14, 19, 8, 24, 21, 9, 30, 32, 21, 8, 17, 14, 5, 11, 11, 7, 17]


def gt_cui(spaced=True):
    while True:
        serial = digits(8)
        c = sum(int(d) * w for d, w in zip(serial, range(2, 10))) % 11
        if c == 10:
            continue
        dept = RNG.randint(1, 22)
        body = f"{serial}{c}{dept:02d}{RNG.randint(1, GT_MUNIS[dept - 1]):02d}"
        return f"{body[:4]} {body[4:9]} {body[9:]}" if spaced else body


JMBG_REGIONS = {"rs": [71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 85, 86], "mk": [41, 42, 43, 44, 45, 46, 47],
                "me": [21, 22, 23, 24, 26, 29], "ba": [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]}


def jmbg(country="rs", female=None):
    while True:
        b = birth_date(1950, 2004)
        female = RNG.choice([True, False]) if female is None else female
        serial = RNG.randint(500, 999) if female else RNG.randint(0, 499)
        body = f"{b:%d%m}{b.year % 1000:03d}{RNG.choice(JMBG_REGIONS[country]):02d}{serial:03d}"
        m = 11 - sum(int(d) * w for d, w in zip(body, (7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2))) % 11
        if m == 10:
            continue
        return body + str(0 if m == 11 else m)


def ae_emirates_id(dashed=True):
    b = birth_date(1960, 2004)
    body = f"784{b.year}" + digits(7)
    full = body + luhn_digit(body)
    assert luhn.is_valid(full)
    return f"{full[:3]}-{full[3:7]}-{full[7:14]}-{full[14]}" if dashed else full


def sa_id(resident=False):
    body = ("2" if resident else "1") + digits(8)
    return body + luhn_digit(body)


EG_GOVS = ["01", "02", "03", "04", "11", "12", "13", "14", "15", "16", "17", "18", "19", "21", "22", "23", "24",
           "25", "26", "27", "28", "29", "31", "32", "33", "34", "35", "88"]


def eg_nid():
    b = birth_date(1955, 2004)
    return ("2" if b.year < 2000 else "3") + f"{b:%y%m%d}" + RNG.choice(EG_GOVS) + digits(5)


def lk_nic(new=True, female=None):
    b = birth_date(1955, 1999)
    female = RNG.choice([True, False]) if female is None else female
    day = b.timetuple().tm_yday + (500 if female else 0)
    if new:
        return f"{b.year}{day:03d}0" + digits(4)
    return f"{b.year % 100:02d}{day:03d}" + digits(4) + RNG.choice("VVX")


def vn_cccd():
    b = birth_date(1960, 2004)
    province = RNG.choice(["001", "079", "031", "048", "092", "038", "036"])
    gender = (0 if b.year < 2000 else 2) + RNG.choice([0, 1])
    return f"{province}{gender}{b.year % 100:02d}" + digits(6)


def ph_philsys():
    d = digits(16)
    return f"{d[:4]}-{d[4:8]}-{d[8:12]}-{d[12:]}"


def ph_tin():
    d = digits(9)
    return f"{d[:3]}-{d[3:6]}-{d[6:]}-000"


def ph_sss():
    d = "3" + digits(9)
    return f"{d[:2]}-{d[2:9]}-{d[9]}"


def ng_nin():
    return str(RNG.randint(1, 9)) + digits(10)


def ng_bvn():
    return "22" + digits(9)


def gh_card():
    return f"GHA-{RNG.randint(700000000, 729999999)}-{RNG.randint(0, 9)}"


def ma_cin():
    return RNG.choice(["BE", "BK", "AB", "EE", "JA", "K", "X"]) + str(RNG.randint(100000, 999999))


def mt_id():
    return f"{RNG.randint(1000, 999999)}{RNG.choice('MGLAPH')}"


def bd_nid():
    return digits(10) if RNG.random() < 0.5 else f"{RNG.randint(1970, 2000)}{RNG.randint(1, 9)}" + digits(12)


def ge_pn():
    return RNG.choice(["01", "60", "35", "57"]) + digits(9)


def al_nid():
    b = birth_date(1960, 1999)
    decade = "ABCDEFGHIJKLMN"[(b.year - 1900) // 10]
    month = b.month + (50 if RNG.random() < 0.5 else 0)
    return f"{decade}{b.year % 10}{month:02d}{b.day:02d}" + digits(3) + RNG.choice(UPPER)
