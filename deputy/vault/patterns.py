"""Redaction that needs no known secret: card numbers, auth headers, key=value secrets, PEM keys.

These catch secrets the executor never handled itself (a card number in a shop's receipt,
a token echoed by an API). They prefer a little over-redaction in odd text to a leak, but
stay quiet on ordinary prose: dates, prices and words are left alone.
"""

from __future__ import annotations

import base64
import binascii
import re

from deputy.core.records.card_numbers import looks_like_card

REDACTED = "[redacted]"

_NOT_REDACTED = r"(?!\[redacted\])"

# 13-19 contiguous digits, or the usual printed groupings (4-4-4-4 with an optional short
# tail, Amex/Diners 4-6-5/4-6-4) with one consistent separator. Free-form digit runs would also match dates and
# phone numbers written next to each other.
# The lookbehind sits after the first digit (meaning "no digit before this one") so the
# regex engine can skip non-digits quickly; in front, it made the scan 3x slower.
_CARD = re.compile(
    r"""[0-9](?<![0-9]{2})(?:
        [0-9]{12,18}
      | [0-9]{3}(?P<a>[ -])[0-9]{6}(?P=a)[0-9]{4,5}
      | [0-9]{3}(?P<b>[ -])[0-9]{4}(?P=b)[0-9]{4}(?P=b)[0-9]{1,4}(?:(?P=b)[0-9]{1,3})?
    )(?![0-9])""",
    re.X,
)

_PEM = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*)",  # a truncated key goes to the end
    re.S,
)

# `Authorization: <scheme> <credential>` in headers, logs, JSON or repr'd dicts.
_AUTH_HEADER = re.compile(
    r"(?i)(?P<head>\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
    r"(?:(?:bearer|basic|token|digest|negotiate|apikey)\s+)?)"
    rf"{_NOT_REDACTED}(?P<value>[^\s\"',;]+)"
)
# A free-standing `Bearer <token>` (after "Authorization" it is caught above). The token
# must be long and mix letters and digits, so prose ("the bearer 2026-03-14",
# "Bearer instruments") survives.
_BEARER = re.compile(
    r"(?P<head>\bBearer\s+)"
    r"(?P<value>(?=[A-Za-z0-9._~+/-]*[0-9])(?=[A-Za-z0-9._~+/-]*[A-Za-z])[A-Za-z0-9._~+/-]{12,}=*)"
)
_BASIC = re.compile(r"(?P<head>\bBasic\s+)(?P<value>[A-Za-z0-9+/]{6,}={0,2})")

_KEY_WORDS = ("pass", "pw", "secret", "key", "token", "cvv", "cvc")
_SECRET_KEYS = (
    r"password|passwd|passphrase|pwd|pw|pword|secret|client[_-]?secret|api[_-]?(?:key|secret)|apikey"
    r"|(?:access|refresh|auth|id|session)[_-]?token|token|private[_-]?key|cvv2?|cvc"
)
# The key may carry a prefix ("db_password", "x-api-key"): only its last word must match.
_KEY_VALUE = re.compile(
    rf"(?i)(?<![A-Za-z0-9])(?P<key>{_SECRET_KEYS})(?![A-Za-z0-9])"
    r"(?P<sep>[\"']?\s*[:=]\s*)"
    rf"(?:\"(?P<dq>{_NOT_REDACTED}(?:[^\"\\\n]|\\.)+)\"|'(?P<sq>{_NOT_REDACTED}(?:[^'\\\n]|\\.)+)'"
    rf"|(?P<bare>{_NOT_REDACTED}[^\s&,;\"'<>{{}}\[\]()]+))"
)


def _card(match: re.Match[str]) -> str:
    return REDACTED if looks_like_card(match.group(0)) else match.group(0)


def _keep_head(match: re.Match[str]) -> str:
    return match.group("head") + REDACTED


def _basic(match: re.Match[str]) -> str:
    # "Basic" is an English word; only a value that decodes to `user:password` is a credential.
    try:
        decoded = base64.b64decode(match.group("value") + "==", validate=False).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return match.group(0)
    return match.group("head") + REDACTED if ":" in decoded else match.group(0)


def _key_value(match: re.Match[str]) -> str:
    start = match.start()
    for group in ("dq", "sq", "bare"):
        if match.group(group) is not None:
            begin, end = match.span(group)
            text = match.group(0)
            return text[: begin - start] + REDACTED + text[end - start:]
    return match.group(0)  # pragma: no cover - one alternative always matches


def redact_patterns(text: str) -> str:
    """Redact card numbers, auth header values, `password=...` style values and PEM keys."""
    # Plain substring tests are ~100x faster than a regex scan; most text has none of these.
    if "PRIVATE KEY" in text:
        text = _PEM.sub(REDACTED, text)
    lowered = text.lower()
    if "authorization" in lowered:
        text = _AUTH_HEADER.sub(_keep_head, text)
    if "Bearer" in text:
        text = _BEARER.sub(_keep_head, text)
    if "Basic" in text:
        text = _BASIC.sub(_basic, text)
    if any(word in lowered for word in _KEY_WORDS):
        text = _KEY_VALUE.sub(_key_value, text)
    return _CARD.sub(_card, text)
