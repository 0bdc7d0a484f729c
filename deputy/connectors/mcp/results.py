"""A tool's result as compact text for the agent: text kept, media and blobs summarised.

Results are untrusted content. They are cleaned of invisible characters, bounded, and
never carry base64 payloads into the prompt: an image is one line saying it was there.
"""

from __future__ import annotations

import json
from typing import Any

from deputy.connectors.mcp.text import one_line, plain_text

MAX_RESULT_CHARS = 20_000
"""Most characters of a result handed to the agent; the rest is cut with a note."""
MAX_ERROR_CHARS = 300
"""Most characters of a server's error message shown to the user."""


def summarise(result: Any, limit: int = MAX_RESULT_CHARS) -> str:
    """The content of a successful `CallToolResult` as text of at most about `limit` characters."""
    blocks = list(getattr(result, "content", None) or [])
    parts = [_describe(block) for block in blocks]
    has_text = any(getattr(block, "type", None) == "text" for block in blocks)
    structured = getattr(result, "structured_content", None)
    if structured is not None and not has_text:
        # Servers should mirror structured content as text; when one does not, show the JSON.
        parts.append(_json(structured))
    text = "\n".join(part for part in parts if part) or "(The tool returned nothing.)"
    cleaned, cut = plain_text(text, limit)
    if cut:
        cleaned += f"\n[The result was cut at {limit:,} of {len(text):,} characters.]"
    return cleaned


def error_message(result: Any) -> str:
    """The server's error text from an `isError` result, as one bounded plain line."""
    texts = [getattr(block, "text", "") for block in (getattr(result, "content", None) or [])]
    message = " ".join(t for t in texts if isinstance(t, str))
    return one_line(message, MAX_ERROR_CHARS) or "no reason given"


def _describe(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        return f"[{kind} ({_mime(block)}, {_size(getattr(block, 'data', ''))}) not shown]"
    if kind == "resource_link":
        return f"[link to a resource: {one_line(str(getattr(block, 'name', '')), 100)} {_uri(block)}]"
    if kind == "resource":
        resource = getattr(block, "resource", None)
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return f"[resource {_uri(resource)}]\n{text}"
        return (
            f"[binary resource {_uri(resource)} ({_mime(resource)}, {_size(getattr(resource, 'blob', ''))}) not shown]"
        )
    return f"[content of an unknown kind ({one_line(str(kind), 40)}) not shown]"


def _mime(item: Any) -> str:
    return one_line(str(getattr(item, "mime_type", None) or "unknown type"), 60)


def _uri(item: Any) -> str:
    return one_line(str(getattr(item, "uri", "")), 300)


def _size(data: Any) -> str:
    # Base64: four characters carry three bytes.
    size = len(data) * 3 // 4 if isinstance(data, str) else 0
    return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} bytes"


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return "[structured content that is not JSON]"
