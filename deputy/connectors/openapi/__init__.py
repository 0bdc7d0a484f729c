"""Custom connectors from OpenAPI 3 documents: any described API becomes guarded tools.

    document = fetch_openapi(client, "https://api.example.com/openapi.json")   # or load_openapi_file
    api = import_openapi(document, service="example", overrides={"book": OperationOverride(
        effect=EffectClass.spend, amount="body.total", currency="EUR")})
    catalog = catalog.merged(api.catalog())                      # the agent's tools
    runners = OpenApiRunner(api, guarded_client, vault).runners()   # the executor's side

The secret lives in the vault under `cred:api/<service>` and is added to the request only
inside the executor.
"""

from deputy.connectors.openapi.api import CONNECTOR, ApiCall, ApiParameter, ImportedApi
from deputy.connectors.openapi.auth import AuthPlan, AuthScheme, CredentialSource, credential_handle
from deputy.connectors.openapi.document import (
    MAX_DOCUMENT_BYTES,
    ApiDocument,
    OpenApiDocumentError,
    fetch_openapi,
    load_openapi_file,
    parse_openapi,
)
from deputy.connectors.openapi.importer import MAX_OPERATIONS, import_openapi
from deputy.connectors.overrides import OperationOverride, Overrides
from deputy.connectors.openapi.runner import MAX_RESPONSE_BYTES, OpenApiRunner

__all__ = [
    "CONNECTOR",
    "MAX_DOCUMENT_BYTES",
    "MAX_OPERATIONS",
    "MAX_RESPONSE_BYTES",
    "ApiCall",
    "ApiDocument",
    "ApiParameter",
    "AuthPlan",
    "AuthScheme",
    "CredentialSource",
    "ImportedApi",
    "OpenApiDocumentError",
    "OpenApiRunner",
    "OperationOverride",
    "Overrides",
    "credential_handle",
    "fetch_openapi",
    "import_openapi",
    "load_openapi_file",
    "parse_openapi",
]
