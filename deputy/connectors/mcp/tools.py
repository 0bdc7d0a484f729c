"""What a server offered when it was connected: a stored, checked snapshot of its tools.

Discovery (`McpConnector.discover`) turns the server's `tools/list` answer into an
`McpToolset`. The snapshot is plain JSON, so it can be stored and turned into catalog
operations by a process that never talks to the server (the agent holds no credentials);
the executor checks before every call that the server still offers the same tool.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.schema import schema_problem
from deputy.connectors.mcp.text import one_line

MAX_TOOLS = 128
"""Most tools taken from one server; small models choke on more."""
MAX_NAME = 64
"""Longest operation name (the limit of OpenAI-style tool names)."""
MAX_DESCRIPTION = 300
"""Longest tool description kept, in characters."""
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-/]{1,128}")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class McpTool(BaseModel):
    """One tool as the server described it. Its annotations are hints, never facts."""

    model_config = ConfigDict(frozen=True)

    server: str
    name: str
    """The server's own name for the tool (what is sent in `tools/call`)."""
    operation: str
    """The unique, sanitised name the model sees: `<server>_<tool>`."""
    description: str
    """The server's description, cleaned and cut; untrusted text."""
    input_schema: dict[str, Any]
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    def fingerprint(self) -> str:
        """Digest of what the guard reviewed: the input schema and the annotations."""
        canonical = json.dumps(
            [self.name, self.input_schema, self.read_only, self.destructive, self.idempotent, self.open_world],
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode()).hexdigest()


class McpToolset(BaseModel):
    """The tools of one connected server, with the tools that were left out and why."""

    schema_version: int = 1
    server: str
    trusted: bool
    tools: list[McpTool] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    """Plain sentences: "tool x: its input schema is invalid"."""

    @property
    def origin(self) -> str:
        return f"the MCP server {self.server}"

    def tool(self, operation: str) -> McpTool | None:
        return next((t for t in self.tools if t.operation == operation), None)


def operation_name(server: str, tool: str, taken: set[str]) -> str:
    """`<server>_<tool>` in the tool-name charset, at most 64 characters, not in `taken`."""
    base = _UNSAFE.sub("_", f"{server}_{tool}").strip("_")
    if len(base) <= MAX_NAME and base not in taken:
        return base
    # Too long, or two tool names that differ only in unsafe characters: a digest of the
    # original name keeps the result unique and stable across reconnections.
    digest = hashlib.sha256(tool.encode()).hexdigest()
    for length in (8, 16, 32):
        name = f"{base[: MAX_NAME - length - 1].rstrip('_')}_{digest[:length]}"
        if name not in taken:
            return name
    raise ValueError(f"no free operation name for tool {tool!r}")


def build_toolset(config: McpServerConfig, listed: Iterable[Any]) -> McpToolset:
    """The snapshot of `listed` (the SDK's `Tool` objects, or anything shaped like them)."""
    tools: list[McpTool] = []
    skipped: list[str] = []
    seen: set[str] = set()
    taken: set[str] = set()
    for item in listed:
        name = getattr(item, "name", None)
        shown = one_line(str(name), 60)
        if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
            skipped.append(f"a tool named {shown!r}: its name is not a plain tool name")
            continue
        if name in seen:
            skipped.append(f"tool {name}: the server lists it twice")
            continue
        seen.add(name)
        if len(tools) >= MAX_TOOLS:
            skipped.append(f"tool {name}: the server offers more than {MAX_TOOLS} tools")
            continue
        schema = getattr(item, "input_schema", None)
        problem = schema_problem(schema)
        if problem is not None:
            skipped.append(f"tool {name}: {problem}")
            continue
        operation = operation_name(config.name, name, taken)
        taken.add(operation)
        hints = getattr(item, "annotations", None)
        tools.append(
            McpTool(
                server=config.name,
                name=name,
                operation=operation,
                description=one_line(getattr(item, "description", None) or "", MAX_DESCRIPTION),
                input_schema=schema,
                read_only=_hint(hints, "read_only_hint"),
                destructive=_hint(hints, "destructive_hint"),
                idempotent=_hint(hints, "idempotent_hint"),
                open_world=_hint(hints, "open_world_hint"),
            )
        )
    return McpToolset(server=config.name, trusted=config.trusted, tools=tools, skipped=skipped)


def _hint(annotations: Any, name: str) -> bool | None:
    value = getattr(annotations, name, None)
    return value if isinstance(value, bool) else None
