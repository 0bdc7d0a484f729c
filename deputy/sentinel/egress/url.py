"""Where a URL really leads: scheme, host and port, parsed the way browsers parse them.

Guards that parse URLs differently from the client that sends them get bypassed
(`http://good.com\\@evil.com/`, `http://2130706433/`, `http://127.1/`), so this follows the
WHATWG URL standard for http(s): backslashes are slashes, the userinfo ends at the *last*
`@`, hosts are percent-decoded and IDNA-mapped, and a host that ends in a number is an
IPv4 address in any of the legacy notations (decimal, octal, hex, short forms). Pure: no
DNS, no IO.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from ipaddress import IPv4Address, IPv6Address
from urllib.parse import unquote_to_bytes

import idna

DEFAULT_PORTS = {"http": 80, "https": 443}

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")
# WHATWG forbidden domain code points: a host holding one is not a valid host at all.
_FORBIDDEN_IN_DOMAIN = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")
_HEX_NUMBER = re.compile(r"^0[xX][0-9A-Fa-f]*$")
_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))
_DIGITS = {8: frozenset("01234567"), 10: frozenset("0123456789"), 16: frozenset("0123456789abcdefABCDEF")}


class UrlProblem(ValueError):
    """The URL cannot be read as an address; the message is a plain sentence."""


@dataclass(frozen=True)
class Destination:
    """The parts of an http(s) URL that decide where a request goes and what it carries."""

    scheme: str
    host: str
    """Canonical host: lowercase ASCII (punycode) name without trailing dot, or an IP."""
    port: int
    ip: IPv4Address | IPv6Address | None
    """The host as an address when the URL names an IP literal, in whatever notation."""
    userinfo: str
    path: str
    query: str
    fragment: str


def url_scheme(url: str) -> str | None:
    """The lowercase scheme of `url`, or None when it has none."""
    match = _SCHEME.match(_clean(url))
    return match.group(1).lower() if match else None


def parse_destination(url: str) -> Destination:
    """Parse an http or https URL; raise `UrlProblem` if it is anything else or malformed."""
    text = _clean(url)
    scheme = url_scheme(text)
    if scheme not in DEFAULT_PORTS:
        raise UrlProblem("Only http and https addresses can be parsed as destinations.")
    # Special schemes treat "\" as "/" and ignore any number of slashes before the host.
    rest = text[len(scheme) + 1 :].replace("\\", "/").lstrip("/")
    end = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    authority, remainder = rest[:end], rest[end:]
    userinfo, _, hostport = authority.rpartition("@")
    host_text, port_text = _split_host_port(hostport)
    host, ip = parse_host(host_text)
    port = _parse_port(port_text, scheme)
    remainder, _, fragment = remainder.partition("#")
    path, _, query = remainder.partition("?")
    return Destination(scheme, host, port, ip, userinfo, path or "/", query, fragment)


def parse_host(text: str) -> tuple[str, IPv4Address | IPv6Address | None]:
    """Canonicalise a URL host: `(host, ip)` where `ip` is set for IP literals."""
    if text.startswith("["):
        if not text.endswith("]") or "%" in text:
            raise UrlProblem("The address has a malformed IPv6 host.")
        try:
            address = IPv6Address(text[1:-1])
        except ValueError:
            raise UrlProblem("The address has a malformed IPv6 host.") from None
        return address.compressed, address
    try:
        decoded = unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        raise UrlProblem("The address has a host name that is not valid text.") from None
    domain = _to_ascii(decoded)
    if not domain or _FORBIDDEN_IN_DOMAIN.search(domain):
        raise UrlProblem("The address has no valid host name.")
    if _ends_in_number(domain):
        address = _parse_ipv4(domain)
        return str(address), address
    domain = domain.removesuffix(".")
    if not domain or "" in domain.split("."):
        raise UrlProblem("The address has an empty part in its host name.")
    return domain, None


@lru_cache(maxsize=4096)
def normalise_domain(name: str) -> str:
    """Canonical form of a domain or IP written in a policy or context (no wildcard).

    A full URL is accepted too (people paste them), and stands for its host.
    """
    text = name.strip()
    if "://" in text:
        return parse_destination(text).host
    if text.count(":") >= 2 and not text.startswith("["):
        text = f"[{text}]"
    return parse_host(text)[0]


@lru_cache(maxsize=4096)
def _pattern_parts(pattern: str) -> tuple[bool, str]:
    text = pattern.strip()
    if text.startswith("*."):
        return True, normalise_domain(text[2:])
    return False, normalise_domain(text)


def matches_pattern(host: str, pattern: str) -> bool:
    """Allow-list matching: `example.com` is exact; `*.example.com` is any subdomain, not the apex."""
    try:
        wildcard, domain = _pattern_parts(pattern)
    except UrlProblem:
        return False
    return host.endswith("." + domain) if wildcard else host == domain


def is_within(host: str, domain: str) -> bool:
    """True when `host` is `domain` or one of its subdomains (a `*.` prefix is ignored)."""
    try:
        _, canonical = _pattern_parts(domain)
    except UrlProblem:
        return False
    return host == canonical or host.endswith("." + canonical)


def _clean(url: str) -> str:
    # Browsers strip surrounding C0 controls and spaces and drop tabs/newlines anywhere.
    return _TAB_OR_NEWLINE.sub("", url.strip(_C0_AND_SPACE))


def _split_host_port(hostport: str) -> tuple[str, str]:
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            raise UrlProblem("The address has a malformed IPv6 host.")
        after = hostport[close + 1 :]
        if after and not after.startswith(":"):
            raise UrlProblem("The address has text after its IPv6 host.")
        return hostport[: close + 1], after[1:]
    host, _, port = hostport.partition(":")
    return host, port


def _parse_port(text: str, scheme: str) -> int:
    if text == "":
        return DEFAULT_PORTS[scheme]
    if not text.isascii() or not text.isdigit() or int(text) > 65535:
        raise UrlProblem("The address has an invalid port number.")
    return int(text)


def _to_ascii(host: str) -> str:
    if host.isascii():
        lowered = host.lower()
        if "xn--" in lowered:
            # A malformed punycode label is rejected by browsers; reject it here too.
            try:
                idna.decode(lowered.rstrip("."))
            except (idna.IDNAError, UnicodeError, ValueError):
                raise UrlProblem("The address has an invalid international host name.") from None
        return lowered
    try:
        # UTS 46 mapping as browsers do: full-width letters and dots, case, compatibility forms.
        return idna.encode(host, uts46=True).decode("ascii").lower()
    except (idna.IDNAError, UnicodeError, ValueError):
        raise UrlProblem("The address has an invalid international host name.") from None


def _ends_in_number(domain: str) -> bool:
    labels = domain.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    return (last != "" and last.isascii() and last.isdigit()) or bool(_HEX_NUMBER.match(last))


def _parse_ipv4(domain: str) -> IPv4Address:
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise UrlProblem("The address has a malformed IPv4 host.")
    numbers = [_parse_ipv4_number(part) for part in parts]
    if any(number > 255 for number in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise UrlProblem("The address has an IPv4 host out of range.")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number * 256 ** (3 - index)
    return IPv4Address(value)


def _parse_ipv4_number(part: str) -> int:
    if part == "":
        raise UrlProblem("The address has a malformed IPv4 host.")
    radix, digits = 10, part
    if part[:2] in ("0x", "0X"):
        radix, digits = 16, part[2:]
    elif len(part) > 1 and part.startswith("0"):
        radix, digits = 8, part[1:]
    if digits == "":
        return 0
    if not set(digits) <= _DIGITS[radix]:
        raise UrlProblem("The address has a malformed IPv4 host.")
    return int(digits, radix)


__all__ = [
    "DEFAULT_PORTS",
    "Destination",
    "UrlProblem",
    "is_within",
    "matches_pattern",
    "normalise_domain",
    "parse_destination",
    "parse_host",
    "url_scheme",
]
