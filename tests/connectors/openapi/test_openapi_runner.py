"""An API Deputy has never seen: its OpenAPI document becomes tools that work end to end.

The service is a tiny aiohttp app written here, with a GET and a POST behind an API key;
the key lives in a real vault and must never show up in what the model or the user sees.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import ConnectorAuthError, ConnectorRejected, EffectClass
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.connectors.openapi.document import fetch_openapi, parse_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.connectors.openapi.document import OpenApiDocumentError
from deputy.sandbox.webapp_common import SiteServer
from deputy.core.records.actions import Action
from deputy.vault import KdfCost, Vault

API_KEY = "nk_live_5f2a9c0e7b1d4e8f"
USER = 7

NOTES_DOC = """
openapi: 3.0.3
info: {title: Notes, version: "1"}
servers: [{url: /v1}]
security: [{noteKey: []}]
components:
  securitySchemes:
    noteKey: {type: apiKey, in: header, name: X-Note-Key}
  schemas:
    NewNote:
      type: object
      required: [text]
      properties:
        text: {type: string, minLength: 1, maxLength: 280}
        tags: {type: array, items: {$ref: '#/components/schemas/Tag'}, maxItems: 5}
    Tag: {type: string, enum: [work, home, errand]}
    Note:
      allOf:
        - $ref: '#/components/schemas/NewNote'
        - type: object
          properties: {id: {type: integer}}
paths:
  /notes:
    get:
      operationId: listNotes
      summary: List notes, optionally by tag
      parameters:
        - {name: tag, in: query, schema: {$ref: '#/components/schemas/Tag'}}
      responses:
        '200': {description: The notes, content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Note'}}}}}
    post:
      operationId: addNote
      summary: Add a note
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/NewNote'}}}
      responses:
        '201': {description: Created, content: {application/json: {schema: {$ref: '#/components/schemas/Note'}}}}
"""


class NotesService:
    """The tiny service: notes in memory, an API key, and a record of what it was sent."""

    def __init__(self) -> None:
        self.notes: list[dict[str, Any]] = [{"id": 1, "text": "buy milk", "tags": ["errand"]}]
        self.requests: list[dict[str, Any]] = []

    def app(self) -> web.Application:
        async def document(request: web.Request) -> web.Response:
            return web.Response(text=NOTES_DOC, content_type="application/yaml")

        async def listing(request: web.Request) -> web.Response:
            self._seen(request)
            if request.headers.get("X-Note-Key") != API_KEY:
                return web.json_response({"error": {"message": "bad or missing key"}}, status=401)
            tag = request.query.get("tag")
            return web.json_response([n for n in self.notes if tag is None or tag in n["tags"]])

        async def add(request: web.Request) -> web.Response:
            self._seen(request, await request.json())
            if request.headers.get("X-Note-Key") != API_KEY:
                return web.json_response({"error": {"message": "bad or missing key"}}, status=401)
            body = await request.json()
            note = {"id": len(self.notes) + 1, "text": body["text"], "tags": body.get("tags", [])}
            self.notes.append(note)
            return web.json_response(note, status=201)

        app = web.Application()
        app.add_routes([web.get("/openapi.yaml", document), web.get("/v1/notes", listing),
                        web.post("/v1/notes", add)])
        return app

    def _seen(self, request: web.Request, body: Any = None) -> None:
        self.requests.append({"headers": dict(request.headers), "query": dict(request.query), "body": body})


@pytest.fixture
def service() -> Iterator[tuple[NotesService, str]]:
    notes = NotesService()
    server = SiteServer(notes.app())
    url = server.start()
    yield notes, url
    server.stop()


@pytest.fixture
def vault(redis: Redis, tmp_path: Path) -> Vault:
    return Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024,
                                                                             parallelism=1))


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5, trust_env=False) as http:
        yield http


def action(operation: str, arguments: dict[str, Any], user_id: int = USER) -> Action:
    return Action(id="a_1", goal_id="g", user_id=user_id, chat_id=user_id, connector="openapi", operation=operation,
                  effect=EffectClass.read, arguments=arguments, tool_call_id="c", created_at=0)


def test_an_unseen_api_works_end_to_end_with_the_key_from_the_vault(
    service: tuple[NotesService, str], vault: Vault, client: httpx.Client
) -> None:
    notes, url = service
    document = fetch_openapi(client, f"{url}/openapi.yaml")
    api = import_openapi(document, service="notes")
    listing, add = api.operations
    assert (listing.name, listing.spec.effect) == ("notes_listNotes", EffectClass.read)
    assert (add.name, add.spec.effect) == ("notes_addNote", EffectClass.communicate)
    # The relative server was resolved against where the document came from.
    assert api.base_url == f"{url}/v1"
    vault.put(USER, "cred:api/notes", SecretStr(API_KEY), "api_key", "Notes API key")
    runners = OpenApiRunner(api, client, vault).runners()
    assert set(runners) == {"openapi.notes_listNotes", "openapi.notes_addNote"}

    # What the agent does: validate the model's arguments, then the executor runs them.
    args = add.validate({"body": {"text": "call the plumber", "tags": ["home"]}})
    assert add.targets(args) == [f"{url}/v1/notes"]
    result = runners["openapi.notes_addNote"](action("notes_addNote", args.model_dump(mode="json")), "idem-42")
    assert result.summary.startswith("201 Created\n")
    assert json.loads(result.summary.split("\n", 1)[1]) == {"id": 2, "text": "call the plumber", "tags": ["home"]}
    assert result.untrusted_origin == f"the API response from {url.split('//')[1]}"
    assert notes.requests[-1]["headers"]["Idempotency-Key"] == "idem-42"

    found = runners["openapi.notes_listNotes"](action("notes_listNotes", {"tag": "home"}), "k2")
    assert json.loads(found.summary.split("\n", 1)[1]) == [{"id": 2, "text": "call the plumber", "tags": ["home"]}]
    assert notes.requests[-1]["query"] == {"tag": "home"}
    assert "Idempotency-Key" not in notes.requests[-1]["headers"]  # a GET changes nothing
    # A listing of several records: each is its own item, named by its id, so a card names the one.
    everything = runners["openapi.notes_listNotes"](action("notes_listNotes", {}), "k3")
    host = url.split("//")[1]
    assert [i.origin for i in everything.items] == [f"the record 1 (id 1) of the API response from {host}",
                                                    f"the record 2 (id 2) of the API response from {host}"]
    assert [json.loads(i.text)["text"] for i in everything.items] == ["buy milk", "call the plumber"]

    # The key went to the service, and nowhere the model or the user can see.
    assert all(r["headers"]["X-Note-Key"] == API_KEY for r in notes.requests)
    visible = json.dumps([op.tool_schema() for op in api.operations]) + result.summary + found.summary
    visible += " ".join(op.spec.description for op in api.operations) + repr(api)
    assert API_KEY not in visible


def test_a_missing_or_wrong_key_is_a_plain_auth_error(
    service: tuple[NotesService, str], vault: Vault, client: httpx.Client
) -> None:
    _, url = service
    api = import_openapi(fetch_openapi(client, f"{url}/openapi.yaml"), service="notes")
    runner = OpenApiRunner(api, client, vault)
    with pytest.raises(ConnectorAuthError, match="none is stored for you yet") as missing:
        runner.run("notes_listNotes", {}, USER, "k")
    assert "cred:api/notes" in missing.value.user_message

    wrong = "nk_live_wrong_0000000000"
    vault.put(USER, "cred:api/notes", SecretStr(wrong), "api_key", "Notes API key")
    with pytest.raises(ConnectorAuthError, match='refused the credentials .*401 Unauthorized.*"bad or missing key"') as bad:
        runner.run("notes_listNotes", {}, USER, "k")
    assert wrong not in str(bad.value) and wrong not in (bad.value.detail or "")
    assert bad.value.__cause__ is None and bad.value.__context__ is None
    # Another user's key is not this user's key.
    with pytest.raises(ConnectorAuthError, match="none is stored"):
        runner.run("notes_listNotes", {}, USER + 1, "k")


def test_the_runner_revalidates_arguments(service: tuple[NotesService, str], client: httpx.Client) -> None:
    _, url = service
    api = import_openapi(fetch_openapi(client, f"{url}/openapi.yaml"), service="notes")
    runner = OpenApiRunner(api, client, None)
    with pytest.raises(ConnectorRejected, match="don't fit its description.*tags.0: 'party' is not one of"):
        runner.run("notes_addNote", {"body": {"text": "x", "tags": ["party"]}}, USER, "k")
    with pytest.raises(ConnectorRejected, match="has no operation"):
        runner.run("notes_deleteEverything", {}, USER, "k")


def test_query_bearer_and_basic_credentials_go_where_the_document_says(vault: Vault, client: httpx.Client) -> None:
    seen: list[web.Request] = []

    async def echo(request: web.Request) -> web.Response:
        seen.append(request)
        return web.json_response({"ok": True})

    app = web.Application()
    app.add_routes([web.get("/{tail:.*}", echo)])
    server = SiteServer(app)
    url = server.start()
    try:
        doc = {
            "openapi": "3.1.0", "info": {"title": "Auth"}, "servers": [{"url": url}],
            "components": {"securitySchemes": {
                "q": {"type": "apiKey", "in": "query", "name": "api_key"},
                "c": {"type": "apiKey", "in": "cookie", "name": "session"},
                "b": {"type": "http", "scheme": "bearer"},
                "basic": {"type": "http", "scheme": "basic"},
                "oauth": {"type": "oauth2", "flows": {}},
            }},
            "paths": {f"/{name}": {"get": {"operationId": name, "security": [{name: []}]}}
                      for name in ("q", "c", "b", "basic", "oauth")} | {"/open": {"get": {
                          "operationId": "open", "security": [{"b": []}, {}]}}},
        }
        api = import_openapi(parse_openapi(json.dumps(doc)), service="auth")
        runner = OpenApiRunner(api, client, vault)
        runner.run("auth_open", {}, USER, "k")  # anonymous is allowed, and nothing is stored
        assert "Authorization" not in seen[-1].headers
        secret = "s3cret-Token-value"
        vault.put(USER, "cred:api/auth", SecretStr(secret), "token", "Auth token", public={"username": "ann"})
        runner.run("auth_q", {}, USER, "k")
        assert seen[-1].query["api_key"] == secret
        runner.run("auth_c", {}, USER, "k")
        assert seen[-1].cookies["session"] == secret
        runner.run("auth_b", {}, USER, "k")
        assert seen[-1].headers["Authorization"] == f"Bearer {secret}"
        runner.run("auth_oauth", {}, USER, "k")
        assert seen[-1].headers["Authorization"] == f"Bearer {secret}"
        runner.run("auth_basic", {}, USER, "k")
        assert seen[-1].headers["Authorization"] == "Basic YW5uOnMzY3JldC1Ub2tlbi12YWx1ZQ=="
    finally:
        server.stop()


def test_fetching_a_document_that_is_not_there_is_refused(service: tuple[NotesService, str], client: httpx.Client):
    _, url = service
    with pytest.raises(OpenApiDocumentError, match="answered 404 instead of the OpenAPI document"):
        fetch_openapi(client, f"{url}/nope.json")
    with pytest.raises(OpenApiDocumentError, match="must start with http"):
        fetch_openapi(client, "file:///etc/passwd")


def test_sentinels_guarded_client_plugs_in(service: tuple[NotesService, str], vault: Vault) -> None:
    from deputy.connectors.http.client import guarded_client
    from deputy.sentinel.egress.policy import EgressDecision, OutboundRequest
    from deputy.sentinel.egress.transports.http_client import EgressBlocked
    from deputy.sentinel.policy import Risk, Verdict

    notes, url = service
    reviewed: list[OutboundRequest] = []

    def review(request: OutboundRequest) -> EgressDecision:
        reviewed.append(request)
        if request.method == "POST":
            return EgressDecision(verdict=Verdict.deny, reasons=["Posting notes is not allowed here."], risk=Risk.high)
        return EgressDecision(verdict=Verdict.allow, reasons=[], risk=Risk.low)

    with httpx.Client(timeout=5) as plain:
        api = import_openapi(fetch_openapi(plain, f"{url}/openapi.yaml"), service="notes")
    vault.put(USER, "cred:api/notes", SecretStr(API_KEY), "api_key", "Notes API key")
    with guarded_client(review, connector="openapi", timeout=5) as client:
        runner = OpenApiRunner(api, client, vault)
        assert runner.run("notes_listNotes", {}, USER, "k").summary.startswith("200 OK")
        with pytest.raises(EgressBlocked, match="Posting notes is not allowed here"):
            runner.run("notes_addNote", {"body": {"text": "hi"}}, USER, "k")
    assert [r.method for r in reviewed] == ["GET", "POST"]
    assert len(notes.requests) == 1  # the blocked POST never left
