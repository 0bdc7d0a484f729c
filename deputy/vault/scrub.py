"""Remove known secrets, in their common encodings, from text and structures before they leave.

The executor builds a `Scrubber` from every secret it touched for a user and passes every
tool result, log line and error detail through it before the agent, the audit log or the
chat sees it. All spellings of all secrets are compiled once into one regular expression
shaped as a trie, so a megabyte is scanned in one pass however many secrets there are.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any, Iterable
from urllib.parse import quote, quote_plus

from pydantic import SecretStr

from deputy.core.records.card_numbers import looks_like_card
from deputy.vault.patterns import REDACTED, redact_patterns

MIN_SECRET_LENGTH = 4
"""Shorter secrets are only redacted where they are a whole structured value: as free text
they would match inside ordinary words."""

_MIN_BASE64_CORE = MIN_SECRET_LENGTH

# Keys whose value is a secret whatever it looks like (compared lowercased, without - and _).
_SECRET_KEYS = frozenset({
    "password", "passwd", "pwd", "passphrase", "secret", "clientsecret", "apikey", "apisecret", "accesstoken",
    "refreshtoken", "idtoken", "authtoken", "sessiontoken", "token", "bearer", "authorization",
    "proxyauthorization", "cookie", "setcookie", "cvv", "cvv2", "cvc", "securitycode", "cardnumber", "pan",
    "privatekey",
})


def _percent_forms(secret: str) -> set[str]:
    forms = {quote(secret, safe=""), quote(secret), quote_plus(secret), quote_plus(secret, safe="")}
    # Percent-escapes are case-insensitive; servers echo %2f as often as %2F.
    lowered = {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), form) for form in forms}
    return forms | lowered


def _base64_forms(raw: bytes) -> set[str]:
    """Spellings of `raw` inside any base64 text, at each of the three byte alignments.

    Inside a larger encoded payload (e.g. `user:password` in a Basic header, a JSON blob)
    the secret starts at some byte offset; base64 characters that depend only on the
    secret's bytes are the same for every payload with the same offset modulo 3.
    """
    forms: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms.update({whole, whole.rstrip("=")})
        for offset in range(3):
            encoded = encode(b"\0" * offset + raw).decode("ascii")
            end = offset + len(raw)
            # Character j covers bits 6j..6j+5, i.e. bytes 6j//8 .. (6j+5)//8.
            inside = [j for j in range(len(encoded)) if (6 * j) // 8 >= offset and (6 * j + 5) // 8 < end]
            if len(inside) >= _MIN_BASE64_CORE:
                forms.add(encoded[inside[0]: inside[-1] + 1])
    return forms


def encodings(secret: str) -> set[str]:
    """Every spelling of `secret` the scrubber looks for (raw, URL, JSON, base64)."""
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    forms |= _percent_forms(secret)
    forms |= _base64_forms(secret.encode("utf-8"))
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def _trie_pattern(words: Iterable[str]) -> str:
    """One regex matching any of `words`, longest first, factored by common prefixes.

    A flat alternation tries every word at every position; a trie tries only the words
    that share the characters read so far.
    """
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        parts: list[str] = []
        # Walk single-child chains iteratively: secrets can be kilobytes long (PEM keys),
        # deeper than Python's recursion limit.
        while len(node) == 1 and "" not in node:
            (char, node), = node.items()
            parts.append(re.escape(char))
        if not node or list(node) == [""]:
            return "".join(parts)
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        group = "(?:" + "|".join(branches) + ")"
        return "".join(parts) + (group + "?" if "" in node else group)

    return build(root)


def _reveal(secret: str | SecretStr) -> str:
    return secret.get_secret_value() if isinstance(secret, SecretStr) else secret


class Scrubber:
    """Replaces known secrets and secret-looking patterns with `[redacted]`.

    Built once from the secrets a job touched (plain strings or `SecretStr`); immutable
    and safe to share between threads.
    """

    def __init__(self, secrets: Iterable[str | SecretStr] = ()) -> None:
        values = {_reveal(secret) for secret in secrets}
        values.discard("")
        self._exact = frozenset(values)
        spellings: set[str] = set()
        for value in values:
            if len(value) >= MIN_SECRET_LENGTH:
                spellings |= encodings(value)
        self._known = re.compile(_trie_pattern(spellings)) if spellings else None

    def __repr__(self) -> str:
        return f"<Scrubber of {len(self._exact)} secrets>"

    def with_secrets(self, secrets: Iterable[str | SecretStr]) -> "Scrubber":
        """A new scrubber that also knows `secrets`."""
        return Scrubber([*self._exact, *secrets])

    def scrub(self, text: str) -> str:
        """`text` with every known secret (any spelling) and every secret pattern redacted."""
        if self._known is not None:
            text = self._known.sub(REDACTED, text)
        return redact_patterns(text)

    def scrub_obj(self, obj: Any) -> Any:
        """A copy of `obj` (dicts, lists, tuples, strings, bytes) with secrets redacted.

        Values under secret-sounding keys (password, token, authorization...) are redacted
        whatever they hold, and a string equal to a known secret is redacted even when the
        secret is shorter than `MIN_SECRET_LENGTH`.
        """
        if isinstance(obj, str):
            if obj in self._exact or obj.strip() in self._exact:
                return REDACTED
            return self.scrub(obj)
        if isinstance(obj, dict):
            return {self._scrub_key(key): self._scrub_value(key, value) for key, value in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.scrub_obj(item) for item in obj)
        if isinstance(obj, (bytes, bytearray)):
            try:
                return self.scrub_obj(bytes(obj).decode("utf-8")).encode("utf-8")
            except UnicodeDecodeError:
                return obj
        if isinstance(obj, int) and not isinstance(obj, bool):
            # A card number sent as a JSON number is still a card number.
            return REDACTED if looks_like_card(str(obj)) or str(obj) in self._exact else obj
        return obj

    def _scrub_key(self, key: Any) -> Any:
        return self.scrub(key) if isinstance(key, str) else key

    def _scrub_value(self, key: Any, value: Any) -> Any:
        if isinstance(key, str) and value is not None and not isinstance(value, bool):
            if re.sub(r"[-_\s]", "", key).lower() in _SECRET_KEYS and value not in ("", [], {}):
                return REDACTED
        return self.scrub_obj(value)
