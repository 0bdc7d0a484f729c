"""Check digits of the identity numbers of more countries, from each issuer's published rule.

Each function takes the number's characters without separators and says whether it is one: its
length, its embedded birth date where it has one, and its check digit (or letter). The rules are
the ones python-stdnum documents (Estonia's isikukood, Czechia's rodné číslo, Romania's CNP...),
written here so that the scanner needs no library at run time, and the published ones of formats
stdnum lacks (Hungary's tax number, Luxembourg's matricule, Uruguay's cédula, Singapore's NRIC,
Spain's social security number, Germany's health-insurance number).
"""

from __future__ import annotations

from deputy.core.records.card_numbers import luhn_valid
from deputy.core.secret_scan.id_checksums import _is_date, verhoeff


def _digits(value: str, *lengths: int) -> bool:
    return value.isdigit() and len(value) in lengths


def baltic_personal_code(digits: str) -> bool:
    """Estonia's isikukood and Lithuania's asmens kodas: sex and century, YYMMDD, serial, a two-pass mod-11 digit."""
    if not _digits(digits, 11) or digits[0] not in "123456":
        return False
    if not _is_date(1800 + 100 * ((int(digits[0]) - 1) // 2) + int(digits[1:3]), int(digits[3:5]), int(digits[5:7])):
        return False
    check = sum((i % 9 + 1) * int(d) for i, d in enumerate(digits[:10])) % 11
    if check == 10:
        check = sum(((i + 2) % 9 + 1) * int(d) for i, d in enumerate(digits[:10])) % 11
    return check % 10 == int(digits[10])


def latvian_personal_code(digits: str) -> bool:
    """Latvia's personas kods: DDMMYY, century, serial and a check digit (a new code starts with 32, no date)."""
    if not _digits(digits, 11) or digits[0] > "3":
        return False
    if not digits.startswith("32") and not _is_date(1800 + 100 * int(digits[6]), int(digits[2:4]), int(digits[:2])):
        return False
    check = 1 + sum(w * int(d) for w, d in zip((10, 5, 8, 4, 2, 1, 6, 3, 7, 9), digits))
    return check % 11 % 10 == int(digits[10])


def birth_number(digits: str) -> bool:
    """Czechia's and Slovakia's rodné číslo of ten digits: YYMMDD (women's month +50), and divisible by 11."""
    if not _digits(digits, 10):
        return False
    year = 1900 + int(digits[:2]) + (100 if int(digits[:2]) < 54 else 0)
    month = int(digits[2:4]) % 50 % 20
    return _is_date(year, month, int(digits[4:6])) and int(digits[:9]) % 11 % 10 == int(digits[9])


def romanian_cnp(digits: str) -> bool:
    """Romania's CNP: sex and century, YYMMDD, county, serial, weights 279146358279 mod 11 (10 is 1)."""
    if not _digits(digits, 13) or digits[0] == "0":
        return False
    century = {"1": 1900, "2": 1900, "3": 1800, "4": 1800, "5": 2000, "6": 2000}.get(digits[0], 1900)
    county = int(digits[7:9])  # 01-48 the counties and Bucharest's sectors, 51-52 Călărași and Giurgiu, 70, 80-83
    if not (1 <= county <= 48 or county in (51, 52, 70, 80, 81, 82, 83)):
        return False
    if not _is_date(century + int(digits[1:3]), int(digits[3:5]), int(digits[5:7])):
        return False
    check = sum(w * int(d) for w, d in zip((2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9), digits)) % 11
    return (1 if check == 10 else check) == int(digits[12])


def bulgarian_egn(digits: str) -> bool:
    """Bulgaria's EGN: YYMMDD (month +20 before 1900, +40 after 1999), serial, weights 2 4 8 5 10 9 7 3 6."""
    if not _digits(digits, 10):
        return False
    year, month = 1900 + int(digits[:2]), int(digits[2:4])
    if month > 40:
        year, month = year + 100, month - 40
    elif month > 20:
        year, month = year - 100, month - 20
    check = sum(w * int(d) for w, d in zip((2, 4, 8, 5, 10, 9, 7, 3, 6), digits)) % 11 % 10
    return _is_date(year, month, int(digits[4:6])) and check == int(digits[9])


def mod_11_10(digits: str) -> bool:
    """ISO 7064 MOD 11,10 over all digits but the last (Croatia's OIB)."""
    if not digits.isdigit() or len(digits) < 2:
        return False
    product = 10
    for digit in digits[:-1]:
        total = (int(digit) + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == int(digits[-1])


def croatian_oib(digits: str) -> bool:
    return _digits(digits, 11) and mod_11_10(digits)


def emso(digits: str) -> bool:
    """Slovenia's (and former Yugoslavia's) EMŠO: DDMMYYY, region, serial, weights 7654327654321 mod 11."""
    if not _digits(digits, 13):
        return False
    year = int(digits[4:7])
    if not _is_date(year + (2000 if year < 800 else 1000), int(digits[2:4]), int(digits[:2])):
        return False
    total = sum(w * int(d) for w, d in zip((7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2), digits))
    return -total % 11 % 10 == int(digits[12])


def greek_amka(digits: str) -> bool:
    """Greece's AMKA: DDMMYY, serial, and a Luhn digit."""
    if not _digits(digits, 11) or not luhn_valid(digits):
        return False
    day, month, year = int(digits[:2]), int(digits[2:4]), int(digits[4:6])
    return _is_date(1900 + year, month, day) or _is_date(2000 + year, month, day)


def kennitala(digits: str) -> bool:
    """Iceland's kennitala of a person: DDMMYY, two digits, a mod-11 check digit, and the century (9 or 0)."""
    if not _digits(digits, 10) or digits[9] not in "90":
        return False
    year = int(digits[4:6]) + (1900 if digits[9] == "9" else 2000)
    if not _is_date(year, int(digits[2:4]), int(digits[:2])):
        return False  # (a firm's adds 40 to the day: no person's)
    return sum(w * int(d) for w, d in zip((3, 2, 7, 6, 5, 4, 3, 2, 1), digits)) % 11 == 0


def ecuador_ci(digits: str) -> bool:
    """Ecuador's cédula: province (01-24, 30 abroad, 50), a third digit up to 6, a Luhn-like digit (weights 2 1)."""
    if not _digits(digits, 10) or not (1 <= int(digits[:2]) <= 24 or digits[:2] in ("30", "50")) or digits[2] > "6":
        return False
    total = sum((lambda x: x - 9 if x > 9 else x)((2, 1)[i % 2] * int(d)) for i, d in enumerate(digits))
    return total % 10 == 0


def peru_cui(value: str) -> bool:
    """Peru's CUI / DNI: eight digits and a check digit or letter (weights 3 2 7 6 5 4 3 2)."""
    value = value.upper()
    if len(value) != 9 or not value[:8].isdigit():
        return False
    check = sum(w * int(d) for w, d in zip((3, 2, 7, 6, 5, 4, 3, 2), value)) % 11
    return value[8] in ("65432110987"[check], "KJIHGFEDCBA"[check])


def colombia_nit(digits: str) -> bool:
    """Colombia's NIT of a person (a firm's starts with 8 or 9): weights of primes from the right, mod 11."""
    if not digits.isdigit() or not 8 <= len(digits) <= 16:
        return False
    weights = (3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71)
    total = sum(w * int(d) for w, d in zip(weights, reversed(digits[:-1]))) % 11
    return "01987654321"[total] == digits[-1]


def uruguay_ci(digits: str) -> bool:
    """Uruguay's cédula: seven digits (zero-padded) and a check digit over weights 2 9 8 7 6 3 4."""
    if not digits.isdigit() or not 7 <= len(digits) <= 8:
        return False
    digits = digits.zfill(8)
    total = sum(w * int(d) for w, d in zip((2, 9, 8, 7, 6, 3, 4), digits))
    return (10 - total % 10) % 10 == int(digits[7])


def singapore_nric(value: str) -> bool:
    """Singapore's NRIC / FIN: S, T, F or G, seven digits, a check letter (weights 2 7 6 5 4 3 2)."""
    value = value.upper()
    if len(value) != 9 or value[0] not in "STFG" or not value[1:8].isdigit() or not value[8].isalpha():
        return False
    total = sum(w * int(d) for w, d in zip((2, 7, 6, 5, 4, 3, 2), value[1:8])) + (4 if value[0] in "TG" else 0)
    return ("JZIHGFEDCBA" if value[0] in "ST" else "XWUTRQPNMLK")[total % 11] == value[8]


def malaysia_nric(digits: str) -> bool:
    """Malaysia's MyKad number: YYMMDD, a birthplace code, a serial (no check digit: the date and place decide)."""
    if not _digits(digits, 12):
        return False
    place = int(digits[6:8])
    if place == 0 or place in (17, 18, 19, 20, 69, 70, 73, 80, 81, 94, 95, 96, 97):
        return False
    return _is_date(1900 + int(digits[:2]), int(digits[2:4]), int(digits[4:6]))


def thai_pin(digits: str) -> bool:
    """Thailand's personal identification number: 13 digits, not starting with 0 or 9, a mod-11 check digit."""
    if not _digits(digits, 13) or digits[0] in "09":
        return False
    total = sum((13 - i) * int(d) for i, d in enumerate(digits[:12])) % 11
    return (11 - total) % 10 == int(digits[12])


def indonesia_nik(digits: str) -> bool:
    """Indonesia's NIK: province, regency, district, DDMMYY (women's day +40), serial (no check digit)."""
    if not _digits(digits, 16) or not 11 <= int(digits[:2]) <= 94:
        return False
    return _is_date(2000, int(digits[8:10]), int(digits[6:8]) % 40 or 32)


def nz_ird(digits: str) -> bool:
    """New Zealand's IRD number: eight or nine digits, a mod-11 check digit with a second set of weights for 10."""
    if not _digits(digits, 8, 9) or not 10_000_000 < int(digits) < 150_000_000:
        return False
    body = digits[:-1].zfill(8)
    for weights in ((3, 2, 7, 6, 5, 4, 3, 2), (7, 4, 3, 2, 5, 2, 7, 6)):
        check = -sum(w * int(d) for w, d in zip(weights, body)) % 11
        if check != 10:
            return check == int(digits[-1])
    return False


def bc_phn(digits: str) -> bool:
    """British Columbia's personal health number: 9, eight digits, a check digit (weights 2 4 8 5 10 9 7 3)."""
    if not _digits(digits, 10) or digits[0] != "9":
        return False
    total = sum(w * int(d) % 11 for w, d in zip((2, 4, 8, 5, 10, 9, 7, 3), digits[1:9]))
    return (11 - total) % 11 == int(digits[9])


def nhs_number(digits: str) -> bool:
    """The UK's NHS number: ten digits, weights 10 to 1 summing to a multiple of 11."""
    return _digits(digits, 10) and sum(i * int(d) for i, d in enumerate(reversed(digits), 1)) % 11 == 0


def luhn_number(digits: str) -> bool:
    """Numbers whose only check is Luhn: an Ontario health number (10), a Dominican cédula (11), Italy's TEAM (20)."""
    return digits.isdigit() and luhn_valid(digits)


def french_tax_number(digits: str) -> bool:
    """France's numéro fiscal (SPI): 13 digits starting 0-3, the last three the first ten mod 511."""
    return _digits(digits, 13) and digits[0] in "0123" and int(digits[:10]) % 511 == int(digits[10:])


def hungarian_tax_number(digits: str) -> bool:
    """Hungary's adóazonosító jel: 8, days since 1867-01-01, a serial, Σ digit × position mod 11."""
    return _digits(digits, 10) and digits[0] == "8" and sum(int(d) * i for i, d in enumerate(digits[:9], 1)) % 11 == \
        int(digits[9])


def luxembourg_matricule(digits: str) -> bool:
    """Luxembourg's matricule: YYYYMMDD, a serial, a Luhn digit and a Verhoeff digit (both over the first eleven)."""
    if not _digits(digits, 13) or not _is_date(int(digits[:4]), int(digits[4:6]), int(digits[6:8])):
        return False
    return luhn_valid(digits[:12]) and verhoeff(digits[:11] + digits[12])


def spanish_nss(digits: str) -> bool:
    """Spain's social security number: province, number, and the first ten digits mod 97."""
    return _digits(digits, 12) and 1 <= int(digits[:2]) <= 53 and int(digits[:10]) % 97 == int(digits[10:])


def german_kvnr(value: str) -> bool:
    """Germany's health-insurance number: a letter (as 01-26), eight digits, a check digit (weights 1 2, digit sums)."""
    value = value.upper()
    if len(value) != 10 or not value[0].isalpha() or not value[1:].isdigit() or not "A" <= value[0] <= "Z":
        return False
    total = 0
    for i, char in enumerate(f"{ord(value[0]) - 64:02d}" + value[1:9]):
        product = int(char) * (2 if i % 2 else 1)
        total += product // 10 + product % 10
    return total % 10 == int(value[9])


def belgian_bis(digits: str) -> bool:
    """Belgium's BIS number: a national number whose month has 20 or 40 added."""
    if not _digits(digits, 11) or not 20 <= int(digits[2:4]) <= 52:
        return False
    return int(digits[9:]) in (97 - int(digits[:9]) % 97, 97 - int("2" + digits[:9]) % 97)


def dutch_id_card(value: str) -> bool:
    """The Netherlands' identity card or passport number: two letters, six letters or digits, one digit (no O)."""
    value = value.upper()
    return (len(value) == 9 and value[:2].isalpha() and value[2:8].isalnum() and value[8].isdigit()
            and "O" not in value and any(c.isdigit() for c in value[2:8]))


def pakistan_cnic(digits: str) -> bool:
    """Pakistan's CNIC: a province (1-7), a district and a serial, the last digit odd for men, even for women, not 0."""
    return _digits(digits, 13) and digits[0] in "1234567" and digits[12] != "0"


def uk_driving_licence(value: str) -> bool:
    """A British driving licence number: five of the surname (9s pad it), the decade, month (+50 for women), day and
    year of birth, two initials, a digit and two check letters."""
    value = value.upper()
    if len(value) != 16 or not all(c.isalpha() or c == "9" for c in value[:5] + value[11:13]):
        return False
    if not value[5:11].isdigit() or not value[13].isdigit() or not value[14:].isalpha():
        return False
    return 1 <= int(value[6:8]) % 50 <= 12 and 1 <= int(value[8:10]) <= 31


def us_itin(digits: str) -> bool:
    """The US ITIN: 9, two digits, a group of 50-65, 70-88, 90-92 or 94-99, four digits."""
    if not _digits(digits, 9) or digits[0] != "9":
        return False
    group = int(digits[3:5])
    return 50 <= group <= 65 or 70 <= group <= 88 or 90 <= group <= 92 or 94 <= group <= 99
