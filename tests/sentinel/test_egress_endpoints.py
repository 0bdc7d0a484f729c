"""The egress policy for mail, calendar and MCP servers: which addresses pass, and what the user reads."""

from __future__ import annotations

import socket

import pytest
from egress_testkit import Rebinding, fixed, no_outside_traffic

from deputy.core.records.effects import ConnectorError
from deputy.sentinel.egress.policy import EgressPolicy
from deputy.sentinel.egress.endpoint import refusal_message, review_endpoint
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.sentinel.egress.transports.sockets import BadServerAddress, EndpointGuard, EndpointNotFound, url_endpoint
from deputy.sentinel.policy import Verdict

PUBLIC = "93.184.216.34"
OPEN = EgressPolicy(allow_private_networks=["10.20.0.0/16", "mail.corp.test:993"])


@pytest.mark.parametrize(("host", "resolved", "says"), [
    ("169.254.169.254", [], "cloud metadata service"),
    ("::ffff:169.254.169.254", [], "cloud metadata service"),
    ("metadata.google.internal", [], "cloud metadata service"),
    ("10.0.0.5", [], "That server's address (10.0.0.5) is a private network address"),
    ("192.168.1.1", [], "a private network address"),
    ("127.0.0.1", [], "this computer's own address"),
    ("::1", [], "this computer's own address"),
    ("169.254.10.10", [], "a link-local network address"),
    ("mail.example.test", ["10.0.0.5"], "That server (mail.example.test) leads to 10.0.0.5, which is a private"),
    ("mail.example.test", [PUBLIC, "127.0.0.1"], "leads to 127.0.0.1"),
    ("mail.example.test", ["169.254.169.254"], "cloud metadata service"),
    ("printer.local", [], "only works on a local network"),
])
def test_private_and_metadata_servers_are_refused_in_plain_words(host: str, resolved: list[str], says: str) -> None:
    decision = review_endpoint(host, 993, resolved, "imap", EgressPolicy())
    assert decision.verdict is Verdict.deny
    message = refusal_message(host, resolved, decision)
    assert says in message
    if "metadata" in says:
        assert "DEPUTY_EGRESS_ALLOW" not in message, "the operator must not be invited to open the metadata service"
    else:
        assert message.endswith("If this is your own server, the operator can allow it with DEPUTY_EGRESS_ALLOW.")
        assert "Deputy only connects to public servers." in message


def test_public_servers_and_the_operators_openings_pass() -> None:
    assert review_endpoint("imap.example.com", 993, [PUBLIC], "imap", EgressPolicy()).verdict is Verdict.allow
    assert review_endpoint("10.20.3.4", 993, [], "imap", OPEN).verdict is Verdict.allow
    assert review_endpoint("mail.corp.test", 993, ["10.9.9.9"], "imap", OPEN).verdict is Verdict.allow
    # An opening is for one port: the same host on another port is still refused.
    assert review_endpoint("mail.corp.test", 25, ["10.9.9.9"], "smtp", OPEN).verdict is Verdict.deny
    # The metadata service stays closed whatever the operator opened.
    wide = EgressPolicy(allow_private_networks=["169.254.0.0/16"])
    assert review_endpoint("169.254.169.254", 80, [], "calendar", wide).verdict is Verdict.deny


def test_the_guard_resolves_checks_every_answer_and_reports_denials() -> None:
    denials: list[tuple[str, int, list[str]]] = []
    guard = EndpointGuard(EgressPolicy(), "imap", fixed({"mail.example.test": [PUBLIC, "10.1.1.1"]}),
                          on_denial=lambda host, port, addresses, decision: denials.append((host, port, addresses)))
    with pytest.raises(EgressBlocked) as refused:
        guard.check("mail.example.test", 993)
    assert isinstance(refused.value, ConnectorError) and not refused.value.retryable
    assert "leads to 10.1.1.1" in refused.value.user_message
    assert denials == [("mail.example.test", 993, [PUBLIC, "10.1.1.1"])]
    assert refused.value.decision is not None and refused.value.decision.host == "mail.example.test"


def test_an_unknown_name_is_a_plain_retryable_error() -> None:
    guard = EndpointGuard(EgressPolicy(), "smtp", fixed({}))
    with pytest.raises(EndpointNotFound) as missing:
        guard.check("smtp.nowhere.example", 587)
    assert missing.value.retryable and "couldn't find the server smtp.nowhere.example" in missing.value.user_message


def test_a_local_name_dns_cannot_find_is_still_refused_as_local() -> None:
    with pytest.raises(EgressBlocked):
        EndpointGuard(EgressPolicy(), "imap", fixed({})).check("nas.local", 993)


def test_opening_adds_the_operators_own_servers_only() -> None:
    guard = EndpointGuard(EgressPolicy(), "smtp", fixed({"relay.corp.test": ["10.0.0.25"]})).opening(
        ("relay.corp.test", 25)
    )
    assert guard.check("relay.corp.test", 25) == ["10.0.0.25"]
    with pytest.raises(EgressBlocked):
        guard.check("10.0.0.26", 25)


def test_connect_goes_to_the_checked_address_only() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        dns = Rebinding(first=["127.0.0.1"], then=["10.0.0.5"])
        guard = EndpointGuard(EgressPolicy(allow_private_networks=[f"127.0.0.1:{port}", "127.0.0.1/32"]), "imap", dns)
        with no_outside_traffic() as attempts:
            with guard.connect("mail.example.test", port, 5) as sock:
                assert sock.getpeername()[0] == "127.0.0.1"
            with pytest.raises(EgressBlocked):
                guard.connect("mail.example.test", port, 5)  # the second answer is private
        assert attempts == [] and dns.lookups == ["mail.example.test", "mail.example.test"]


@pytest.mark.parametrize(("url", "endpoint"), [
    ("https://cal.example.com/dav/", ("cal.example.com", 443)),
    ("http://cal.example.com/", ("cal.example.com", 80)),
    ("https://[2001:db8::1]:8443/x", ("2001:db8::1", 8443)),
    ("https://user@cal.example.com:8443/", ("cal.example.com", 8443)),
])
def test_url_endpoints(url: str, endpoint: tuple[str, int]) -> None:
    assert url_endpoint(url) == endpoint


@pytest.mark.parametrize("url", ["ftp://x.example/", "https://", "not a url", "https://x.example:99999/"])
def test_unreadable_urls_are_refused_plainly(url: str) -> None:
    with pytest.raises(BadServerAddress) as bad:
        url_endpoint(url)
    assert "isn't a valid http:// or https:// address" in bad.value.user_message
