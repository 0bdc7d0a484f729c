"""Accounts connected by OAuth: the providers an operator registered, and the scopes a user chose.

A connection made by signing in (rather than with a password) keeps its refresh token in the
vault under `cred:<service>/oauth`; its public fields say which provider, which address and
which of Deputy's scopes the user granted. The executor refuses an operation outside those
scopes before the guard sees it, and the agent is shown only the operations they allow; both
read the scopes here, from the credential index, without the vault key.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field, SecretStr
from redis import Redis

MAIL_LEVELS = {
    "read": ("Read only", ("mail.read",)),
    "draft": ("Read and draft", ("mail.read", "mail.draft")),
    "send": ("Read and send", ("mail.read", "mail.draft", "mail.send")),
}
CALENDAR_LEVELS = {
    "read": ("Read only", ("calendar.read",)),
    "write": ("Read and write", ("calendar.read", "calendar.write")),
}
LEVELS = {"email": MAIL_LEVELS, "calendar": CALENDAR_LEVELS}
"""Per service: level name -> (what the page shows, Deputy's scopes it grants)."""

OAUTH_HANDLES = {"email": "cred:email/oauth", "calendar": "cred:calendar/oauth"}
"""Where each service's refresh token lives; the access token is beside it (`access_handle`)."""

NEEDED_SCOPE = {
    "email.search_email": "mail.read", "email.read_email": "mail.read", "email.read_thread": "mail.read",
    "email.draft_email": "mail.draft", "email.move_email": "mail.draft", "email.mark_email": "mail.draft",
    "email.send_email": "mail.send", "email.reply_email": "mail.send", "email.forward_email": "mail.send",
    "calendar.list_events": "calendar.read", "calendar.free_busy": "calendar.read",
    "calendar.create_event": "calendar.write", "calendar.schedule_meeting": "calendar.write",
    "calendar.move_event": "calendar.write", "calendar.cancel_event": "calendar.write",
}
"""The scope each mail and calendar operation needs on a connection made by signing in."""

_WIDEN = {"mail.draft": "Read and draft", "mail.send": "Read and send", "calendar.write": "Read and write"}


def access_handle(service: str) -> str:
    return f"cred:{service}/oauth-access"


def level_of(service: str, scopes: list[str] | tuple[str, ...]) -> str:
    """The name of the widest level the granted scopes cover ("read" at least)."""
    best = "read"
    for name, (_, needed) in LEVELS[service].items():
        if set(needed) <= set(scopes):
            best = name
    return best


def scope_refusal(operation: str, public: dict[str, str]) -> str | None:
    """Why a signed-in connection with these public fields may not run `connector.operation`, or None."""
    needed = NEEDED_SCOPE.get(operation)
    if needed is None or "scopes" not in public:
        return None
    if needed in public["scopes"].split():
        return None
    service = operation.split(".")[0]
    label, _ = LEVELS[service][level_of(service, public["scopes"].split())]
    what = "mail" if service == "email" else "calendar"
    return (f"Your {what} connection is set to \"{label}\", which doesn't allow {operation.split('.')[1].replace('_', ' ')}. "
            f"To allow it, open /connections and choose \"{_WIDEN[needed]}\" for {what}, then ask me again.")


def allowed(operation: str, public_by_service: dict[str, dict[str, str]]) -> bool:
    """Whether the agent may be offered `operation` (only signed-in connections narrow anything)."""
    service = operation.split(".")[0]
    public = public_by_service.get(service)
    return public is None or scope_refusal(operation, public) is None


def signed_in_scopes(redis: Redis, user_id: int) -> dict[str, dict[str, str]]:
    """Service -> public fields of the user's signed-in connections, from the index (no vault key)."""
    from deputy.core.accounts.credential_index import list_credentials

    handles = {handle: service for service, handle in OAUTH_HANDLES.items()}
    return {handles[i.handle]: i.public for i in list_credentials(redis, user_id) if i.handle in handles}


class ProviderConfig(BaseModel):
    """One OAuth provider an operator registered Deputy with (`DEPUTY_OAUTH_PROVIDERS`)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,31}$")
    title: str
    authorize_url: str
    token_url: str
    revoke_url: str | None = None
    client_id: str
    client_secret: SecretStr | None = None
    scopes: dict[str, str]
    """Deputy's scope -> the provider's scope(s), space-separated (several may map to the same one)."""
    extra_scopes: str = ""
    """Always asked for, e.g. Microsoft's `offline_access` (needed for a refresh token)."""
    extra_params: dict[str, str] = {}
    """Added to the authorization request, e.g. Google's `access_type=offline`, `prompt=consent`."""
    imap_host: str | None = None
    imap_port: int = 993
    imap_security: Literal["ssl", "starttls", "none"] = "ssl"
    smtp_host: str | None = None
    smtp_port: int = 465
    smtp_security: Literal["ssl", "starttls", "none"] = "ssl"
    """"none" only for a server on this machine (the sandbox): the token would travel in the clear."""
    caldav_url: str | None = None
    """May hold `{address}`, replaced by the user's address (Google: .../caldav/v2/{address}/user)."""

    def services(self) -> list[str]:
        return [s for s, ok in (("email", bool(self.imap_host and self.smtp_host)),
                                ("calendar", bool(self.caldav_url))) if ok]

    def provider_scopes(self, ours: tuple[str, ...]) -> str:
        wanted: list[str] = []
        for scope in ours:
            wanted += self.scopes.get(scope, "").split()
        wanted += self.extra_scopes.split()
        return " ".join(dict.fromkeys(wanted))


def parse_providers(spec: str | None) -> dict[str, ProviderConfig]:
    """DEPUTY_OAUTH_PROVIDERS: a JSON list of provider objects (see README, "Google and Microsoft accounts")."""
    if not spec or not spec.strip():
        return {}
    raw = json.loads(spec)
    providers = [ProviderConfig.model_validate(item) for item in (raw if isinstance(raw, list) else [raw])]
    return {p.name: p for p in providers}
