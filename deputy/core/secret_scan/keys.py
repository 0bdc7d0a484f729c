"""Access keys and private keys: gitleaks' vendor rules, a few forms it reads too strictly, and entropy.

Gitleaks reads source files, so some of its rules want a key's exact length or an assignment
around it; in a chat people paste a key alone or in a sentence. The extra forms here are the
documented prefixes of common providers, a key named in words ("my api key is ..."), a
private key's first line without its end (a paste cut short is still a private key), and
any long token that looks random (mixed case and digits, high Shannon entropy) which is
neither an address nor an identifier of a thing (UUIDs, hashes in hex). A BitLocker recovery
password is known by its own check (eight blocks of six digits, each a multiple of 11).
"""

from __future__ import annotations

import re

from deputy.core.secret_scan.hits import Hit
from deputy.core.secret_scan.passwords import PUBLIC_KEY_BEFORE
from deputy.core.secret_scan.vendor_keys import shannon_entropy, vendor_key_hits

_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"  # OpenAI, Anthropic
    r"|(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}"  # Stripe
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}"  # GitHub
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|xox[abprse]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{20,}"  # Slack
    r"|hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]{16,}"
    r"|(?:discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,})"
    r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}"  # AWS access key ids
    r"|AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,}"  # Google
    r"|\d{8,10}:AA[A-Za-z0-9_-]{33}"  # Telegram bot tokens
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"  # SendGrid
    r"|SK[0-9a-f]{32}|AC[0-9a-f]{32}"  # Twilio
    r"|key-[0-9a-f]{32}"  # Mailgun
    r"|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{30,}"  # npm, PyPI, Hugging Face
    r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|dop_v1_[a-f0-9]{64}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}"
    r"|EAA[A-Za-z0-9]{30,}"  # Facebook / Meta access tokens
    r"|glc_[A-Za-z0-9+/=_-]{30,}|dp\.st\.[a-z0-9_-]+\.[A-Za-z0-9]{20,}|lin_api_[A-Za-z0-9]{30,}"
    r"|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JSON web tokens
    r")"
)
_NAMED = re.compile(
    r"(?i)\b(?:[a-z0-9]+[_\s-])?(?:api[\s_-]?key|api[\s_-]?secret|apikey|secret[\s_-]?key|access[\s_-]?key|auth[\s_-]?token|"
    r"access[\s_-]?token|refresh[\s_-]?token|bearer|token|client[\s_-]?secret|secret|app[\s_-]?key|license[\s_-]?key|"
    r"signing[\s_-]?key|webhook[\s_-]?secret|private[\s_-]?key|api[\s_-]?token|personal access token|pat|"
    r"schlüssel|clé(?: api)?|clave(?: api)?)\b\s*(?:is|:|=|ist|est|es|\bto\b)?\s*[\"'`]?"
    r"(?P<value>(?=[A-Za-z0-9_\-+/=.]*\d)(?=[A-Za-z0-9_\-+/=.]*[A-Za-z])[A-Za-z0-9_\-+/.:]{16,}={0,3})"
)
# An authenticator's secret (RFC 4648 base32), as setup pages and apps show it: "JBSW Y3DP EHPK 3PXP" or lowercase.
_TOTP_SEED = re.compile(
    r"(?i)\b(?:totp|2fa|mfa|otp|authenticator|setup key|secret key|secret|seed|geheimer schlüssel|schlüssel|"
    r"clé secrète|clave secreta|chiave segreta|chave secreta|geheime sleutel)\b[^\n]{0,30}?[:=]?\s*"
    r"(?P<value>(?=[a-z2-7 ]*[2-7])[a-z2-7]{4}(?:[ -]?[a-z2-7]{4}){3,15})(?![\w])")
# A BitLocker recovery password: eight blocks of six digits, each a multiple of 11 below 720896 (Microsoft's format).
_BITLOCKER = re.compile(r"(?<![\d-])\d{6}(?:-\d{6}){7}(?![\d-])")
_PRIVATE_HEADER = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[^-]*-----)?")
_SSH_PRIVATE = re.compile(r"(?:PuTTY-User-Key-File-\d|AGE-SECRET-KEY-1[0-9A-Z]{50,})")
_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-+/.@:])[A-Za-z0-9_\-+/]{24,}={0,3}(?![A-Za-z0-9_\-+/=@]|\.[A-Za-z])")


def _random_looking(token: str) -> bool:
    core = token.strip("=-_")
    if not (re.search(r"[a-z]", core) and re.search(r"[A-Z]", core) and re.search(r"\d", core)):
        return False  # hex digests, UUIDs, words joined by dashes: identifiers, not credentials
    if sum(c.isdigit() for c in core) < 3 or re.fullmatch(r"[A-Za-z]+(?:[-_][A-Za-z]+)*\d*", core):
        return False
    return shannon_entropy(core) >= 4.0


def _placeholder(value: str) -> bool:
    """"AKIAXXXXXXXXXXXXXXXX", "sk_live_************": a key's shape with nothing in it."""
    return bool(re.search(r"(.)\1{7,}", value)) or "example" in value.lower()


# An OpenSSH private key's body starts with its magic, "openssh-key-v1" in base64, header or not (a key pasted in part).
_OPENSSH_BODY = re.compile(r"(?<![A-Za-z0-9+/])b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/=]*")


def private_key_hits(text: str) -> list[Hit]:
    found = [Hit("private_key", *m.span()) for m in _PRIVATE_HEADER.finditer(text)]
    found.extend(Hit("private_key", *m.span()) for m in _SSH_PRIVATE.finditer(text))
    if "b3BlbnNzaC1rZXktdjE" in text:
        found.extend(Hit("private_key", *m.span()) for m in _OPENSSH_BODY.finditer(text)
                     if not any(h.start <= m.start() < h.end for h in found))
    return found


# "admin:i7dsOtt0aEbFEh1x_17LO" (curl -u, a basic-auth pair): the user name before the colon is no part of the key.
_USER_PART = re.compile(r"[A-Za-z][\w.-]{0,31}:(?=\S{8})")


def _without_user(hit: Hit, text: str) -> Hit:
    user = _USER_PART.match(text, hit.start, hit.end)
    return Hit(hit.kind, user.end(), hit.end) if user and not text[user.end(): hit.end].startswith("//") else hit


def key_hits(text: str, lowered: str) -> list[Hit]:
    found = [_without_user(hit, text) for hit in vendor_key_hits(text, lowered)]
    found.extend(Hit("access_key", *m.span()) for m in _PREFIXED.finditer(text) if not _placeholder(m.group(0)))
    found.extend(Hit("access_key", *m.span("value")) for m in _TOTP_SEED.finditer(text))
    found.extend(Hit("access_key", *m.span("value")) for m in _NAMED.finditer(text)
                 if not m.group("value").lower().startswith(("http", "www.")))
    found.extend(Hit("password", *m.span()) for m in _BITLOCKER.finditer(text)
                 if all(int(block) % 11 == 0 and int(block) < 720896 for block in m.group(0).split("-")))
    if len(text) >= 24:
        found.extend(Hit("access_key", *m.span()) for m in _TOKEN.finditer(text) if _random_looking(m.group(0))
                     and not PUBLIC_KEY_BEFORE.search(text[max(0, m.start() - 40): m.start()]))
    return found
