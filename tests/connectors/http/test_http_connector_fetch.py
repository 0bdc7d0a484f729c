"""The HTTP connector's happy paths: pages become readable untrusted text, APIs answer as text."""

from __future__ import annotations

import asyncio

import httpx

from deputy.core.records.effects import EffectClass
from deputy.connectors.http import FETCH_URL, HTTP_REQUEST, http_request_spec
from deputy.connectors.http.client import HttpResult, fetch_url, guarded_client, http_request
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer


def client_for(port: int) -> httpx.Client:
    policy = EgressPolicy(allow_private_networks=[f"127.0.0.1:{port}"])
    return guarded_client(reviewer(policy, EgressContext()), timeout=5)


async def test_a_page_comes_back_as_readable_untrusted_text(server_port: int) -> None:
    url = f"http://127.0.0.1:{server_port}/page"
    with client_for(server_port) as client:
        result = await asyncio.to_thread(fetch_url, client, url)
    assert isinstance(result, HttpResult)
    assert result.status == 200
    assert result.content_type.startswith("text/html")
    assert result.untrusted is True
    assert result.source == f"web page {url}"
    assert result.text.startswith("Title: Cheap flights")
    assert "From $389 return." in result.text
    assert f"See deals (http://127.0.0.1:{server_port}/deals?city=lis)" in result.text
    assert "ignore me" not in result.text and "color: red" not in result.text
    assert result.truncated is False and result.note is None


async def test_long_text_is_cut_with_a_note(server_port: int) -> None:
    with client_for(server_port) as client:
        result = await asyncio.to_thread(fetch_url, client, f"http://127.0.0.1:{server_port}/long", max_chars=1000)
    assert len(result.text) == 1000
    assert result.truncated is True
    assert result.note == "The text was cut at 1,000 of 50,000 characters."


async def test_the_declared_charset_is_honoured(server_port: int) -> None:
    with client_for(server_port) as client:
        result = await asyncio.to_thread(fetch_url, client, f"http://127.0.0.1:{server_port}/latin1")
    assert result.text == "café crème"


async def test_an_error_status_is_a_result_not_an_exception(server_port: int) -> None:
    with client_for(server_port) as client:
        result = await asyncio.to_thread(fetch_url, client, f"http://127.0.0.1:{server_port}/missing")
    assert (result.status, result.text) == (404, "no such page")


async def test_an_api_call_sends_json_and_reads_the_answer(server_port: int) -> None:
    url = f"http://127.0.0.1:{server_port}/echo"
    with client_for(server_port) as client:
        result = await asyncio.to_thread(
            lambda: http_request(client, "post", url, json_body={"seats": 2, "city": "Lisboa"})
        )
    assert result.source == f"API response to POST {url}"
    assert result.untrusted is True
    assert '"method": "POST"' in result.text
    assert '"type": "application/json"' in result.text
    assert '{\\"seats\\":2,\\"city\\":\\"Lisboa\\"}' in result.text


async def test_head_requests_have_no_body(server_port: int) -> None:
    with client_for(server_port) as client:
        result = await asyncio.to_thread(http_request, client, "HEAD", f"http://127.0.0.1:{server_port}/image")
    assert (result.status, result.text) == (200, "")


def test_operation_specs_name_the_url_as_target_and_grade_effects_by_method() -> None:
    assert (FETCH_URL.connector, FETCH_URL.operation, FETCH_URL.effect) == ("http", "fetch_url", EffectClass.read)
    assert FETCH_URL.target_argument == HTTP_REQUEST.target_argument == "url"
    assert HTTP_REQUEST.effect is EffectClass.write
    assert http_request_spec("get").effect is EffectClass.read
    assert http_request_spec("HEAD").effect is EffectClass.read
    assert http_request_spec("DELETE") is HTTP_REQUEST
