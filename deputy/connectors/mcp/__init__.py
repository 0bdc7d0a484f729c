"""Custom connectors from MCP servers: any server's tools become operations the guard reviews.

Connecting a server (`McpConnector.discover`) lists its tools into an `McpToolset`
snapshot; `mcp_operations` turns a snapshot into catalog operations (effects from the
tools' hints only where the user trusts the server, descriptions labelled as the
server's untrusted words); `McpConnector.runners` gives the executor one runner per tool.

This package's `__init__` loads nothing: import each module by its full path (only the executor
imports the runners).
"""
