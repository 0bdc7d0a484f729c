"""Loading an OpenAPI 3 document from text, a file or a URL, refusing what we can't use.

A document is data from outside: it may be huge, deeply nested, YAML with anchors that
expand exponentially, Swagger 2, or point at other files. Each of those is refused with a
plain `OpenApiDocumentError` before anything is built from it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import httpx
import yaml

from deputy.core.records.effects import ConnectorError, ConnectorRejected
from deputy.connectors.http.errors import HTTP_FAILURES, describe_failure

MAX_DOCUMENT_BYTES = 2_000_000
"""Largest document accepted, in bytes."""
MAX_NODES = 200_000
"""Most JSON values (objects, arrays, scalars) a document may hold once parsed."""
MAX_DEPTH = 64
"""Deepest nesting accepted."""
SUPPORTED_VERSIONS = ("3.0", "3.1")


class OpenApiDocumentError(ConnectorRejected):
    """The document can't be turned into operations; `user_message` says why, plainly."""


@dataclass(frozen=True)
class ApiDocument:
    """A parsed OpenAPI document. `source` names where it came from; `url` is set when it
    was fetched, so relative server URLs can be resolved against it."""

    content: dict[str, Any]
    source: str
    url: str | None = None

    @property
    def version(self) -> str:
        return str(self.content.get("openapi", ""))

    @property
    def title(self) -> str:
        info = self.content.get("info")
        title = info.get("title") if isinstance(info, dict) else None
        return " ".join(str(title).split())[:80] if title else "API"


def parse_openapi(data: bytes | str, *, source: str = "the document", url: str | None = None) -> ApiDocument:
    """Parse JSON or YAML text into an `ApiDocument`, checking size, shape and version."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise _too_large(source)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OpenApiDocumentError(f"{_cap(source)} is not UTF-8 text, so it can't be an OpenAPI document.") from None
    content = _load(text, source)
    if not isinstance(content, dict):
        raise OpenApiDocumentError(f"{_cap(source)} is not an OpenAPI document (it isn't a JSON or YAML object).")
    _check_version(content, source)
    if not isinstance(content.get("paths", {}), dict):
        raise OpenApiDocumentError(f"The 'paths' of {source} is not an object.")
    return ApiDocument(content=content, source=source, url=url)


def load_openapi_file(path: Path | str) -> ApiDocument:
    """Read and parse a document from disk."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as exc:
        problem = f"I couldn't read the OpenAPI file {path.name} ({exc.strerror or type(exc).__name__})."
        raise OpenApiDocumentError(problem) from None
    return parse_openapi(data, source=f"the file {path.name}")


def fetch_openapi(client: httpx.Client, url: str) -> ApiDocument:
    """GET a document with `client` (e.g. one built on Sentinel's guarded transport)."""
    source = f"the document at {url}"
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise OpenApiDocumentError("An OpenAPI document's address must start with http:// or https://.")
    failure: ConnectorError
    try:
        with client.stream("GET", url, headers={"Accept": "application/json, application/yaml, */*;q=0.5"}) as response:
            if response.status_code != 200:
                raise OpenApiDocumentError(
                    f"{parsed.host} answered {response.status_code} instead of the OpenAPI document at {url}."
                )
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_DOCUMENT_BYTES:
                raise _too_large(source)
            chunks, total = [], 0
            for chunk in response.iter_bytes():
                total += len(chunk)
                if total > MAX_DOCUMENT_BYTES:
                    raise _too_large(source)
                chunks.append(chunk)
            final_url = str(response.url)
    except ConnectorError:
        raise
    except HTTP_FAILURES as exc:
        failure = describe_failure(exc, parsed.host)
    else:
        return parse_openapi(b"".join(chunks), source=source, url=final_url)
    # Raised outside the except block so no library exception is chained to it.
    raise failure


def _load(text: str, source: str) -> Any:
    try:
        try:
            loaded = json.loads(text)
        except ValueError:
            # YAML (a superset of JSON's syntax). SafeLoader builds plain data only, no
            # Python objects; aliases are shared, and `_plain` bounds what they expand to.
            loaded = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        raise OpenApiDocumentError(f"{_cap(source)} is neither valid JSON nor valid YAML.") from None
    except RecursionError:
        raise OpenApiDocumentError(f"{_cap(source)} is nested too deeply.") from None
    return _plain(loaded, source, [MAX_NODES], 0)


def _plain(value: Any, source: str, budget: list[int], depth: int) -> Any:
    """A JSON-shaped copy: YAML dates become ISO text, keys become strings (YAML allows
    `200:` as a number), and the copy is bounded in size and depth."""
    budget[0] -= 1
    if budget[0] < 0:
        raise OpenApiDocumentError(f"{_cap(source)} is too large: it holds more than {MAX_NODES:,} values.")
    if depth > MAX_DEPTH:
        raise OpenApiDocumentError(f"{_cap(source)} is nested too deeply.")
    if isinstance(value, dict):
        return {_key(k): _plain(v, source, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, source, budget, depth + 1) for v in value]
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, float) and math.isnan(value):  # YAML's .nan has no JSON form
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return key.isoformat() if isinstance(key, (datetime, date)) else str(key)


def _check_version(content: dict[str, Any], source: str) -> None:
    if "swagger" in content:
        raise OpenApiDocumentError(
            f"{_cap(source)} is a Swagger {content.get('swagger')} document. I can only use OpenAPI 3.0 or 3.1; "
            "convert it first (for example with swagger2openapi)."
        )
    version = content.get("openapi")
    if version is None:
        raise OpenApiDocumentError(f"{_cap(source)} is not an OpenAPI document: it has no 'openapi' version field.")
    # YAML reads an unquoted `openapi: 3.1` as a number.
    text = str(version)
    if not any(text == v or text.startswith(v + ".") for v in SUPPORTED_VERSIONS):
        raise OpenApiDocumentError(
            f"{_cap(source)} is OpenAPI {text[:20]}; I can only use OpenAPI 3.0 or 3.1."
        )
    content["openapi"] = text


def _too_large(source: str) -> OpenApiDocumentError:
    return OpenApiDocumentError(f"{_cap(source)} is larger than {MAX_DOCUMENT_BYTES // 1_000_000} MB, so I didn't load it.")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]
