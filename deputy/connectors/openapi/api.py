"""What an imported OpenAPI document becomes: catalog operations plus how to call each one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from deputy.connectors.catalog import Catalog, Operation
from deputy.connectors.openapi.arguments import ApiArguments
from deputy.connectors.openapi.auth import AuthPlan

CONNECTOR = "openapi"
"""The connector name of every imported operation; runners are keyed `openapi.<tool>`."""

ParameterLocation = Literal["path", "query", "header", "cookie"]


@dataclass(frozen=True)
class ApiParameter:
    """One parameter: `argument` is its name in the tool's arguments, `name` on the wire."""

    argument: str
    name: str
    location: ParameterLocation
    style: str = "form"
    explode: bool = True


@dataclass(frozen=True)
class ApiCall:
    """Everything the runner needs to turn validated arguments into one HTTP request."""

    tool: str
    method: str
    server: str
    """Base URL without a trailing slash, e.g. `https://api.example.com/v1`."""
    path: str
    """Path template from the document, e.g. `/bookings/{code}`."""
    parameters: tuple[ApiParameter, ...]
    arguments: type[ApiArguments]
    body_media: str | None = None
    """Media type of the body Deputy sends (JSON, form or plain text); None for no body."""
    auth: AuthPlan = field(default_factory=AuthPlan)
    expects_json: bool = False
    idempotency_header: str = "Idempotency-Key"
    """Header carrying the executor's idempotency key on unsafe methods."""


@dataclass(frozen=True)
class ImportedApi:
    """A custom connector built from an OpenAPI document.

    `notes` are plain sentences about what was left out and why (operations that upload
    files, use unsupported authentication...), for the user who connected it.
    """

    service: str
    title: str
    base_url: str
    credential: str
    """The vault handle holding the secret, `cred:api/<service>`."""
    operations: tuple[Operation, ...]
    calls: Mapping[str, ApiCall]
    notes: tuple[str, ...] = ()

    def catalog(self) -> Catalog:
        """The imported operations as a catalog, to merge with the others."""
        return Catalog(self.operations)

    def names(self) -> list[str]:
        """The tool names, in document order."""
        return [operation.name for operation in self.operations]
