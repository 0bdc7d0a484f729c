"""OpenAPI documents become catalog operations: names, effects, schemas, $refs, overrides, refusals."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from deputy.core.records.effects import EffectClass, RiskTag
from deputy.connectors.catalog import Catalog, InvalidArguments
from deputy.connectors.openapi.document import MAX_DOCUMENT_BYTES, OpenApiDocumentError, load_openapi_file, parse_openapi
from deputy.connectors.overrides import OperationOverride
from deputy.connectors.openapi.importer import import_openapi

PETS = """
openapi: 3.0.3
info: {title: Pet Store}
servers: [{url: "https://{region}.pets.example/v1", variables: {region: {default: eu}}}]
security: [{key: []}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-API-Key}
  parameters:
    PetId: {name: petId, in: path, required: true, schema: {type: string}}
  schemas:
    Pet:
      type: object
      required: [name, id]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string, maxLength: 50}
        tag: {type: string, nullable: true}
        price: {type: number, minimum: 0, exclusiveMinimum: true}
        parent: {$ref: '#/components/schemas/Pet'}
paths:
  /pets:
    get:
      operationId: listPets
      summary: List the pets in the store
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 100}}
        - {name: X-API-Key, in: header, schema: {type: string}}
      responses: {'200': {description: ok, content: {application/json: {schema: {type: array}}}}}
    post:
      operationId: createPet
      summary: Add a pet
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
      responses: {'201': {description: created}}
  /pets/{petId}:
    parameters: [{$ref: '#/components/parameters/PetId'}]
    delete:
      responses: {'204': {description: gone}}
    head:
      responses: {'200': {description: exists}}
"""


def pets(**options):
    return import_openapi(parse_openapi(PETS), service="pets", **options)


def test_methods_become_reads_deletes_and_messages_named_after_the_service() -> None:
    api = pets()
    effects = {op.name: (op.spec.effect, op.spec.tags) for op in api.operations}
    assert effects == {
        "pets_listPets": (EffectClass.read, frozenset()),
        # A POST may tell someone something (a booking, a post): asked about as a message.
        "pets_createPet": (EffectClass.communicate, frozenset()),
        "pets_delete_pets_petId": (EffectClass.write, frozenset({RiskTag.delete})),
        "pets_head_pets_petId": (EffectClass.read, frozenset()),
    }
    assert all(op.spec.connector == "openapi" for op in api.operations)
    assert api.base_url == "https://eu.pets.example/v1"
    assert api.credential == "cred:api/pets"
    assert api.operations[0].spec.description == "List the pets in the store"
    assert api.operations[2].spec.description == "DELETE /pets/{petId}"
    # The catalog takes them as they are, next to other connectors' operations.
    assert Catalog(api.operations).find("openapi", "pets_createPet") is not None


def test_refs_are_resolved_and_the_30_dialect_translated() -> None:
    view = pets().operations[1].schema
    body = view["properties"]["body"]
    assert view["required"] == ["body"]
    # readOnly `id` is never sent, so it is neither shown nor required.
    assert set(body["properties"]) == {"name", "tag", "price", "parent"}
    assert body["required"] == ["name"]
    assert body["properties"]["tag"]["type"] == ["string", "null"]
    assert body["properties"]["price"] == {"type": "number", "exclusiveMinimum": 0}
    # The recursive reference is cut where it recurs: below that point anything is accepted.
    assert body["properties"]["parent"] == {}
    # Validation uses the same translated schema.
    op = pets().operations[1]
    assert op.validate({"body": {"name": "Rex", "tag": None, "price": 3}}).model_dump() == {
        "body": {"name": "Rex", "tag": None, "price": 3}
    }
    for bad in ({"body": {"name": "Rex", "price": 0}}, {"body": {"tag": "x"}}, {}):
        with pytest.raises(InvalidArguments):
            op.validate(bad)


def test_arguments_are_validated_strictly_with_plain_messages() -> None:
    listing, _, delete, _ = pets().operations
    assert listing.validate({"limit": 5}).model_dump() == {"limit": 5}
    with pytest.raises(InvalidArguments, match="limit: 500 is greater than the maximum of 100"):
        listing.validate({"limit": 500})
    with pytest.raises(InvalidArguments, match="Additional properties are not allowed"):
        listing.validate({"limit": 5, "admin": True})
    with pytest.raises(InvalidArguments, match="path value"):
        delete.validate({"petId": ".."})
    with pytest.raises(InvalidArguments, match="at most 200,000"):
        listing.validate({"limit": 5, "x": "y" * 300_000})
    # A path value can't escape its segment; the target names exactly what is affected.
    args = delete.validate({"petId": "7/../../admin"})
    assert delete.targets(args) == ["https://eu.pets.example/v1/pets/7%2F..%2F..%2Fadmin"]


def test_the_credential_slot_is_hidden_from_the_model() -> None:
    listing = pets().operations[0]
    rendered = json.dumps(listing.tool_schema())
    assert "X-API-Key" not in rendered and "limit" in rendered
    assert pets().calls["pets_listPets"].auth.scheme.parameter == "X-API-Key"


def test_overrides_reclassify_and_commit_to_an_amount() -> None:
    api = pets(overrides={
        "createPet": OperationOverride(effect=EffectClass.spend, amount="body.price", currency="EUR",
                                       tags=frozenset({RiskTag.irreversible})),
        "pets_head_pets_petId": EffectClass.write,
    })
    create = next(op for op in api.operations if op.name == "pets_createPet")
    assert create.spec.effect is EffectClass.spend and create.spec.tags == {RiskTag.irreversible}
    args = create.validate({"body": {"name": "Rex", "price": 12.5}})
    assert create.amount(args) == (Decimal("12.5"), "EUR")
    with pytest.raises(InvalidArguments, match="spends money"):
        create.validate({"body": {"name": "Rex"}})
    assert api.operations[3].spec.effect is EffectClass.write
    with pytest.raises(OpenApiDocumentError, match="no operation named 'buyPet'"):
        pets(overrides={"buyPet": EffectClass.spend})
    with pytest.raises(ValueError):
        OperationOverride(effect=EffectClass.spend, amount="body.price")  # no currency


def test_include_and_the_operation_cap() -> None:
    assert pets(include=["listPets", "pets_createPet"]).names() == ["pets_listPets", "pets_createPet"]
    with pytest.raises(OpenApiDocumentError, match="describes 4 operations; I take at most 3"):
        pets(max_operations=3)
    many = {"openapi": "3.1.0", "info": {"title": "Big"}, "servers": [{"url": "https://big.example"}],
            "paths": {f"/r{i}": {"get": {"operationId": f"r{i}"}} for i in range(150)}}
    with pytest.raises(OpenApiDocumentError, match="150 operations"):
        import_openapi(parse_openapi(json.dumps(many)), service="big")
    assert len(import_openapi(parse_openapi(json.dumps(many)), service="big", include=["r1", "r2"]).operations) == 2


def test_tool_names_fit_the_charset_and_stay_unique() -> None:
    long_id = "get" + "VeryLong" * 12
    doc = {"openapi": "3.1.0", "info": {"title": "Names"}, "servers": [{"url": "https://n.example"}], "paths": {
        "/a": {"get": {"operationId": long_id}, "post": {"operationId": "do thing/ünïcode!"}},
        "/b": {"get": {"operationId": long_id + "2"}, "post": {"operationId": "do_thing_n_code"}},
        "/c/{id}": {"put": {"parameters": [{"name": "id", "in": "path", "required": True}]}},
    }}
    names = import_openapi(parse_openapi(json.dumps(doc)), service="names").names()
    assert len(set(names)) == 5
    assert all(len(n) <= 64 and n.replace("_", "").replace("-", "").isalnum() and n.isascii() for n in names)
    assert "names_put_c_id" in names


def test_openapi_31_yaml_with_unquoted_version_and_sibling_refs(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text("""
openapi: 3.1
info: {title: Tiny}
servers: [{url: "http://127.0.0.1:9/api"}]
components:
  schemas:
    Amount: {type: [number, "null"], minimum: 0}
paths:
  /pay:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                total: {$ref: '#/components/schemas/Amount', description: What it costs}
""")
    api = import_openapi(load_openapi_file(path), service="tiny")
    total = api.operations[0].schema["properties"]["body"]["properties"]["total"]
    assert total == {"type": ["number", "null"], "minimum": 0, "description": "What it costs"}
    assert api.operations[0].validate({"body": {"total": None}}).model_dump() == {"body": {"total": None}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"swagger": "2.0", "paths": {}}', "Swagger 2.0"),
        ('{"openapi": "4.0.0", "paths": {}}', "OpenAPI 4.0.0"),
        ('{"info": {}}', "no 'openapi' version"),
        ("[1, 2]", "isn't a JSON or YAML object"),
        ("{not json", "neither valid JSON nor valid YAML"),
        ("key: [unclosed", "neither valid JSON nor valid YAML"),
        ('{"openapi": "3.0.0", "paths": []}', "'paths' of"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_bad_documents_are_refused_politely(text: str, message: str) -> None:
    with pytest.raises(OpenApiDocumentError, match=message) as caught:
        parse_openapi(text)
    assert caught.value.__cause__ is None and not caught.value.retryable


def test_huge_documents_and_alias_bombs_are_refused() -> None:
    with pytest.raises(OpenApiDocumentError, match="larger than 2 MB"):
        parse_openapi(b"{" + b" " * MAX_DOCUMENT_BYTES + b"}")
    bomb = "openapi: 3.0.0\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for level in range(1, 9):
        bomb += f"{'b' * level}: &{'b' * level} [{', '.join(['*' + ('b' * (level - 1) or 'a')] * 10)}]\n"
    with pytest.raises(OpenApiDocumentError, match="too large"):
        parse_openapi(bomb)
    with pytest.raises(OpenApiDocumentError, match="not UTF-8"):
        parse_openapi(b'{"openapi": "3.0.0", "x": "\xff\xfe"}')


def test_remote_and_dangling_refs_are_refused() -> None:
    remote = {"openapi": "3.0.0", "info": {"title": "R"}, "servers": [{"url": "https://r.example"}], "paths": {
        "/x": {"get": {"parameters": [{"$ref": "https://evil.example/params.yaml#/Limit"}]}}}}
    with pytest.raises(OpenApiDocumentError, match="refers to another file or address"):
        import_openapi(parse_openapi(json.dumps(remote)), service="r")
    remote["paths"]["/x"]["get"]["parameters"] = [{"$ref": "#/components/parameters/Nope"}]
    with pytest.raises(OpenApiDocumentError, match="which it doesn't contain"):
        import_openapi(parse_openapi(json.dumps(remote)), service="r")


def test_exponential_refs_are_bounded() -> None:
    schemas = {"S0": {"type": "string"}}
    for i in range(1, 30):
        schemas[f"S{i}"] = {"type": "object", "properties": {
            "a": {"$ref": f"#/components/schemas/S{i - 1}"}, "b": {"$ref": f"#/components/schemas/S{i - 1}"}}}
    doc = {"openapi": "3.1.0", "info": {"title": "Fan"}, "servers": [{"url": "https://f.example"}],
           "components": {"schemas": schemas}, "paths": {"/x": {"post": {"requestBody": {"content": {
               "application/json": {"schema": {"$ref": "#/components/schemas/S29"}}}}}}}}
    with pytest.raises(OpenApiDocumentError, match="expand to more than I can use"):
        import_openapi(parse_openapi(json.dumps(doc)), service="fan")


def test_unusable_operations_are_left_out_with_a_note() -> None:
    doc = {
        "openapi": "3.0.0", "info": {"title": "Mixed"}, "servers": [{"url": "https://m.example"}],
        "components": {"securitySchemes": {"mtls": {"type": "mutualTLS"}, "bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            "/upload": {"post": {"requestBody": {"required": True, "content": {"multipart/form-data": {}}}}},
            "/secure": {"get": {"security": [{"mtls": []}]}},
            "/token": {"get": {"security": [{"bearer": []}]}},
            "/broken/{id}": {"get": {}},
            "/bad-schema": {"get": {"parameters": [{"name": "q", "in": "query", "schema": {"type": 12}}]}},
        },
    }
    api = import_openapi(parse_openapi(json.dumps(doc)), service="mixed")
    assert api.names() == ["mixed_get_token"]
    assert api.calls["mixed_get_token"].auth.scheme.kind == "bearer"
    joined = " ".join(api.notes)
    for fragment in ("POST /upload sends a file", "GET /secure needs a kind of authentication",
                     "path value {id}", "GET /bad-schema has a schema I couldn't understand"):
        assert fragment in joined
    doc["paths"] = {"/upload": doc["paths"]["/upload"]}
    with pytest.raises(OpenApiDocumentError, match="has no operations I can use"):
        import_openapi(parse_openapi(json.dumps(doc)), service="mixed")


def test_server_addresses_must_be_usable() -> None:
    relative = {"openapi": "3.0.0", "info": {"title": "Rel"}, "servers": [{"url": "/api"}],
                "paths": {"/x": {"get": {}}}}
    with pytest.raises(OpenApiDocumentError, match="tell me the API's full base URL"):
        import_openapi(parse_openapi(json.dumps(relative)), service="rel")
    fetched = parse_openapi(json.dumps(relative), url="http://127.0.0.1:8080/docs/openapi.json")
    assert import_openapi(fetched, service="rel").base_url == "http://127.0.0.1:8080/api"
    assert import_openapi(parse_openapi(json.dumps(relative)), service="rel",
                          base_url="https://rel.example/v2/").base_url == "https://rel.example/v2"
    for bad in ("ftp://rel.example", "https://user:pw@rel.example", "https://rel.example/?key=1"):
        with pytest.raises(OpenApiDocumentError):
            import_openapi(parse_openapi(json.dumps(relative)), service="rel", base_url=bad)
    with pytest.raises(OpenApiDocumentError, match="lowercase"):
        import_openapi(parse_openapi(json.dumps(relative)), service="Bad Name", base_url="https://rel.example")


def test_long_schemas_are_shortened_for_the_model_but_validated_in_full() -> None:
    props = {f"field_{i}": {"type": "string", "description": "A very long description. " * 20, "enum": [
        f"v{j}" for j in range(40)]} for i in range(60)}
    doc = {"openapi": "3.1.0", "info": {"title": "Wide"}, "servers": [{"url": "https://w.example"}],
           "paths": {"/x": {"post": {"requestBody": {"content": {"application/json": {"schema": {
               "type": "object", "properties": props, "required": ["field_59"]}}}}}}}}
    op = import_openapi(parse_openapi(json.dumps(doc)), service="wide").operations[0]
    assert len(json.dumps(op.tool_schema())) < 7_000
    assert op.schema["properties"]["body"]["required"] == ["field_59"]
    with pytest.raises(InvalidArguments, match="is not one of"):
        op.validate({"body": {"field_59": "nope"}})
    assert op.validate({"body": {"field_59": "v39"}})
