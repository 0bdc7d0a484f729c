"""Check digits of national identity numbers, from each issuer's published rule.

Each function takes the number's characters without separators and says whether its check
digit (or letter) is right. A number that passes is far more likely a real identity number
than a reference number of the same length: one in ten to one in ninety-seven random numbers
passes, and the callers also want the number's shape or a label next to it.
"""

from __future__ import annotations

from datetime import date

from deputy.core.records.card_numbers import luhn_valid

__all__ = ["ahv", "australia_tfn", "be_national_number", "bsn", "cartao_cidadao", "chile_rut", "china_resident_id",
           "codice_fiscale", "cpf", "curp", "dni", "hetu", "israel_id", "korea_rrn", "luhn_valid", "mrz_td3",
           "my_number", "nir", "nif_pt", "norway_fnr", "pesel", "se_personnummer", "south_africa_id", "steuer_id",
           "tc_kimlik", "verhoeff"]


def be_national_number(digits: str) -> bool:
    """Belgium's national register number: 97 minus the first nine digits mod 97 (with a 2 before them after 2000)."""
    if len(digits) != 11 or not digits.isdigit():
        return False
    check = int(digits[9:])
    return check in (97 - int(digits[:9]) % 97, 97 - int("2" + digits[:9]) % 97)


def nir(value: str) -> bool:
    """France's social security number (NIR): 13 characters and a key of 97 minus them mod 97 (Corsica: 2A, 2B)."""
    value = value.upper()
    if len(value) != 15 or value[0] not in "12378":
        return False
    body = value[:13].replace("2A", "19").replace("2B", "18")
    if not body.isdigit() or not value[13:].isdigit():
        return False
    return int(value[13:]) == 97 - int(body) % 97


def steuer_id(digits: str) -> bool:
    """Germany's tax identification number: ISO 7064 MOD 11,10 over the first ten digits."""
    if len(digits) != 11 or not digits.isdigit() or digits[0] == "0":
        return False
    product = 10
    for digit in digits[:10]:
        total = (int(digit) + product) % 10 or 10
        product = total * 2 % 11
    check = 11 - product
    return (0 if check == 10 else check) == int(digits[10])


def se_personnummer(digits: str) -> bool:
    """Sweden's personal identity number: Luhn over YYMMDDNNNC, the date a real one."""
    digits = digits[-10:]
    if len(digits) != 10 or not digits.isdigit():
        return False
    month, day = int(digits[2:4]), int(digits[4:6]) % 60  # a coordination number adds 60 to the day
    return 1 <= month <= 12 and 1 <= day <= 31 and luhn_valid(digits)


def pesel(digits: str) -> bool:
    """Poland's PESEL: weights 1-3-7-9, and a birth date (the century is in the month)."""
    if len(digits) != 11 or not digits.isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(digits[:10], (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)))
    month, day = int(digits[2:4]) % 20, int(digits[4:6])
    return (10 - total % 10) % 10 == int(digits[10]) and 1 <= month <= 12 and 1 <= day <= 31


def nif_pt(digits: str, people_only: bool = True) -> bool:
    """Portugal's tax number: mod 11 with weights 9..2. A person's starts with 1, 2 or 3 (5: a company's)."""
    if len(digits) != 9 or not digits.isdigit() or (people_only and digits[0] not in "123"):
        return False
    remainder = 11 - sum(int(d) * w for d, w in zip(digits[:8], range(9, 1, -1))) % 11
    return (0 if remainder >= 10 else remainder) == int(digits[8])


def cartao_cidadao(value: str) -> bool:
    """Portugal's citizen card number (8 digits, a check digit, 2 letters, a check digit): Luhn over letters as 10-35."""
    value = value.upper()
    if len(value) != 12 or not value[:9].isdigit() or not value[9:11].isalnum() or not value[11].isdigit():
        return False
    total = 0
    for position, char in enumerate(reversed(value)):
        number = int(char, 36)
        if position % 2:
            number *= 2
            number -= 9 if number > 9 else 0
        total += number
    return total % 10 == 0


def bsn(digits: str) -> bool:
    """The Netherlands' citizen service number: the 11-test (weights 9..2, and -1 for the last digit)."""
    digits = digits.zfill(9)
    if len(digits) != 9 or not digits.isdigit() or digits == "000000000":
        return False
    return (sum(int(d) * w for d, w in zip(digits[:8], range(9, 1, -1))) - int(digits[8])) % 11 == 0


def cpf(digits: str) -> bool:
    """Brazil's CPF: two mod-11 check digits."""
    numbers = [int(c) for c in digits if c.isdigit()]
    if len(numbers) != 11 or len(set(numbers)) == 1:
        return False
    for length in (9, 10):
        total = sum(d * w for d, w in zip(numbers[:length], range(length + 1, 1, -1)))
        if (total * 10 % 11) % 10 != numbers[length]:
            return False
    return True


def dni(digits: str, letter: str) -> bool:
    """Spain's DNI / NIE: the letter is the number mod 23 (an NIE's X, Y, Z count as 0, 1, 2)."""
    number = int(digits.upper().replace("X", "0").replace("Y", "1").replace("Z", "2"))
    return "TRWAGMYFPDXBNJZSQVHLCKE"[number % 23] == letter.upper()


_CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8,
                    12, 14, 16, 10, 22, 25, 24, 23)))


def codice_fiscale(value: str) -> bool:
    """Italy's tax code: 16 characters, the last a letter computed from the others (odd and even positions)."""
    value = value.upper()
    if len(value) != 16 or not value.isalnum():
        return False
    total = 0
    for position, char in enumerate(value[:15]):
        if position % 2 == 0:  # odd positions, counting from one
            total += _CF_ODD[char]
        else:
            total += int(char) if char.isdigit() else ord(char) - ord("A")
    return chr(ord("A") + total % 26) == value[15]


_VERHOEFF_D = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
               [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
               [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
               [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_VERHOEFF_P = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
               [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
               [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]


def verhoeff(digits: str) -> bool:
    """The Verhoeff check (India's Aadhaar number)."""
    if not digits.isdigit():
        return False
    check = 0
    for position, digit in enumerate(reversed(digits)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[position % 8][int(digit)]]
    return check == 0


def _is_date(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


_HETU_CENTURY = {"+": 1800, "-": 1900, "U": 1900, "V": 1900, "W": 1900, "X": 1900, "Y": 1900,
                 "A": 2000, "B": 2000, "C": 2000, "D": 2000, "E": 2000, "F": 2000}


def hetu(value: str) -> bool:
    """Finland's personal identity code: DDMMYY, a century sign, 002-899, and a check character (nine digits mod 31)."""
    value = value.upper()
    if len(value) != 11 or value[6] not in _HETU_CENTURY or not (value[:6] + value[7:10]).isdigit():
        return False
    if not 2 <= int(value[7:10]) <= 899 or not _is_date(_HETU_CENTURY[value[6]] + int(value[4:6]), int(value[2:4]),
                                                         int(value[:2])):
        return False
    return "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(value[:6] + value[7:10]) % 31] == value[10]


def norway_fnr(digits: str) -> bool:
    """Norway's national identity number (fødselsnummer): two mod-11 control digits after DDMMYY and three digits."""
    if len(digits) != 11 or not digits.isdigit():
        return False
    numbers = [int(d) for d in digits]
    for weights, position in (((3, 7, 6, 1, 8, 9, 4, 5, 2), 9), ((5, 4, 3, 2, 7, 6, 5, 4, 3, 2), 10)):
        control = 11 - sum(d * w for d, w in zip(numbers, weights)) % 11
        if (0 if control == 11 else control) != numbers[position]:  # 10 never is one: no number gets it
            return False
    return 1 <= int(digits[:2]) % 40 <= 31 and 1 <= int(digits[2:4]) % 40 <= 12  # D- and H-numbers add 40


def ahv(digits: str) -> bool:
    """Switzerland's social security number (AHV/AVS): 756, nine digits, and an EAN-13 check digit."""
    if len(digits) != 13 or not digits.isdigit() or not digits.startswith("756"):
        return False
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits[:12]))
    return (10 - total % 10) % 10 == int(digits[12])


def china_resident_id(value: str) -> bool:
    """China's resident identity number: region, birth date YYYYMMDD, sequence, ISO 7064 MOD 11-2 check (0-9, X)."""
    value = value.upper()
    if len(value) != 18 or not value[:17].isdigit() or not _is_date(int(value[6:10]), int(value[10:12]),
                                                                    int(value[12:14])):
        return False
    total = sum(int(d) * (2 ** (17 - i) % 11) for i, d in enumerate(value[:17]))
    return "10X98765432"[total % 11] == value[17]


def _mrz_digit(field: str, check: str) -> bool:
    values = (int(c) if c.isdigit() else 0 if c == "<" else ord(c) - 55 for c in field)  # A=10 ... Z=35, filler 0
    total = sum(value * (7, 3, 1)[i % 3] for i, value in enumerate(values))
    return check.isdigit() and total % 10 == int(check)


def mrz_td3(line: str) -> bool:
    """The second line of a passport's machine-readable zone (ICAO 9303 TD3): its four 7-3-1 check digits."""
    if len(line) != 44:
        return False
    return (_mrz_digit(line[0:9], line[9]) and _mrz_digit(line[13:19], line[19]) and _mrz_digit(line[21:27], line[27])
            and _mrz_digit(line[0:10] + line[13:20] + line[21:43], line[43]))


def my_number(digits: str) -> bool:
    """Japan's Individual Number (My Number): eleven digits and a mod-11 check digit (weights 2-7, then 2-6)."""
    if len(digits) != 12 or not digits.isdigit():
        return False
    weights = (6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)  # from the left; the check digit's neighbour weighs 2
    remainder = sum(int(d) * w for d, w in zip(digits[:11], weights)) % 11
    return (0 if remainder <= 1 else 11 - remainder) == int(digits[11])


def korea_rrn(digits: str) -> bool:
    """South Korea's resident registration number: YYMMDD, a sex and century digit, and a mod-11 check digit."""
    if len(digits) != 13 or not digits.isdigit() or digits[6] not in "12345678" or int(digits[7:9]) > 96:
        return False  # (digits 8-9: the place of registration, up to 96)
    century = {"9": 1800, "0": 1800, "1": 1900, "2": 1900, "5": 1900, "6": 1900}.get(digits[6], 2000)
    if not _is_date(century + int(digits[:2]), int(digits[2:4]), int(digits[4:6])):
        return False
    total = sum(int(d) * w for d, w in zip(digits[:12], (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)))
    return (11 - total % 11) % 10 == int(digits[12])


def tc_kimlik(digits: str) -> bool:
    """Turkey's identity number (T.C. Kimlik No): eleven digits, no leading zero, two check digits."""
    if len(digits) != 11 or not digits.isdigit() or digits[0] == "0":
        return False
    numbers = [int(d) for d in digits]
    tenth = (sum(numbers[0:9:2]) * 7 - sum(numbers[1:8:2])) % 10
    return tenth == numbers[9] and sum(numbers[:10]) % 10 == numbers[10]


def israel_id(digits: str) -> bool:
    """Israel's identity number (Teudat Zehut): up to nine digits, weights 1 and 2 in turn (Luhn)."""
    return 5 <= len(digits) <= 9 and digits.isdigit() and int(digits) > 0 and luhn_valid(digits.zfill(9))


def australia_tfn(digits: str) -> bool:
    """Australia's tax file number: eight or nine digits whose weighted sum is a multiple of 11."""
    weights = (1, 4, 3, 7, 5, 8, 6, 9, 10)  # an older eight-digit number uses the first eight
    return len(digits) in (8, 9) and digits.isdigit() and sum(int(d) * w for d, w in zip(digits, weights)) % 11 == 0


_CURP_ALPHABET = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"


def curp(value: str) -> bool:
    """Mexico's CURP: 17 characters (name letters, birth date, sex, state, consonants) and a check digit."""
    value = value.upper()
    if len(value) != 18 or not value[17].isdigit() or any(c not in _CURP_ALPHABET for c in value[:17]):
        return False
    year = int(value[4:6]) + (2000 if value[16].isalpha() else 1900)  # the 17th character: a digit before 2000
    if not _is_date(year, int(value[6:8]), int(value[8:10])):
        return False
    total = sum(_CURP_ALPHABET.index(c) * (18 - i) for i, c in enumerate(value[:17]))
    return (10 - total % 10) % 10 == int(value[17])


def south_africa_id(digits: str) -> bool:
    """South Africa's identity number: YYMMDD, a sequence, citizenship, and a Luhn check digit."""
    return (len(digits) == 13 and digits.isdigit() and digits[10] in "012" and luhn_valid(digits)
            and 1 <= int(digits[2:4]) <= 12 and 1 <= int(digits[4:6]) <= 31)


def chile_rut(value: str) -> bool:
    """Chile's RUT / RUN: the number and a mod-11 check character (weights 2-7 from the right; 10 is K)."""
    value = value.upper()
    if not 8 <= len(value) <= 9 or not value[:-1].isdigit():
        return False
    total = sum(int(d) * (2 + i % 6) for i, d in enumerate(reversed(value[:-1])))
    return "0123456789K"[(11 - total % 11) % 11] == value[-1]
