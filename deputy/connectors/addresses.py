"""Strict validation of email addresses and header text: mail recipients, calendar attendees.

Deliberately narrower than RFC 5322: a bare ASCII `local@domain.tld`, no display
names, comments or quoted local parts. An agent that sends mail should not be able
to reach look-alike Unicode domains or smuggle extra headers through an address.
"""

from __future__ import annotations

import re
import unicodedata

# RFC 5321 limits: 64 octets for the local part, 254 for a whole forward path.
_MAX_LOCAL = 64
_MAX_ADDRESS = 254

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LOCAL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
# The top-level label must start with a letter so that "a@1.2.3.4" (a bare IP) and
# "bob@gmail" (a typo, no dot) are refused rather than sent somewhere surprising.
_DOMAIN = re.compile(rf"(?:{_LABEL}\.)+[A-Za-z](?:[A-Za-z0-9-]{{0,61}}[A-Za-z0-9])?")

# Unicode line and paragraph separators are not Cc but some software breaks lines on them.
_LINE_BREAKERS = {"\u2028", "\u2029"}


def normalize_address(value: str) -> str:
    """Return `value` as a bare address with a lower-cased domain, or raise ValueError.

    Surrounding whitespace is dropped; anything else unusual is an error, not a guess.
    """
    address = value.strip()
    if not address:
        raise ValueError("an email address is empty")
    if not address.isascii():
        raise ValueError(f"{address!r} is not a plain ASCII email address")
    if len(address) > _MAX_ADDRESS:
        raise ValueError("an email address is longer than 254 characters")
    local, at, domain = address.rpartition("@")
    if not at or len(local) > _MAX_LOCAL or not _LOCAL.fullmatch(local):
        raise ValueError(f"{address!r} is not a valid email address")
    if not _DOMAIN.fullmatch(domain):
        raise ValueError(f"{address!r} is not a valid email address")
    return f"{local}@{domain.lower()}"


def check_header_text(value: str, field: str) -> str:
    """Return `value` unchanged if it is safe as one header line, else raise ValueError.

    Refusing every control character (CR and LF above all) makes header injection
    impossible no matter how the text is later encoded.
    """
    for char in value:
        if unicodedata.category(char) == "Cc" or char in _LINE_BREAKERS:
            raise ValueError(f"the {field} must be a single line without control characters")
    return value
