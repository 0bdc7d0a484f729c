"""Check digits of identity and personal tax numbers of Latin America, Asia, Africa and Eastern Europe.

Each function takes the number's characters without separators and says whether it is one: its
length, its embedded birth date where it has one, and its check digit (or letter). The rules are
those python-stdnum documents (Argentina's CUIL, Venezuela's RIF, Guatemala's and El Salvador's
NIT, Paraguay's RUC, Ukraine's RNOKPP, Russia's INN, Mauritius' NID, Mozambique's NUIT, Ghana's
TIN, Kenya's KRA PIN, Cuba's NI, Vietnam's MST), written here so that the scanner needs no library at run time,
and the published ones of formats stdnum lacks (Taiwan, Hong Kong, Kazakhstan, Russia's SNILS,
Iran, Kuwait, El Salvador's DUI, Nicaragua, Guatemala's CUI, Moldova's IDNP, the Emirates, Saudi
Arabia; Egypt and Sri Lanka have no public check digit: their birth date and place decide).
"""

from __future__ import annotations

from deputy.core.records.card_numbers import luhn_valid
from deputy.core.secret_scan.id_checksums import _is_date


def _digits(value: str, *lengths: int) -> bool:
    return value.isdigit() and len(value) in lengths


def _weighted(digits: str, weights: tuple[int, ...]) -> int:
    return sum(w * int(d) for w, d in zip(weights, digits))


# Taiwan's letters stand for the place of first registration; the codes are not alphabetical (I, O, W, Z came later).
_TW_LETTERS = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36)))


def taiwan_id(value: str) -> bool:
    """Taiwan's national ID: a letter (its code's two digits weigh 1 and 9), the sex (1, 2; 8, 9 for a resident
    certificate), seven digits and a check digit; weights 8 to 1, then 1; the sum a multiple of ten."""
    value = value.upper()
    if len(value) != 10 or value[0] not in _TW_LETTERS or not value[1:].isdigit() or value[1] not in "1289":
        return False
    code = _TW_LETTERS[value[0]]
    total = code // 10 + code % 10 * 9 + _weighted(value[1:9], (8, 7, 6, 5, 4, 3, 2, 1)) + int(value[9])
    return total % 10 == 0


def hkid(value: str) -> bool:
    """Hong Kong's identity card number: one or two letters (a missing one counts 36), six digits and a check
    character (0-9 or A for ten); weights 9 to 1 over the nine, the sum a multiple of 11."""
    value = value.upper()
    if len(value) == 8:
        value = " " + value
    if len(value) != 9 or not value[:2].strip().isalpha() or not value[2:8].isdigit() or value[8] not in "0123456789A":
        return False
    if value[0] != " " and not value[0].isalpha():
        return False
    numbers = [36 if c == " " else int(c, 36) for c in value]
    return sum(w * n for w, n in zip(range(9, 0, -1), numbers)) % 11 == 0


def kazakhstan_iin(digits: str) -> bool:
    """Kazakhstan's IIN: YYMMDD, a century and sex digit, a serial and a mod-11 check digit (a second set of weights
    when the first gives ten, and never ten)."""
    if not _digits(digits, 12) or digits[6] not in "0123456":
        return False
    century = {"1": 1800, "2": 1800, "3": 1900, "4": 1900, "5": 2000, "6": 2000}.get(digits[6])
    years = (century,) if century else (1900, 2000)  # 0: a foreigner's, no century
    if not any(_is_date(c + int(digits[:2]), int(digits[2:4]), int(digits[4:6])) for c in years):
        return False
    check = _weighted(digits, tuple(range(1, 12))) % 11
    if check == 10:
        check = _weighted(digits, (3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2)) % 11
    return check != 10 and check == int(digits[11])


def snils(digits: str) -> bool:
    """Russia's SNILS: nine digits weighted 9 to 1, the control number their sum mod 101 (100 is 00)."""
    if not _digits(digits, 11):
        return False
    total = _weighted(digits, (9, 8, 7, 6, 5, 4, 3, 2, 1)) % 101
    return (0 if total == 100 else total) == int(digits[9:])


def iran_melli(digits: str) -> bool:
    """Iran's kod melli: nine digits weighted 10 to 2 mod 11, the check that remainder below 2, else 11 minus it."""
    if not _digits(digits, 10) or len(set(digits)) == 1:
        return False
    remainder = _weighted(digits, (10, 9, 8, 7, 6, 5, 4, 3, 2)) % 11
    return (remainder if remainder < 2 else 11 - remainder) == int(digits[9])


def kuwait_civil_id(digits: str) -> bool:
    """Kuwait's civil ID: the century (2: 1900s, 3: 2000s), YYMMDD, a serial and 11 minus a weighted sum mod 11."""
    if not _digits(digits, 12) or digits[0] not in "23":
        return False
    if not _is_date(1700 + 100 * int(digits[0]) + int(digits[1:3]), int(digits[3:5]), int(digits[5:7])):
        return False
    check = 11 - _weighted(digits, (2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)) % 11
    return check < 10 and check == int(digits[11])


def salvador_dui(digits: str) -> bool:
    """El Salvador's DUI: eight digits weighted 9 to 2 and the check digit, all a multiple of ten."""
    return _digits(digits, 9) and (_weighted(digits, (9, 8, 7, 6, 5, 4, 3, 2)) + int(digits[8])) % 10 == 0


def nicaragua_cedula(value: str) -> bool:
    """Nicaragua's cédula: municipality, DDMMYY, a serial and a letter, the thirteen digits mod 23."""
    value = value.upper()
    if len(value) != 14 or not value[:13].isdigit() or not _is_date(1900 + int(value[7:9]), int(value[5:7]),
                                                                    int(value[3:5])):
        return False
    return "ABCDEFGHJKLMNPQRSTUVWXY"[int(value[:13]) % 23] == value[13]


# How many municipalities each of Guatemala's 22 departments has: the CUI's last four digits name one.
_GT_MUNICIPALITIES = (17, 8, 16, 16, 13, 14, 19, 8, 24, 21, 9, 30, 32, 21, 8, 17, 14, 5, 11, 11, 7, 17)


def guatemala_cui(digits: str) -> bool:
    """Guatemala's CUI (on the DPI): eight digits, a check digit (weights 2 to 9 mod 11), department, municipality."""
    if not _digits(digits, 13):
        return False
    department, municipality = int(digits[9:11]), int(digits[11:13])
    if not 1 <= department <= 22 or not 1 <= municipality <= _GT_MUNICIPALITIES[department - 1]:
        return False
    return _weighted(digits, (2, 3, 4, 5, 6, 7, 8, 9)) % 11 == int(digits[8])


def moldova_idnp(digits: str) -> bool:
    """Moldova's IDNP of a person (2 first; a firm's IDNO starts with 1): weights 7 3 1 mod 10."""
    return _digits(digits, 13) and digits[0] in "02" and _weighted(digits, (7, 3, 1) * 4) % 10 == int(digits[12])


def emirates_id(digits: str) -> bool:
    """The Emirates ID: 784 (the country's code), the birth year, seven digits and a Luhn digit."""
    return _digits(digits, 15) and digits.startswith("784") and 1900 <= int(digits[3:7]) <= 2030 and luhn_valid(digits)


def saudi_id(digits: str) -> bool:
    """Saudi Arabia's national ID (1 first) or iqama (2 first): nine digits and a Luhn digit."""
    return _digits(digits, 10) and digits[0] in "12" and luhn_valid(digits)


def russia_inn(digits: str) -> bool:
    """Russia's INN of a person: twelve digits, two mod-11 check digits (a firm's has ten)."""
    if not _digits(digits, 12):
        return False
    first = _weighted(digits, (7, 2, 4, 10, 3, 5, 9, 4, 6, 8)) % 11 % 10
    second = _weighted(digits[:10] + str(first), (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8)) % 11 % 10
    return digits[10:] == f"{first}{second}"


def ukraine_rnokpp(digits: str) -> bool:
    """Ukraine's RNOKPP (a person's tax number): days since 1899-12-31, a serial, weights -1 5 7 9 4 6 10 5 7."""
    return _digits(digits, 10) and _weighted(digits, (-1, 5, 7, 9, 4, 6, 10, 5, 7)) % 11 % 10 == int(digits[9])


def argentina_cuil(digits: str) -> bool:
    """Argentina's CUIL / CUIT of a person (20, 23, 24, 27 first): weights 5 4 3 2 7 6 5 4 3 2, 11 minus mod 11."""
    if not _digits(digits, 11) or digits[:2] not in ("20", "23", "24", "27"):
        return False
    return "012345678990"[11 - _weighted(digits, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11] == digits[10]


def venezuela_rif(value: str) -> bool:
    """Venezuela's RIF of a person (V: born there, E: a foreigner; J is a firm's): eight digits and a mod-11 digit."""
    value = value.upper()
    if len(value) != 10 or value[0] not in "VE" or not value[1:].isdigit():
        return False
    total = (4 if value[0] == "V" else 8) + _weighted(value[1:9], (3, 2, 7, 6, 5, 4, 3, 2))
    return "00987654321"[total % 11] == value[9]


def mod11_nit(value: str) -> bool:
    """Guatemala's NIT: digits weighted 2, 3... from the right, the check their negative mod 11 (10 is K)."""
    value = value.upper()
    if not 6 <= len(value) <= 12 or not value[:-1].isdigit():
        return False
    check = -sum(i * int(d) for i, d in enumerate(reversed(value[:-1]), 2)) % 11
    return ("K" if check == 10 else str(check)) == value[-1]


def salvador_nit(digits: str) -> bool:
    """El Salvador's NIT: the municipality, DDMMYY, a serial and a check digit (two sets of weights, old and new)."""
    if not _digits(digits, 14) or digits[0] not in "019":
        return False
    if digits[10:13] <= "100":
        check = _weighted(digits, tuple(range(14, 1, -1))) % 11 % 10
    else:
        check = -_weighted(digits, (2, 7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11 % 10
    return check == int(digits[13])


def paraguay_ruc(digits: str) -> bool:
    """Paraguay's RUC of a person (its cédula and a check digit; a firm's starts from 80 million)."""
    if not digits.isdigit() or not 6 <= len(digits) <= 9 or (len(digits) == 9 and digits[:2] == "80"):
        return False
    return -sum(i * int(d) for i, d in enumerate(reversed(digits[:-1]), 2)) % 11 % 10 == int(digits[-1])


def mozambique_nuit(digits: str) -> bool:
    """Mozambique's NUIT: eight digits weighted 8 9 4 5 6 7 8 9 mod 11 (ten is 1)."""
    return _digits(digits, 9) and "01234567891"[_weighted(digits, (8, 9, 4, 5, 6, 7, 8, 9)) % 11] == digits[8]


def ghana_tin(value: str) -> bool:
    """Ghana's TIN: P (a person), C, G, Q or V, 00, eight characters, a mod-11 check (X for ten)."""
    value = value.upper()
    if len(value) != 11 or value[0] not in "PCGQV" or value[1:3] != "00" or not value[1:10].isdigit():
        return False
    check = _weighted(value[1:10], tuple(range(1, 10))) % 11
    return ("X" if check == 10 else str(check)) == value[10]


def kenya_pin(value: str) -> bool:
    """Kenya's KRA PIN: A (a person) or P (a firm), nine digits and a letter (no public check digit)."""
    value = value.upper()
    return len(value) == 11 and value[0] in "AP" and value[1:10].isdigit() and value[10].isalpha()


def mauritius_nid(value: str) -> bool:
    """Mauritius' national identity card number: the surname's initial, DDMMYY, six digits and a check
    character (weights 14 to 2 mod 17)."""
    value = value.upper()
    if len(value) != 14 or not value[0].isalpha() or not value[1:13].isdigit():
        return False
    if not _is_date(2000 + int(value[5:7]), int(value[3:5]), int(value[1:3])):
        return False
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    total = sum((14 - i) * alphabet.index(c) for i, c in enumerate(value[:13]))
    return alphabet[(17 - total) % 17] == value[13]


def cuba_ni(digits: str) -> bool:
    """Cuba's número de identidad: YYMMDD, a century digit (9: 1800s, 0-5: 1900s, 6-8: 2000s), four more digits."""
    if not _digits(digits, 11):
        return False
    century = 1800 if digits[6] == "9" else 1900 if digits[6] <= "5" else 2000
    return _is_date(century + int(digits[:2]), int(digits[2:4]), int(digits[4:6]))


def costa_rica_cedula(digits: str) -> bool:
    """Costa Rica's cédula física: the province (1-9), then four and four digits (no check digit)."""
    if len(digits) == 9:
        digits = "0" + digits
    return _digits(digits, 10) and digits[0] == "0" and digits[1] != "0"


def costa_rica_dimex(digits: str) -> bool:
    """Costa Rica's DIMEX (a resident foreigner's number): eleven or twelve digits, 1 first."""
    return _digits(digits, 11, 12) and digits[0] == "1"


def egypt_national_id(digits: str) -> bool:
    """Egypt's national ID: the century (2, 3), YYMMDD, the governorate (01-35, 88 abroad), a serial (no public check)."""
    if not _digits(digits, 14) or digits[0] not in "23":
        return False
    governorate = int(digits[7:9])
    return (1 <= governorate <= 35 or governorate == 88) and _is_date(
        1700 + 100 * int(digits[0]) + int(digits[1:3]), int(digits[3:5]), int(digits[5:7]))


def sri_lanka_nic(value: str) -> bool:
    """Sri Lanka's NIC: old, YY, the day of the year (+500 for women), four digits and V or X; new, YYYY, the day,
    five digits (no public check digit)."""
    value = value.upper()
    if len(value) == 10 and value[:9].isdigit() and value[9] in "VX":
        day = int(value[2:5])
    elif _digits(value, 12) and value[:2] in ("19", "20"):
        day = int(value[4:7])
    else:
        return False
    return 1 <= day % 500 <= 366 and day < 867


def vietnam_mst(digits: str) -> bool:
    """Vietnam's tax code (mã số thuế): ten digits (thirteen for a branch), the tenth 10 minus a weighted sum mod 11."""
    if not _digits(digits, 10, 13) or digits[2:9] == "0000000" or (len(digits) == 13 and digits[10:] == "000"):
        return False
    return str(10 - _weighted(digits, (31, 29, 23, 19, 17, 13, 7, 5, 3)) % 11) == digits[9]


def bangladesh_nid(digits: str) -> bool:
    """Bangladesh's NID: ten digits (smart card), thirteen, or seventeen with the birth year first (no check digit)."""
    if len(digits) == 17:
        return digits.isdigit() and 1900 <= int(digits[:4]) <= 2030
    return _digits(digits, 10, 13)
