"""How an imported API authenticates, and adding the user's credential to a request.

The document says which scheme an operation uses (API key in a header, query parameter
or cookie; HTTP bearer; HTTP basic; OAuth2 and OpenID Connect are taken as a bearer
access token the user stored). The secret itself comes from the vault, by the handle
`cred:api/<service>`, only when the executor runs the call: it never appears in an
operation's schema, description or result.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import SecretStr

from deputy.core.records.effects import ConnectorAuthError, ConnectorError
from deputy.core.accounts.credential_index import CredentialInfo, UserId
from deputy.core.records.vault_errors import CredentialNotFound, VaultError

AuthKind = Literal["api_key", "bearer", "basic"]
Location = Literal["header", "query", "cookie"]

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}")
_PRINTABLE = re.compile(r"[\x20-\x7e]+")


def credential_handle(service: str) -> str:
    """The vault handle holding the secret for `service`."""
    return f"cred:api/{service}"


class CredentialSource(Protocol):
    """What the runner needs from the vault (`vault.Vault` fits)."""

    def info(self, user_id: UserId, handle: str) -> CredentialInfo: ...

    def get(self, user_id: UserId, handle: str) -> SecretStr: ...


@dataclass(frozen=True)
class AuthScheme:
    """One supported security scheme: where the secret goes and under which name."""

    name: str
    kind: AuthKind
    location: Location = "header"
    parameter: str = "Authorization"


@dataclass(frozen=True)
class AuthPlan:
    """How to authenticate one operation: `scheme` None means no credential is sent;
    `optional` means the API also accepts the call without one."""

    scheme: AuthScheme | None = None
    optional: bool = False


def read_schemes(components: Any) -> dict[str, AuthScheme]:
    """The document's security schemes that Deputy can use, by name (others are left out)."""
    raw = components.get("securitySchemes") if isinstance(components, dict) else None
    schemes: dict[str, AuthScheme] = {}
    for name, spec in (raw or {}).items():
        scheme = _scheme(str(name), spec)
        if scheme is not None:
            schemes[str(name)] = scheme
    return schemes


def _scheme(name: str, spec: Any) -> AuthScheme | None:
    if not isinstance(spec, dict):
        return None
    kind = spec.get("type")
    if kind == "apiKey":
        where, parameter = spec.get("in"), spec.get("name")
        if where in ("header", "query", "cookie") and isinstance(parameter, str) and _TOKEN.fullmatch(parameter):
            return AuthScheme(name, "api_key", where, parameter)
        return None
    if kind == "http":
        scheme = str(spec.get("scheme", "")).lower()
        if scheme in ("bearer", "basic"):
            return AuthScheme(name, scheme)  # type: ignore[arg-type]
        return None
    if kind in ("oauth2", "openIdConnect"):
        return AuthScheme(name, "bearer")
    return None  # mutualTLS and unknown types


def plan_auth(requirements: Any, schemes: dict[str, AuthScheme]) -> AuthPlan | None:
    """The plan for a security requirement list; None when no alternative is usable."""
    if not isinstance(requirements, list) or not requirements:
        return AuthPlan()
    anonymous = any(isinstance(r, dict) and not r for r in requirements)
    for requirement in requirements:
        # One scheme per alternative: combinations (key AND secret) need two credentials.
        if isinstance(requirement, dict) and len(requirement) == 1:
            (name,) = requirement
            if name in schemes:
                return AuthPlan(schemes[name], optional=anonymous)
    return AuthPlan() if anonymous else None


def load_secret(source: CredentialSource | None, user_id: UserId, handle: str) -> tuple[SecretStr, str | None] | None:
    """The secret and public username behind `handle`, or None when none is stored."""
    if source is None:
        return None
    try:
        info = source.info(user_id, handle)
        secret = source.get(user_id, handle)
    except CredentialNotFound:
        return None
    except VaultError as exc:
        failure = ConnectorError(exc.user_message, detail=type(exc).__name__)
    else:
        return secret, info.public.get("username") or None
    raise failure


def add_credential(
    scheme: AuthScheme,
    secret: SecretStr,
    username: str | None,
    *,
    service: str,
    headers: dict[str, str],
    query: list[tuple[str, str]],
    cookies: dict[str, str],
) -> None:
    """Put the credential where `scheme` says; refuse values no HTTP header could carry."""
    value = secret.get_secret_value()
    if not _PRINTABLE.fullmatch(value):
        # Never echo it: it is the secret.
        raise ConnectorAuthError(
            f"The stored credential for {service} contains characters that can't be sent over HTTP; store it again."
        )
    if scheme.kind == "bearer":
        headers["Authorization"] = f"Bearer {value}"
    elif scheme.kind == "basic":
        if not username or ":" in username or not _PRINTABLE.fullmatch(username):
            raise ConnectorAuthError(
                f"{service} uses a username and password, but the stored credential has no valid username."
            )
        pair = base64.b64encode(f"{username}:{value}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {pair}"
    elif scheme.location == "header":
        headers[scheme.parameter] = value
    elif scheme.location == "query":
        query.append((scheme.parameter, value))
    else:
        cookies[scheme.parameter] = value
