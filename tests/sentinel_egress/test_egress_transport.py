"""The guarded httpx transports against a real local server: every hop reviewed, connections pinned."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

import httpx
import pytest

if TYPE_CHECKING:
    from conftest import LocalSite
from deputy.sentinel.egress.policy import EgressContext, EgressDecision, EgressPolicy, OutboundRequest, SecretValue, reviewer
from deputy.sentinel.egress.transports.http_client import (
    AsyncGuardedTransport,
    EgressBlocked,
    EgressNeedsApproval,
    GuardedTransport,
    HostNotFound,
)
from deputy.sentinel.egress.transports.pinning import PinnedHTTPTransport
from deputy.sentinel.policy import Verdict

CONTEXT = EgressContext(
    private_values={"alice@example.com": "your email address"},
    secrets=[SecretValue(label="your API key", value="sk-live-0123456789abcdef", domains=["api.example.com"])],
)


def fake_resolver(table: dict[str, list[str]]) -> Callable[[str, int], list[str]]:
    """A resolver for names that do not exist in real DNS."""

    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


def client_for(
    site: LocalSite,
    *,
    opened: list[str] | None = None,
    resolver: Callable[[str, int], list[str]] | None = None,
    log: list[tuple[OutboundRequest, EgressDecision]] | None = None,
) -> httpx.Client:
    policy = EgressPolicy(allow_private_networks=opened if opened is not None else [f"127.0.0.1:{site.port}"])
    transport = GuardedTransport(
        reviewer(policy, CONTEXT),
        connector="http",
        resolver=resolver or fake_resolver({}),
        on_decision=(lambda request, decision: log.append((request, decision))) if log is not None else None,
    )
    return httpx.Client(transport=transport, follow_redirects=True, trust_env=False, timeout=5)


async def call(client: httpx.Client, method: str, url: str, **kwargs: object) -> httpx.Response:
    # The sync client blocks, and the server lives on this event loop: run the client in a thread.
    return await asyncio.to_thread(client.request, method, url, **kwargs)


async def test_an_opened_local_service_is_reachable_and_the_decision_is_reported(site: LocalSite) -> None:
    log: list[tuple[OutboundRequest, EgressDecision]] = []
    with client_for(site, log=log) as client:
        response = await call(client, "GET", f"{site.url}/ok")
    assert response.text == "hello"
    assert [d.verdict for _, d in log] == [Verdict.allow]
    assert log[0][0].resolved_ips == ["127.0.0.1"]


async def test_a_closed_local_service_is_blocked_before_any_byte_is_sent(site: LocalSite) -> None:
    with client_for(site, opened=[]) as client, pytest.raises(EgressBlocked) as blocked:
        await call(client, "GET", f"{site.url}/ok")
    assert "127.0.0.1 is this computer (loopback)" in str(blocked.value)
    assert blocked.value.decision is not None and blocked.value.decision.verdict is Verdict.deny
    assert site.hits == []


async def test_a_redirect_to_the_metadata_service_is_blocked(site: LocalSite) -> None:
    target = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
    with client_for(site) as client, pytest.raises(EgressBlocked) as blocked:
        await call(client, "GET", f"{site.url}/redirect", params={"to": target})
    assert "cloud metadata service" in str(blocked.value)
    assert [hit.split("?")[0] for hit in site.hits] == ["/redirect"]


async def test_a_redirect_to_a_name_that_resolves_to_loopback_is_blocked(site: LocalSite) -> None:
    resolver = fake_resolver({"evil.test": ["127.0.0.1"]})
    with client_for(site, resolver=resolver) as client, pytest.raises(EgressBlocked) as blocked:
        await call(client, "GET", f"{site.url}/redirect", params={"to": f"http://evil.test:{site.port}/ok"})
    assert "evil.test leads to 127.0.0.1" in str(blocked.value)
    assert len(site.hits) == 1


async def test_the_connection_goes_to_the_reviewed_address_without_a_second_lookup(site: LocalSite) -> None:
    # pinned.test exists only in the fake resolver: had httpx looked the name up again, it would fail.
    resolver = fake_resolver({"pinned.test": ["127.0.0.1"]})
    with client_for(site, opened=[f"pinned.test:{site.port}"], resolver=resolver) as client:
        response = await call(client, "GET", f"http://pinned.test:{site.port}/echo")
    assert response.json()["host"] == f"pinned.test:{site.port}"


async def test_the_pinned_address_is_the_one_connected_to(site: LocalSite) -> None:
    # The server listens on 127.0.0.1 only; a pin to 127.0.0.2 must fail to connect, not fall back.
    resolver = fake_resolver({"pinned.test": ["127.0.0.2"]})
    client = client_for(site, opened=["127.0.0.0/8"], resolver=resolver)
    with client, pytest.raises(httpx.ConnectError) as failed:
        await call(client, "GET", f"http://pinned.test:{site.port}/ok")
    assert not isinstance(failed.value, HostNotFound)
    assert "refused" in str(failed.value).lower()
    assert site.hits == []


def test_the_pinned_transport_refuses_connections_nobody_reviewed() -> None:
    with httpx.Client(transport=PinnedHTTPTransport()) as client, pytest.raises(httpx.ConnectError) as refused:
        client.get("http://127.0.0.1:9/")
    assert "not reviewed" in str(refused.value)


async def test_private_data_to_an_unknown_site_needs_approval(site: LocalSite) -> None:
    with client_for(site) as client, pytest.raises(EgressNeedsApproval) as asked:
        await call(client, "POST", f"{site.url}/echo", content=b'{"email": "alice@example.com"}')
    assert asked.value.decision.exfiltration == ["your email address: in the body (as is), to 127.0.0.1"]
    assert "needs your approval" in str(asked.value)
    assert site.hits == []


async def test_a_secret_sent_to_the_wrong_host_is_blocked_without_repeating_it(site: LocalSite) -> None:
    with client_for(site) as client, pytest.raises(EgressBlocked) as blocked:
        await call(client, "GET", f"{site.url}/ok", headers={"X-Api-Key": "sk-live-0123456789abcdef"})
    assert "your API key" in str(blocked.value)
    assert "sk-live" not in str(blocked.value) and "sk-live" not in repr(blocked.value)
    assert site.hits == []


async def test_an_unknown_name_is_reported_as_not_found(site: LocalSite) -> None:
    with client_for(site) as client, pytest.raises(HostNotFound):
        await call(client, "GET", "http://nowhere.test/")


async def test_a_decimal_ip_that_httpx_reads_as_a_name_is_not_contacted(site: LocalSite) -> None:
    # httpx treats 2130706433 as a name; the guard reads 127.0.0.1; the disagreement alone blocks it.
    client = client_for(site, resolver=fake_resolver({"2130706433": ["127.0.0.1"]}))
    with client, pytest.raises(EgressBlocked):
        await call(client, "GET", f"http://2130706433:{site.port}/ok")
    assert site.hits == []


def async_client_for(site: LocalSite, resolver: object) -> httpx.AsyncClient:
    policy = EgressPolicy(allow_private_networks=[f"127.0.0.1:{site.port}"])
    transport = AsyncGuardedTransport(reviewer(policy, CONTEXT), connector="http", resolver=resolver)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, follow_redirects=True, trust_env=False, timeout=5)


async def test_async_transport_allows_the_opened_service_and_blocks_redirect_hops(site: LocalSite) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return {"evil.test": ["127.0.0.1"]}[host]

    async with async_client_for(site, resolver) as client:
        assert (await client.get(f"{site.url}/ok")).text == "hello"
        with pytest.raises(EgressBlocked, match="cloud metadata service"):
            await client.get(f"{site.url}/redirect", params={"to": "http://[::ffff:169.254.169.254]/"})
        with pytest.raises(EgressBlocked, match="evil.test leads to 127.0.0.1"):
            await client.get(f"{site.url}/redirect", params={"to": f"http://evil.test:{site.port}/ok"})
        with pytest.raises(EgressNeedsApproval):
            await client.get(f"{site.url}/ok", params={"e": "alice@example.com"})
    assert [hit.split("?")[0] for hit in site.hits] == ["/ok", "/redirect", "/redirect"]


async def test_async_transport_pins_to_the_reviewed_address(site: LocalSite) -> None:
    policy = EgressPolicy(allow_private_networks=[f"pinned.test:{site.port}"])
    transport = AsyncGuardedTransport(
        reviewer(policy, CONTEXT), connector="http", resolver=fake_resolver({"pinned.test": ["127.0.0.1"]})
    )
    async with httpx.AsyncClient(transport=transport, trust_env=False) as client:
        response = await client.get(f"http://pinned.test:{site.port}/echo")
    assert response.json()["host"] == f"pinned.test:{site.port}"
