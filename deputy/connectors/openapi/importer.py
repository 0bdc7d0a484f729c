"""`import_openapi`: an OpenAPI 3 document becomes a custom connector (`ImportedApi`).

Each operation becomes a tool named `<service>_<operationId>` whose arguments are one
object `{path and query and header parameters..., body: {...}}`, validated with the
document's own schemas. The effect class follows the HTTP method unless the user's
`overrides` say otherwise; credentials are referred to only by vault handle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urljoin

import httpx

from deputy.connectors.catalog import Operation
from deputy.connectors.openapi.api import ApiCall, ImportedApi
from deputy.connectors.openapi.auth import credential_handle, read_schemes
from deputy.connectors.openapi.building import Context, Skipped, build_operation
from deputy.connectors.openapi.document import ApiDocument, OpenApiDocumentError
from deputy.connectors.openapi.names import check_service_name, raw_operation_name, tool_name
from deputy.connectors.overrides import OperationOverride, Overrides, as_override
from deputy.connectors.openapi.refs import RefResolver, check_local_refs
from deputy.core.accounts.credential_index import validate_handle
from deputy.core.records.vault_errors import VaultError

MAX_OPERATIONS = 100
"""Most operations one connector may bring; each is a tool the model must read about."""
# OPTIONS and TRACE describe the transport, not the service: nothing a user asks for.
_METHODS = ("get", "put", "post", "delete", "patch", "head")


def import_openapi(
    document: ApiDocument,
    *,
    service: str,
    base_url: str | None = None,
    overrides: Overrides | None = None,
    include: Iterable[str] | None = None,
    max_operations: int = MAX_OPERATIONS,
    credential: str | None = None,
) -> ImportedApi:
    """Build the connector for `document` under the name `service`.

    `base_url` replaces the document's servers (needed when they are relative and the
    document came from a file). `include` keeps only the named operations (tool names or
    operationIds). `overrides` reclassify operations by tool name or operationId; naming an
    operation that isn't imported is an error, so a typo can't leave a purchase a "write".
    Raises `OpenApiDocumentError` with a plain sentence when the document can't be used.
    """
    check_service_name(service)
    try:
        handle = validate_handle(credential or credential_handle(service))
    except VaultError as exc:
        raise OpenApiDocumentError(exc.user_message) from None
    content = document.content
    check_local_refs(content)
    resolver = RefResolver(content)
    components = resolver.deref(content.get("components"))
    ctx = Context(
        openapi_version=document.version,
        resolver=resolver,
        schemes=read_schemes(components),
        security=content.get("security"),
    )
    found = list(_operations(content, resolver, service))
    if include is not None:
        wanted = set(include)
        found = [f for f in found if f[0] in wanted or f[1] in wanted]
    if len(found) > max_operations:
        raise OpenApiDocumentError(
            f"{document.title} describes {len(found)} operations; I take at most {max_operations} per connector. "
            "Choose the ones you need (by operationId) and connect only those."
        )
    chosen = _match_overrides(overrides or {}, found, document.title)
    root = _server_url(content.get("servers"), base_url, document)
    operations: list[Operation] = []
    calls: dict[str, ApiCall] = {}
    notes: list[str] = []
    for tool, raw, method, path, path_item, op in found:
        servers = op.get("servers") or path_item.get("servers")
        server = root if base_url or not servers else _server_url(servers, None, document)
        try:
            call, operation = build_operation(ctx, tool, method, path, path_item, op, server, chosen.get(tool))
        except Skipped as skipped:
            notes.append(str(skipped))
            continue
        operations.append(operation)
        calls[tool] = call
    if not operations:
        reasons = " ".join(notes[:3])
        raise OpenApiDocumentError(f"{document.title} has no operations I can use. {reasons}".strip())
    return ImportedApi(
        service=service, title=document.title, base_url=root, credential=handle,
        operations=tuple(operations), calls=calls, notes=tuple(notes),
    )


Found = tuple[str, str, str, str, dict[str, Any], dict[str, Any]]
"""(tool name, raw operationId or method_path, method, path, path item, operation)."""


def _operations(content: dict[str, Any], resolver: RefResolver, service: str) -> Iterator[Found]:
    taken: set[str] = set()
    for path, raw_item in (content.get("paths") or {}).items():
        item = resolver.deref(raw_item)
        if not isinstance(item, dict) or not str(path).startswith("/"):
            continue
        for method in _METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                raw = raw_operation_name(op.get("operationId"), method, str(path))
                yield tool_name(service, raw, taken), raw, method, str(path), item, op


def _match_overrides(overrides: Overrides, found: list[Found], title: str) -> dict[str, OperationOverride]:
    by_name = {f[0]: f[0] for f in found} | {f[1]: f[0] for f in found}
    chosen: dict[str, OperationOverride] = {}
    for key, value in overrides.items():
        if key not in by_name:
            raise OpenApiDocumentError(f"{title} has no operation named {key[:80]!r}, so I can't apply your setting for it.")
        try:
            chosen[by_name[key]] = as_override(value)
        except ValueError:
            raise OpenApiDocumentError(f"The setting for {key[:80]!r} is not a valid effect class.") from None
    return chosen


def _server_url(servers: Any, base_url: str | None, document: ApiDocument) -> str:
    if base_url is not None:
        url = base_url
    else:
        first = servers[0] if isinstance(servers, list) and servers and isinstance(servers[0], dict) else {}
        url = _expand(str(first.get("url") or "/"), first.get("variables"))
        if "://" not in url:
            if document.url is None:
                raise OpenApiDocumentError(
                    f"{document.title} gives its server address as {url[:80]!r}, relative to where it came from; "
                    "tell me the API's full base URL."
                )
            url = urljoin(document.url, url)
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise OpenApiDocumentError(f"The API's base URL {url[:80]!r} is not an http:// or https:// address.")
    if parsed.userinfo or parsed.query or parsed.fragment:
        raise OpenApiDocumentError(
            "The API's base URL must not carry a username, password, query or fragment; credentials belong in the vault."
        )
    return str(parsed).rstrip("/")


def _expand(url: str, variables: Any) -> str:
    for name in set(re.findall(r"\{([^{}]+)\}", url)):
        spec = variables.get(name) if isinstance(variables, dict) else None
        default = spec.get("default") if isinstance(spec, dict) else None
        if default is None:
            raise OpenApiDocumentError(f"The server address {url[:80]!r} has a variable {{{name}}} without a default.")
        url = url.replace("{" + name + "}", str(default))
    return url
