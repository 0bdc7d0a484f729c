"""Custom connectors a user added from the chat: any OpenAPI service or MCP server.

The registry keeps, per user, what is needed to rebuild the operations anywhere without
contacting the service again: the OpenAPI document itself, or the MCP server's address and
the snapshot of its tools. The agent worker and the executor both build the user's
catalog from it (`UserCatalogs`), so what the guard reviews is what the agent was offered.
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import Callable, Literal

from pydantic import BaseModel, Field
from redis import Redis

from deputy.core.infrastructure import step_reads
from deputy.connectors.catalog import Catalog
from deputy.core.confidential import confidential_keys
from deputy.connectors.marks import OperationMark
# The modules that describe operations, not the packages, whose runners open the vault.
from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.operations import mcp_catalog
from deputy.connectors.mcp.tools import McpToolset
from deputy.connectors.openapi.api import ImportedApi
from deputy.connectors.openapi.document import parse_openapi
from deputy.connectors.openapi.importer import import_openapi

_KEY = "deputy:user:{}:connectors"
MAX_CONNECTORS = 10
NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


class CustomConnector(BaseModel):
    schema_version: int = 1
    kind: Literal["openapi", "mcp"]
    name: str = Field(pattern=NAME.pattern)
    source: str = Field(max_length=500)
    document: str | None = Field(default=None, description="The OpenAPI document, as fetched.")
    server: McpServerConfig | None = None
    toolset: McpToolset | None = None
    created_at: float = Field(default_factory=time.time)
    marks: dict[str, OperationMark] = Field(
        default_factory=dict,
        description="The user's own classification of operations, by tool name (/connections); a bare effect "
        "class stored by an earlier version reads as a mark of that kind.",
    )


def name_for(url: str, title: str | None = None) -> str:
    """A connector name: from the service's own title ("Notes API" → `notes`), else its host
    (`api.weather.example` → `weather`)."""
    if title:
        words = [w for w in re.findall(r"[a-z0-9]+", title.lower()) if w not in ("api", "the", "service", "server")]
        if words and NAME.match(words[0][:24]):
            return words[0][:24]
    host = url.split("://", 1)[-1].split("/", 1)[0].split("@")[-1].split(":")[0].lower()
    parts = [p for p in host.split(".") if p not in ("api", "www", "mcp", "com", "org", "net", "io", "example")]
    base = re.sub(r"[^a-z0-9_-]", "-", (parts[0] if parts else host) or "service")[:24].strip("-") or "service"
    # An address like 127.0.0.1 names nothing; a service on this machine is "local".
    return base if NAME.match(base) else "local"


class CustomConnectors:
    """A confidential user's connectors (addresses, descriptions, marks) are sealed to their key."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._keys = confidential_keys(redis)

    def add(self, user_id: int, connector: CustomConnector) -> None:
        self._redis.hset(_KEY.format(user_id), connector.name,
                         self._keys.seal_text(user_id, connector.model_dump_json()))

    def list(self, user_id: int) -> list[CustomConnector]:
        raw = self._redis.hgetall(_KEY.format(user_id))
        opened = self._keys.opener(user_id)
        return sorted((CustomConnector.model_validate_json(opened(v)) for v in raw.values()), key=lambda c: c.name)

    def get(self, user_id: int, name: str) -> CustomConnector | None:
        raw = self._redis.hget(_KEY.format(user_id), name)
        return CustomConnector.model_validate_json(self._keys.open_bytes(user_id, raw)) if raw else None

    def remove(self, user_id: int, name: str) -> bool:
        return bool(self._redis.hdel(_KEY.format(user_id), name))

    def fingerprint(self, user_id: int) -> str:
        """Changes whenever the user's connectors do: `FINGERPRINT_LUA` computes the same in Redis."""
        key = _KEY.format(user_id)
        raw = step_reads.read(("HGETALL", key), lambda: self._redis.hgetall(key))
        # Each field's digest, sorted: hex digits sort the same in Python and in Redis's Lua (which compares
        # strings by the server's locale).
        digests = sorted(hashlib.sha1(k + b"\0" + v).hexdigest() for k, v in raw.items())
        return hashlib.sha1("".join(digests).encode()).hexdigest()

    @staticmethod
    def key(user_id: int) -> str:
        """The hash of the user's connectors (for a reader fetching its fingerprint with other keys)."""
        return _KEY.format(user_id)


FINGERPRINT_LUA = """
local function connectors_fingerprint(key)
  local flat = redis.call('HGETALL', key)
  local digests = {}
  for i = 1, #flat, 2 do digests[#digests + 1] = redis.sha1hex(flat[i] .. '\0' .. flat[i + 1]) end
  table.sort(digests)
  return redis.sha1hex(table.concat(digests))
end
"""
"""Lua defining `connectors_fingerprint(key)`: `CustomConnectors.fingerprint` computed inside Redis, so a
reader learns whether the user's connectors changed without fetching their documents."""


def imported_api(connector: CustomConnector, *, with_marks: bool = True) -> ImportedApi:
    """The connector's operations; with the user's marks applied unless `with_marks` is False
    (then each operation has the class its HTTP method implies)."""
    assert connector.document is not None
    document = parse_openapi(connector.document, source=connector.source, url=connector.source)
    if not with_marks or not connector.marks:
        return import_openapi(document, service=connector.name)
    plain = import_openapi(document, service=connector.name)
    # A mark for an operation the service no longer offers is ignored, not an error.
    marks = {tool: mark.override() for tool, mark in connector.marks.items() if tool in plain.names()}
    return import_openapi(document, service=connector.name, overrides=marks)


class UserCatalogs:
    """The base catalog plus each user's custom connectors, rebuilt only when they change."""

    def __init__(self, base: Catalog, store: CustomConnectors | None) -> None:
        self._base = base
        self._store = store
        self._cache: dict[int, tuple[str, Catalog, list[ImportedApi], list[McpToolset]]] = {}

    @property
    def base(self) -> Catalog:
        return self._base

    def for_user(self, user_id: int, fingerprint: str | None = None) -> Catalog:
        """The user's catalog; `fingerprint`: their connectors' as the caller read it (else it is read now)."""
        return self._entry(user_id, fingerprint)[1]

    def parts(self, user_id: int) -> tuple[list[ImportedApi], list[McpToolset]]:
        _, _, apis, toolsets = self._entry(user_id)
        return apis, toolsets

    @property
    def custom(self) -> bool:
        """Whether users may have connectors of their own (else every user has the base catalog)."""
        return self._store is not None

    def _entry(self, user_id: int, fingerprint: str | None = None):
        if self._store is None:
            return ("", self._base, [], [])
        fingerprint = fingerprint or self._store.fingerprint(user_id)
        cached = self._cache.get(user_id)
        if cached is not None and cached[0] == fingerprint:
            return cached
        apis, toolsets, catalog = [], [], self._base
        for connector in self._store.list(user_id):
            try:
                if connector.kind == "openapi":
                    api = imported_api(connector)
                    catalog = catalog.merged(api.catalog())
                    apis.append(api)
                elif connector.toolset is not None:
                    catalog = catalog.merged(mcp_catalog([connector.toolset], connector.marks))
                    toolsets.append(connector.toolset)
            except Exception:  # one broken connector must not take the others down
                continue
        entry = (fingerprint, catalog, apis, toolsets)
        self._cache[user_id] = entry
        return entry


CatalogFor = Callable[[int], Catalog]


class MessageChannel(BaseModel):
    """An imported operation the user marked as the way to write to counterparts in a negotiation: a move
    addressed `<service>:<recipient>` is sent through it, the words at `message`, the recipient at `recipient`."""

    service: str
    connector: Literal["openapi", "mcp"]
    operation: str
    message: str
    recipient: str | None = None


def message_channels(connectors: list[CustomConnector]) -> dict[str, MessageChannel]:
    """The message channel of each connected service that has one, by the service's name (the first marked
    operation, in name order, when a user marked several)."""
    found: dict[str, MessageChannel] = {}
    for connector in connectors:
        for tool, mark in sorted(connector.marks.items()):
            if mark.message and connector.name not in found:
                found[connector.name] = MessageChannel(
                    service=connector.name, connector=connector.kind, operation=tool, message=mark.message,
                    recipient=mark.recipients[0] if mark.recipients else None)
    return found
