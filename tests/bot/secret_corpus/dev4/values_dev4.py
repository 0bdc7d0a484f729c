"""Random cards, IBANs, passwords, keys, mnemonics and tokens for the dev4 corpus, and its case helpers.

Every value comes from `secrets`; check digits are computed with the algorithms written here (and in
id_numbers_dev4.py) from the public specs, and check_dev4.py verifies them with python-stdnum, a separate
implementation, so a slip here shows up there.
"""
import base64
import datetime
import hashlib
import hmac
import json
import os
import re
import secrets
import string

RNG = secrets.SystemRandom()
HERE = os.path.dirname(os.path.abspath(__file__))
BIP39 = open(os.path.join(HERE, "..", "bip39_english.txt")).read().split()


def digits(n):
    return "".join(str(RNG.randrange(10)) for _ in range(n))


def birth_date(first=1950, last=1999):
    start = datetime.date(first, 1, 1).toordinal()
    return datetime.date.fromordinal(RNG.randint(start, datetime.date(last, 12, 28).toordinal()))


def luhn_digit(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        x = int(ch) * (2 if i % 2 == 0 else 1)
        total += x - 9 if x > 9 else x
    return str((10 - total % 10) % 10)


def luhn_number(prefix, length):
    body = prefix + digits(length - len(prefix) - 1)
    return body + luhn_digit(body)


def luhn_failing(prefix, length):
    good = luhn_number(prefix, length)
    return good[:-1] + str((int(good[-1]) + RNG.randint(1, 9)) % 10)


def group(s, sizes, sep=" "):
    out, i = [], 0
    for n in sizes:
        out.append(s[i:i + n])
        i += n
    return sep.join(out)


# ---- other kinds ---------------------------------------------------------------------------

IBAN_BBAN = {"DE": "8n10n", "NL": "4a10n", "IT": "1a10n12c", "PT": "21n", "AT": "16n", "IE": "4a14n",
             "GB": "4a14n", "FR": "10n11c2n"}


def iban(country, spaced=True):
    bban = ""
    spec = IBAN_BBAN[country]
    for count, cls in re.findall(r"(\d+)([nac])", spec):
        pool = {"n": string.digits, "a": string.ascii_uppercase, "c": string.digits}[cls]
        bban += "".join(RNG.choice(pool) for _ in range(int(count)))
    if country == "FR":  # clé RIB: 97 - (89 bank + 15 branch + 3 account) mod 97
        bban = bban[:21] + f"{97 - (89 * int(bban[:5]) + 15 * int(bban[5:10]) + 3 * int(bban[10:21])) % 97:02d}"
    if country == "IT":  # CIN: the codice fiscale odd/even tables over ABI + CAB + account, mod 26
        from id_numbers_dev4 import CF_ODD
        rest = bban[1:]
        total = sum(CF_ODD[ch] if i % 2 == 0 else (int(ch) if ch.isdigit() else ord(ch) - 65) for i, ch in enumerate(rest))
        bban = chr(65 + total % 26) + rest
    return _iban_from_bban(country, bban, spaced)


def iban_es(spaced=True):
    bank, branch, account = RNG.choice(["2100", "0049", "0182", "2038"]), digits(4), digits(10)
    weights = (1, 2, 4, 8, 5, 10, 9, 7, 3, 6)

    def dc(s):
        c = 11 - sum(int(x) * w for x, w in zip(s, weights)) % 11
        return {10: "1", 11: "0"}.get(c, str(c))
    return _iban_from_bban("ES", bank + branch + dc("00" + bank + branch) + dc(account) + account, spaced)


def _iban_from_bban(country, bban, spaced):
    numeric = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    full = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    return " ".join(full[i:i + 4] for i in range(0, len(full), 4)) if spaced else full


def password(n=14):
    alphabet = string.ascii_letters + string.digits + "!#%&*+-=?@^_"
    while True:
        p = "".join(RNG.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in p) and any(c.isupper() for c in p) and any(c.islower() for c in p):
            return p


def token(n, alphabet=string.ascii_letters + string.digits):
    return "".join(RNG.choice(alphabet) for _ in range(n))


def bip39_mnemonic(words=12):
    entropy_bits = words * 11 * 32 // 33
    entropy = secrets.token_bytes(entropy_bits // 8)
    bits = bin(int.from_bytes(entropy, "big"))[2:].zfill(entropy_bits)
    bits += bin(hashlib.sha256(entropy).digest()[0])[2:].zfill(8)[: entropy_bits // 32]
    return " ".join(BIP39[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11))


def jwt(claims):
    def b64(raw):
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64(json.dumps(claims, separators=(",", ":")).encode())
    sig = hmac.new(secrets.token_bytes(32), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(sig)}"


def case(kind, messages, secret, keep, language, source, checks=()):
    """One corpus item, before its id and split are assigned."""
    messages = [messages] if isinstance(messages, str) else list(messages)
    return {"kind": kind, "messages": messages, "secret": list(secret), "keep": list(keep), "language": language,
            "source": source, "checks": [{"type": t, "value": v} for t, v in checks]}


def spoil(value):
    """The value with its last digit changed, so a check digit no longer matches."""
    for i in range(len(value) - 1, -1, -1):
        if value[i].isdigit():
            return value[:i] + str((int(value[i]) + RNG.randint(1, 9)) % 10) + value[i + 1:]
    raise ValueError(value)
