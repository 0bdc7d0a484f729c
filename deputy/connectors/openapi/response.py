"""An API's answer as a bounded summary for the agent, or as a plain `ConnectorError`.

Bodies are untrusted: summaries are cut to a size the model can take, secrets the request
carried are scrubbed out (a server may echo the key back), and an error quotes at most a
short excerpt of the server's own message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from deputy.core.records.effects import ConnectorAuthError, ConnectorError, ConnectorRejected, ConnectorUnavailable
from deputy.connectors.http.text import html_to_text, is_textual, looks_binary, media_type

MAX_SUMMARY_CHARS = 4_000
"""Most characters of an answer handed to the agent."""
_MAX_MESSAGE_CHARS = 200
_MESSAGE_KEYS = ("message", "error_description", "detail", "error", "title", "description", "errors", "msg")

Scrub = Callable[[str], str]


@dataclass(frozen=True)
class Answer:
    """The raw answer: status, reason, final URL's host, content type, body bytes."""

    status: int
    reason: str
    where: str
    content_type: str
    body: bytes
    cut: bool = False
    """True when only the first part of a larger body was read."""
    location: str | None = None


def summarise(answer: Answer, *, expects_json: bool, scrub: Scrub, max_chars: int = MAX_SUMMARY_CHARS) -> str:
    """`200 OK` and the body as compact JSON or text, cut to `max_chars` with a note."""
    head = f"{answer.status} {answer.reason}".strip()
    if not answer.body:
        return f"{head} (no content)"
    kind = media_type(answer.content_type)
    if (kind and not is_textual(kind)) or (not kind and looks_binary(answer.body)):
        return f"{head}: {len(answer.body):,} bytes of {kind or 'binary data'} (not shown)."
    text, parsed = _text(answer)
    if expects_json and not parsed and not answer.cut:
        raise ConnectorUnavailable(
            f"{answer.where} answered with something that isn't JSON, unlike what its API description promises.",
            detail=f"{answer.status} {kind or 'no content type'}",
        )
    text = scrub(text)
    note = ""
    if answer.cut:
        note = "\n(The answer was too large; only its beginning was read.)"
    if len(text) > max_chars:
        total = f"more than {len(text):,}" if answer.cut else f"{len(text):,}"
        note = f"\n(The answer was cut at {max_chars:,} of {total} characters.)"
        text = text[:max_chars]
    return f"{head}\n{text}{note}"


def failure(answer: Answer, *, service: str, scrub: Scrub, authenticated: bool = True) -> ConnectorError:
    """The `ConnectorError` for a non-2xx answer, quoting the server's message briefly.
    `authenticated` says whether the request carried the user's credential."""
    status, where = answer.status, answer.where
    said = server_message(answer, scrub)
    quoted = f': "{said}"' if said else "."
    code = f"{status} {answer.reason}".strip()
    detail = f"HTTP {status} from {where}"
    if 300 <= status < 400:
        target = scrub(answer.location or "another address")[:200]
        return ConnectorRejected(f"{where} redirected the request to {target}; I didn't follow it.", detail=detail)
    if status in (401, 403):
        problem = f"refused the credentials stored for {service}" if authenticated else "wants credentials"
        return ConnectorAuthError(f"{where} {problem} ({code}){quoted}", detail=detail)
    if status in (408, 429):
        return ConnectorUnavailable(f"{where} asked to try again later ({code}){quoted}", detail=detail)
    if status >= 500:
        return ConnectorUnavailable(f"{where} had a server error ({code}){quoted}", detail=detail)
    return ConnectorRejected(f"{where} refused the request ({code}){quoted}", detail=detail)


def server_message(answer: Answer, scrub: Scrub) -> str:
    """A short excerpt of what the server said about an error; empty if nothing readable."""
    kind = media_type(answer.content_type)
    if not answer.body or (kind and not is_textual(kind)) or (not kind and looks_binary(answer.body)):
        return ""
    text, parsed = _text(answer)
    if parsed:
        found = _message_in(json.loads(text))
        text = found if found is not None else text
    elif kind in ("text/html", "application/xhtml+xml"):
        text = html_to_text(text, "http://" + answer.where)
    text = scrub(" ".join(text.split()))
    return text if len(text) <= _MAX_MESSAGE_CHARS else text[: _MAX_MESSAGE_CHARS - 1] + "…"


def _text(answer: Answer) -> tuple[str, bool]:
    """The body as text; compact JSON (and True) when it parses as JSON."""
    charset = _charset(answer.content_type)
    try:
        text = answer.body.decode(charset, errors="strict") if charset else None
    except (LookupError, UnicodeDecodeError):  # an unknown or wrong charset: judge the bytes alone
        text = None
    try:
        # Without a (usable) charset, json.loads(bytes) detects UTF-8, -16 and -32 itself.
        value = json.loads(text if text is not None else answer.body)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")), True
    except (ValueError, RecursionError):
        pass
    if text is None:
        text = answer.body.decode("utf-8", errors="replace")
    if media_type(answer.content_type) in ("text/html", "application/xhtml+xml"):
        text = html_to_text(text, "http://" + answer.where)
    return text, False


def _charset(content_type: str) -> str | None:
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return None


def _message_in(value: Any, depth: int = 0) -> str | None:
    if isinstance(value, str):
        return value
    if depth > 3:
        return None
    if isinstance(value, dict):
        for key in _MESSAGE_KEYS:
            if key in value:
                found = _message_in(value[key], depth + 1)
                if found:
                    return found
    if isinstance(value, list) and value:
        return _message_in(value[0], depth + 1)
    return None
