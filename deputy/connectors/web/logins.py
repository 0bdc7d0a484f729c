"""Saved website logins, used by the executor without the agent ever seeing them.

The agent fills a login form with the placeholders `<vault:username>` and
`<vault:password>`; the runner swaps in the user's saved login for that site, and only
for that site. A login for `example.com` lives in the vault under `cred:web/example.com`
(kind `password`, public field `username`; optional public field `sites`, a comma-separated
list of further hosts it may be used on, e.g. `login.example.net`).
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, SecretStr

from deputy.sentinel.egress.url import is_within
from deputy.vault import CredentialNotFound, InvalidCredential, Vault, validate_handle

USERNAME_PLACEHOLDER = "<vault:username>"
PASSWORD_PLACEHOLDER = "<vault:password>"


class WebLogin(BaseModel):
    """A saved login: the username, the password, and the hosts it belongs to."""

    username: str
    password: SecretStr
    sites: list[str]

    def allowed_on(self, host: str) -> bool:
        return any(is_within(host, site) for site in self.sites)


class WebLogins(Protocol):
    """Where saved website logins come from (the vault in production)."""

    def has_login(self, user_id: int, host: str) -> bool:
        """Whether a login is saved for `host` (cheap: no secret is opened)."""
        ...

    def login_for(self, user_id: int, host: str) -> WebLogin | None:
        """The saved login for `host`, or None."""
        ...


class NoLogins:
    """No saved logins at all: every login page needs the user."""

    def has_login(self, user_id: int, host: str) -> bool:
        return False

    def login_for(self, user_id: int, host: str) -> WebLogin | None:
        return None


class VaultLogins:
    """Logins stored in the user's vault as `cred:web/<site>`."""

    def __init__(self, vault: Vault) -> None:
        self._vault = vault

    def has_login(self, user_id: int, host: str) -> bool:
        return self._handle(user_id, host) is not None

    def login_for(self, user_id: int, host: str) -> WebLogin | None:
        handle = self._handle(user_id, host)
        if handle is None:
            return None
        try:
            info = self._vault.info(user_id, handle)
            password = self._vault.get(user_id, handle)
        except CredentialNotFound:
            return None
        site = handle.partition("/")[2]
        extra = [s.strip().lower() for s in info.public.get("sites", "").split(",") if s.strip()]
        return WebLogin(username=info.public.get("username", ""), password=password, sites=[site, *extra])

    def _handle(self, user_id: int, host: str) -> str | None:
        for site in _site_candidates(host):
            try:
                handle = validate_handle(f"cred:web/{site}")
                self._vault.info(user_id, handle)
            except (CredentialNotFound, InvalidCredential):
                continue
            return handle
        return None


def _site_candidates(host: str) -> list[str]:
    """`www.shop.example.com` -> itself, `shop.example.com`, `example.com` (never a bare TLD)."""
    labels = host.lower().rstrip(".").split(".")
    if len(labels) < 2 or all(label.isdigit() for label in labels):
        return [host.lower()]
    return [".".join(labels[i:]) for i in range(len(labels) - 1)]
