"""Whatever an API answers (errors, garbage, huge or oddly encoded bodies, silence), the
runner returns a bounded summary or raises a plain ConnectorError; it never crashes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from aiohttp import web
from pydantic import SecretStr

from deputy.core.records.effects import ConnectorAuthError, ConnectorError, ConnectorRejected, ConnectorUnavailable
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.connectors.openapi.importer import import_openapi
from deputy.connectors.openapi.document import parse_openapi
from deputy.sandbox.webapp_common import SiteServer
from deputy.vault import CredentialInfo

SECRET = "echo-me-secret-9f8e7d6c"


class FakeVault:
    """A credential source holding one key (the real vault is exercised in test_openapi_runner)."""

    def info(self, user_id: Any, handle: str) -> CredentialInfo:
        return CredentialInfo(handle=handle, kind="api_key", label="key", created_at=0)

    def get(self, user_id: Any, handle: str) -> SecretStr:
        return SecretStr(SECRET)


def build_app(other: str) -> web.Application:
    async def answer(request: web.Request) -> web.StreamResponse:
        kind = request.match_info["kind"]
        if kind == "boom":
            return web.json_response({"message": "database on fire"}, status=500)
        if kind == "missing":
            return web.json_response({"detail": "No booking TB-999 exists."}, status=404)
        if kind == "conflict":
            return web.Response(text="<html><body><h1>Sold out</h1><p>Try another day.</p></body></html>",
                                status=409, content_type="text/html")
        if kind == "busy":
            return web.Response(status=429, text="slow down")
        if kind == "slow":
            await asyncio.sleep(3)
            return web.json_response({})
        if kind == "html":
            return web.Response(text="<html><body>Maintenance</body></html>", content_type="text/html")
        if kind == "broken-json":
            return web.Response(text='{"a": [1, 2', content_type="application/json")
        if kind == "huge":
            return web.json_response({"items": ["x" * 1000] * 3000})
        if kind == "latin1":
            return web.Response(body=json.dumps({"city": "Montréal"}, ensure_ascii=False).encode("latin-1"),
                                headers={"Content-Type": "application/json; charset=latin-1"})
        if kind == "utf16":
            return web.Response(body=json.dumps({"city": "Zürich"}).encode("utf-16"),
                                headers={"Content-Type": "application/json"})
        if kind == "bogus-charset":
            return web.Response(body=b'{"ok": true}', headers={"Content-Type": "application/json; charset=klingon"})
        if kind == "binary":
            return web.Response(body=b"\x89PNG\r\n" + bytes(100), content_type="image/png")
        if kind == "empty":
            return web.Response(status=204)
        if kind == "echo":
            return web.json_response({"you_sent": request.headers.get("X-Key"), "query": dict(request.query)})
        if kind == "redirect":
            raise web.HTTPFound(f"{other}/steal")
        if kind == "hangup":
            response = web.StreamResponse(headers={"Content-Type": "application/json", "Content-Length": "1000"})
            await response.prepare(request)
            await response.write(b'{"partial": ')
            request.transport.close()  # type: ignore[union-attr]
            return response
        if kind == "form":
            return web.json_response({"form": dict(await request.post()), "type": request.content_type})
        if kind == "text":
            return web.json_response({"text": await request.text(), "type": request.headers["Content-Type"]})
        return web.json_response({"kind": kind, "header": request.headers.get("X-Trace")})

    app = web.Application()
    app.add_routes([web.route("*", "/api/{kind}", answer)])
    return app


def document(url: str) -> dict[str, Any]:
    json_ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    kinds = ["boom", "missing", "conflict", "busy", "slow", "html", "broken-json", "huge", "latin1", "utf16",
             "bogus-charset", "binary", "empty", "echo", "redirect", "hangup", "plain"]
    paths: dict[str, Any] = {f"/api/{k}": {"get": {"operationId": k.replace("-", "_"), "responses": json_ok}}
                             for k in kinds}
    paths["/api/plain"]["get"]["parameters"] = [{"name": "X-Trace", "in": "header", "schema": {"type": "string"}}]
    paths["/api/form"] = {"post": {"operationId": "form", "requestBody": {"content": {
        "application/x-www-form-urlencoded": {"schema": {"type": "object"}}}}}}
    paths["/api/text"] = {"post": {"operationId": "text", "requestBody": {"content": {
        "text/plain": {"schema": {"type": "string"}}}}}}
    return {
        "openapi": "3.1.0", "info": {"title": "Flaky"}, "servers": [{"url": url}], "paths": paths,
        "components": {"securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X-Key"}}},
        "security": [{"k": []}],
    }


@pytest.fixture
def flaky() -> Iterator[OpenApiRunner]:
    thief = SiteServer(build_app("http://unused"))
    thief_url = thief.start()
    server = SiteServer(build_app(thief_url))
    url = server.start()
    api = import_openapi(parse_openapi(json.dumps(document(url))), service="flaky")
    with httpx.Client(timeout=5, trust_env=False) as client:
        yield OpenApiRunner(api, client, FakeVault(), max_chars=500)
    server.stop()
    thief.stop()


def call(runner: OpenApiRunner, tool: str, arguments: dict[str, Any] | None = None) -> str:
    return runner.run(f"flaky_{tool}", arguments or {}, 1, "key").summary


@pytest.mark.parametrize(
    ("tool", "kind", "words"),
    [
        ("boom", ConnectorUnavailable, 'had a server error (500 Internal Server Error): "database on fire"'),
        ("missing", ConnectorRejected, 'refused the request (404 Not Found): "No booking TB-999 exists."'),
        ("conflict", ConnectorRejected, '(409 Conflict): "Sold out Try another day."'),
        ("busy", ConnectorUnavailable, 'asked to try again later (429 Too Many Requests): "slow down"'),
        ("html", ConnectorUnavailable, "answered with something that isn't JSON"),
        ("broken_json", ConnectorUnavailable, "something that isn't JSON"),
        ("redirect", ConnectorRejected, "redirected the request to http://127.0.0.1"),
        ("hangup", ConnectorUnavailable, "broke before its answer was complete"),
    ],
)
def test_failures_are_plain_connector_errors(flaky: OpenApiRunner, tool: str, kind: type, words: str) -> None:
    with pytest.raises(ConnectorError) as caught:
        call(flaky, tool)
    assert type(caught.value) is kind
    assert words in caught.value.user_message
    assert caught.value.__cause__ is None and caught.value.__context__ is None
    assert SECRET not in caught.value.user_message + (caught.value.detail or "")


def test_a_server_that_stops_answering_times_out() -> None:
    server = SiteServer(build_app("http://unused"))
    url = server.start()
    try:
        api = import_openapi(parse_openapi(json.dumps(document(url))), service="flaky")
        with httpx.Client(timeout=0.3) as client, pytest.raises(ConnectorUnavailable, match="took too long") as caught:
            OpenApiRunner(api, client, FakeVault()).run("flaky_slow", {}, 1, "k")
        assert caught.value.retryable and caught.value.__context__ is None
    finally:
        server.stop()


def test_a_server_that_is_down_is_retryable() -> None:
    server = SiteServer(build_app("http://unused"))
    url = server.start()
    server.stop()
    api = import_openapi(parse_openapi(json.dumps(document(url))), service="flaky")
    with httpx.Client(timeout=1) as client, pytest.raises(ConnectorUnavailable, match="couldn't connect") as caught:
        OpenApiRunner(api, client, FakeVault()).run("flaky_plain", {}, 1, "k")
    assert caught.value.retryable


def test_a_redirect_is_not_followed_so_the_key_stays_home(flaky: OpenApiRunner) -> None:
    with pytest.raises(ConnectorRejected, match="I didn't follow it"):
        call(flaky, "redirect")


def test_huge_answers_are_cut_with_a_note(flaky: OpenApiRunner) -> None:
    summary = call(flaky, "huge")
    assert summary.startswith("200 OK\n")
    assert len(summary) < 700
    assert summary.endswith("(The answer was cut at 500 of more than 1,000,000 characters.)")


def test_odd_encodings_are_decoded(flaky: OpenApiRunner) -> None:
    assert call(flaky, "latin1") == '200 OK\n{"city":"Montréal"}'
    assert call(flaky, "utf16") == '200 OK\n{"city":"Zürich"}'
    assert call(flaky, "bogus_charset") == '200 OK\n{"ok":true}'
    assert call(flaky, "binary") == "200 OK: 106 bytes of image/png (not shown)."
    assert call(flaky, "empty") == "204 No Content (no content)"


def test_a_secret_echoed_back_is_scrubbed(flaky: OpenApiRunner) -> None:
    summary = call(flaky, "echo")
    assert SECRET not in summary
    assert "[redacted]" in summary


def test_header_parameters_cannot_smuggle_headers(flaky: OpenApiRunner) -> None:
    assert '"header":"abc-123"' in call(flaky, "plain", {"X-Trace": "abc-123"})
    with pytest.raises(ConnectorRejected, match="printable ASCII"):
        call(flaky, "plain", {"X-Trace": "x\r\nX-Admin: yes"})


def test_form_and_text_bodies(flaky: OpenApiRunner) -> None:
    form = json.loads(call(flaky, "form", {"body": {"a": "1", "b": True, "c": ["x", "y"]}}).split("\n", 1)[1])
    assert form == {"form": {"a": "1", "b": "true", "c": "x"}, "type": "application/x-www-form-urlencoded"}
    text = json.loads(call(flaky, "text", {"body": "héllo"}).split("\n", 1)[1])
    assert text == {"text": "héllo", "type": "text/plain; charset=utf-8"}


def test_a_stored_key_with_line_breaks_is_refused_without_echo() -> None:
    class BadVault(FakeVault):
        def get(self, user_id: Any, handle: str) -> SecretStr:
            return SecretStr("abc\r\nInjected: 1")

    api = import_openapi(parse_openapi(json.dumps(document("http://127.0.0.1:9"))), service="flaky")
    with httpx.Client() as client, pytest.raises(ConnectorAuthError, match="can't be sent over HTTP") as caught:
        OpenApiRunner(api, client, BadVault()).run("flaky_plain", {}, 1, "k")
    assert "Injected" not in caught.value.user_message


def test_an_id_the_service_does_not_know_names_the_calls_that_list_the_real_ones() -> None:
    # "There is no restaurant 'sushi-place'": a guessed id. The error tells the model where the real ids are
    # (the search, not the listing of the user's own bookings).
    async def book(request: web.Request) -> web.StreamResponse:
        return web.json_response({"message": "There is no restaurant 'sushi-place'."}, status=404)

    async def search(request: web.Request) -> web.StreamResponse:
        return web.json_response({"restaurants": [{"id": "sushi-kaito", "name": "Sushi Kaito"}]})

    app = web.Application()
    app.add_routes([web.post("/bookings", book), web.get("/restaurants", search)])
    server = SiteServer(app)
    url = server.start()
    ok = {"200": {"description": "ok"}}
    spec = {"openapi": "3.1.0", "info": {"title": "Tables"}, "servers": [{"url": url}], "paths": {
        "/bookings": {"get": {"operationId": "list_bookings", "responses": ok},
                      "post": {"operationId": "book", "responses": ok, "requestBody": {"content": {
            "application/json": {"schema": {"type": "object", "properties": {"restaurant_id": {"type": "string"}}}}}}}},
        "/restaurants": {"get": {"operationId": "search", "responses": ok}}}}
    api = import_openapi(parse_openapi(json.dumps(spec)), service="restaurants")
    try:
        with httpx.Client(timeout=5, trust_env=False) as client:
            runner = OpenApiRunner(api, client)
            with pytest.raises(ConnectorRejected) as caught:
                runner.run("restaurants_book", {"body": {"restaurant_id": "sushi-place"}}, 1, "key")
            assert "There is no restaurant 'sushi-place'." in caught.value.user_message
            assert caught.value.user_message.endswith("To find the right one, call restaurants_search first.")
            assert "restaurants_search" in str(caught.value)
            assert "sushi-kaito" in runner.run("restaurants_search", {}, 1, "key").summary
    finally:
        server.stop()


def test_a_missing_record_of_an_api_with_nothing_to_list_it_says_only_what_the_server_said(flaky: OpenApiRunner) -> None:
    with pytest.raises(ConnectorRejected) as caught:
        call(flaky, "missing")
    assert "find the right one" not in caught.value.user_message
