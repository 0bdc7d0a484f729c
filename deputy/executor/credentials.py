"""Resolving a user's credentials at call time, inside the executor only.

The agent never sees these: an action names a connector and operation, and the executor
looks up the user's account here (their own, from the vault, or the operator's default).
"""

from __future__ import annotations

from email.message import EmailMessage
from typing import Callable

from deputy.core.records.effects import ConnectorAuthError, ConnectorError
from deputy.connectors.email.smtp import OutgoingEmail, SentEmail, SmtpAccount, build_message, message_id_for, send_email
from deputy.connectors.email.imap_reply import ReplyEmail, ReplySender, reply_message, send_reply
from deputy.connectors.email.sent_copy import SentFolder, sent_note
from deputy.connectors.email.sockets import SocketOpener, direct_connection
from deputy.core.records.actions import Action
from deputy.vault import CredentialNotFound, Vault

SMTP_HANDLE = "cred:email/smtp"
SENDS_MAIL = frozenset({("email", "send_email"), ("email", "reply_email"), ("email", "forward_email")})
"""The operations that hand an email to the mail server, so leave a copy in Sent."""


class EmailAccounts:
    """`opener` opens the SMTP connection: the executor passes the egress guard's. With `sent`,
    every email sent (replies included) is also filed in the user's Sent folder (see
    `deputy.connectors.email.sent_copy`)."""

    def __init__(
        self, vault: Vault | None, default: SmtpAccount | None, opener: SocketOpener = direct_connection,
        sent: SentFolder | None = None, signed_in: Callable[[int, bool], SmtpAccount | None] | None = None,
    ) -> None:
        self._signed_in = signed_in
        self._vault = vault
        self._default = default
        self.opener = opener
        self._sent = sent

    def for_user(self, user_id: int, fresh: bool = False) -> SmtpAccount:
        if self._signed_in is not None and (account := self._signed_in(user_id, fresh)) is not None:
            return account
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
            email = OutgoingEmail.model_validate(action.arguments)
            account, sent = self._renewing(action.user_id,
                                           lambda a: send_email(a, email, idempotency_key, opener=self.opener))
            # the same Message-ID as the email that went out
            self._keep(action.user_id, build_message(account, email, idempotency_key))
            return f"Email sent to {', '.join(sent.accepted)}."

        return run

    def reply_sender(self) -> ReplySender:
        """Sends a reply for `MailRunners` and files it in Sent, threading headers and all."""

        def send(user_id: int, email: ReplyEmail, idempotency_key: str) -> SentEmail:
            account, sent = self._renewing(user_id, lambda a: send_reply(a, email, idempotency_key, opener=self.opener))
            self._keep(user_id, reply_message(account, email, idempotency_key))
            return sent

        return send

    def _renewing(self, user_id: int, send: Callable[[SmtpAccount], SentEmail]) -> tuple[SmtpAccount, SentEmail]:
        """Send; a signed-in account whose access token the server refused at login (nothing went out)
        gets one newly renewed token and one more try."""
        account = self.for_user(user_id)
        try:
            return account, send(account)
        except ConnectorAuthError:
            if not account.oauth:
                raise
        account = self.for_user(user_id, fresh=True)
        return account, send(account)

    def _keep(self, user_id: int, message: EmailMessage) -> None:
        if self._sent is not None:
            self._sent.keep(user_id, message)

    def sent_note(self, action: Action, keys: list[str]) -> str | None:
        """For the card of an email (or reply) whose outcome is unknown: whether Sent holds a copy of it
        (sent under any of the idempotency `keys`); None when it cannot be told."""
        if self._sent is None or (action.connector, action.operation) not in SENDS_MAIL:
            return None
        try:
            account = self.for_user(action.user_id)
        except ConnectorError:
            return None
        message_ids = [message_id_for(key, account.from_address) for key in keys]
        return sent_note(self._sent.find(action.user_id, message_ids))
