"""Finding a user's IMAP account at call time: from the vault, else the operator's default.

Only the executor builds one of these (it is the only process that opens the vault).
"""

from __future__ import annotations

from typing import Callable

from pydantic import ValidationError

from deputy.core.records.effects import ConnectorError
from deputy.connectors.email.imap import ImapAccount
from deputy.vault import CredentialNotFound, Vault

IMAP_HANDLE = "cred:email/imap"
"""Public fields: host, port, username, ssl ("true"/"false"), optional starttls and
address (the user's own email address). Secret: the password."""


class ImapAccounts:
    """Resolves `user_id -> ImapAccount`; pass `for_user` to `MailRunners`."""

    def __init__(self, vault: Vault | None, default: ImapAccount | None = None,
                 signed_in: Callable[[int, bool], ImapAccount | None] | None = None) -> None:
        self._vault = vault
        self._default = default
        self._signed_in = signed_in

    def for_user(self, user_id: int, fresh: bool = False) -> ImapAccount:
        """`fresh`: for a signed-in account, a newly renewed access token (the last one was refused)."""
        if self._signed_in is not None and (account := self._signed_in(user_id, fresh)) is not None:
            return account
        if self._vault is not None:
            try:
                info = self._vault.info(user_id, IMAP_HANDLE)
                password = self._vault.get(user_id, IMAP_HANDLE)
            except CredentialNotFound:
                info = None
            if info is not None:
                public = info.public
                try:
                    return ImapAccount(
                        host=public.get("host", ""),
                        port=int(public.get("port", "993")),
                        username=public.get("username", ""),
                        password=password,
                        use_ssl=public.get("ssl", "true") == "true",
                        starttls=public.get("starttls", "true") == "true",
                        address=public.get("address") or None,
                    )
                except (ValidationError, ValueError):
                    raise ConnectorError(
                        "Your mail settings are incomplete (host, port or username); connect your mailbox again."
                    ) from None
        if self._default is not None:
            return self._default
        raise ConnectorError("Your mailbox isn't connected yet, so I can't read your mail. Connect it with /connect.")
