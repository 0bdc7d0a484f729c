"""Every way a fetch can fail becomes a plain ConnectorError, never a library exception."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from deputy.core.records.effects import ConnectorError, ConnectorRejected, ConnectorUnavailable
from deputy.connectors.http.client import fetch_url, guarded_client, http_request
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.sentinel.egress.transports.http_client import EgressBlocked, EgressNeedsApproval


def unknown_names(host: str, port: int) -> list[str]:
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def client_for(port: int, *, timeout: float = 5, context: EgressContext | None = None) -> httpx.Client:
    policy = EgressPolicy(allow_private_networks=[f"127.0.0.1:{port}"])
    return guarded_client(reviewer(policy, context or EgressContext()), timeout=timeout, resolver=unknown_names)


async def fetch(client: httpx.Client, url: str, **kwargs: int):  # type: ignore[no-untyped-def]
    return await asyncio.to_thread(lambda: fetch_url(client, url, **kwargs))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_a_server_that_is_down_is_unavailable_and_retryable() -> None:
    port = free_port()
    with client_for(port) as client, pytest.raises(ConnectorUnavailable) as failure:
        await fetch(client, f"http://127.0.0.1:{port}/")
    assert str(failure.value) == "I couldn't connect to 127.0.0.1; the site may be down."
    assert failure.value.retryable is True
    assert failure.value.__cause__ is None


async def test_a_slow_server_times_out(server_port: int) -> None:
    with client_for(server_port, timeout=0.3) as client, pytest.raises(ConnectorUnavailable) as failure:
        await fetch(client, f"http://127.0.0.1:{server_port}/slow?seconds=3")
    assert str(failure.value) == "127.0.0.1 took too long to answer."


@pytest.mark.parametrize("path", ["/huge", "/huge-chunked"])
async def test_a_huge_body_is_refused(server_port: int, path: str) -> None:
    with client_for(server_port) as client, pytest.raises(ConnectorRejected) as failure:
        await fetch(client, f"http://127.0.0.1:{server_port}{path}", max_bytes=1_000_000)
    assert str(failure.value) == "The answer from 127.0.0.1 is larger than 1.0 MB, so I stopped."


async def test_binary_content_is_not_downloaded(server_port: int) -> None:
    with client_for(server_port) as client, pytest.raises(ConnectorRejected) as failure:
        await fetch(client, f"http://127.0.0.1:{server_port}/image")
    assert str(failure.value) == "127.0.0.1 sent image/png content, not text, so I did not download it."


async def test_an_unknown_host_is_not_found() -> None:
    with client_for(1) as client, pytest.raises(ConnectorRejected) as failure:
        await fetch(client, "https://no-such-site.example/")
    assert str(failure.value) == "I couldn't find the site no-such-site.example. Check the address."


async def test_an_untrusted_certificate_is_a_tls_failure(tls_server_port: int) -> None:
    with client_for(tls_server_port) as client, pytest.raises(ConnectorRejected) as failure:
        await fetch(client, f"https://127.0.0.1:{tls_server_port}/page")
    assert "secure connection to 127.0.0.1 failed" in str(failure.value)


async def test_endless_redirects_stop(server_port: int) -> None:
    with client_for(server_port) as client, pytest.raises(ConnectorRejected) as failure:
        await fetch(client, f"http://127.0.0.1:{server_port}/loop")
    assert "redirected too many times" in str(failure.value)


@pytest.mark.parametrize("url", ["ftp://files.example/x", "not a url", "http://"])
async def test_addresses_that_are_not_web_addresses_are_rejected_plainly(url: str) -> None:
    with client_for(1) as client, pytest.raises(ConnectorError) as failure:
        await fetch(client, url)
    assert not isinstance(failure.value, (ConnectorUnavailable,))
    assert "http" in str(failure.value).lower() or "address" in str(failure.value).lower()


async def test_a_redirect_to_the_metadata_service_is_blocked_by_the_guard(server_port: int) -> None:
    url = f"http://127.0.0.1:{server_port}/redirect?to=http://169.254.169.254/latest/meta-data/"
    with client_for(server_port) as client, pytest.raises(EgressBlocked) as failure:
        await fetch(client, url)
    assert "cloud metadata service" in str(failure.value)


async def test_private_data_in_an_api_call_waits_for_approval(server_port: int) -> None:
    context = EgressContext(private_values={"alice@example.com": "your email address"})
    with client_for(server_port, context=context) as client, pytest.raises(EgressNeedsApproval) as asked:
        await asyncio.to_thread(
            lambda: http_request(client, "POST", f"http://127.0.0.1:{server_port}/echo", body="to=alice@example.com")
        )
    assert asked.value.decision.exfiltration == ["your email address: in the body (as is), to 127.0.0.1"]


def test_bad_arguments_are_rejected_before_any_request() -> None:
    with client_for(1) as client:
        with pytest.raises(ConnectorRejected):
            http_request(client, "GE T", "http://127.0.0.1:1/")
        with pytest.raises(ConnectorRejected):
            http_request(client, "POST", "http://127.0.0.1:1/", body="a", json_body={"b": 1})
        with pytest.raises(ConnectorRejected):
            http_request(client, "POST", "http://127.0.0.1:1/", json_body={"when": object()})
