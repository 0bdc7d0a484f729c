"""A secret split over two messages: "the wifi password is" ... "Hunter2!".

A message that names a password, PIN or code but gives no value may be the first half of
one. The chat front end holds it briefly (sealed, short TTL) and reads the next message
with it: if the next one is a lone token, that token is the value.
"""

from __future__ import annotations

import re

from deputy.core.secret_scan.hits import Hit

_LEAD = re.compile(
    r"(?i)(?:pass(?:word|wort|wd|code|phrase)?|pwd?|pw|kennwort|mot de passe|mdp|contrase[ñn]a|senha|wachtwoord|"
    r"has[łl]o|parola|l[öo]senord|пароль|パスワード|密码|비밀번호|pin|cvv|cvc|security code|code|otp|token|"
    r"api[ _-]?key|secret|seed|recovery|iban|ssn|passport|login|username|user)\b[^\n]{0,60}$"
)

_SECRET_WORD = re.compile(
    r"(?i)\b(?:pass(?:word|wort|wd|code|phrase)?|pwd?|pw|kennwort|mot de passe|mdp|contrase[ñn]a|senha|wachtwoord|"
    r"has[łl]o|parola|l[öo]senord|pin|cvv|cvc|security code|code|otp|token|api[ _-]?key|secret|seed|recovery)\b|"
    r"пароль|パスワード|密码|비밀번호")
_LOGIN_WORD = re.compile(r"(?i)\b(?:login|username|user|iban|ssn|passport)\b")
_LONE = re.compile(r"(?i)\s*(?:(?:pass(?:word)?|pw|pwd|pin|code|key|token|passwort|mdp)\s*[:=]?\s*)?"
                   r"[\"'“‘]?(?P<value>[^\s\"'”’]{4,128}?)[\"'”’]?[.!]?\s*")


def is_lead(text: str) -> bool:
    """True when `text` names a secret but may be waiting for its value in the next message.

    "the wifi password is" and "password in next msg" wait; "my lock code is wombat-2468" gave its
    value already; "router login: admin" gave the user name, so the password is still to come.
    """
    if _LEAD.search(text[-120:]) is None or len(text) > 240 or text.rstrip().endswith("?"):
        return False  # a question about a password announces no value
    secret_words = list(_SECRET_WORD.finditer(text))
    if not secret_words:
        return bool(_LOGIN_WORD.search(text))
    return not _has_value(text[secret_words[-1].start():])


def _has_value(tail: str) -> bool:
    """Whether a word after the lead's "is" / ":" already is the value."""
    parts = re.split(r"(?i)\b(?:is|are|was|ist|lautet|est|es|é|è|será|sera)\b|[:=]", tail, maxsplit=1)
    return len(parts) == 2 and bool(parts[1].strip(" .!,;:=-–\n"))


def lone_value(text: str) -> Hit | None:
    """The next message, if it is a single token: the value the lead announced."""
    if text.lstrip().startswith("/"):
        return None  # a command ("/lock") is never the second half of a secret
    match = _LONE.fullmatch(text)
    if match is None:
        return None
    value = match.group("value")
    if not (re.search(r"[\d\W_]", value) or (re.search(r"[a-z]", value) and re.search(r"[A-Z]", value[1:]))):
        return None  # "thanks", "Great": a reply, not a password (those have digits, symbols or inner capitals)
    return Hit("password", *match.span("value"))
