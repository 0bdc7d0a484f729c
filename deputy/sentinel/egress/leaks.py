"""Finding the user's data inside an outgoing request, plain or lightly disguised.

A hijacked model that wants to smuggle an email address out will put it in a query
string, a header or a body, often URL-encoded or base64-encoded so that a naive substring
check misses it. This module looks for each sensitive value as-is (case and whitespace
insensitive), URL-decoded (repeatedly), with JSON `\\uXXXX` escapes undone, base64 (std
and URL-safe alphabets, at every byte alignment, so the value is found inside a larger
encoded blob) and hex. Phone-like numbers match with any separators. This is a tripwire
for the common disguises, not a proof: a model can always spell a value out in a way no
pattern anticipates, which is why destinations matter as much as contents.
"""

from __future__ import annotations

import base64
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote_plus

MIN_VALUE_CHARS = 4
"""Shorter values are ignored: they would match everywhere."""
_MIN_ENCODED_CHARS = 8
_SEPARATORS = r"[\s().\-+/]{0,3}"
_NUMBERISH = re.compile(r"^[\d\s().\-+/]+$")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_WHITESPACE = re.compile(r"\s+")
_BASE64_URLSAFE = str.maketrans("-_", "+/")
_INSPECTABLE_ENCODINGS = ("", "identity", "gzip", "x-gzip", "deflate")
_MAX_INFLATED = 20_000_000


@dataclass(frozen=True)
class Needle:
    """One sensitive value, prepared for searching."""

    plain: str
    digits: re.Pattern[str] | None
    encoded: tuple[str, ...]
    hex: str | None


@dataclass(frozen=True)
class Leak:
    """Needle `key` was found in part `where`, in the disguise `how`."""

    key: int
    where: str
    how: str


def prepare(value: str, *, whole_numbers: bool = True, remember: bool = True) -> Needle | None:
    """Prepare `value` for searching, or None when it is too short to search for safely.

    With `whole_numbers` a number-like value only matches where it is not part of a longer
    number (a phone number inside an order id is a coincidence); secrets pass False, since
    any occurrence of a secret is a leak. `remember` caches the preparation for the next
    request; secrets pass False so no module-level cache outlives their use.
    """
    shape = _shape if remember else _shape.__wrapped__
    return shape(value.strip(), whole_numbers)


def body_text(headers: list[tuple[str, str]], body: bytes | str | None) -> tuple[str, str | None]:
    """A request body as searchable text, and why it could not be read (None when it could)."""
    if body is None or isinstance(body, str):
        return body or "", None
    encoding = next((v.strip().lower() for n, v in headers if n.lower() == "content-encoding"), "")
    if encoding not in _INSPECTABLE_ENCODINGS:
        return "", f"it is compressed with {encoding}"
    if encoding not in ("", "identity"):
        # wbits=47 accepts zlib and gzip headers; the cap stops a decompression bomb.
        inflater = zlib.decompressobj(wbits=47)
        try:
            body = inflater.decompress(body, _MAX_INFLATED)
        except zlib.error:
            return "", "its compression is broken"
        if inflater.unconsumed_tail:
            return "", "it is too large to inspect once decompressed"
    return body.decode("utf-8", errors="replace"), None


class Haystack:
    """The parts of a request (`(where, text)` pairs), decoded once for many searches."""

    def __init__(self, parts: list[tuple[str, str]]) -> None:
        self._parts = parts
        self._views: list[tuple[str, _Views]] | None = None
        self._everything = _Views((), ())

    def find_leaks(self, needles: list[tuple[int, Needle]]) -> list[Leak]:
        """Every (needle, part) pair where the needle's value appears, with the first disguise found.

        `needles` pairs each needle with the caller's key for it, which comes back in `Leak.key`.
        """
        if not needles:
            return []
        views = self._decoded()
        leaks = []
        for key, needle in needles:
            if _first_match(needle, self._everything) is None:
                continue
            for where, part in views:
                how = _first_match(needle, part)
                if how is not None:
                    leaks.append(Leak(key, where, how))
        return leaks

    def _decoded(self) -> list[tuple[str, _Views]]:
        if self._views is None:
            self._views = [(where, _views(text)) for where, text in self._parts if text]
            # One search over all parts at once; only a hit pays for finding which parts it was in.
            self._everything = _Views(
                (("", "\0".join(view for _, part in self._views for _, view in part.plain)),),
                ("\0".join(view for _, part in self._views for view in part.base64),),
            )
        return self._views


@lru_cache(maxsize=4096)
def _shape(value: str, whole_numbers: bool) -> Needle | None:
    plain = _plain(value).strip()
    if len(plain) < MIN_VALUE_CHARS:
        return None
    digits = None
    if _NUMBERISH.match(plain):
        only_digits = re.sub(r"\D", "", plain)
        if len(only_digits) < MIN_VALUE_CHARS:
            return None
        variants = {only_digits, only_digits[-10:]} if len(only_digits) > 10 else {only_digits}
        # Phone numbers are written with spaces, dashes, dots or brackets; any of them may appear.
        alternatives = "|".join(_SEPARATORS.join(variant) for variant in sorted(variants))
        digits = re.compile(rf"(?<!\d)(?:{alternatives})(?!\d)" if whole_numbers else alternatives)
    encoded = {
        fragment
        for form in {value, value.casefold()}
        for fragment in _base64_fragments(form.encode("utf-8"))
        if len(fragment) >= _MIN_ENCODED_CHARS
    }
    hex_form = value.encode("utf-8").hex()
    hex_needle = hex_form if len(hex_form) >= _MIN_ENCODED_CHARS else None
    return Needle(plain, digits, tuple(sorted(encoded)), hex_needle)


@dataclass(frozen=True)
class _Views:
    plain: tuple[tuple[str, str], ...]
    base64: tuple[str, ...]


def _views(text: str) -> _Views:
    plain = [("as is", _plain(text))]
    base64_views = [text.translate(_BASE64_URLSAFE)]
    current = text
    for _ in range(3):
        decoded = unquote_plus(current)
        if decoded == current:
            break
        plain.append(("URL-encoded", _plain(decoded)))
        base64_views.append(decoded.translate(_BASE64_URLSAFE))
        current = decoded
    if "\\u" in current:
        plain.append(("escaped", _plain(_UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), current))))
    return _Views(tuple(plain), tuple(base64_views))


def _first_match(needle: Needle, views: _Views) -> str | None:
    for how, view in views.plain:
        if needle.digits is not None:
            if needle.digits.search(view):
                return how
        elif needle.plain in view:
            return how
    for view in views.base64:
        if any(fragment in view for fragment in needle.encoded):
            return "base64-encoded"
    if needle.hex is not None and needle.hex in views.plain[0][1]:
        return "hex-encoded"
    return None


def _plain(text: str) -> str:
    return _WHITESPACE.sub(" ", text.casefold())


def _base64_fragments(data: bytes) -> list[str]:
    """The part of base64(x + data + y) that depends only on `data`, for each alignment of x."""
    fragments = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii").rstrip("=")
        start = -(-8 * offset // 6)
        end = (8 * (offset + len(data))) // 6
        fragments.append(encoded[start:end])
    return fragments
