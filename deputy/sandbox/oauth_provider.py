"""The sandbox's OAuth 2.0 provider: Authlib's authorization server over in-memory grants.

What a real provider (Google, Microsoft) does, on loopback: a consent page, scopes,
authorization code with PKCE (required), access tokens that expire, refresh tokens,
revocation (RFC 7009) that kills the whole grant, and introspection for the sandbox's own
mail and calendar servers, which call `check` for every login. The HTTP side is in
`deputy.sandbox.oauth_pages`.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlsplit

from authlib.oauth2 import AuthorizationServer, OAuth2Request
from authlib.oauth2.rfc6749 import ClientMixin, InvalidRequestError, grants
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge

SCOPES = ("mail.read", "mail.draft", "mail.send", "calendar.read", "calendar.write")
"""What the sandbox's mail and calendar servers understand."""
CLIENT_ID = "deputy-local"
"""The client the sandbox registers for Deputy (a public client: PKCE instead of a secret)."""
ACCESS_LIFETIME = 3600
# Authlib logs every token it issues at DEBUG; the sandbox's log should not hold live tokens.
logging.getLogger("authlib").setLevel(logging.INFO)
_METHODS = ["none", "client_secret_basic", "client_secret_post"]


@dataclass
class Client(ClientMixin):
    client_id: str
    redirect_path: str = "/oauth/callback"

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> None:
        return None

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(s for s in (scope or "").split() if s in SCOPES)

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        # RFC 8252 §7.3: a loopback redirect may use any port; the path is fixed at registration.
        parts = urlsplit(redirect_uri)
        return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost") \
            and parts.path.endswith(self.redirect_path)

    def check_client_secret(self, client_secret: str) -> bool:
        return False

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "none"

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in ("authorization_code", "refresh_token")


@dataclass
class Token:
    """One access token with its refresh token; `grant` ties together everything one consent issued."""

    access_token: str
    refresh_token: str | None
    scope: str
    user: str
    client_id: str
    grant: str
    issued_at: float
    expires_in: int
    revoked: bool = False
    token_type: str = "Bearer"

    def check_client(self, client: Client) -> bool:
        return client.client_id == self.client_id

    def get_scope(self) -> str:
        return self.scope

    def get_expires_in(self) -> int:
        return self.expires_in

    def is_revoked(self) -> bool:
        return self.revoked

    def get_user(self) -> str:
        return self.user

    def get_client(self) -> Client:
        return Client(self.client_id)


@dataclass
class Code:
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    user: str
    code_challenge: str
    code_challenge_method: str
    expires_at: float

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope


@dataclass
class _State:
    codes: dict[str, Code] = field(default_factory=dict)
    access: dict[str, Token] = field(default_factory=dict)
    refresh: dict[str, Token] = field(default_factory=dict)
    dead_grants: set[str] = field(default_factory=set)
    lock: threading.RLock = field(default_factory=threading.RLock)


class TokenRefused(Exception):
    """Why a resource server must refuse a token (expired, revoked, unknown, or missing a scope)."""


class OAuthProvider:
    """The provider's state and Authlib server. `users` maps login to password (the sandbox's demo users);
    `clock` lets tests make tokens expire without waiting."""

    def __init__(self, users: dict[str, str], clock: Callable[[], float] = time.time,
                 access_lifetime: int = ACCESS_LIFETIME) -> None:
        self.users = dict(users)
        self.clock = clock
        self.skew = 0.0
        """Seconds added to the clock (the sandbox's "let time pass" for tests and demos)."""
        self.state = _State()
        self.server = _server(self, access_lifetime)

    def now(self) -> float:
        return self.clock() + self.skew

    def check(self, access_token: str, scope: str, user: str | None = None) -> str:
        """The user the token is for, if it is live and carries `scope`; else `TokenRefused`."""
        with self.state.lock:
            token = self.state.access.get(access_token)
        if token is None:
            raise TokenRefused("invalid_token: unknown access token")
        if token.revoked or token.grant in self.state.dead_grants:
            raise TokenRefused("invalid_token: the grant was revoked")
        if token.issued_at + token.expires_in <= self.now():
            raise TokenRefused("invalid_token: the access token has expired")
        if scope not in token.scope.split():
            raise TokenRefused(f"insufficient_scope: this needs the {scope} scope")
        if user is not None and user.lower() != token.user.lower():
            raise TokenRefused("invalid_token: the token is for another account")
        return token.user

    def revoke_grant(self, grant: str) -> None:
        with self.state.lock:
            self.state.dead_grants.add(grant)
            for token in [*self.state.access.values(), *self.state.refresh.values()]:
                if token.grant == grant:
                    token.revoked = True

    def revoke_everything(self) -> None:
        """Every grant ever issued, gone (as a user removing the app in their account settings)."""
        with self.state.lock:
            for grant in {t.grant for t in self.state.refresh.values()} | {t.grant for t in self.state.access.values()}:
                self.revoke_grant(grant)

    def live_grants(self, user: str) -> list[str]:
        with self.state.lock:
            return sorted({t.grant for t in self.state.refresh.values()
                           if t.user == user and not t.revoked and t.grant not in self.state.dead_grants})

    def login(self, username: str, password: str) -> str | None:
        expected = self.users.get(username.strip().lower())
        if expected is not None and secrets.compare_digest(expected.encode(), password.encode()):
            return username.strip().lower()
        return None


class _CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = _METHODS
    provider: OAuthProvider

    def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
        data = request.payload.data
        self.provider.state.codes[code] = Code(
            code, request.client.client_id, data.get("redirect_uri", ""), request.scope or "",
            request.user, data.get("code_challenge", ""), data.get("code_challenge_method", "plain"),
            self.provider.now() + 600)

    def query_authorization_code(self, code: str, client: Client) -> Code | None:
        found = self.provider.state.codes.get(code)
        if found and found.client_id == client.client_id and found.expires_at > self.provider.now():
            return found
        return None

    def delete_authorization_code(self, authorization_code: Code) -> None:
        self.provider.state.codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code: Code) -> str:
        return authorization_code.user


class _RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = _METHODS
    provider: OAuthProvider

    def authenticate_refresh_token(self, refresh_token: str) -> Token | None:
        token = self.provider.state.refresh.get(refresh_token)
        if token is None or token.revoked or token.grant in self.provider.state.dead_grants:
            return None
        return token

    def authenticate_user(self, refresh_token: Token) -> str:
        return refresh_token.user

    def revoke_old_credential(self, refresh_token: Token) -> None:
        pass  # the refresh token stays valid (as Google's do); only revocation ends it


class _Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = _METHODS
    provider: OAuthProvider

    def query_token(self, token_string: str, token_type_hint: str | None) -> Token | None:
        state = self.provider.state
        return state.refresh.get(token_string) or state.access.get(token_string)

    def revoke_token(self, token: Token, request: OAuth2Request) -> None:
        self.provider.revoke_grant(token.grant)


class _PkceRequired(CodeChallenge):
    """PKCE with S256 on every authorization request (Authlib alone would only insist at the token endpoint)."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant: grants.AuthorizationCodeGrant, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge") or data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("Missing 'code_challenge': this provider requires PKCE with S256.")
        super().validate_code_challenge(grant, redirect_uri)


class _Server(AuthorizationServer):
    provider: OAuthProvider

    def query_client(self, client_id: str) -> Client | None:
        return Client(client_id) if client_id == CLIENT_ID else None

    def save_token(self, token: dict, request: OAuth2Request) -> None:
        state = self.provider.state
        old = request.refresh_token  # set by the refresh grant: same grant, same refresh token
        grant = old.grant if old is not None else secrets.token_hex(8)
        refresh = token.get("refresh_token") or (old.refresh_token if old is not None else None)
        record = Token(token["access_token"], refresh, token.get("scope", ""), request.user,
                       request.client.client_id, grant, self.provider.now(), int(token["expires_in"]))
        with state.lock:
            state.access[record.access_token] = record
            if refresh and refresh not in state.refresh:
                state.refresh[refresh] = record

    def create_oauth2_request(self, request: OAuth2Request) -> OAuth2Request:
        return request

    def create_json_request(self, request: OAuth2Request) -> OAuth2Request:
        return request

    def handle_response(self, status: int, body: object, headers: list) -> tuple[int, object, list]:
        return status, body, headers

    def send_signal(self, name: str, *args: object, **kwargs: object) -> None:
        pass


def _server(provider: OAuthProvider, access_lifetime: int) -> _Server:
    server = _Server(scopes_supported=list(SCOPES))
    server.provider = provider
    server.register_token_generator("default", BearerTokenGenerator(
        lambda **_: secrets.token_urlsafe(32), lambda **_: secrets.token_urlsafe(40),
        lambda client, grant_type: access_lifetime))
    for cls in (_CodeGrant, _RefreshGrant, _Revocation):
        cls.provider = provider
    server.register_grant(_CodeGrant, [_PkceRequired(required=True)])
    server.register_grant(_RefreshGrant)
    server.register_endpoint(_Revocation)
    return server


class _Request(OAuth2Request):
    def __init__(self, method: str, url: str, headers: dict[str, str], query: dict[str, str],
                 form: dict[str, str]) -> None:
        super().__init__(method, url, headers=headers)
        self._query, self._form = query, form
        self.payload = BasicOAuth2Payload({**query, **form})

    @property
    def args(self) -> dict[str, str]:
        return self._query

    @property
    def form(self) -> dict[str, str]:
        return self._form


def oauth_request(method: str, url: str, headers: dict[str, str], query: dict[str, str],
                  form: dict[str, str]) -> OAuth2Request:
    """An Authlib request from what an HTTP server read."""
    return _Request(method, url, headers, query, form)
