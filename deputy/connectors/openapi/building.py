"""One OpenAPI operation as an `ApiCall` (how to send it) and an `Operation` (what it is).

An operation that can't be used safely or at all (a file upload, authentication Deputy
doesn't speak, a broken schema) raises `Skipped` with a plain note instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

import httpx
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from deputy.core.records.effects import ConnectorError, EffectClass, OperationSpec, RiskTag
from deputy.connectors.catalog import Operation
from deputy.connectors.http.text import media_type
from deputy.connectors.openapi.api import CONNECTOR, ApiCall, ApiParameter
from deputy.connectors.openapi.arguments import ApiArguments, Check, arguments_model
from deputy.connectors.openapi.auth import AuthPlan, AuthScheme, plan_auth
from deputy.connectors.overrides import OperationOverride, amount_problem, read_amount, targets_of
from deputy.connectors.openapi.refs import RefResolver
from deputy.connectors.openapi.request import SAFE_METHODS, scalar, target_url
from deputy.connectors.openapi.schemas import model_view, request_schema

MAX_DESCRIPTION = 200
# Headers the document may not hand to the model: transport framing, and the slots where
# Deputy itself puts credentials and the idempotency key.
_RESERVED_HEADERS = frozenset({
    "accept", "content-type", "content-length", "authorization", "proxy-authorization", "cookie", "host",
    "transfer-encoding", "connection", "te", "trailer", "upgrade", "expect", "idempotency-key",
})
_ARGUMENT = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


class Skipped(Exception):
    """The operation is left out; the message is a plain note for the user."""


@dataclass(frozen=True)
class Context:
    """What every operation of one document shares."""

    openapi_version: str
    resolver: RefResolver
    schemes: dict[str, AuthScheme]
    security: Any
    """The document-wide security requirements."""


def build_operation(
    ctx: Context, tool: str, method: str, path: str, path_item: dict[str, Any], op: dict[str, Any],
    server: str, override: OperationOverride | None,
) -> tuple[ApiCall, Operation]:
    """The call and catalog entry for `method path`; raises `Skipped` when unusable."""
    verb = method.upper()
    where = f"{verb} {path}"
    auth = plan_auth(op.get("security", ctx.security), ctx.schemes)
    if auth is None:
        raise Skipped(f"{where} needs a kind of authentication I can't use, so I left it out.")
    properties: dict[str, Any] = {}
    required: list[str] = []
    parameters = _parameters(ctx, where, path, path_item, op, auth, properties, required)
    body_media = _body(ctx, where, op, properties, required)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        raise Skipped(f"{where} has a schema I couldn't understand, so I left it out.") from None
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    url = httpx.URL(server)
    host = url.netloc.decode("ascii")
    checks: list[Check] = [_path_check(parameters)]
    if override is not None and override.amount is not None:
        checks.append(lambda arguments: amount_problem(arguments, override))
    model = arguments_model(tool, validator, checks)
    call = ApiCall(
        tool=tool, method=verb, server=server, path=path, parameters=parameters, arguments=model,
        body_media=body_media, auth=auth, expects_json=_expects_json(ctx, op),
    )
    # GET and HEAD read and DELETE deletes; anything else may speak to someone (a booking
    # gives a name, a post publishes), which the method can't rule out: ask as for a message.
    effect = (EffectClass.read if verb in SAFE_METHODS
              else EffectClass.write if verb == "DELETE" else EffectClass.communicate)
    tags = {RiskTag.delete} if verb == "DELETE" else set()
    if override is not None:
        effect = override.effect or effect
        tags |= override.tags
    spec = OperationSpec(
        connector=CONNECTOR, operation=tool, effect=effect, description=_description(op, where), tags=frozenset(tags)
    )
    operation = Operation(
        spec=spec,
        arguments=model,
        # The recipients and objects the user marked, else the address the request goes to.
        targets=lambda args: targets_of(_root(args), override) or [_target(call, args)],
        result_origin=lambda args: f"the API response from {host}",
        schema=model_view(schema),
        amount=(lambda args: read_amount(_root(args), override)) if override and override.amount else None,
        service=url.host,
        # Dates in the user's words ("on Friday") are resolved by the agent, as for the calendar.
        time_arguments=tuple(_time_fields(properties)),
    )
    return call, operation


def _time_fields(properties: dict[str, Any], prefix: str = "") -> Iterator[str]:
    """The arguments holding a date or date-time, also one level down (a request body's fields)."""
    for name, prop in properties.items():
        if not isinstance(prop, dict):
            continue
        if prop.get("format") in ("date", "date-time"):
            yield prefix + name
        elif not prefix and isinstance(prop.get("properties"), dict):
            yield from _time_fields(prop["properties"], f"{name}.")


def _parameters(
    ctx: Context, where: str, path: str, path_item: dict[str, Any], op: dict[str, Any], auth: AuthPlan,
    properties: dict[str, Any], required: list[str],
) -> tuple[ApiParameter, ...]:
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for raw in [*_list(path_item.get("parameters")), *_list(op.get("parameters"))]:
        parameter = ctx.resolver.deref(raw)
        if isinstance(parameter, dict) and isinstance(parameter.get("name"), str) and parameter.get("in"):
            merged[(parameter["name"], str(parameter["in"]))] = parameter  # the operation's own wins
    bound: list[ApiParameter] = []
    for (name, location), parameter in merged.items():
        if location not in ("path", "query", "header", "cookie") or _hidden(name, location, auth.scheme):
            continue
        if location == "path" and "{" + name + "}" not in path:
            continue
        argument = _argument_name(name, location, properties)
        schema = request_schema(ctx.resolver.inline(_parameter_schema(parameter)), ctx.openapi_version)
        if isinstance(parameter.get("description"), str):
            schema["description"] = _shorten(parameter["description"], MAX_DESCRIPTION)
        properties[argument] = schema
        if location == "path" or parameter.get("required") is True:
            required.append(argument)
        style = str(parameter.get("style") or ("simple" if location in ("path", "header") else "form"))
        explode = parameter.get("explode", style == "form")
        bound.append(ApiParameter(argument, name, location, style, bool(explode)))  # type: ignore[arg-type]
    described = {p.name for p in bound if p.location == "path"}
    for name in _TEMPLATE.findall(path):
        if name not in described:
            raise Skipped(f"{where} needs a path value {{{name}}} that the document doesn't describe, so I left it out.")
    return tuple(bound)


def _hidden(name: str, location: str, scheme: AuthScheme | None) -> bool:
    if location == "header" and name.lower() in _RESERVED_HEADERS:
        return True
    if scheme is not None and scheme.kind == "api_key" and scheme.location == location:
        return name.lower() == scheme.parameter.lower() if location == "header" else name == scheme.parameter
    return False


def _argument_name(name: str, location: str, taken: dict[str, Any]) -> str:
    candidate = name if _ARGUMENT.fullmatch(name) and name != "body" else f"{location}_{re.sub(r'[^A-Za-z0-9_]+', '_', name)}"
    candidate = candidate[:60]
    if candidate in taken:
        candidate = f"{location}_{candidate}"[:60]
    counter = 2
    unique = candidate
    while unique in taken:
        unique, counter = f"{candidate}_{counter}", counter + 1
    return unique


def _parameter_schema(parameter: dict[str, Any]) -> Any:
    if "schema" in parameter:
        return parameter["schema"]
    content = parameter.get("content")
    if isinstance(content, dict):
        for media in content.values():
            if isinstance(media, dict) and "schema" in media:
                return media["schema"]
    return {"type": "string"}


def _body(ctx: Context, where: str, op: dict[str, Any], properties: dict[str, Any], required: list[str]) -> str | None:
    body = ctx.resolver.deref(op.get("requestBody"))
    if not isinstance(body, dict) or not isinstance(body.get("content"), dict):
        return None
    chosen = _pick_media(body["content"])
    if chosen is None:
        if body.get("required") is True:
            raise Skipped(f"{where} sends a file or a kind of body I can't send yet, so I left it out.")
        return None
    media, spec = chosen
    schema = request_schema(ctx.resolver.inline(spec.get("schema", {})), ctx.openapi_version)
    if isinstance(body.get("description"), str) and "description" not in schema:
        schema["description"] = _shorten(body["description"], MAX_DESCRIPTION)
    properties["body"] = schema
    if body.get("required") is True:
        required.append("body")
    return media


def _pick_media(content: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    kinds = {media_type(key): value if isinstance(value, dict) else {} for key, value in content.items()}
    for kind, spec in kinds.items():
        if kind == "application/json" or kind.endswith("+json"):
            return kind, spec
    for preferred in ("application/x-www-form-urlencoded", "text/plain"):
        if preferred in kinds:
            return preferred, kinds[preferred]
    if "*/*" in kinds:
        return "application/json", kinds["*/*"]
    return None


def _expects_json(ctx: Context, op: dict[str, Any]) -> bool:
    responses = op.get("responses")
    if not isinstance(responses, dict):
        return False
    for code, response in responses.items():
        if not (str(code).startswith("2") or str(code) == "default"):
            continue
        content = ctx.resolver.deref(response)
        content = content.get("content") if isinstance(content, dict) else None
        if isinstance(content, dict) and any(
            media_type(k) == "application/json" or media_type(k).endswith("+json") for k in content
        ):
            return True
    return False


def _path_check(parameters: tuple[ApiParameter, ...]) -> Check:
    in_path = [p for p in parameters if p.location == "path"]

    def check(arguments: dict[str, Any]) -> str | None:
        for parameter in in_path:
            value = arguments.get(parameter.argument)
            for item in value if isinstance(value, list) else [value]:
                if item is None or isinstance(item, (dict, list)) or scalar(item) in ("", ".", ".."):
                    return f"{parameter.argument}: a path value must be a non-empty text or number, not '.' or '..'"
        return None

    return check


def _target(call: ApiCall, args: Any) -> str:
    try:
        return target_url(call, _root(args))
    except ConnectorError:
        return call.server + call.path


def _root(args: Any) -> dict[str, Any]:
    return args.root if isinstance(args, ApiArguments) else dict(args)


def _description(op: dict[str, Any], where: str) -> str:
    for key in ("summary", "description"):
        text = op.get(key)
        if isinstance(text, str) and text.strip():
            return _shorten(text, MAX_DESCRIPTION)
    return where


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
