"""What the sandbox web sites (restaurants, tickets, shop) share.

Each site is an aiohttp app with HTML pages for people (and the browser connector) and a
JSON API under `/api/` described by its own OpenAPI document at `/openapi.json`. Here:
running an app on loopback (in the current loop, or in a thread for tests), JSON errors,
request bodies, idempotency, an optional API key, HTML scaffolding and OpenAPI helpers.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import html
import json
import re
import threading
from collections.abc import Awaitable, Callable
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from typing import Any, Self, TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

Clock = Callable[[], datetime]
"""The site's notion of local time (naive datetimes), injected so tests control it."""
M = TypeVar("M", bound=BaseModel)
API_KEY_HEADER = "X-Api-Key"
MAX_BODY_BYTES = 64 * 1024


def local_now() -> datetime:
    """The default clock: local wall time to the second."""
    return datetime.now().replace(microsecond=0)


class SiteError(Exception):
    """A request the site refuses: the API answers `{"message": ...}` with `status`,
    the HTML pages show the message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False, default=str))


@web.middleware
async def error_middleware(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]):
    """Errors (`SiteError`, aiohttp's 4xx/5xx) as JSON under /api/ and as a small HTML page elsewhere."""
    try:
        return await handler(request)
    except SiteError as error:
        status, message = error.status, error.message
    except web.HTTPException as error:
        if error.status < 400:
            raise
        status, message = error.status, error.reason
    if request.path.startswith("/api/"):
        return json_response({"message": message, "status": status}, status=status)
    return page("Sorry", f"<p class='error'>{esc(message)}</p><p><a href='/'>Back</a></p>", status)


def api_key_middleware(api_key: str | None):
    """When `api_key` is set, every /api/ request must carry it in `X-Api-Key`."""

    @web.middleware
    async def check(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]):
        if api_key is not None and request.path.startswith("/api/"):
            given = request.headers.get(API_KEY_HEADER, "")
            if not hmac.compare_digest(given.encode(), api_key.encode()):
                raise SiteError(401, "A valid API key is required in the X-Api-Key header.")
        return await handler(request)

    return check


def site_app(api_key: str | None) -> web.Application:
    """An application with the shared middlewares and a small body limit."""
    return web.Application(middlewares=[error_middleware, api_key_middleware(api_key)], client_max_size=MAX_BODY_BYTES)


async def read_json(request: web.Request, model: type[M]) -> M:
    """The JSON body validated as `model`; a plain 400/422 `SiteError` otherwise."""
    try:
        data = await request.json()
    except (ValueError, UnicodeDecodeError):
        raise SiteError(400, "The body must be JSON.") from None
    return validated(model, data)


async def read_form(request: web.Request, model: type[M]) -> M:
    """A submitted HTML form validated as `model` (empty fields count as missing)."""
    form = await request.post()
    return validated(model, {k: v for k, v in form.items() if isinstance(v, str) and v.strip()})


def validated(model: type[M], data: Any) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise SiteError(422, f"Invalid request ({problems}).") from None


def parse_date(text: str | None) -> date | None:
    """A `YYYY-MM-DD` query value; None when absent."""
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        raise SiteError(422, "Dates are written YYYY-MM-DD.") from None


def parse_time(text: str | None) -> time | None:
    """An `HH:MM` query value; None when absent."""
    try:
        return time.fromisoformat(text) if text else None
    except ValueError:
        raise SiteError(422, "Times are written HH:MM.") from None


def parse_int(text: str | None, name: str, low: int, high: int, default: int) -> int:
    """A whole-number query value between `low` and `high`."""
    if not text:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise SiteError(422, f"The {name} must be a whole number from {low} to {high}.")
    return int(text)


def parse_price(text: str | None, name: str) -> Decimal | None:
    """A non-negative price query value; None when absent."""
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = Decimal(-1)
    if not value.is_finite() or value < 0:
        raise SiteError(422, f"The {name} must be a non-negative number.")
    return value


PAYMENT_TOKEN = re.compile(r"ptok_[A-Za-z0-9]{8,64}")
PaymentCheck = Callable[[str, Decimal, str], "str | None"]
"""Called at checkout with (payment token id, amount, currency) before anything is recorded,
e.g. to redeem the token through the payment network (`deputy.sandbox.acquirer`); raise
`SiteError(402, ...)` to refuse the payment; may return the network's transaction id.
By default a site accepts any well-formed token and only records it."""


def accept_any_token(token: str, amount: Decimal, currency: str) -> None:
    """The default `PaymentCheck`: the sandbox records the token and charges nothing."""


def check_payment_token(token: str) -> str:
    """`token` if it is a payment token id; card numbers are refused outright."""
    if PAYMENT_TOKEN.fullmatch(token):
        return token
    if sum(c.isdigit() for c in token) >= 12:
        raise SiteError(422, "This site takes payment tokens (ptok_...), never card numbers.")
    raise SiteError(422, "The payment token must look like ptok_ followed by letters and digits.")


def money(value: Decimal) -> str:
    """An amount as JSON text with two decimals ("45.00"), never a binary float."""
    return f"{value.quantize(Decimal('0.01'))}"


class IdempotencyCache:
    """Answers a repeated `Idempotency-Key` with the first answer, as payment APIs do.

    The same key with a different request is a client bug and gets 409.
    """

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, Any]] = {}

    def replay(self, key: str | None, request_body: Any) -> Any | None:
        if not key:
            return None
        found = self._seen.get(key)
        if found is None:
            return None
        if found[0] != _fingerprint(request_body):
            raise SiteError(409, "This Idempotency-Key was already used for a different request.")
        return found[1]

    def remember(self, key: str | None, request_body: Any, answer: Any) -> None:
        if key:
            self._seen[key] = (_fingerprint(request_body), answer)

    async def created(self, request: web.Request, model: type[M], create: Callable[[M], Any]) -> web.Response:
        """A POST that creates something once per `Idempotency-Key`: 201 with `create(body)`'s answer, or the
        first answer again (200) for a repeat."""
        payload = await read_json(request, model)
        key, fingerprint = request.headers.get("Idempotency-Key"), payload.model_dump(mode="json")
        replayed = self.replay(key, fingerprint)
        if replayed is not None:
            return json_response(replayed)
        answer = create(payload)
        self.remember(key, fingerprint, answer)
        return json_response(answer, status=201)


def _fingerprint(body: Any) -> str:
    text = json.dumps(body, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def page(title: str, body: str, status: int = 200, *, site: str = "") -> web.Response:
    """A plain, readable HTML page (no scripts: the browser connector reads forms and text)."""
    heading = f"{esc(site)} · {esc(title)}" if site else esc(title)
    text = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{heading}</title><style>body{{font-family:sans-serif;max-width:46rem;margin:2rem auto}}"
        "label{display:block;margin:.4rem 0}.error{color:#a00}</style></head>"
        f"<body><header><a href='/'>{esc(site or 'Home')}</a></header><main><h1>{esc(title)}</h1>{body}</main>"
        "</body></html>"
    )
    return web.Response(text=text, content_type="text/html", status=status)


def field(label: str, name: str, value: Any = "", kind: str = "text", **attrs: Any) -> str:
    """One labelled form input."""
    extra = "".join(f" {k.rstrip('_')}='{esc(v)}'" for k, v in attrs.items() if v is not None)
    return f"<label>{esc(label)} <input type='{kind}' name='{esc(name)}' value='{esc(value)}'{extra}></label>"


def select(label: str, name: str, options: list[str], chosen: str = "") -> str:
    items = "".join(
        f"<option value='{esc(o)}'{' selected' if o == chosen else ''}>{esc(o or 'any')}</option>" for o in options
    )
    return f"<label>{esc(label)} <select name='{esc(name)}'>{items}</select></label>"


# OpenAPI building blocks: the sites' documents are written with these.

ERROR_SCHEMA = {
    "type": "object",
    "properties": {"message": {"type": "string"}, "status": {"type": "integer"}},
    "required": ["message"],
}


def obj(required: tuple[str, ...] = (), **properties: str | dict[str, Any]) -> dict[str, Any]:
    """An object schema; a property given as a word is that JSON type (`code="string"`)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {k: {"type": v} if isinstance(v, str) else v for k, v in properties.items()},
    }
    if required:
        schema["required"] = list(required)
    return schema


def model_schema(model: type[BaseModel], **replace: dict[str, Any]) -> dict[str, Any]:
    """A request model's JSON schema without titles, optional fields shown as their type,
    and the properties in `replace` swapped for hand-written ones (e.g. dates as text)."""
    schema = model.model_json_schema()

    def tidy(node: Any) -> Any:
        if isinstance(node, dict):
            branches = node.get("anyOf")
            if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
                rest = {k: v for k, v in node.items() if k != "anyOf"}
                node = {**next(b for b in branches if b != {"type": "null"}), **rest}
            return {k: tidy(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
        return [tidy(v) for v in node] if isinstance(node, list) else node

    schema = tidy(schema)
    schema["properties"].update(replace)
    return schema


def ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def array_of(item: str | dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": ref(item) if isinstance(item, str) else item}


def query(name: str, schema: dict[str, Any], description: str, required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "description": description, "schema": schema}


def path_param(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description, "schema": {"type": "string"}}


IDEMPOTENCY_PARAM = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Repeating a request with the same key returns the first answer instead of acting twice.",
    "schema": {"type": "string", "maxLength": 200},
}


def operation(
    operation_id: str,
    summary: str,
    ok: tuple[str, str],
    *,
    parameters: list[dict[str, Any]] | None = None,
    body: str | None = None,
    status: str = "200",
) -> dict[str, Any]:
    """An operation answering JSON: `ok` is (description, schema name) of its success."""
    spec: dict[str, Any] = {
        "operationId": operation_id,
        "summary": summary,
        "responses": {
            status: {"description": ok[0], "content": {"application/json": {"schema": _ref(ok[1])}}},
            "default": {"description": "An error", "content": {"application/json": {"schema": _ref("Error")}}},
        },
    }
    if parameters:
        spec["parameters"] = parameters
    if body:
        spec["requestBody"] = {"required": True, "content": {"application/json": {"schema": _ref(body)}}}
    return spec


def _ref(name: str) -> dict[str, Any]:
    return array_of(name[2:]) if name.startswith("[]") else ref(name)


def openapi_document(
    request: web.Request, title: str, description: str, paths: dict[str, Any], schemas: dict[str, Any],
    api_key: bool,
) -> dict[str, Any]:
    """The site's OpenAPI 3.1 document, its server being the address the request came to."""
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": title, "version": "1.0", "description": description},
        "servers": [{"url": f"{request.scheme}://{request.host}/api"}],
        "paths": paths,
        "components": {"schemas": {**schemas, "Error": ERROR_SCHEMA}},
    }
    if api_key:
        document["components"]["securitySchemes"] = {
            "apiKey": {"type": "apiKey", "in": "header", "name": API_KEY_HEADER}
        }
        document["security"] = [{"apiKey": []}]
    return document


# Running a site.

async def serve_app(app: web.Application, host: str = "127.0.0.1", port: int = 0) -> web.AppRunner:
    """Serve `app` in the running loop; the caller cleans up the returned runner."""
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


class SiteServer:
    """Runs an app on loopback in a thread of its own, for tests and synchronous callers.

    `start()` returns the base URL once the port is listening; `stop()` shuts it down.
    """

    def __init__(self, app: web.Application, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self._host = host
        self._port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self.base_url = ""

    def start(self) -> str:
        self._thread = threading.Thread(target=self._run, name="sandbox-site", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._failure is not None:
            raise RuntimeError(f"the site could not start: {self._failure}")
        if not self.base_url:
            raise RuntimeError("the site did not start within 10 seconds")
        return self.base_url

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._runner = loop.run_until_complete(serve_app(self.app, self._host, self._port))
            port = self._runner.addresses[0][1]
            self.base_url = f"http://{self._host}:{port}"
        except OSError as exc:  # e.g. the port is taken; reported to start(), which is waiting
            self._failure = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._runner.cleanup())
        loop.close()

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
