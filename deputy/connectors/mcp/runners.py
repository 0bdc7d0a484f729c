"""The executor's side of MCP: discover a server's tools, and call them for approved actions.

`McpConnector` takes its server lookup, the vault and the `Visitor` (session handling)
injected. Every call re-checks, in the executor, what the guard reviewed: the arguments
against the tool's schema (before anything is sent), that the user still has the server,
that it is trusted no less than when its tools were described to the guard, and that the
server still offers the same tool with the same schema and hints.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any

from mcp import Client

from deputy.core.records.record_listings import listed_records
from deputy.core.records.effects import ConnectorAuthError, ConnectorError, ConnectorRejected, OperationResult
from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.operations import CONNECTOR
from deputy.connectors.mcp.results import MAX_RESULT_CHARS, error_message, summarise
from deputy.connectors.mcp.schema import argument_problems
from deputy.connectors.mcp.session import Visitor
from deputy.connectors.mcp.tools import MAX_TOOLS, McpTool, McpToolset, build_toolset
from deputy.core.records.actions import Action
from deputy.vault import CredentialNotFound, Scrubber, Vault, VaultError

ServerLookup = Callable[[int, str], McpServerConfig | None]
"""The server a user connected under a name, or None."""
Runner = Callable[[Action, str], OperationResult]

IDEMPOTENCY_META = "deputy/idempotency-key"
"""`_meta` key carrying a digest of the action's idempotency key, for servers that de-duplicate."""
_MAX_PAGES = 20


def static_servers(configs: Iterable[McpServerConfig]) -> ServerLookup:
    """A lookup where every user has the same servers (the sandbox, tests, a single-user install)."""
    by_name = {config.name: config for config in configs}
    return lambda user_id, name: by_name.get(name)


class McpConnector:
    def __init__(
        self,
        servers: ServerLookup,
        vault: Vault | None = None,
        *,
        visitor: Visitor | None = None,
        max_result_chars: int = MAX_RESULT_CHARS,
    ) -> None:
        self._servers = servers
        self._vault = vault
        self._visitor = visitor or Visitor()
        self._max_result_chars = max_result_chars

    def discover(self, user_id: int, server: str) -> McpToolset:
        """Connect to the user's server `server` and describe its tools."""
        config = self._config(user_id, server)
        listed = self._visitor.visit(config, self._secret(user_id, config), _list_tools)
        return build_toolset(config, listed)

    def runners(self, toolsets: Iterable[McpToolset]) -> dict[str, Runner]:
        """Executor runners, keyed `mcp.<operation>`, for every tool of `toolsets`."""
        found: dict[str, Runner] = {}
        for toolset in toolsets:
            for tool in toolset.tools:
                found[f"{CONNECTOR}.{tool.operation}"] = self._runner(tool, toolset.trusted)
        return found

    def _runner(self, tool: McpTool, trusted: bool) -> Runner:
        def run(action: Action, idempotency_key: str) -> OperationResult:
            return self.call(action.user_id, tool, action.arguments, idempotency_key, reviewed_as_trusted=trusted)

        return run

    def call(
        self,
        user_id: int,
        tool: McpTool,
        arguments: dict[str, Any],
        idempotency_key: str,
        *,
        reviewed_as_trusted: bool = False,
    ) -> OperationResult:
        """Call `tool` with `arguments` on the user's server; the result is untrusted content."""
        problems = argument_problems(tool.input_schema, arguments)
        if problems:
            raise ConnectorRejected(f"The arguments don't fit the tool {tool.name}: {'; '.join(problems)}.")
        config = self._config(user_id, tool.server)
        if reviewed_as_trusted and not config.trusted:
            raise ConnectorRejected(
                f"The MCP server {config.name} is no longer trusted; reconnect it so its tools are reviewed again."
            )
        key_digest = hashlib.sha256(idempotency_key.encode()).hexdigest()[:32]

        async def work(client: Client) -> Any:
            current = next((t for t in await _list_tools(client) if getattr(t, "name", None) == tool.name), None)
            if current is None:
                raise ConnectorRejected(f"The MCP server {config.name} no longer offers the tool {tool.name}.")
            fresh = build_toolset(config, [current]).tools
            if not fresh or fresh[0].fingerprint() != tool.fingerprint():
                raise ConnectorRejected(
                    f"The MCP server {config.name} changed the tool {tool.name} since it was connected; "
                    "reconnect the server so the change can be reviewed."
                )
            return await client.call_tool(tool.name, arguments, meta={IDEMPOTENCY_META: key_digest})

        secret = self._secret(user_id, config)
        result = self._visitor.visit(config, secret, work)
        if getattr(result, "is_error", False):
            message = _scrub(error_message(result), secret)
            raise ConnectorRejected(f"The MCP server {config.name} reported an error from {tool.name}: {message}")
        summary = _scrub(summarise(result, self._max_result_chars), secret)
        # A listing of records (JSON or YAML): each record is its own item, so a card names the one that held a value.
        return OperationResult(summary=summary, untrusted_origin=config.origin,
                               items=listed_records(summary, config.origin))

    def _config(self, user_id: int, server: str) -> McpServerConfig:
        config = self._servers(user_id, server)
        if config is None:
            raise ConnectorRejected(f"The MCP server {server} isn't connected for you.")
        return config

    def _secret(self, user_id: int, config: McpServerConfig) -> str | None:
        secret = None
        if self._vault is not None:
            try:
                secret = self._vault.get(user_id, config.handle).get_secret_value()
            except CredentialNotFound:
                secret = None
            except VaultError:
                raise ConnectorError("I couldn't open your stored credentials; ask the operator.") from None
        if secret is None and config.secret_env:
            raise ConnectorAuthError(f"The MCP server {config.name} needs a key, and none is stored for it.")
        return secret


def _scrub(text: str, secret: str | None) -> str:
    # A server may echo the token it was sent (in any encoding); the agent must never see it.
    return Scrubber([secret]).scrub(text) if secret else text


async def _list_tools(client: Client) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        # A server that pages forever, or lists thousands of tools, gets cut off.
        if cursor is None or len(tools) > 2 * MAX_TOOLS:
            break
    return tools
