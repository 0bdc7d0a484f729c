"""Which addresses are not the public internet, and which of those the operator opened up.

Server-side request forgery is the classic way a hijacked agent reaches what it must not:
the machine itself, the local network, the cloud metadata service that hands out the
host's credentials. Every address is classified here, including IPv6 forms that carry an
IPv4 address inside them (IPv4-mapped, IPv4-compatible, NAT64, 6to4), since operating
systems route those to the embedded IPv4 address. Pure: no DNS, no IO.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from ipaddress import (
    IPv4Address,
    IPv4Network,
    IPv6Address,
    IPv6Network,
    ip_address,
    ip_network,
)

from deputy.sentinel.egress.url import UrlProblem, parse_destination

IPAddress = IPv4Address | IPv6Address

METADATA_ADDRESSES = frozenset(
    ip_address(text) for text in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
"""Cloud instance metadata services (AWS, ECS, GCP, Azure, Alibaba): they hand out credentials."""

METADATA_NAMES = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"}
)

# Names that never mean a public website: they resolve on the local machine or network
# (Chromium answers *.localhost itself, without asking DNS).
_LOCAL_SUFFIXES = ("localhost", "local", "internal", "home.arpa", "lan", "localdomain", "intranet")

_BLOCKED_NETWORKS: tuple[tuple[IPv4Network | IPv6Network, str], ...] = tuple(
    (ip_network(network), meaning)
    for network, meaning in (
        ("0.0.0.0/8", "is in the 'this network' range, which reaches this computer"),
        ("10.0.0.0/8", "is on a private network"),
        ("100.64.0.0/10", "is on a carrier-grade NAT (shared) network"),
        ("127.0.0.0/8", "is this computer (loopback)"),
        ("169.254.0.0/16", "is on a link-local network"),
        ("172.16.0.0/12", "is on a private network"),
        ("192.0.0.0/24", "is in a range reserved for network protocols"),
        ("192.0.2.0/24", "is in a range reserved for documentation"),
        ("192.168.0.0/16", "is on a private network"),
        ("198.18.0.0/15", "is in a range reserved for network benchmarks"),
        ("198.51.100.0/24", "is in a range reserved for documentation"),
        ("203.0.113.0/24", "is in a range reserved for documentation"),
        ("224.0.0.0/4", "is a multicast address"),
        ("240.0.0.0/4", "is in a reserved range"),
        ("::/128", "is the unspecified address"),
        ("::1/128", "is this computer (loopback)"),
        ("64:ff9b:1::/48", "is on a private translation network"),
        ("100::/64", "is in a discard range"),
        ("2001:db8::/32", "is in a range reserved for documentation"),
        ("fc00::/7", "is on a private network (a unique local address)"),
        ("fe80::/10", "is on a link-local network"),
        ("fec0::/10", "is on a private network (a site-local address)"),
        ("ff00::/8", "is a multicast address"),
    )
)

_EMBEDDING_NETWORKS = (
    (ip_network("::ffff:0:0/96"), "an IPv4-mapped address"),
    (ip_network("::/96"), "an IPv4-compatible address"),
    (ip_network("64:ff9b::/96"), "a NAT64 address"),
)


def embedded_ipv4(address: IPAddress) -> IPv4Address | None:
    """The IPv4 address an IPv6 address routes to, if it embeds one."""
    if isinstance(address, IPv4Address):
        return None
    if address.sixtofour is not None:
        return address.sixtofour
    for network, _ in _EMBEDDING_NETWORKS:
        if address in network and address not in (IPv6Address("::"), IPv6Address("::1")):
            return IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def is_metadata_address(address: IPAddress) -> bool:
    """True for a cloud metadata service address, also when hidden inside an IPv6 address."""
    inner = embedded_ipv4(address)
    return address in METADATA_ADDRESSES or (inner is not None and inner in METADATA_ADDRESSES)


def is_metadata_name(host: str) -> bool:
    """True for the host names of cloud metadata services."""
    return host in METADATA_NAMES


@lru_cache(maxsize=4096)
def address_problem(address: IPAddress) -> str | None:
    """Why `address` is not on the public internet, as a predicate ("is this computer (loopback)")."""
    inner = embedded_ipv4(address)
    if inner is not None:
        inner_problem = address_problem(inner)
        return f"hides {inner}, which {inner_problem}" if inner_problem else None
    for network, meaning in _BLOCKED_NETWORKS:
        if address.version == network.version and address in network:
            return meaning
    # Whatever the table misses, the standard library's registry of special ranges catches.
    return None if address.is_global else "is not a public internet address"


def name_problem(host: str) -> str | None:
    """Why a host *name* is a local one, as a predicate, or None if it looks like a public name."""
    if any(host == suffix or host.endswith("." + suffix) for suffix in _LOCAL_SUFFIXES):
        return "is a local network name, not a public website"
    if "." not in host:
        return "is a name without a domain, which only a local network can resolve"
    return None


@dataclass(frozen=True)
class PrivateExceptions:
    """The operator's openings in the private-network wall (e.g. the local sandbox)."""

    networks: tuple[IPv4Network | IPv6Network, ...]
    endpoints: frozenset[tuple[str, int]]

    def allows_endpoint(self, host: str, port: int) -> bool:
        """True when exactly this host and port were opened (`127.0.0.1:8025`, `sandbox.local:80`)."""
        return (host, port) in self.endpoints

    def allows_address(self, address: IPAddress) -> bool:
        """True when `address` lies in an opened network (`10.0.0.0/8`, `127.0.0.1`)."""
        return any(address.version == network.version and address in network for network in self.networks)


@lru_cache(maxsize=256)
def parse_private_exceptions(entries: tuple[str, ...]) -> PrivateExceptions:
    """Read `allow_private_networks` entries: CIDRs, bare IPs, or `host:port` endpoints."""
    networks: list[IPv4Network | IPv6Network] = []
    endpoints: set[tuple[str, int]] = set()
    for entry in entries:
        text = entry.strip()
        try:
            networks.append(ip_network(text, strict=False))
            continue
        except ValueError:
            pass
        try:
            destination = parse_destination(f"http://{text}/")
        except UrlProblem:
            raise ValueError(f"{entry!r} is neither a network (10.0.0.0/8) nor a host:port") from None
        if not text.rsplit("]", 1)[-1].rpartition(":")[2].isdigit():
            raise ValueError(f"{entry!r} needs an explicit port, e.g. {text}:8080")
        endpoints.add((destination.host, destination.port))
    return PrivateExceptions(tuple(networks), frozenset(endpoints))
