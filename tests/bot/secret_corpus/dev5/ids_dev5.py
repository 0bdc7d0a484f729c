"""Random identity numbers of the countries dev5 adds, and the values its cases need.

Numbers with a python-stdnum module are drawn as structured random digits (birth date, region, serial) and the
first draw stdnum accepts is kept; check_dev5.py verifies them again. The formats stdnum lacks (Hungarian
adóazonosító jel, Luxembourg matricule, Uruguayan cédula, Singapore NRIC, Spanish NSS, German KVNR) are
computed here from their public specs and re-implemented apart in check_dev5.py.
"""
import os
import string
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dev4"))

from stdnum import verhoeff  # noqa: E402
from stdnum.be import bis  # noqa: E402
from stdnum.bg import egn  # noqa: E402
from stdnum.ca import bc_phn  # noqa: E402
from stdnum.co import nit  # noqa: E402
from stdnum.cz import rc as cz_rc  # noqa: E402
from stdnum.do import cedula  # noqa: E402
from stdnum.ec import ci  # noqa: E402
from stdnum.ee import ik  # noqa: E402
from stdnum.fr import nif as fr_nif  # noqa: E402
from stdnum.gb import nhs  # noqa: E402
from stdnum.gr import amka  # noqa: E402
from stdnum.hr import oib  # noqa: E402
from stdnum.id import nik  # noqa: E402
from stdnum.is_ import kennitala  # noqa: E402
from stdnum.lt import asmens  # noqa: E402
from stdnum.lv import pvn  # noqa: E402
from stdnum.my import nric  # noqa: E402
from stdnum.nz import ird  # noqa: E402
from stdnum.pe import cui  # noqa: E402
from stdnum.pk import cnic  # noqa: E402
from stdnum.ro import cnp  # noqa: E402
from stdnum.si import emso  # noqa: E402
from stdnum.sk import rc as sk_rc  # noqa: E402
from stdnum.th import pin as th_pin_module  # noqa: E402
from stdnum.us import itin  # noqa: E402

from values_dev4 import RNG, birth_date, digits, luhn_digit, luhn_number  # noqa: E402


def _draw(make, valid):
    for _ in range(10000):
        value = make()
        if valid(value):
            return value
    raise RuntimeError("no valid draw")


def ee_ik():
    def make():
        b = birth_date()
        return RNG.choice("34" if b.year < 2000 else "56") + b.strftime("%y%m%d") + digits(4)
    return _draw(make, ik.is_valid)


def lt_asmens():
    def make():
        b = birth_date()
        return RNG.choice("34") + b.strftime("%y%m%d") + digits(4)
    return _draw(make, asmens.is_valid)


def lv_pk():
    def make():
        b = birth_date()
        return b.strftime("%d%m%y") + "-" + "1" + digits(4)
    return _draw(make, pvn.is_valid)


def cz_rodne(slovak=False):
    def make():
        b = birth_date(1955, 1999)
        month = b.month + RNG.choice([0, 50])
        return f"{b.year % 100:02d}{month:02d}{b.day:02d}/{digits(4)}"
    return _draw(make, (sk_rc if slovak else cz_rc).is_valid)


def ro_cnp():
    def make():
        b = birth_date()
        return RNG.choice("12") + b.strftime("%y%m%d") + f"{RNG.randint(1, 40):02d}" + digits(4)
    return _draw(make, cnp.is_valid)


def bg_egn():
    def make():
        return birth_date().strftime("%y%m%d") + digits(4)
    return _draw(make, egn.is_valid)


def hr_oib():
    return _draw(lambda: str(RNG.randint(1, 9)) + digits(10), oib.is_valid)


def si_emso():
    def make():
        b = birth_date()
        return b.strftime("%d%m") + f"{b.year % 1000:03d}" + "50" + digits(4)
    return _draw(make, emso.is_valid)


def hu_adoazonosito():
    """8 + days since 1867-01-01 (5 digits) + 3 random + check: sum(digit * position) mod 11, never 10."""
    import datetime
    while True:
        days = (birth_date() - datetime.date(1867, 1, 1)).days
        body = "8" + f"{days:05d}" + digits(3)
        check = sum(int(d) * (i + 1) for i, d in enumerate(body)) % 11
        if check < 10:
            return body + str(check)


def gr_amka():
    return _draw(lambda: birth_date().strftime("%d%m%y") + digits(5), amka.is_valid)


def is_kennitala():
    def make():
        b = birth_date()
        return b.strftime("%d%m%y") + "-" + digits(3) + "9"
    return _draw(make, kennitala.is_valid)


def lu_matricule():
    """YYYYMMDD + 3 serial digits + a Luhn digit + a Verhoeff digit, both over the first 11 digits."""
    body = birth_date().strftime("%Y%m%d") + digits(3)
    return body + luhn_digit(body) + verhoeff.calc_check_digit(body)


def ec_ci():
    def make():
        return f"{RNG.randint(1, 24):02d}" + str(RNG.randint(0, 5)) + digits(7)
    return _draw(make, ci.is_valid)


def pe_cui():
    return _draw(lambda: digits(8) + "-" + digits(1), cui.is_valid)


def co_nit():
    return _draw(lambda: f"{RNG.randint(10, 99)}.{digits(3)}.{digits(3)}-{digits(1)}", nit.is_valid)


def uy_ci():
    """7 digits and a check digit: weights 2 9 8 7 6 3 4, check = (10 - sum mod 10) mod 10."""
    body = str(RNG.randint(1, 6)) + digits(6)
    check = (10 - sum(int(d) * w for d, w in zip(body, (2, 9, 8, 7, 6, 3, 4))) % 10) % 10
    return f"{body[0]}.{body[1:4]}.{body[4:]}-{check}"


def sg_nric():
    """S/T + 7 digits + letter: weights 2 7 6 5 4 3 2 (+4 for T), letter from JZIHGFEDCBA by remainder."""
    lead = RNG.choice("ST")
    body = digits(7)
    total = sum(int(d) * w for d, w in zip(body, (2, 7, 6, 5, 4, 3, 2))) + (4 if lead == "T" else 0)
    return lead + body + "JZIHGFEDCBA"[total % 11]


def my_nric():
    def make():
        return birth_date().strftime("%y%m%d") + "-" + f"{RNG.randint(1, 14):02d}" + "-" + digits(4)
    return _draw(make, nric.is_valid)


def th_pin():
    return _draw(lambda: str(RNG.randint(1, 8)) + digits(12), th_pin_module.is_valid)


def id_nik():
    def make():
        b = birth_date()
        return RNG.choice(["3171", "3273", "3578", "5171", "3374"]) + f"{RNG.randint(1, 9):02d}" + \
            f"{b.day + RNG.choice([0, 40]):02d}" + b.strftime("%m%y") + digits(4)
    return _draw(make, nik.is_valid)


def nz_ird():
    return _draw(lambda: "1" + RNG.choice("0123") + digits(7), ird.is_valid)


def ca_bc_phn():
    return _draw(lambda: "9" + digits(9), bc_phn.is_valid)


def ca_on_hcn():
    return luhn_number(str(RNG.randint(1, 9)), 10)


def gb_nhs():
    return _draw(lambda: str(RNG.randint(4, 7)) + digits(9), nhs.is_valid)


def us_itin():
    return _draw(lambda: "9" + digits(2) + "-" + str(RNG.choice([70, 71, 78, 81, 88, 90, 93, 95])) + "-" + digits(4),
                 itin.is_valid)


def pk_cnic():
    return _draw(lambda: str(RNG.randint(1, 6)) + digits(4) + "-" + digits(7) + "-" + digits(1), cnic.is_valid)


def do_cedula():
    return _draw(lambda: "0" + digits(10), cedula.is_valid)


def be_bis():
    def make():
        b = birth_date()
        body = f"{b.year % 100:02d}{b.month + 40:02d}{b.day:02d}{RNG.randint(1, 997):03d}"
        return body + f"{97 - int(body) % 97:02d}"
    return _draw(make, bis.is_valid)


def fr_numero_fiscal():
    return _draw(lambda: RNG.choice("0123") + digits(12), fr_nif.is_valid)


def es_nss():
    """2-digit province, 8-digit number, 2 control digits = (province and number) mod 97."""
    prov = f"{RNG.randint(1, 52):02d}"
    num = str(RNG.randint(10000000, 99999999))
    return f"{prov}/{num}/{int(prov + num) % 97:02d}"


def de_kvnr():
    """Letter + 8 digits + check: letter as 01..26, weights 1 2 1 2..., digit sums of products, mod 10."""
    letter = RNG.choice(string.ascii_uppercase)
    body = digits(8)
    seq = f"{ord(letter) - 64:02d}" + body
    total = 0
    for i, d in enumerate(seq):
        p = int(d) * (1 if i % 2 == 0 else 2)
        total += p // 10 + p % 10
    return letter + body + str(total % 10)


def it_tessera_team():
    return luhn_number("80380" + digits(5), 20)


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
