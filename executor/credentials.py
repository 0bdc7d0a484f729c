"""Resolving a user's credentials at call time, inside the executor only.

The agent never sees these: an action names a connector and operation, and the executor
looks up the user's account here (their own, from the vault, or the operator's default).
"""

from __future__ import annotations

from core.effects import ConnectorError
from connectors.email import OutgoingEmail, SmtpAccount, send_email
from connectors.email.sockets import SocketOpener, direct_connection
from core.actions import Action
from vault import CredentialNotFound, Vault

SMTP_HANDLE = "cred:email/smtp"


class EmailAccounts:
    """`opener` opens the SMTP connection: the executor passes the egress guard's."""

    def __init__(
        self, vault: Vault | None, default: SmtpAccount | None, opener: SocketOpener = direct_connection
    ) -> None:
        self._vault = vault
        self._default = default
        self.opener = opener

    def for_user(self, user_id: int) -> SmtpAccount:
        if self._vault is not None:
            try:
                info = self._vault.info(user_id, SMTP_HANDLE)
            except CredentialNotFound:
                info = None
            if info is not None:
                public = info.public
                return SmtpAccount(
                    host=public["host"],
                    port=int(public["port"]),
                    username=public.get("username") or None,
                    password=self._vault.get(user_id, SMTP_HANDLE),
                    from_address=public["from_address"],
                    starttls=public.get("starttls", "true") == "true",
                    use_ssl=public.get("ssl", "false") == "true",
                )
        if self._default is not None:
            return self._default
        raise ConnectorError("Email isn't connected yet, so I can't send mail. Ask the operator to set it up.")

    def runner(self):
        def run(action: Action, idempotency_key: str) -> str:
            account = self.for_user(action.user_id)
            sent = send_email(
                account, OutgoingEmail.model_validate(action.arguments), idempotency_key, opener=self.opener
            )
            return f"Email sent to {', '.join(sent.accepted)}."

        return run
