"""Properties the egress core keeps for every input Hypothesis can think of."""

from __future__ import annotations

import base64
import gzip
import json
from ipaddress import IPv4Address, IPv6Address, ip_network
from urllib.parse import quote

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from deputy.sentinel.egress.policy import (
    EgressContext,
    EgressPolicy,
    OutboundRequest,
    SecretValue,
    review_request,
)
from deputy.sentinel.egress.url import url_scheme
from deputy.sentinel.policy import Verdict

PRIVATE_NETWORKS = [
    ip_network(text)
    for text in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::1/128",
        "fc00::/7",
        "fe80::/10",
        "ff00::/8",
    )
]
OPENED_NETWORK = ip_network("10.20.0.0/16")
POLICY = EgressPolicy(allow_private_networks=["127.0.0.1:8025", str(OPENED_NETWORK)])

label = st.from_regex(r"\A[a-z][a-z0-9-]{0,10}[a-z0-9]\Z")
domains = st.builds(
    lambda labels, tld: ".".join([*labels, tld]),
    st.lists(label, min_size=1, max_size=3),
    st.sampled_from(["com", "net", "org", "example", "io", "co.uk"]),
)
public_ipv4 = st.sampled_from(["93.184.216.34", "8.8.8.8", "1.1.1.1", "151.101.1.69"])


@st.composite
def private_addresses(draw: st.DrawFn) -> str:
    network = draw(st.sampled_from(PRIVATE_NETWORKS))
    address = network[draw(st.integers(0, network.num_addresses - 1))]
    if isinstance(address, IPv4Address):
        # Operating systems route these IPv6 forms to the IPv4 address inside them.
        wrap = draw(st.sampled_from(["plain", "mapped", "nat64", "6to4"]))
        if wrap == "mapped":
            return str(IPv6Address(f"::ffff:{address}"))
        if wrap == "nat64":
            return str(IPv6Address(f"64:ff9b::{address}"))
        if wrap == "6to4":
            return str(IPv6Address((0x2002 << 112) | (int(address) << 80)))
    return str(address)


requests_common = {
    "connector": st.sampled_from(["web", "http", "email"]),
    "initiated_by": st.sampled_from(["navigation", "subresource", "api_call", "form_submit"]),
    "method": st.sampled_from(["GET", "POST", "PUT", "HEAD"]),
}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    host=st.one_of(domains, public_ipv4),
    scheme=st.sampled_from(["http", "https"]),
    port=st.one_of(st.none(), st.integers(1, 65535)),
    path=st.text(st.characters(codec="ascii", categories=["L", "N"]), max_size=20),
    private=private_addresses(),
    others=st.lists(st.one_of(public_ipv4, private_addresses()), max_size=3),
    trust_host=st.booleans(),
    connector=requests_common["connector"],
    initiated_by=requests_common["initiated_by"],
    method=requests_common["method"],
)
def test_a_private_resolved_address_is_never_allowed(
    host, scheme, port, path, private, others, trust_host, connector, initiated_by, method
) -> None:
    assume(IPv4Address(private) not in OPENED_NETWORK if "." in private and ":" not in private else True)
    ips = [*others, private]
    url = f"{scheme}://{host}{f':{port}' if port else ''}/{path}"
    context = EgressContext(trusted_domains={host} if trust_host else set(), visited_domains={host})
    request = OutboundRequest(url=url, method=method, connector=connector, initiated_by=initiated_by, resolved_ips=ips)
    decision = review_request(request, POLICY, context)
    assert decision.verdict is not Verdict.allow, (url, ips, decision.reasons)


secret_values = st.text(
    st.characters(codec="ascii", categories=["L", "N"], include_characters="-_.~+/=:"), min_size=8, max_size=48
)


def _b64(data: str, urlsafe: bool) -> str:
    raw = data.encode()
    return (base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)).decode()


@st.composite
def carriers(draw: st.DrawFn, secret: str) -> dict:
    """A request that carries `secret` somewhere, possibly disguised."""
    prefix = draw(st.text(st.characters(codec="ascii", categories=["L", "N"]), max_size=12))
    suffix = draw(st.text(st.characters(codec="ascii", categories=["L", "N"]), max_size=12))
    wrapped = prefix + secret + suffix
    disguise = draw(st.sampled_from(["plain", "urlencoded", "double", "base64", "base64url"]))
    encoded = {
        "plain": wrapped,
        "urlencoded": quote(wrapped, safe=""),
        "double": quote(quote(wrapped, safe=""), safe=""),
        "base64": _b64(wrapped, urlsafe=False),
        "base64url": _b64(wrapped, urlsafe=True),
    }[disguise]
    where = draw(st.sampled_from(["query", "path", "header", "body", "json", "gzip"]))
    safe = quote(encoded, safe="")
    if where == "query":
        return {"query": f"?k={safe}"}
    if where == "path":
        return {"query": f"x/{safe}/y"}
    if where == "header":
        return {"headers": {draw(st.sampled_from(["Authorization", "X-Api-Key", "Cookie"])): f"Bearer {encoded}"}}
    if where == "body":
        return {"body": f"data={safe}&more=1".encode()}
    if where == "json":
        return {"body": json.dumps({"payload": encoded})}
    return {"body": gzip.compress(encoded.encode()), "headers": {"Content-Encoding": "gzip"}}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    secret=secret_values,
    host=domains,
    trust_host=st.booleans(),
    connector=requests_common["connector"],
    initiated_by=requests_common["initiated_by"],
)
def test_a_secret_never_goes_to_a_domain_it_does_not_belong_to(
    data, secret, host, trust_host, connector, initiated_by
) -> None:
    owner = "api.github.com"
    assume(host != owner)
    carrier = data.draw(carriers(secret))
    tail = carrier.pop("query", "")
    url = f"https://{host}/{tail}"
    context = EgressContext(
        secrets=[SecretValue(label="your token", value=secret, domains=[owner])],
        trusted_domains={host} if trust_host else set(),
        visited_domains={host},
    )
    request = OutboundRequest(
        url=url,
        method="POST",
        connector=connector,
        initiated_by=initiated_by,
        resolved_ips=["93.184.216.34"],
        **carrier,
    )
    decision = review_request(request, EgressPolicy(), context)
    assert decision.verdict is Verdict.deny, (url, carrier, decision.reasons)
    assert secret not in decision.model_dump_json()


def _render(number: int, radix: str) -> str:
    return {"dec": str(number), "hex": hex(number), "oct": "0" + oct(number)[2:]}[radix]


@st.composite
def ipv4_notations(draw: st.DrawFn, address: IPv4Address) -> str:
    """`address` written in any notation the WHATWG URL parser (and inet_aton) accepts."""
    value = int(address)
    octets = list(address.packed)
    groups = draw(st.integers(1, 4))
    parts = octets[: groups - 1] + [value & (0xFFFFFFFF >> (8 * (groups - 1)))]
    rendered = ".".join(_render(part, draw(st.sampled_from(["dec", "hex", "oct"]))) for part in parts)
    return rendered + draw(st.sampled_from(["", "."]))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), network=st.sampled_from([n for n in PRIVATE_NETWORKS if n.version == 4]))
def test_a_private_ipv4_is_denied_in_every_notation(data, network) -> None:
    address = network[data.draw(st.integers(0, network.num_addresses - 1))]
    host = data.draw(ipv4_notations(address))
    request = OutboundRequest(url=f"http://{host}/", connector="web", initiated_by="navigation")
    decision = review_request(request, EgressPolicy(), EgressContext(trusted_domains={str(address)}))
    assert decision.verdict is Verdict.deny, (host, decision.reasons)
    assert decision.host == str(address)


@settings(max_examples=500, deadline=None)
@given(url=st.one_of(st.text(max_size=60), st.builds(lambda t: "http://" + t, st.text(max_size=40))))
def test_any_text_gets_a_decision_and_only_web_addresses_are_allowed(url) -> None:
    request = OutboundRequest(url=url, connector="web", initiated_by="navigation")
    decision = review_request(request, EgressPolicy(), EgressContext())
    if decision.verdict is Verdict.allow:
        assert url_scheme(url) in ("http", "https")
