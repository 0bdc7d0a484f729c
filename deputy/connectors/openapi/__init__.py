"""Custom connectors from OpenAPI 3 documents: any described API becomes guarded tools.

    document = fetch_openapi(client, "https://api.example.com/openapi.json")   # or load_openapi_file
    api = import_openapi(document, service="example", overrides={"book": OperationOverride(
        effect=EffectClass.spend, amount="body.total", currency="EUR")})
    catalog = catalog.merged(api.catalog())                      # the agent's tools
    runners = OpenApiRunner(api, guarded_client, vault).runners()   # the executor's side

The secret lives in the vault under `cred:api/<service>` and is added to the request only
inside the executor.

This package's `__init__` loads nothing: import each module by its full path (only the executor
imports the runners).
"""
