"""The pure egress core: a table of requests and what the guard must answer for each."""

from __future__ import annotations

import base64
import gzip
import json

import pytest

from deputy.sentinel.egress.policy import (
    EgressContext,
    EgressPolicy,
    OutboundRequest,
    SecretValue,
    review_request,
)
from deputy.sentinel.policy import Risk, Verdict

SECRET = "ghp_S3cr3tT0kenValue"

POLICY = EgressPolicy(
    connector_allow={
        "github": ["api.github.com"],
        "shop": ["*.shop.example"],
        "books": ["bücher.example"],
    },
    deny_domains=["blocked.example", "8.8.8.0/24"],
    allow_private_networks=["127.0.0.1:8025", "10.20.0.0/16", "sandbox.local:8080"],
)

CONTEXT = EgressContext(
    private_values={
        "alice@example.com": "your email address",
        "+1 (555) 010-9999": "your phone number",
        "12 Elm Street, Springfield": "your home address",
    },
    secrets=[SecretValue(label="your GitHub token", value=SECRET, domains=["api.github.com"])],
    tainted_values={
        "https://evil.example/claim": "an email from prizes@evil.example",
        "attacker.example": "a web page at news.example",
        "bob@phish.example": "an email from bob@phish.example",
        "ORDER-77731": "a web page at shop.example",
    },
    trusted_domains={"example.org", "api.github.com"},
    visited_domains={"news.example"},
)


def review(url: str, *, policy: EgressPolicy = POLICY, context: EgressContext = CONTEXT, **fields: object):
    fields.setdefault("connector", "web")
    fields.setdefault("initiated_by", "navigation")
    return review_request(OutboundRequest(url=url, **fields), policy, context)


def b64(text: str, *, urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(text.encode()).decode()


DENY, ASK, ALLOW = Verdict.deny, Verdict.ask, Verdict.allow

# (url, extra request fields, verdict, a phrase the reasons must contain)
TABLE: list[tuple[str, dict, Verdict, str]] = [
    # Loopback in every notation a browser or resolver accepts.
    ("http://127.0.0.1/", {}, DENY, "loopback"),
    ("http://2130706433/", {}, DENY, "127.0.0.1 is this computer"),
    ("http://017700000001/", {}, DENY, "loopback"),
    ("http://0x7f000001/", {}, DENY, "loopback"),
    ("http://0x7f.0.0.1/", {}, DENY, "loopback"),
    ("http://0177.0.0.01/", {}, DENY, "loopback"),
    ("http://127.1/", {}, DENY, "loopback"),
    ("http://127.0.1/", {}, DENY, "loopback"),
    ("http://127.0.0.1./", {}, DENY, "loopback"),
    ("http://%31%32%37.0.0.1/", {}, DENY, "loopback"),
    ("http://１２７.０.０.１/", {}, DENY, "loopback"),
    ("HTTP://127.0.0.1:80/", {}, DENY, "loopback"),
    ("http://[::1]/", {}, DENY, "loopback"),
    ("http://[0:0:0:0:0:0:0:1]:8080/", {}, DENY, "loopback"),
    ("http://[::ffff:127.0.0.1]/", {}, DENY, "hides 127.0.0.1"),
    ("http://[::ffff:7f00:1]/", {}, DENY, "hides 127.0.0.1"),
    ("http://[0:0:0:0:0:ffff:127.0.0.1]/", {}, DENY, "hides 127.0.0.1"),
    ("http://[::127.0.0.1]/", {}, DENY, "hides 127.0.0.1"),
    ("http://[64:ff9b::10.0.0.1]/", {}, DENY, "hides 10.0.0.1"),
    ("http://[2002:7f00:1::]/", {}, DENY, "hides 127.0.0.1"),
    ("http://0/", {}, DENY, "this network"),
    ("http://0.0.0.0:8025/", {}, DENY, "this network"),
    # Private, link-local, CGNAT, multicast, IPv6 local ranges.
    ("http://10.0.0.5/", {}, DENY, "private network"),
    ("http://172.16.3.4/", {}, DENY, "private network"),
    ("http://192.168.1.1/admin", {}, DENY, "private network"),
    ("http://100.64.1.1/", {}, DENY, "carrier-grade NAT"),
    ("http://169.254.10.10/", {}, DENY, "link-local"),
    ("http://224.0.0.1/", {}, DENY, "multicast"),
    ("http://255.255.255.255/", {}, DENY, "reserved"),
    ("http://[fe80::1]/", {}, DENY, "link-local"),
    ("http://[fd12:3456::1]/", {}, DENY, "unique local"),
    ("http://[fec0::1]/", {}, DENY, "site-local"),
    ("http://[ff02::1]/", {}, DENY, "multicast"),
    ("http://[::]/", {}, DENY, "unspecified"),
    ("http://[fe80::1%25eth0]/", {}, DENY, "malformed IPv6"),
    # Cloud metadata services, however they are written.
    ("http://169.254.169.254/latest/meta-data/", {}, DENY, "169.254.169.254 is the cloud metadata service"),
    ("http://2852039166/", {}, DENY, "cloud metadata service"),
    ("http://0xa9.0xfe.0xa9.0xfe/", {}, DENY, "cloud metadata service"),
    ("http://[fd00:ec2::254]/", {}, DENY, "cloud metadata service"),
    ("http://[::ffff:169.254.169.254]/", {}, DENY, "hides 169.254.169.254, the cloud metadata service"),
    ("http://metadata.google.internal/computeMetadata/v1/", {}, DENY, "cloud metadata service"),
    ("http://METADATA.google.internal./", {}, DENY, "cloud metadata service"),
    ("http://metadata/", {}, DENY, "cloud metadata service"),
    ("http://instance-data/", {}, DENY, "cloud metadata service"),
    # DNS rebinding: a public-looking name whose addresses are private.
    ("https://rebind.example/", {"resolved_ips": ["127.0.0.1"]}, DENY, "rebind.example leads to 127.0.0.1"),
    ("https://rebind.example/", {"resolved_ips": ["93.184.216.34", "10.0.0.1"]}, DENY, "leads to 10.0.0.1"),
    ("https://rebind.example/", {"resolved_ips": ["::ffff:192.168.0.1"]}, DENY, "hides 192.168.0.1"),
    ("https://rebind.example/", {"resolved_ips": ["169.254.169.254"]}, DENY, "cloud metadata service"),
    ("https://rebind.example/", {"resolved_ips": ["fe80::1%eth0"]}, DENY, "link-local"),
    ("https://rebind.example/", {"resolved_ips": ["not-an-ip"]}, DENY, "unreadable address"),
    ("https://public.example/", {"resolved_ips": ["93.184.216.34", "2606:2800:220:1::1"]}, ALLOW, "public site"),
    # The operator's openings, and only those.
    ("http://127.0.0.1:8025/inbox", {"resolved_ips": ["127.0.0.1"]}, ALLOW, "operator allows"),
    ("http://127.0.0.1:8026/", {}, DENY, "loopback"),
    ("http://evil.test:8025/", {"resolved_ips": ["127.0.0.1"]}, DENY, "evil.test leads to 127.0.0.1"),
    ("http://localhost:8025/", {"resolved_ips": ["127.0.0.1"]}, DENY, "local network name"),
    ("http://10.20.1.2/", {}, ALLOW, "operator allows"),
    ("http://svc.example/", {"resolved_ips": ["10.20.3.4"]}, ALLOW, "operator allows"),
    ("http://sandbox.local:8080/", {"resolved_ips": ["10.99.0.1"]}, ALLOW, "operator allows"),
    ("http://sandbox.local:8081/", {"resolved_ips": ["10.99.0.1"]}, DENY, "local network name"),
    # Local names that never mean a public website.
    ("http://localhost/", {}, DENY, "local network name"),
    ("http://foo.localhost/", {}, DENY, "local network name"),
    ("http://printer.local/", {}, DENY, "local network name"),
    ("http://db.internal/", {}, DENY, "local network name"),
    ("http://fileserver/", {}, DENY, "without a domain"),
    # Schemes other than http(s).
    ("file:///etc/passwd", {}, DENY, "uses file:"),
    ("ftp://files.example/x", {}, DENY, "uses ftp:"),
    ("javascript:alert(1)", {}, DENY, "uses javascript:"),
    ("chrome://settings", {}, DENY, "uses chrome:"),
    ("gopher://x.example/", {}, DENY, "uses gopher:"),
    ("ws://chat.example/", {}, DENY, "uses ws:"),
    ("data:text/html,<script>alert(1)</script>", {}, DENY, "uses data:"),
    ("data:image/png;base64,iVBORw0KGgo=", {"initiated_by": "subresource"}, ALLOW, "inline"),
    ("blob:https://x.example/0f0e", {"initiated_by": "subresource"}, ALLOW, "inline"),
    ("//example.org/", {}, DENY, "no scheme"),
    # Userinfo and backslash tricks: the host is what a browser would contact.
    ("http://example.org@127.0.0.1/", {}, DENY, "loopback"),
    ("http://example.org:pw@evil.example@10.0.0.1/", {}, DENY, "private network"),
    ("http://127.0.0.1\\@example.org/", {}, DENY, "loopback"),
    ("https://api.github.com@evil.example/", {"connector": "github"}, DENY, "evil.example is not one of them"),
    ("https://user:pass@example.org/", {}, ALLOW, "asked for or approved"),
    # IDNA and punycode are normalised before matching.
    ("https://xn--bcher-kva.example/", {"connector": "books"}, ALLOW, "public site"),
    ("https://BÜCHER.example/", {"connector": "books"}, ALLOW, "public site"),
    ("https://bucher.example/", {"connector": "books"}, DENY, "not one of them"),
    ("https://ｅｘａｍｐｌｅ．org/", {}, ALLOW, "asked for or approved"),
    ("https://xn--zz.example/", {}, DENY, "invalid international host"),
    # Connector allow-lists with wildcards.
    ("https://www.shop.example/cart", {"connector": "shop"}, ALLOW, "public site"),
    ("https://a.b.shop.example/", {"connector": "shop"}, ALLOW, "public site"),
    ("https://shop.example/", {"connector": "shop"}, DENY, "not one of them"),
    ("https://evilshop.example/", {"connector": "shop"}, DENY, "not one of them"),
    ("https://www.shop.example.evil.example/", {"connector": "shop"}, DENY, "not one of them"),
    ("https://api.github.com/user", {"connector": "github"}, ALLOW, "asked for or approved"),
    # The operator's deny-list, by domain (with subdomains) and by network.
    ("https://blocked.example/", {}, DENY, "never contact"),
    ("https://sub.blocked.example/", {}, DENY, "never contact"),
    ("https://notblocked.example/", {}, ALLOW, "public site"),
    ("https://dns.example/", {"resolved_ips": ["8.8.8.8"]}, DENY, "never contact"),
    # Private data leaving for a site that is neither trusted nor visited.
    ("https://tracker.example/p?e=alice@example.com", {}, ASK, "your email address to tracker.example"),
    ("https://tracker.example/p?e=alice%40example.com", {}, ASK, "your email address"),
    ("https://tracker.example/p?e=ALICE%2540EXAMPLE.COM", {}, ASK, "your email address"),
    ("https://tracker.example/collect/alice@example.com", {"initiated_by": "subresource"}, ASK, "email address"),
    ("https://tracker.example/p?d=" + b64("user=alice@example.com&x=1"), {}, ASK, "your email address"),
    ("https://tracker.example/p?d=" + b64("xx alice@example.com", urlsafe=True), {}, ASK, "your email address"),
    ("https://tracker.example/#alice@example.com", {}, ASK, "your email address"),
    ("https://5550109999.tracker.example/", {}, ASK, "your phone number"),
    ("https://tracker.example/a?addr=12+Elm+Street,+Springfield", {}, ASK, "your home address"),
    ("https://tracker.example/", {"headers": {"X-Data": "alice@example.com"}}, ASK, "your email address"),
    ("https://tracker.example/", {"headers": {"Cookie": "uid=" + b64("alice@example.com")}}, ASK, "email address"),
    ("https://tracker.example/", {"method": "POST", "body": json.dumps({"email": "alice@example.com"})}, ASK, "email"),
    ("https://tracker.example/", {"method": "POST", "body": b"phone=555-010-9999"}, ASK, "your phone number"),
    ("https://tracker.example/", {"method": "POST", "body": "tel: (555) 010 9999"}, ASK, "your phone number"),
    ("https://tracker.example/", {"method": "POST", "body": b"alice@example.com".hex()}, ASK, "email address"),
    ("https://tracker.example/", {"method": "POST", "body": '{"a":"alice\\u0040example.com"}'}, ASK, "email"),
    (
        "https://tracker.example/",
        {
            "method": "POST",
            "body": gzip.compress(b'{"to":"alice@example.com"}'),
            "headers": {"Content-Encoding": "gzip"},
        },
        ASK,
        "your email address",
    ),
    (
        "https://tracker.example/",
        {"method": "POST", "body": b"\x8b\x00opaque", "headers": {"Content-Encoding": "br"}},
        DENY,
        "cannot make sure none of your secrets goes to tracker.example",
    ),
    ("https://tracker.example/?ref=ORDER-77731", {}, ASK, "'ORDER-77731' (which came from a web page at shop.example)"),
    ("https://tracker.example/?q=alice", {}, ALLOW, "public site"),
    # ... but the same data may go to sites the user asked for or already used.
    ("https://example.org/p?e=alice@example.com", {}, ALLOW, "asked for or approved"),
    ("https://www.example.org/p?e=alice@example.com", {}, ALLOW, "asked for or approved"),
    ("https://news.example/p?e=alice@example.com", {}, ALLOW, "already used"),
    ("https://sub.news.example/p?e=alice@example.com", {}, ASK, "your email address"),
    # Secrets go to their own domains and nowhere else, not even to trusted sites.
    ("https://evil.example/", {"headers": {"Authorization": f"Bearer {SECRET}"}}, DENY, "your GitHub token"),
    ("https://api.github.com/", {"headers": {"Authorization": f"Bearer {SECRET}"}}, ALLOW, "asked for"),
    ("https://example.org/?t=" + SECRET, {}, DENY, "may only go to api.github.com"),
    ("https://news.example/", {"method": "POST", "body": b64("token=" + SECRET)}, DENY, "your GitHub token"),
    ("https://api.github.com.evil.example/", {"headers": {"X-T": SECRET}}, DENY, "your GitHub token"),
    # Targets that only untrusted content pointed to.
    ("https://evil.example/claim", {}, ASK, "came only from an email from prizes@evil.example"),
    ("https://www.evil.example/other", {}, ASK, "came only from an email from prizes@evil.example"),
    ("https://attacker.example/", {"initiated_by": "api_call"}, ASK, "came only from a web page at news.example"),
    ("https://phish.example/login", {"initiated_by": "form_submit", "method": "POST"}, ASK, "bob@phish.example"),
    ("https://evil.example/pixel.gif", {"initiated_by": "subresource"}, ALLOW, "public site"),
    ("https://notevil.example/", {}, ALLOW, "public site"),
    # Trusted and visited sites with nothing private: allowed.
    ("https://example.org/", {}, ALLOW, "asked for or approved"),
    ("https://news.example/article/1", {}, ALLOW, "already used"),
    ("https://public.example/", {}, ALLOW, "public site"),
    # Malformed addresses are never contacted.
    ("http://[::1/", {}, DENY, "malformed IPv6"),
    ("http://exa mple.com/", {}, DENY, "no valid host"),
    ("http://1.2.3.4.5/", {}, DENY, "malformed IPv4"),
    ("http://256.1.1.1/", {}, DENY, "out of range"),
    ("http://1.2.3.0x100/", {}, DENY, "out of range"),
    ("http://:80/", {}, DENY, "no valid host"),
    ("http://example.org:99999/", {}, DENY, "invalid port"),
    ("http://a..b.example/", {}, DENY, "empty part"),
]


@pytest.mark.parametrize(
    ("url", "fields", "verdict", "phrase"), TABLE, ids=[f"{i}:{row[0][:50]}" for i, row in enumerate(TABLE)]
)
def test_table(url: str, fields: dict, verdict: Verdict, phrase: str) -> None:
    decision = review(url, **fields)
    assert decision.verdict is verdict, decision.reasons
    assert any(phrase in reason for reason in decision.reasons), decision.reasons


def test_no_reason_or_finding_ever_contains_the_secret() -> None:
    for url, fields, _, _ in TABLE:
        decision = review(url, **fields)
        assert SECRET not in decision.model_dump_json()


def test_exfiltration_names_the_value_and_where_it_was_found() -> None:
    decision = review(
        "https://tracker.example/p?e=alice%40example.com",
        method="POST",
        body=b64("alice@example.com"),
        headers={"X-Phone": "555 010 9999"},
    )
    assert decision.verdict is ASK
    assert decision.risk is Risk.high
    assert "your email address: in the query string (URL-encoded), to tracker.example" in decision.exfiltration
    assert "your email address: in the body (base64-encoded), to tracker.example" in decision.exfiltration
    assert "your phone number: in the X-Phone header (as is), to tracker.example" in decision.exfiltration


def test_denials_outrank_questions_and_keep_all_reasons() -> None:
    decision = review("http://10.0.0.1/?e=alice@example.com")
    assert decision.verdict is DENY
    assert any("private network" in r for r in decision.reasons)
    assert any("your email address" in r for r in decision.reasons)


def test_metadata_stays_closed_even_inside_an_opened_network() -> None:
    policy = EgressPolicy(allow_private_networks=["169.254.0.0/16", "169.254.169.254:80"])
    assert review("http://169.254.10.10/", policy=policy).verdict is ALLOW
    assert review("http://169.254.169.254/", policy=policy).verdict is DENY
    assert review("http://x.example/", policy=policy, resolved_ips=["169.254.169.254"]).verdict is DENY


def test_trusting_the_tainted_domain_lifts_the_question() -> None:
    context = CONTEXT.model_copy(update={"trusted_domains": {"evil.example"}})
    assert review("https://evil.example/claim", context=context).verdict is ALLOW
    context = CONTEXT.model_copy(update={"visited_domains": {"evil.example"}})
    assert review("https://evil.example/claim", context=context).verdict is ALLOW


def test_bodies_over_the_limit_are_denied_with_sizes_in_the_reason() -> None:
    decision = review("https://example.org/upload", method="PUT", body=b"x" * 6_000_000)
    assert decision.verdict is DENY
    assert "6.0 MB, more than the 5.0 MB" in " ".join(decision.reasons)


def test_short_values_are_not_searched_for() -> None:
    context = EgressContext(private_values={"Al": "your initials", "42": "your age"})
    assert review("https://tracker.example/?a=Al&b=42", context=context).verdict is ALLOW


def test_policy_rejects_unreadable_private_network_entries() -> None:
    with pytest.raises(ValueError):
        EgressPolicy(allow_private_networks=["localhost"])
    with pytest.raises(ValueError):
        EgressPolicy(allow_private_networks=["not a host:80"])


def test_decision_reports_the_canonical_host() -> None:
    assert review("http://0x7f.1/").host == "127.0.0.1"
    assert review("https://BÜCHER.example./", connector="books").host == "xn--bcher-kva.example"


def test_an_opaque_body_is_asked_about_without_secrets_and_allowed_to_known_sites() -> None:
    context = CONTEXT.model_copy(update={"secrets": []})
    opaque = {"method": "POST", "body": b"\x8b\x00opaque", "headers": {"Content-Encoding": "br"}}
    decision = review("https://tracker.example/", context=context, **opaque)
    assert decision.verdict is ASK
    assert "cannot look inside this request's body (it is compressed with br)" in decision.reasons[0]
    assert review("https://example.org/", context=context, **opaque).verdict is ALLOW
    assert review("https://example.org/", **opaque).verdict is DENY
