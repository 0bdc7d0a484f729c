"""How to reach one MCP server the user connected, and how far to believe it.

A config holds no secret. A bearer token (HTTP) or an API key handed to a local server
(stdio, through `secret_env`) lives in the vault under `cred:mcp/<name>`, and only the
executor reads it.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SERVER_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
"""Server names: short, lowercase, and usable both in tool names and in vault handles."""
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

DEFAULT_TIMEOUT = 30.0
"""Seconds one visit to a server may take: starting or connecting, listing tools and calling one."""


def credential_handle(server: str) -> str:
    """The vault handle of the secret for server `server`."""
    return f"cred:mcp/{server}"


class McpServerConfig(BaseModel):
    """One MCP server: a local command spoken to over stdio, or a streamable HTTP endpoint.

    `trusted` is the user's word that the server describes its tools honestly; only then
    are its read-only hints believed (see `deputy.connectors.mcp.operations`).
    """

    model_config = ConfigDict(frozen=True, hide_input_in_errors=True)

    name: str
    transport: Literal["stdio", "http"]
    command: str | None = None
    args: list[str] = Field(default_factory=list, max_length=64)
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment for a stdio server (never a secret: see `secret_env`)."""
    cwd: str | None = None
    url: str | None = None
    trusted: bool = False
    secret_env: str | None = None
    """For stdio: the environment variable that receives the vault secret, if the server needs one."""
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, le=600)

    @field_validator("name")
    @classmethod
    def _check_name(cls, name: str) -> str:
        if not SERVER_NAME.fullmatch(name):
            raise ValueError("a server name is 1-32 lowercase letters, digits, '_' or '-', starting with a letter")
        return name

    @field_validator("env")
    @classmethod
    def _check_env(cls, env: dict[str, str]) -> dict[str, str]:
        if len(env) > 64 or not all(_ENV_NAME.fullmatch(k) and "\x00" not in v for k, v in env.items()):
            raise ValueError("environment names must be plain identifiers and values must not contain NUL")
        return env

    @model_validator(mode="after")
    def _fits_transport(self) -> McpServerConfig:
        if self.transport == "stdio":
            if not self.command or "\x00" in self.command or any("\x00" in a for a in self.args):
                raise ValueError("a stdio server needs a command (without NUL characters)")
            if self.url is not None:
                raise ValueError("a stdio server has no URL")
        else:
            parts = urlsplit(self.url or "")
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError("an HTTP server needs an http:// or https:// URL")
            if parts.username or parts.password:
                raise ValueError("put credentials in the vault, not in the URL")
            if self.command is not None or self.secret_env is not None:
                raise ValueError("an HTTP server has no command; its token comes from the vault")
        if self.secret_env is not None and not _ENV_NAME.fullmatch(self.secret_env):
            raise ValueError("secret_env must be a plain environment variable name")
        return self

    @property
    def handle(self) -> str:
        """The vault handle of this server's secret."""
        return credential_handle(self.name)

    @property
    def origin(self) -> str:
        """How content from this server is labelled for the agent and the guard."""
        return f"the MCP server {self.name}"
