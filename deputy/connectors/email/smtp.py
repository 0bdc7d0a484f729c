"""Send one email over real SMTP with smtplib, turning every failure into a ConnectorError.

`send_email` is synchronous on purpose: the executor calls it from a worker process.
The password is only ever handed to `smtplib.SMTP.login`; errors are rebuilt from
plain strings and raised outside the `except` block, so neither their text nor their
`__context__` (whose frames hold the password in their locals) can carry it along.
"""

from __future__ import annotations

import hashlib
import smtplib
import ssl
from datetime import datetime, timezone
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    model_validator,
)

from deputy.core.records.effects import (
    ConnectorAuthError,
    ConnectorError,
    ConnectorOutcomeUnknown,
    ConnectorRejected,
    ConnectorUnavailable,
)
from deputy.connectors.email.outgoing import Address, OutgoingEmail
from deputy.connectors.email.sockets import OpenedSMTP, OpenedSMTP_SSL, SocketOpener, direct_connection
from deputy.connectors.progress import report

# cte_type="7bit" makes non-ASCII bodies quoted-printable or base64 instead of raw
# 8-bit, which every server accepts whether or not it advertises 8BITMIME.
_POLICY = SMTP_POLICY.clone(cte_type="7bit")

class SmtpAccount(BaseModel):
    """Where and as whom to send. With `use_ssl` (implicit TLS, usually port 465)
    `starttls` is ignored; otherwise `starttls` upgrades a plain connection and is
    required to be offered by the server, never silently skipped."""

    # A validation error would otherwise echo the raw input, password included.
    model_config = ConfigDict(hide_input_in_errors=True)

    host: str = Field(min_length=1, pattern=r"^\S+$")
    port: int = Field(ge=1, le=65535)
    username: str | None = None
    password: SecretStr | None = None
    from_address: Address
    starttls: bool = True
    use_ssl: bool = False
    timeout: float = Field(default=20, gt=0)
    oauth: bool = False
    """`password` is an OAuth access token, sent with AUTH XOAUTH2 (Gmail, Outlook, the sandbox)."""

    @model_validator(mode="after")
    def _credentials_come_in_pairs(self) -> SmtpAccount:
        if (self.username is None) != (self.password is None):
            raise ValueError("give both a username and a password, or neither")
        return self

    @property
    def address(self) -> str:
        """`host:port`, as shown to the user."""
        return f"{self.host}:{self.port}"


class SentEmail(BaseModel):
    """What the server accepted. `refused` maps an address to the server's reply."""

    message_id: str
    accepted: list[str]
    refused: dict[str, str] = {}


def action_hash(idempotency_key: str) -> str:
    """The SHA-256 hex digest of the key: shown in headers instead of the key itself."""
    return hashlib.sha256(idempotency_key.encode("utf-8")).hexdigest()


def message_id_for(idempotency_key: str, from_address: str) -> str:
    """The Message-ID for this key: the same key always gives the same ID, so a
    receiver (or a later check) can recognise a retried send as a duplicate."""
    domain = from_address.rpartition("@")[2]
    return f"<{action_hash(idempotency_key)[:32]}@{domain}>"


def build_message(account: SmtpAccount, email: OutgoingEmail, idempotency_key: str) -> EmailMessage:
    """The MIME message `send_email` would send (exposed for previews and tests)."""
    message = EmailMessage(policy=_POLICY)
    message["Message-ID"] = message_id_for(idempotency_key, account.from_address)
    message["Date"] = format_datetime(datetime.now(timezone.utc))
    message["From"] = account.from_address
    message["To"] = ", ".join(email.to)
    if email.cc:
        message["Cc"] = ", ".join(email.cc)
    message["Subject"] = email.subject
    message["X-Deputy-Action"] = action_hash(idempotency_key)
    message.set_content(email.body)
    return message


def send_email(
    account: SmtpAccount, email: OutgoingEmail, idempotency_key: str, *, opener: SocketOpener = direct_connection
) -> SentEmail:
    """Send `email` from `account`; raise a ConnectorError subclass on any failure.

    Retrying with the same `idempotency_key` reuses the same Message-ID. `opener` opens the
    TCP connection (the executor passes the egress guard's).
    """
    if not idempotency_key:
        raise ValueError("idempotency_key must not be empty")
    return deliver(account, build_message(account, email, idempotency_key), email.recipients(), opener=opener)


def deliver(
    account: SmtpAccount, message: EmailMessage, recipients: list[str], *, opener: SocketOpener = direct_connection
) -> SentEmail:
    """Hand a built `message` to the mail server for `recipients`; raise a ConnectorError subclass on any failure."""
    session = _Session(account, opener)
    failure: ConnectorError
    try:
        refused = session.send(message, recipients)
    except ConnectorError:
        raise
    except OSError as exc:  # smtplib.SMTPException included: it subclasses OSError
        failure = session.translate(exc)
    else:
        accepted = [address for address in recipients if address not in refused]
        return SentEmail(message_id=str(message["Message-ID"]), accepted=accepted, refused=refused)
    # Raised here, outside the except block, so no smtplib exception is chained to it.
    raise failure


class _Session:
    """One SMTP conversation; remembers how far it got to explain a failure."""

    def __init__(self, account: SmtpAccount, opener: SocketOpener = direct_connection) -> None:
        self.account = account
        self.opener = opener
        self.stage = "connect"

    def send(self, message: EmailMessage, recipients: list[str]) -> dict[str, str]:
        """Run the conversation; return refused recipients (address -> server reply)."""
        account = self.account
        # Connecting in the constructor (not with connect()) matters: only the constructor
        # checks the 220 greeting and records the host name that starttls() and SMTP_SSL
        # need to verify the certificate.
        smtp = (
            OpenedSMTP_SSL(account.host, account.port, opener=self.opener, timeout=account.timeout,
                           context=_tls_context())
            if account.use_ssl
            else OpenedSMTP(account.host, account.port, opener=self.opener, timeout=account.timeout)
        )
        report("the mail server accepted the connection; I can't tell whether the email went out")
        try:
            self.stage = "greeting"
            # Unlike ehlo(), this raises (SMTPHeloError) when the server answers nonsense.
            smtp.ehlo_or_helo_if_needed()
            if account.starttls and not account.use_ssl:
                self.stage = "tls"
                if not smtp.has_extn("starttls"):
                    # Never fall back to plain text: the password would travel in the clear.
                    raise ConnectorError(
                        f"The mail server at {account.address} doesn't offer an encrypted "
                        "connection (STARTTLS), so I didn't log in or send anything.",
                        detail="STARTTLS not advertised",
                    )
                smtp.starttls(context=_tls_context())
                smtp.ehlo_or_helo_if_needed()  # starttls() forgot the first greeting
            if account.username is not None and account.password is not None:
                self.stage = "login"
                self._login(smtp, account.username, account.password)
            self.stage = "send"
            report("I was handing the email to the mail server; I can't tell whether it went out")
            refused = smtp.send_message(message, from_addr=account.from_address, to_addrs=recipients)
            self.stage = "done"
            report("the mail server accepted the email, so it most likely went out")
        except BaseException:
            smtp.close()  # no QUIT: a broken server might keep us waiting for its reply
            raise
        try:
            smtp.quit()
        except (smtplib.SMTPException, OSError):
            smtp.close()  # the mail is already accepted; a rude goodbye changes nothing
        return {address: _reply_text(c, r) for address, (c, r) in refused.items()}

    def _login(self, smtp: smtplib.SMTP, username: str, password: SecretStr) -> None:
        where = self.account.address
        if not smtp.has_extn("auth"):
            raise ConnectorAuthError(
                f"The mail server at {where} doesn't accept a login; check the mail settings.",
                detail="AUTH not advertised",
            )
        if not (username.isascii() and password.get_secret_value().isascii()):
            # smtplib encodes credentials as ASCII; its UnicodeEncodeError would hold the password.
            raise ConnectorAuthError(
                "Your mail username or password contains non-ASCII characters, "
                "which I can't send to the mail server.",
                detail="non-ASCII credentials",
            )
        if self.account.oauth:
            initial = f"user={username}\x01auth=Bearer {password.get_secret_value()}\x01\x01"
            # A refusal comes back as a 334 challenge holding the reason; an empty answer ends the exchange.
            smtp.auth("XOAUTH2", lambda challenge=None: "" if challenge else initial, initial_response_ok=True)
            return
        smtp.login(username, password.get_secret_value())

    def translate(self, exc: OSError) -> ConnectorError:
        """A ConnectorError with a plain user message for `exc`, scrubbed of the password."""
        where = self.account.address
        detail = self._scrub(f"{type(exc).__name__} during {self.stage}: {exc}")
        # SMTPException subclasses OSError, so it must be told apart first.
        if isinstance(exc, smtplib.SMTPException):
            return self._translate_smtp(exc, detail)
        if isinstance(exc, ssl.SSLCertVerificationError):
            return ConnectorError(
                f"I couldn't verify the certificate of the mail server at {where}, so I sent nothing.",
                detail=detail,
            )
        if isinstance(exc, ssl.SSLError):
            return ConnectorUnavailable(f"I couldn't set up an encrypted connection to {where}.", detail=detail)
        if self.stage == "connect":  # refused, unreachable, DNS failure, connect timeout
            return ConnectorUnavailable(f"I couldn't reach the mail server at {where}.", detail=detail)
        if self.stage == "send":
            return _midway(where, detail)
        if isinstance(exc, TimeoutError):
            return ConnectorUnavailable(f"The mail server at {where} stopped answering.", detail=detail)
        return ConnectorUnavailable(f"The connection to the mail server at {where} broke off.", detail=detail)

    def _translate_smtp(self, exc: smtplib.SMTPException, detail: str) -> ConnectorError:
        where = self.account.address
        code = getattr(exc, "smtp_code", None)
        temporary = isinstance(code, int) and 400 <= code < 500
        permanent = isinstance(code, int) and 500 <= code < 600
        if isinstance(exc, smtplib.SMTPServerDisconnected) and self.stage == "send":
            return _midway(where, detail)
        if isinstance(exc, smtplib.SMTPServerDisconnected) and isinstance(exc.__context__, TimeoutError):
            return ConnectorUnavailable(f"The mail server at {where} stopped answering.", detail=detail)
        if isinstance(exc, smtplib.SMTPServerDisconnected):
            return ConnectorUnavailable(f"The mail server at {where} hung up before the email was sent.", detail=detail)
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            replies = exc.recipients.values()
            if replies and all(400 <= c < 500 for c, _ in replies):
                return ConnectorUnavailable(
                    f"The mail server at {where} is temporarily not accepting these recipients.", detail=detail
                )
            who = ", ".join(exc.recipients)
            return ConnectorRejected(f"The mail server refused every recipient ({who}).", detail=detail)
        if isinstance(exc, smtplib.SMTPAuthenticationError) and permanent:
            return ConnectorAuthError(f"The mail server at {where} rejected the username or password.", detail=detail)
        if isinstance(exc, smtplib.SMTPSenderRefused) and permanent:
            return ConnectorRejected(
                f"The mail server refused to send mail from {self.account.from_address}.", detail=detail
            )
        if isinstance(exc, smtplib.SMTPDataError) and permanent:
            return ConnectorRejected("The mail server refused the message.", detail=detail)
        if temporary:
            return ConnectorUnavailable(f"The mail server at {where} is busy; it asked to try later.", detail=detail)
        if self.stage == "login" and not isinstance(exc, smtplib.SMTPResponseException):
            # e.g. "No suitable authentication method found."
            return ConnectorAuthError(f"I couldn't find a way to log in to the mail server at {where}.", detail=detail)
        # Unparseable replies (code -1), over-long lines, a bad greeting or EHLO answer.
        return ConnectorUnavailable(f"The mail server at {where} didn't answer like a mail server.", detail=detail)

    def _scrub(self, text: str) -> str:
        password = self.account.password.get_secret_value() if self.account.password else ""
        return text.replace(password, "***") if password else text


def _midway(where: str, detail: str) -> ConnectorError:
    # Silence while the message was being handed over: it may have been accepted.
    return ConnectorOutcomeUnknown(
        f"The mail server at {where} stopped answering while I was handing it the email, "
        "so I can't tell whether it went out.",
        detail=detail,
    )


def _tls_context() -> ssl.SSLContext:
    """TLS for every connection: the system's trusted CAs, host name checked.
    (A function of its own so tests can trust their own certificate authority.)"""
    return ssl.create_default_context()


def _reply_text(code: int, reply: bytes | str) -> str:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    return f"{code} {text}"
