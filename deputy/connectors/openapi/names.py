"""Tool names for imported operations: `<service>_<operationId>` in the tool-name charset.

Model APIs accept function names of 1 to 64 characters from `[A-Za-z0-9_-]`; names are
also the catalog's keys, so they must be unique across everything a user connects.
"""

from __future__ import annotations

import hashlib
import re

from deputy.connectors.openapi.document import OpenApiDocumentError

MAX_TOOL_NAME = 64
SERVICE_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
"""A service name: lowercase, short, and valid both in a tool name and a vault handle."""

_INVALID = re.compile(r"[^A-Za-z0-9_-]+")


def check_service_name(service: str) -> str:
    """Return `service` if it is a valid service name, else raise `OpenApiDocumentError`."""
    if not isinstance(service, str) or not SERVICE_PATTERN.fullmatch(service):
        raise OpenApiDocumentError(
            "A custom connector's name must be 1 to 32 lowercase letters, digits, '_' or '-', "
            "starting with a letter or digit."
        )
    return service


def raw_operation_name(operation_id: object, method: str, path: str) -> str:
    """The operationId, or `method_path` for operations without one."""
    if isinstance(operation_id, str) and operation_id.strip():
        return operation_id.strip()
    return f"{method}_{path}"


def tool_name(service: str, raw: str, taken: set[str]) -> str:
    """A unique, valid tool name for `raw` within `service`; records it in `taken`."""
    cleaned = _INVALID.sub("_", raw.replace("{", "").replace("}", ""))
    cleaned = re.sub(r"_+", "_", cleaned).strip("_-") or "operation"
    name = f"{service}_{cleaned}"
    if len(name) > MAX_TOOL_NAME or name in taken:
        # A digest of the original keeps cut or colliding names apart, stably across imports.
        digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
        base = name = f"{name[: MAX_TOOL_NAME - 9].rstrip('_-')}_{digest}"
        counter = 2
        while name in taken:
            name = f"{base[: MAX_TOOL_NAME - 1 - len(str(counter))]}_{counter}"
            counter += 1
    taken.add(name)
    return name
