"""Adding a user's own OpenAPI service or MCP server, and running its operations.

Both happen in the executor: fetching a description goes through the egress guard, and
calling the service needs the user's key from the vault.
"""

from __future__ import annotations

import json
import time
from typing import Callable
from urllib.parse import urlsplit, urlunsplit

import httpx

from deputy.core.records.effects import ConnectorError
from deputy.connectors.custom import MAX_CONNECTORS, CustomConnector, CustomConnectors, UserCatalogs, name_for
from deputy.connectors.mcp.runners import McpConnector
from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.session import Visitor
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.core.records.outbox import Outbox
from deputy.core.records.actions import Action
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.sentinel.egress.transports.sockets import EndpointGuard
from deputy.vault import Vault
from deputy.core.records.payloads import AddConnectorJob

ActionRunner = Callable[[Action, str], object]


class CustomConnectorService:
    """`egress` checks a new service's address before anything is fetched from it; `visitor`
    carries the MCP traffic (the executor gives one whose HTTP client passes the guard)."""

    def __init__(
        self,
        store: CustomConnectors,
        catalogs: UserCatalogs,
        client: httpx.Client,
        vault: Vault,
        outbox: Outbox,
        audit: AuditLog,
        clock: Callable[[], float] = time.time,
        *,
        egress: EndpointGuard | None = None,
        visitor: Visitor | None = None,
    ) -> None:
        self._store = store
        self._catalogs = catalogs
        self._client = client
        self._vault = vault
        self._outbox = outbox
        self._audit = audit
        self._clock = clock
        self._egress = egress
        self._visitor = visitor
        self._mcp = McpConnector(self._server_for, vault, visitor=visitor)

    def add(self, job: AddConnectorJob) -> str:
        name = name_for(job.url)
        try:
            if len(self._store.list(job.user_id)) >= MAX_CONNECTORS:
                raise ConnectorError(f"You already have {MAX_CONNECTORS} services connected; disconnect one first.")
            if self._store.get(job.user_id, name) is not None or name in self._catalogs.base.names():
                name = f"{name}{len(self._store.list(job.user_id)) + 2}"
            if self._egress is not None:
                self._egress.check_url(job.url)  # before anything is fetched from it
            connector, count = self._describe(job, name)
        except EgressBlocked as exc:
            reasons = exc.decision.reasons if exc.decision else []
            self._audit.append(job.user_id, "connection_refused", self._clock(), kind=job.kind,
                               source=_without_secrets(job.url), reasons=reasons)
            self._outbox.send(job.chat_id, f"I couldn't connect {job.url}: {exc.user_message}")
            return "refused"
        except ConnectorError as exc:
            self._outbox.send(job.chat_id, f"I couldn't connect {job.url}: {exc.user_message}")
            return "refused"
        except ValueError:
            self._outbox.send(job.chat_id, f"I couldn't connect {job.url}: its description isn't one I can use.")
            return "refused"
        self._store.add(job.user_id, connector)
        name = connector.name
        self._audit.append(job.user_id, "connection_added", self._clock(), service=name, kind=job.kind,
                           source=job.url, operations=count)
        key = "/connect key " + name
        self._outbox.send(
            job.chat_id,
            f"✅ Connected “{name}” ({count} operations). Reading from it runs freely; anything that changes "
            f"something asks you first. If it needs an API key or token, send {key}."
            " /connections lists its operations: mark one that costs money (a booking, an order) as spend.",
        )
        return "added"

    def _describe(self, job: AddConnectorJob, name: str) -> tuple[CustomConnector, int]:
        if job.kind == "openapi":
            document = fetch_openapi(self._client, job.url)
            title = str((document.content.get("info") or {}).get("title") or "")
            better = name_for(job.url, title)
            if better != name and self._store.get(job.user_id, better) is None and better not in self._catalogs.base.names():
                name = better
            api = import_openapi(document, service=name)  # refuses what Deputy can't use, with reasons
            # Kept as JSON, with the address it was fetched from, so relative servers still resolve.
            text = json.dumps(document.content)
            return CustomConnector(kind="openapi", name=name, source=job.url, document=text), len(api.operations)
        server = McpServerConfig(name=name, transport="http", url=job.url)
        toolset = self._mcp_discover(job.user_id, server)
        return CustomConnector(kind="mcp", name=name, source=job.url, server=server, toolset=toolset), len(toolset.tools)

    def _mcp_discover(self, user_id: int, server: McpServerConfig):
        lookup = {server.name: server}
        connector = McpConnector(lambda uid, n: lookup.get(n), self._vault, visitor=self._visitor)
        return connector.discover(user_id, server.name)

    def _server_for(self, user_id: int, name: str) -> McpServerConfig | None:
        connector = self._store.get(user_id, name)
        return connector.server if connector is not None else None

    def runner_for(self, action: Action) -> ActionRunner | None:
        """The runner of a user's custom operation, or None."""
        apis, toolsets = self._catalogs.parts(action.user_id)
        key = f"{action.connector}.{action.operation}"
        if action.connector == "openapi":
            for api in apis:
                runners = OpenApiRunner(api, self._client, self._vault).runners()
                if key in runners:
                    return runners[key]
        elif action.connector == "mcp":
            return self._mcp.runners(toolsets).get(key)
        return None

    def remove(self, user_id: int, name: str) -> bool:
        return self._store.remove(user_id, name)


def _without_secrets(url: str) -> str:
    """The URL as the audit trail keeps it: no userinfo, query or fragment (where tokens hide)."""
    parts = urlsplit(url.strip())
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))[:200]
