"""Custom connectors from MCP servers: any server's tools become operations the guard reviews.

Connecting a server (`McpConnector.discover`) lists its tools into an `McpToolset`
snapshot; `mcp_operations` turns a snapshot into catalog operations (effects from the
tools' hints only where the user trusts the server, descriptions labelled as the
server's untrusted words); `McpConnector.runners` gives the executor one runner per tool.
"""

from deputy.connectors.mcp.config import DEFAULT_TIMEOUT, McpServerConfig, credential_handle
from deputy.connectors.mcp.operations import CONNECTOR, effect_of, labelled_description, mcp_catalog, mcp_operations
from deputy.connectors.mcp.results import MAX_RESULT_CHARS
from deputy.connectors.mcp.runners import IDEMPOTENCY_META, McpConnector, ServerLookup, static_servers
from deputy.connectors.mcp.session import Visitor, default_http_client
from deputy.connectors.mcp.tools import McpTool, McpToolset, build_toolset, operation_name

__all__ = [
    "CONNECTOR",
    "DEFAULT_TIMEOUT",
    "IDEMPOTENCY_META",
    "MAX_RESULT_CHARS",
    "McpConnector",
    "McpServerConfig",
    "McpTool",
    "McpToolset",
    "ServerLookup",
    "Visitor",
    "build_toolset",
    "credential_handle",
    "default_http_client",
    "effect_of",
    "labelled_description",
    "mcp_catalog",
    "mcp_operations",
    "operation_name",
    "static_servers",
]
