"""Turning validated arguments into the parts of an HTTP request (pure, no IO).

Values are serialised the OpenAPI way (path `simple`, query `form`/`deepObject`/delimited,
headers and cookies as plain text). Everything the model chose is escaped so it can only
fill its own slot: a path value can't add path segments, a header value can't add headers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from deputy.core.records.effects import ConnectorRejected
from deputy.connectors.openapi.api import ApiCall, ApiParameter

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DELIMITERS = {"spaceDelimited": " ", "pipeDelimited": "|"}


@dataclass
class RequestParts:
    """A request before authentication is added."""

    method: str
    url: str
    query: list[tuple[str, str]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)
    content: bytes | None = None


def target_url(call: ApiCall, arguments: dict[str, Any]) -> str:
    """The URL the call acts on (path filled in, no query): what the guard shows as target."""
    path = call.path
    for parameter in call.parameters:
        if parameter.location == "path":
            value = arguments.get(parameter.argument)
            path = path.replace("{" + parameter.name + "}", _path_value(parameter, value))
    return call.server + path


def build_request(call: ApiCall, arguments: dict[str, Any]) -> RequestParts:
    """The method, URL, query, headers, cookies and body for validated `arguments`."""
    parts = RequestParts(method=call.method, url=target_url(call, arguments))
    for parameter in call.parameters:
        value = arguments.get(parameter.argument)
        if value is None or parameter.location == "path":
            continue
        if parameter.location == "query":
            parts.query.extend(_query_pairs(parameter, value))
        elif parameter.location == "header":
            parts.headers[parameter.name] = _header_value(parameter.name, _joined(value))
        else:
            text = _joined(value)
            if any(c in text for c in ';,"\\') or not text.isprintable():
                raise ConnectorRejected(f"The cookie {parameter.name} can't contain ; , \" or control characters.")
            parts.cookies[parameter.name] = text
    if call.body_media is not None and arguments.get("body") is not None:
        parts.content = _body(call.body_media, arguments["body"])
        charset = "; charset=utf-8" if call.body_media.startswith("text/") else ""
        parts.headers["Content-Type"] = call.body_media + charset
    parts.headers["Accept"] = "application/json, */*;q=0.5" if call.expects_json else "*/*"
    return parts


def scalar(value: Any) -> str:
    """A JSON scalar as the text a server expects (`true`, `4`, `2.5`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))  # 4.0 passes `type: integer`; send it as 4
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(scalar(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k},{scalar(v)}" for k, v in value.items())
    return scalar(value)


def _path_value(parameter: ApiParameter, value: Any) -> str:
    if value is None:
        raise ConnectorRejected(f"The path parameter {parameter.argument} is missing.")
    items = value if isinstance(value, list) else [value]
    texts = [scalar(v) for v in items]
    if any(text in ("", ".", "..") for text in texts):
        raise ConnectorRejected(f"The path parameter {parameter.argument} can't be empty, '.' or '..'.")
    # safe="" escapes "/" too, so a value can't step into another path.
    return ",".join(quote(text, safe="") for text in texts)


def _query_pairs(parameter: ApiParameter, value: Any) -> list[tuple[str, str]]:
    name, style, explode = parameter.name, parameter.style, parameter.explode
    if isinstance(value, list):
        if style in _DELIMITERS:
            return [(name, _DELIMITERS[style].join(scalar(v) for v in value))]
        return [(name, scalar(v)) for v in value] if explode else [(name, _joined(value))]
    if isinstance(value, dict):
        if style == "deepObject":
            return [(f"{name}[{key}]", scalar(item)) for key, item in value.items()]
        return [(str(key), scalar(item)) for key, item in value.items()] if explode else [(name, _joined(value))]
    return [(name, scalar(value))]


def _header_value(name: str, text: str) -> str:
    if not text.isprintable() or not text.isascii():
        raise ConnectorRejected(f"The header {name} can only hold printable ASCII text.")
    return text


def _body(media: str, body: Any) -> bytes:
    if media == "application/x-www-form-urlencoded":
        if not isinstance(body, dict):
            raise ConnectorRejected("This operation's body must be an object of form fields.")
        pairs = [(str(k), [scalar(i) for i in v] if isinstance(v, list) else scalar(v)) for k, v in body.items()]
        return urlencode(pairs, doseq=True).encode("ascii")
    if media.startswith("text/"):
        return (body if isinstance(body, str) else scalar(body)).encode("utf-8")
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
