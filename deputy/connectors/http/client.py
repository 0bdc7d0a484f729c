"""Fetch a web page or call an API through the egress guard, returning untrusted text.

Every request goes through an `httpx.Client` built on `deputy.sentinel.egress.transports.http_client.GuardedTransport`
(see `guarded_client`), so the egress policy sees each request and redirect hop. Responses
come back as `HttpResult`, always marked untrusted: their text is data for the model,
never instructions. Failures are `ConnectorError`s with plain messages.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from pydantic import BaseModel

from deputy.core.records.effects import ConnectorError, ConnectorRejected
from deputy.connectors.http.errors import HTTP_FAILURES, describe_failure
from deputy.connectors.http.text import html_to_text, is_textual, looks_binary, media_type
from deputy.sentinel.egress.policy import Reviewer
from deputy.sentinel.egress.transports.http_client import (
    DecisionHook,
    GuardedTransport,
    Resolver,
    system_resolver,
)
from deputy.sentinel.egress.url import UrlProblem, parse_destination, url_scheme

MAX_BYTES = 2_000_000
"""Largest body downloaded; bigger responses fail as too large."""
MAX_CHARS = 20_000
"""Most characters of text handed to the model; the rest is cut with a note."""
USER_AGENT = "Deputy/0.1 (personal agent; +https://github.com/deputy-agent)"


class HttpResult(BaseModel):
    """What came back, as text for the model. `untrusted` is always True: it came from outside."""

    url: str
    status: int
    content_type: str
    text: str
    truncated: bool = False
    note: str | None = None
    untrusted: bool = True
    source: str


def guarded_client(
    review: Reviewer,
    *,
    connector: str = "http",
    resolver: Resolver = system_resolver,
    timeout: float = 20.0,
    max_redirects: int = 5,
    inner: httpx.BaseTransport | None = None,
    on_decision: DecisionHook | None = None,
) -> httpx.Client:
    """An `httpx.Client` whose every request and redirect hop passes the egress policy."""
    transport = GuardedTransport(review, connector=connector, inner=inner, resolver=resolver, on_decision=on_decision)
    # trust_env=False: no proxy or .netrc from the environment may route around the guard.
    return httpx.Client(
        transport=transport,
        follow_redirects=True,
        max_redirects=max_redirects,
        timeout=timeout,
        trust_env=False,
        headers={"User-Agent": USER_AGENT},
    )


def fetch_url(client: httpx.Client, url: str, *, max_bytes: int = MAX_BYTES, max_chars: int = MAX_CHARS) -> HttpResult:
    """GET a page; HTML comes back as readable text with link targets."""
    headers = {"Accept": "text/html, text/plain;q=0.9, application/json;q=0.8, */*;q=0.1"}
    response, body = _exchange(client, "GET", url, headers=headers, content=None, max_bytes=max_bytes)
    return _result(response, body, "web page", max_chars, readable=True)


def http_request(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    headers: dict[str, str] | None = None,
    body: str | None = None,
    json_body: Any = None,
    max_bytes: int = MAX_BYTES,
    max_chars: int = MAX_CHARS,
) -> HttpResult:
    """Call an API: any method, optional headers and a text or JSON body; the reply comes back as text."""
    verb = method.strip().upper()
    if not verb.isalpha():
        raise ConnectorRejected(f"{method!r} is not an HTTP method.")
    if body is not None and json_body is not None:
        raise ConnectorRejected("Give either a text body or a JSON body, not both.")
    request_headers = dict(headers or {})
    content: bytes | None = body.encode("utf-8") if body is not None else None
    if json_body is not None:
        try:
            content = json.dumps(json_body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        except (TypeError, ValueError):
            raise ConnectorRejected("The JSON body could not be encoded as JSON.") from None
        request_headers.setdefault("Content-Type", "application/json")
    response, data = _exchange(client, verb, url, headers=request_headers, content=content, max_bytes=max_bytes)
    return _result(response, data, f"API response to {verb}", max_chars, readable=False)


def _exchange(
    client: httpx.Client, method: str, url: str, *, headers: dict[str, str], content: bytes | None, max_bytes: int
) -> tuple[httpx.Response, bytes]:
    host = _check_address(url)
    try:
        with client.stream(method, url, headers=headers, content=content) as response:
            return response, _read_limited(response, method, max_bytes)
    except ConnectorError:
        raise
    except HTTP_FAILURES as exc:
        failure = describe_failure(exc, host)
    # Raised outside the except block so the failure does not chain the library exception,
    # whose frames hold the request (and any credential header the executor added).
    raise failure


def _read_limited(response: httpx.Response, method: str, max_bytes: int) -> bytes:
    host = response.url.host
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _too_large(host, max_bytes)
    content_type = response.headers.get("content-type", "")
    if method != "HEAD" and content_type and not is_textual(content_type):
        raise ConnectorRejected(f"{host} sent {media_type(content_type)} content, not text, so I did not download it.")
    chunks, total = [], 0
    for chunk in response.iter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise _too_large(host, max_bytes)
        chunks.append(chunk)
    data = b"".join(chunks)
    if not content_type and looks_binary(data):
        raise ConnectorRejected(f"{host} sent binary content, not text.")
    return data


def _result(response: httpx.Response, data: bytes, kind: str, max_chars: int, *, readable: bool) -> HttpResult:
    content_type = response.headers.get("content-type", "")
    try:
        text = data.decode(response.charset_encoding or "utf-8", errors="replace")
    except LookupError:
        text = data.decode("utf-8", errors="replace")
    final_url = str(response.url)
    if readable and media_type(content_type) in ("text/html", "application/xhtml+xml"):
        text = html_to_text(text, final_url)
    truncated = len(text) > max_chars
    note = f"The text was cut at {max_chars:,} of {len(text):,} characters." if truncated else None
    return HttpResult(
        url=final_url,
        status=response.status_code,
        content_type=content_type,
        text=text[:max_chars],
        truncated=truncated,
        note=note,
        source=f"{kind} {final_url}",
    )


def _too_large(host: str, max_bytes: int) -> ConnectorRejected:
    return ConnectorRejected(f"The answer from {host} is larger than {max_bytes / 1_000_000:.1f} MB, so I stopped.")


def _check_address(url: str) -> str:
    """The host `url` names; a plain rejection when it is not a web address at all."""
    if url_scheme(url) not in ("http", "https"):
        raise ConnectorRejected("I can only fetch web addresses that start with http:// or https://.")
    try:
        return parse_destination(url).host
    except UrlProblem as problem:
        raise ConnectorRejected(str(problem)) from None
