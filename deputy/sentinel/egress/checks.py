"""The individual egress rules, each adding denials or questions to a `Findings`.

Split from `deputy.sentinel.egress.policy` so the entry point stays readable; every function here
is pure and takes exactly what it needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from ipaddress import ip_address, ip_network

from deputy.sentinel.egress.context import EgressContext, EgressPolicy
from deputy.sentinel.egress.ip import (
    IPAddress,
    PrivateExceptions,
    address_problem,
    embedded_ipv4,
    is_metadata_address,
    is_metadata_name,
    name_problem,
    parse_private_exceptions,
)
from deputy.sentinel.egress.leaks import Haystack, body_text, prepare
from deputy.sentinel.egress.url import (
    Destination,
    UrlProblem,
    is_within,
    matches_pattern,
    normalise_domain,
    parse_destination,
)
from deputy.sentinel.policy import Risk, Verdict

_NEVER = "Deputy never contacts it."
_NOT_UNLESS_ALLOWED = "Deputy does not contact private networks unless the operator allows it."


@dataclass
class Findings:
    """Reasons collected by the rules; the strictest verdict wins."""

    denials: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    exfiltration: list[str] = field(default_factory=list)
    sensitive: bool = False
    opened: bool = False
    """The destination is private but the operator opened it."""

    def deny(self, reason: str) -> None:
        if reason not in self.denials:
            self.denials.append(reason)

    def ask(self, reason: str, *, sensitive: bool = False) -> None:
        self.sensitive = self.sensitive or sensitive
        if reason not in self.questions:
            self.questions.append(reason)

    def decision(self, host: str, context: EgressContext) -> dict[str, object]:
        """Fields of the resulting `EgressDecision`."""
        if self.denials:
            verdict, reasons, risk = Verdict.deny, self.denials + self.questions, Risk.high
        elif self.questions:
            verdict, reasons = Verdict.ask, self.questions
            risk = Risk.high if self.sensitive else Risk.medium
        else:
            reason = f"The operator allows Deputy to reach {host}." if self.opened else _allow_reason(host, context)
            verdict, reasons, risk = Verdict.allow, [reason], Risk.low
        return {"verdict": verdict, "reasons": reasons, "risk": risk, "exfiltration": self.exfiltration}


def check_destination(
    destination: Destination, resolved_ips: list[str], connector: str, policy: EgressPolicy, findings: Findings
) -> None:
    """Metadata services, deny-lists, private addresses (literal and resolved), allow-lists."""
    host = destination.host
    exceptions = parse_private_exceptions(tuple(policy.allow_private_networks))
    endpoint_open = exceptions.allows_endpoint(host, destination.port)
    resolved = _parse_addresses(resolved_ips, host, findings)
    addresses = [destination.ip] if destination.ip is not None else []
    if any(_deny_entry_hits(entry, host, addresses + resolved) for entry in policy.deny_domains):
        findings.deny(f"{host} is on the operator's list of sites Deputy must never contact.")
    if is_metadata_name(host):
        findings.deny(f"The address {host} is the cloud metadata service; {_NEVER}")
    elif destination.ip is not None:
        _check_address(host, destination.ip, False, endpoint_open, exceptions, findings)
    elif problem := name_problem(host):
        if endpoint_open or (resolved and all(exceptions.allows_address(a) for a in resolved)):
            findings.opened = True
        else:
            findings.deny(f"The name {host} {problem}; {_NOT_UNLESS_ALLOWED}")
            # Where a local name leads adds nothing for the user, unless it is the metadata service.
            resolved = [address for address in resolved if is_metadata_address(address)]
    for address in resolved:
        if address != destination.ip:
            _check_address(host, address, True, endpoint_open, exceptions, findings)
    allowed = policy.connector_allow.get(connector)
    if allowed is not None and not any(matches_pattern(host, pattern) for pattern in allowed):
        sites = ", ".join(allowed) or "no site at all"
        findings.deny(f"The {connector} connector may only contact {sites}; {host} is not one of them.")


def _check_address(
    host: str, address: IPAddress, named: bool, endpoint_open: bool, exceptions: PrivateExceptions, findings: Findings
) -> None:
    """Deny `address` (the URL's literal IP, or what the name `host` resolved to) unless opened."""
    subject = f"The name {host} leads to {address}, which" if named else f"The address {host}"
    if is_metadata_address(address):
        inner = embedded_ipv4(address)
        what = f"hides {inner}, the cloud metadata service" if inner else "is the cloud metadata service"
        findings.deny(f"{subject} {what}; {_NEVER}")
        return
    problem = address_problem(address)
    if problem is None:
        return
    if endpoint_open or exceptions.allows_address(address):
        findings.opened = True
    else:
        findings.deny(f"{subject} {problem}, not the public internet; {_NOT_UNLESS_ALLOWED}")


def check_body_size(body: bytes | str | None, limit: int, findings: Findings) -> None:
    """Deny bodies over the policy's size limit."""
    size = len(body.encode("utf-8") if isinstance(body, str) else body or b"")
    if size > limit:
        findings.deny(
            f"The request body is {_megabytes(size)}, more than the {_megabytes(limit)} Deputy lets a request carry."
        )


def check_data(
    destination: Destination,
    headers: list[tuple[str, str]],
    body: bytes | str | None,
    context: EgressContext,
    findings: Findings,
) -> None:
    """Secrets may only reach their own domains; private and tainted data only known sites."""
    host = destination.host
    text, opaque = body_text(headers, body)
    haystack = Haystack(_parts(destination, headers, text))
    strays = [(i, s) for i, s in enumerate(context.secrets) if not any(matches_pattern(host, d) for d in s.domains)]
    needles = [
        (i, n) for i, s in strays if (n := prepare(s.value.get_secret_value(), whole_numbers=False, remember=False))
    ]
    for leak in haystack.find_leaks(needles):
        secret = context.secrets[leak.key]
        findings.deny(
            f"This request would send {secret.label} to {host}, but it may only go to {', '.join(secret.domains)}."
        )
        findings.exfiltration.append(f"{secret.label}: in {leak.where} ({leak.how}), to {host}")
    unreadable = f"Deputy cannot look inside this request's body ({opaque})"
    if opaque and strays:
        findings.deny(f"{unreadable}, so it cannot make sure none of your secrets goes to {host}.")
    if _known(host, context):
        return
    if opaque:
        findings.ask(f"{unreadable}, so it cannot tell what data it would send to {host}.", sensitive=True)
    labelled = [(label, value) for value, label in context.private_values.items()]
    labelled += [
        (f"the value '{_short(value)}' (which came from {origin})", value)
        for value, origin in context.tainted_values.items()
        if not _names_host(value, host)
    ]
    needles = [(i, n) for i, (_, value) in enumerate(labelled) if (n := prepare(value)) is not None]
    for leak in haystack.find_leaks(needles):
        label = labelled[leak.key][0]
        findings.ask(
            f"This request would send {label} to {host}, a site you have not asked for or used in this goal.",
            sensitive=True,
        )
        findings.exfiltration.append(f"{label}: in {leak.where} ({leak.how}), to {host}")


def check_tainted_target(host: str, context: EgressContext, findings: Findings) -> None:
    """A site that only untrusted content pointed to needs the user's yes before Deputy goes there."""
    if _known(host, context):
        return
    for value, origin in context.tainted_values.items():
        if _names_host(value, host):
            findings.ask(f"The site {host} came only from {origin}, not from you, so I ask before opening it.")
            return


def _known(host: str, context: EgressContext) -> bool:
    return _trusted(host, context) or host in _canonical_set(frozenset(context.visited_domains))


def _trusted(host: str, context: EgressContext) -> bool:
    return any(is_within(host, domain) for domain in context.trusted_domains)


def _allow_reason(host: str, context: EgressContext) -> str:
    if _trusted(host, context):
        return f"{host} is a site you asked for or approved."
    if _known(host, context):
        return f"Deputy already used {host} in this goal."
    return f"{host} is a public site and the request carries none of your private data."


@lru_cache(maxsize=256)
def _canonical_set(domains: frozenset[str]) -> frozenset[str]:
    canonical = set()
    for domain in domains:
        try:
            canonical.add(normalise_domain(domain))
        except UrlProblem:
            continue
    return frozenset(canonical)


@lru_cache(maxsize=4096)
def _value_host(value: str) -> str | None:
    """The host a tainted value points at: a URL's host, an email's domain, a bare domain."""
    text = value.strip()
    if not text or any(ch.isspace() for ch in text) or "." not in text:
        return None
    try:
        destination = parse_destination(text if "://" in text else f"http://{text}")
    except UrlProblem:
        return None
    # "3.50" parses as an IPv4 address; only a value written as an address names one.
    if destination.ip is not None and text != destination.host:
        return None
    return destination.host


def _names_host(value: str, host: str) -> bool:
    named = _value_host(value)
    return named is not None and (host == named or host.endswith("." + named))


def _parse_addresses(resolved_ips: list[str], host: str, findings: Findings) -> list[IPAddress]:
    addresses = []
    for text in resolved_ips:
        try:
            addresses.append(ip_address(text.split("%", 1)[0]))
        except ValueError:
            findings.deny(f"DNS gave an unreadable address for {host}, so Deputy does not contact it.")
    return addresses


def _deny_entry_hits(entry: str, host: str, addresses: list[IPAddress]) -> bool:
    try:
        network = ip_network(entry.strip(), strict=False)
    except ValueError:
        return is_within(host, entry)
    return any(address.version == network.version and address in network for address in addresses)


def _parts(destination: Destination, headers: list[tuple[str, str]], body: str) -> list[tuple[str, str]]:
    address = f"{destination.userinfo}@{destination.host}" if destination.userinfo else destination.host
    parts = [
        ("the address", address),
        ("the path", destination.path),
        ("the query string", destination.query),
        ("the fragment", destination.fragment),
    ]
    parts += [(f"the {name} header", value) for name, value in headers if name.lower() != "host"]
    parts.append(("the body", body))
    return parts


def _short(value: str, limit: int = 40) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"
