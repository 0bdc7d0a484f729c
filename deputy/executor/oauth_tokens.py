"""Access tokens for connections made by signing in: refreshed before they expire, never shown to anyone.

The refresh token stays sealed in the vault (`cred:<service>/oauth`); the current access token
sits beside it with its expiry. When a grant dies (refresh refused: revoked, expired, password
changed), the user is told once, with a fresh connect link, and the actions that need it wait
(`ConnectionDead`, parked like a locked user's work) until they sign in again: nothing is
retried in a loop, and the provider is not asked again until then.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

import httpx
from pydantic import SecretStr
from redis import Redis

from deputy.connectors.calendar.client import CalDavAccount
from deputy.connectors.email.imap import ImapAccount
from deputy.connectors.email.smtp import SmtpAccount
from deputy.core.accounts.connect_links import ConnectLinks
from deputy.core.accounts.oauth import NEEDED_SCOPE, OAUTH_HANDLES, ProviderConfig, access_handle, scope_refusal
from deputy.core.records.effects import ConnectorError, ConnectorUnavailable
from deputy.core.records.outbox import Outbox
from deputy.vault import CredentialInfo, CredentialNotFound, Vault

log = logging.getLogger(__name__)

MARGIN = 120
"""Seconds before its expiry an access token is renewed (a step never starts with a dying token)."""
_DEAD = "deputy:oauth:dead:{}:{}"


class ConnectionDead(Exception):
    """A control signal, not a failure: the action waits until the user signs in again."""

    def __init__(self, user_id: int, service: str) -> None:
        super().__init__(f"the {service} sign-in of user {user_id} has ended")
        self.user_id = user_id
        self.chat_id = user_id
        self.service = service


class OAuthTokens:
    def __init__(self, vault: Vault, providers: dict[str, ProviderConfig], redis: Redis, outbox: Outbox,
                 connect_url: str, http: httpx.Client | None = None, clock: Callable[[], float] = time.time) -> None:
        self._vault, self._providers, self._redis, self._outbox = vault, providers, redis, outbox
        self._connect_url = connect_url.rstrip("/")
        self._http = http or httpx.Client(timeout=20)
        self._clock = clock

    def connection(self, user_id: int, service: str) -> CredentialInfo | None:
        """The user's signed-in connection for `service`, or None (a password one, or none)."""
        try:
            return self._vault.info(user_id, OAUTH_HANDLES[service])
        except CredentialNotFound:
            return None

    def refusal(self, user_id: int, operation: str) -> str | None:
        """Why the user's chosen scopes do not allow `connector.operation` (None when they do)."""
        if operation not in NEEDED_SCOPE:
            return None
        info = self.connection(user_id, operation.split(".")[0])
        return scope_refusal(operation, info.public) if info is not None else None

    def preflight(self, user_id: int, operation: str) -> None:
        """Before an action runs: a live access token for its service, or `ConnectionDead`."""
        if operation in NEEDED_SCOPE:
            service = operation.split(".")[0]
            if self.connection(user_id, service) is not None:
                self.access_token(user_id, service)

    def access_token(self, user_id: int, service: str, fresh: bool = False) -> SecretStr:
        if self._redis.exists(_DEAD.format(user_id, service)):
            raise ConnectionDead(user_id, service)
        if not fresh:
            try:
                current = self._vault.info(user_id, access_handle(service))
                if float(current.public.get("expires_at", "0")) - MARGIN > self._clock():
                    return self._vault.get(user_id, access_handle(service))
            except CredentialNotFound:
                pass
        return self._refresh(user_id, service)

    def _refresh(self, user_id: int, service: str) -> SecretStr:
        info = self.connection(user_id, service)
        if info is None:
            raise ConnectorError(f"Your {_what(service)} isn't connected any more; connect it with /connect {service}.")
        provider = self._provider(info)
        data = {"grant_type": "refresh_token", "client_id": provider.client_id,
                "refresh_token": self._vault.get(user_id, OAUTH_HANDLES[service]).get_secret_value()}
        if provider.client_secret is not None:
            data["client_secret"] = provider.client_secret.get_secret_value()
        try:
            response = self._http.post(provider.token_url, data=data, headers={"Accept": "application/json"})
        except httpx.HTTPError:
            raise ConnectorUnavailable(f"I couldn't reach {provider.title} to renew access to your {_what(service)}; "
                                       "I'll try again later.") from None
        if response.status_code in (400, 401) and _error(response) in ("invalid_grant", "unauthorized_client",
                                                                        "invalid_client"):
            self._died(user_id, service, provider)
        if response.status_code != 200:
            raise ConnectorUnavailable(f"{provider.title} did not renew access to your {_what(service)} "
                                       f"(it answered {response.status_code}); I'll try again later.")
        tokens = response.json()
        access = SecretStr(tokens["access_token"])
        expires = int(self._clock() + int(tokens.get("expires_in", 3600)))
        self._vault.put(user_id, access_handle(service), access, "token",
                        f"{_what(service).capitalize()} access (renewed automatically)", {"expires_at": str(expires)})
        if tokens.get("refresh_token"):  # a provider that rotates refresh tokens (Microsoft)
            self._vault.put(user_id, info.handle, SecretStr(tokens["refresh_token"]), "token", info.label, info.public)
        log.info("renewed the %s access token of user %s", service, user_id)
        return access

    def _died(self, user_id: int, service: str, provider: ProviderConfig) -> None:
        if self._redis.set(_DEAD.format(user_id, service), b"1", nx=True):
            link = ConnectLinks(self._redis).create(user_id, user_id, service)
            self._outbox.send(user_id, f"⚠️ Your {_what(service)} sign-in with {provider.title} has ended (it expired "
                              "or access was removed), so what needs it is waiting. Sign in again here (the link "
                              f"works once, for 15 minutes): {self._connect_url}/connect/{link}\n"
                              f"Or send /connect {service} later.")
        raise ConnectionDead(user_id, service)

    def _provider(self, info: CredentialInfo) -> ProviderConfig:
        provider = self._providers.get(info.public.get("provider", ""))
        if provider is None:
            raise ConnectorError("The sign-in provider of this connection is no longer set up on this Deputy; "
                                 "ask the operator, or connect again with /connect.")
        return provider

    def smtp_account(self, user_id: int, fresh: bool = False) -> SmtpAccount | None:
        info = self.connection(user_id, "email")
        if info is None:
            return None
        provider = self._provider(info)
        return SmtpAccount(host=provider.smtp_host or "", port=provider.smtp_port, username=info.public["address"],
                           password=self.access_token(user_id, "email", fresh), from_address=info.public["address"],
                           use_ssl=provider.smtp_security == "ssl", starttls=provider.smtp_security == "starttls",
                           oauth=True)

    def imap_account(self, user_id: int, fresh: bool = False) -> ImapAccount | None:
        info = self.connection(user_id, "email")
        if info is None:
            return None
        provider = self._provider(info)
        return ImapAccount(host=provider.imap_host or "", port=provider.imap_port, username=info.public["address"],
                           password=self.access_token(user_id, "email", fresh), address=info.public["address"],
                           use_ssl=provider.imap_security == "ssl", starttls=provider.imap_security == "starttls",
                           oauth=True)

    def caldav_account(self, user_id: int) -> CalDavAccount | None:
        info = self.connection(user_id, "calendar")
        if info is None:
            return None
        provider = self._provider(info)
        address = info.public["address"]
        return CalDavAccount(url=(provider.caldav_url or "").replace("{address}", address), username=address,
                             password=self.access_token(user_id, "calendar"), email=address, oauth=True)

    def revoke(self, user_id: int, service: str) -> bool:
        """Tell the provider to end the grant (before the vault forgets it); whether it confirmed."""
        info = self.connection(user_id, service)
        if info is None:
            return False
        provider = self._providers.get(info.public.get("provider", ""))
        self._redis.delete(_DEAD.format(user_id, service))
        if provider is None or not provider.revoke_url:
            return False
        data = {"token": self._vault.get(user_id, info.handle).get_secret_value(), "token_type_hint": "refresh_token",
                "client_id": provider.client_id}
        try:
            return self._http.post(provider.revoke_url, data=data).status_code == 200
        except httpx.HTTPError:
            log.warning("could not reach %s to revoke a grant", provider.name)
            return False


def _what(service: str) -> str:
    return "mail" if service == "email" else "calendar"


def _error(response: httpx.Response) -> str:
    try:
        return str(response.json().get("error", ""))
    except ValueError:
        return ""

