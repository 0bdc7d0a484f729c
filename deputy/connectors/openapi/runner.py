"""Running imported operations: one HTTP call per action, with the user's credential.

The `httpx.Client` is injected, so the executor plugs in Sentinel's guarded transport and
tests a plain client against a local server. The runner never follows redirects itself:
a redirect could carry the credential header to another host. Every failure is a
`ConnectorError` whose message and detail are scrubbed of the secret the call used.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import httpx
from pydantic import SecretStr, ValidationError

from deputy.core.records.record_listings import listed_records
from deputy.core.records.effects import ConnectorAuthError, ConnectorError, ConnectorRejected, OperationResult
from deputy.connectors.http.errors import HTTP_FAILURES, describe_failure
from deputy.connectors.openapi.api import CONNECTOR, ApiCall, ImportedApi
from deputy.connectors.openapi.auth import CredentialSource, add_credential, load_secret
from deputy.connectors.openapi.request import SAFE_METHODS, RequestParts, build_request
from deputy.connectors.openapi.response import MAX_SUMMARY_CHARS, Answer, failure, summarise
from deputy.core.records.actions import Action
from deputy.vault import Scrubber, UserId

MAX_RESPONSE_BYTES = 1_000_000
"""Most bytes read from one answer; the rest is left unread and the summary says so."""

Runner = Callable[[Action, str], OperationResult]


class OpenApiRunner:
    """Runs the operations of one `ImportedApi` with `client`, taking secrets from `credentials`."""

    def __init__(
        self,
        api: ImportedApi,
        client: httpx.Client,
        credentials: CredentialSource | None = None,
        *,
        max_chars: int = MAX_SUMMARY_CHARS,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self._api = api
        self._client = client
        self._credentials = credentials
        self._max_chars = max_chars
        self._max_bytes = max_bytes

    def runners(self) -> dict[str, Runner]:
        """One runner per operation, keyed `openapi.<tool>` as the executor looks them up."""
        return {f"{CONNECTOR}.{tool}": self._runner(tool) for tool in self._api.calls}

    def _runner(self, tool: str) -> Runner:
        def run(action: Action, idempotency_key: str) -> OperationResult:
            return self.run(tool, action.arguments, action.user_id, idempotency_key)

        return run

    def run(self, tool: str, arguments: dict, user_id: UserId, idempotency_key: str) -> OperationResult:
        """Call `tool` with `arguments` for `user_id`; the answer as an untrusted result."""
        call = self._api.calls.get(tool)
        if call is None:
            raise ConnectorRejected(f"{self._api.title} has no operation {tool[:80]!r}.")
        try:
            validated = call.arguments.model_validate(arguments).root
        except ValidationError as exc:
            problems = "; ".join(str(e.get("msg", "")) for e in exc.errors())[:500]
            raise ConnectorRejected(f"The arguments for {tool} don't fit its description: {problems}") from None
        parts = build_request(call, validated)
        secret = self._authenticate(call, parts, user_id)
        scrubber = Scrubber([secret] if secret is not None else [])
        if call.method not in SAFE_METHODS:
            parts.headers[call.idempotency_header] = _header_safe(idempotency_key)
        answer = self._send(parts, scrubber)
        if not 200 <= answer.status < 300:
            problem = failure(answer, service=self._api.title, scrub=scrubber.scrub, authenticated=secret is not None)
            finders = self._finders(tool) if answer.status == 404 else []
            if finders:
                # "There is no restaurant 'sushi-place'": the id was a guess; name the calls that list the real ones.
                problem.user_message += f" To find the right one, call {' or '.join(finders)} first."
                problem.args = (problem.user_message,)
            raise problem
        summary = summarise(answer, expects_json=call.expects_json, scrub=scrubber.scrub, max_chars=self._max_chars)
        origin = f"the API response from {answer.where}"
        # A listing of records (JSON or YAML): each record is its own item, so a card names the one that held a value.
        return OperationResult(summary=summary, untrusted_origin=origin, items=listed_records(summary, origin))

    def _finders(self, tool: str) -> list[str]:
        """The API's other reading operations that search or list: where an id that was not found can be looked up."""
        reads = [name for name, call in self._api.calls.items() if name != tool and call.method in SAFE_METHODS]
        searches = [name for name in reads if _SEARCHING.search(name)]
        # A search finds what exists; a listing may be only the user's own records (their bookings), so it
        # is named only when the API has no search.
        return (searches or [name for name in reads if _LISTING.search(name)])[:2]

    def _authenticate(self, call: ApiCall, parts: RequestParts, user_id: UserId) -> SecretStr | None:
        scheme = call.auth.scheme
        if scheme is None:
            return None
        loaded = load_secret(self._credentials, user_id, self._api.credential)
        if loaded is None:
            if call.auth.optional:
                return None
            raise ConnectorAuthError(
                f"{self._api.title} needs a credential and none is stored for you yet; "
                f"connect it first (vault handle {self._api.credential})."
            )
        secret, username = loaded
        add_credential(
            scheme, secret, username, service=self._api.title,
            headers=parts.headers, query=parts.query, cookies=parts.cookies,
        )
        return secret

    def _send(self, parts: RequestParts, scrubber: Scrubber) -> Answer:
        headers = dict(parts.headers)
        if parts.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in parts.cookies.items())
        request: httpx.Request | None = None
        try:
            request = self._client.build_request(
                parts.method, parts.url, params=parts.query or None, headers=headers, content=parts.content
            )
        except HTTP_FAILURES:
            pass  # raised below, outside this block: the library's error may quote the URL and its key
        if request is None:
            raise ConnectorRejected("I couldn't build a valid request from these arguments.")
        where = request.url.netloc.decode("ascii", "replace")
        problem: ConnectorError
        try:
            response = self._client.send(request, stream=True, follow_redirects=False)
            try:
                return self._read(response, where)
            finally:
                response.close()
        except ConnectorError as exc:
            # E.g. Sentinel's egress guard refusing the request: keep its type, scrub its words.
            exc.user_message = scrubber.scrub(exc.user_message)
            exc.detail = scrubber.scrub(exc.detail) if exc.detail else exc.detail
            exc.args = (exc.user_message,)
            raise
        except HTTP_FAILURES as exc:
            found = describe_failure(exc, request.url.host)
            problem = type(found)(scrubber.scrub(found.user_message), detail=scrubber.scrub(found.detail or ""))
        # Raised outside the except block: the library exception's frames hold the request,
        # credential included, and must not be chained to what the agent and logs see.
        raise problem

    def _read(self, response: httpx.Response, where: str) -> Answer:
        chunks: list[bytes] = []
        total, cut = 0, False
        for chunk in response.iter_bytes():
            room = self._max_bytes - total
            if len(chunk) >= room:
                chunks.append(chunk[:room])
                cut = len(chunk) > room
                if cut:
                    break
            else:
                chunks.append(chunk)
            total += len(chunk)
        return Answer(
            status=response.status_code,
            reason=response.reason_phrase,
            where=where,
            content_type=response.headers.get("content-type", ""),
            body=b"".join(chunks),
            cut=cut,
            location=response.headers.get("location"),
        )


_SEARCHING = re.compile(r"(?:^|[_.-])(?:search|find|browse|query|lookup)", re.IGNORECASE)
_LISTING = re.compile(r"(?:^|[_.-])list", re.IGNORECASE)


def _header_safe(key: str) -> str:
    """The idempotency key as a header value (hashed when it isn't plain, short ASCII)."""
    if key and len(key) <= 200 and key.isascii() and key.isprintable():
        return key
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()

