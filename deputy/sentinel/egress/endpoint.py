"""The egress policy for connections that are not web requests: mail, calendar and MCP servers.

IMAP, SMTP, CalDAV and MCP-over-HTTP connect to a server the user typed in once (on the
connect page, or with `/connect mcp`), so the question is only *where*: the server's
address must be on the public internet unless the operator opened it with
DEPUTY_EGRESS_ALLOW. `review_endpoint` answers that with the same rules as web requests
(`check_destination`), and `refusal_message` turns a denial into the sentence the user
reads: what is wrong and what to do. Pure: the IO edge (`deputy.sentinel.egress.transports.sockets`)
resolves the name and acts on the decision.
"""

from __future__ import annotations

from ipaddress import ip_address

from deputy.sentinel.egress.policy import EgressDecision, EgressPolicy
from deputy.sentinel.egress.checks import Findings, check_destination
from deputy.sentinel.egress.ip import IPAddress, address_problem, is_metadata_address, is_metadata_name, name_problem
from deputy.sentinel.egress.url import UrlProblem, parse_destination
from deputy.sentinel.policy import Risk, Verdict

ALLOW_SETTING = "DEPUTY_EGRESS_ALLOW"
_OPERATOR_HINT = f"If this is your own server, the operator can allow it with {ALLOW_SETTING}."
_PUBLIC_ONLY = "Deputy only connects to public servers."


def endpoint_text(host: str, port: int) -> str:
    """`host:port` as the user would write it (IPv6 in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def review_endpoint(
    host: str, port: int, resolved_ips: list[str], connector: str, policy: EgressPolicy
) -> EgressDecision:
    """May Deputy open a connection to `host:port`, which DNS resolved to `resolved_ips`?

    Every resolved address must pass: one private answer among public ones is enough to
    refuse, since the client would pick any of them.
    """
    try:
        destination = parse_destination(f"http://{endpoint_text(host, port)}/")
    except UrlProblem as problem:
        return EgressDecision(
            verdict=Verdict.deny, reasons=[f"{problem} Deputy does not contact an address it cannot read."],
            risk=Risk.high, host=host,
        )
    findings = Findings()
    check_destination(destination, resolved_ips, connector, policy, findings)
    if findings.denials:
        return EgressDecision(verdict=Verdict.deny, reasons=findings.denials, risk=Risk.high, host=destination.host)
    where = endpoint_text(destination.host, port)
    reason = f"The operator allows Deputy to reach {where}." if findings.opened else f"{where} is a public server."
    return EgressDecision(verdict=Verdict.allow, reasons=[reason], risk=Risk.low, host=destination.host)


def refusal_message(host: str, resolved_ips: list[str], decision: EgressDecision) -> str:
    """The plain sentence shown when a connection to `host` was refused: what is wrong, what to do."""
    literal = _address(host)
    if is_metadata_name(host) or any(is_metadata_address(a) for a in _addresses(resolved_ips, literal)):
        return (
            "That server's address is the cloud metadata service of the machine Deputy runs on, which Deputy "
            "never contacts. Check the server address you entered."
        )
    for address in _addresses(resolved_ips, literal):
        problem = address_problem(address)
        if problem is not None:
            what = _kind(problem)
            if literal is not None:
                return f"That server's address ({address}) is {what}; {_PUBLIC_ONLY} {_OPERATOR_HINT}"
            return f"That server ({host}) leads to {address}, which is {what}; {_PUBLIC_ONLY} {_OPERATOR_HINT}"
    if literal is None and name_problem(host.lower()):
        return f"That server's name ({host}) only works on a local network; {_PUBLIC_ONLY} {_OPERATOR_HINT}"
    return "Deputy won't connect to that server. " + " ".join(decision.reasons)


def _kind(problem: str) -> str:
    """A noun phrase for an `address_problem` predicate."""
    if "loopback" in problem or "reaches this computer" in problem:
        return "this computer's own address, not a public server"
    if "link-local" in problem:
        return "a link-local network address"
    if "private" in problem or "shared" in problem:
        return "a private network address"
    return "not a public internet address"


def _address(host: str) -> IPAddress | None:
    try:
        return ip_address(host.strip("[]"))
    except ValueError:
        return None


def _addresses(resolved_ips: list[str], literal: IPAddress | None) -> list[IPAddress]:
    found: list[IPAddress] = [literal] if literal is not None else []
    for text in resolved_ips:
        try:
            found.append(ip_address(text.split("%", 1)[0]))
        except ValueError:
            continue
    return found
