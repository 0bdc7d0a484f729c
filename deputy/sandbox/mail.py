"""A real, local SMTP server (aiosmtpd) that keeps every message it receives.

Used by the demo (`deputy sandbox`) and the tests: Deputy's email connector talks
real SMTP to it, and what was "sent" can be inspected in memory or, with a
`maildir_root`, on disk as one Maildir per recipient address. With a running
`deputy.sandbox.mailstore.MailStore` as `store`, every message is also delivered into each
recipient's IMAP mailbox before the server says 250, so it can be read over IMAP.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import mailbox
import threading
from datetime import datetime, timezone
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default as DEFAULT_POLICY
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from pydantic import BaseModel

from deputy.sandbox.xoauth2 import TokenCheck, XOAuth2Handler

if TYPE_CHECKING:
    from deputy.sandbox.mailstore import MailStore

log = logging.getLogger(__name__)

DEFAULT_SANDBOX_PORT = 2525
"""Where `run_forever` listens unless told otherwise (25 would need root)."""


class ReceivedEmail(BaseModel):
    """One message as the server received it. `headers` keeps the first value of each name."""

    mail_from: str
    rcpt_tos: list[str]
    subject: str
    body: str
    message_id: str | None
    headers: dict[str, str]
    received_at: datetime
    raw: bytes


def mailbox_name(address: str) -> str:
    """The mailbox key and Maildir folder name for `address`: lower-cased, and with
    anything that could escape `maildir_root` ("/", a leading ".") percent-encoded."""
    name = quote(address.lower(), safe="@+-_.")
    return "%2E" + name[1:] if name.startswith(".") else name


def _parse(envelope: Envelope) -> ReceivedEmail:
    raw = envelope.original_content or b""
    message = BytesParser(policy=DEFAULT_POLICY).parsebytes(raw)
    assert isinstance(message, EmailMessage)  # guaranteed by the default policy
    headers: dict[str, str] = {}
    for name, value in message.items():
        headers.setdefault(name, str(value).strip())  # a folded value starts with a space
    message_id = message.get("Message-ID")
    return ReceivedEmail(
        mail_from=envelope.mail_from or "",
        rcpt_tos=list(envelope.rcpt_tos),
        subject=str(message.get("Subject", "")),
        body=_text_body(message),
        message_id=str(message_id).strip() if message_id is not None else None,
        headers=headers,
        received_at=datetime.now(timezone.utc),
        raw=raw,
    )


def _text_body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        text = str(part.get_content())
    except (LookupError, ValueError):  # unknown charset or broken encoding: show what we can
        payload = part.get_payload(decode=True)
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    return text.replace("\r\n", "\n")  # SMTP's line ending, not the writer's


class _Handler:
    """The aiosmtpd handler. Kept apart from LocalMailServer because aiosmtpd scans
    its handler with inspect.getmembers: any `auth_*` attribute would become an AUTH
    mechanism, and every property would be evaluated."""

    def __init__(self, server: LocalMailServer, login_required: bool) -> None:
        self._server = server
        self._login_required = login_required

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, mail_options: list[str]
    ) -> str:
        # Enforced here rather than with SMTP(auth_required=True): that combination
        # with auth_require_tls=False makes aiosmtpd warn on every single connection.
        if self._login_required and not session.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        mode = self._server.mode
        self._server._entered_data()
        if mode == "refuse":
            return "451 4.3.0 Not accepting mail right now; try again later"
        if mode == "hang_before":
            await self._server._hang()
            return "451 4.3.0 Timed out; nothing was kept"  # never stored: it did not go out
        email = _parse(envelope)
        store = self._server.store
        if store is not None:
            try:
                # IMAP APPEND blocks; keep the SMTP loop free for other sessions meanwhile.
                await asyncio.get_running_loop().run_in_executor(None, _store_all, store, email,
                                                                 self._server.files_sent)
            except Exception:  # any failure of the store: the client should try again later
                log.exception("Could not deliver a message into the IMAP mail store")
                return "451 4.3.0 Could not store the message; try again later"
        self._server._deliver(email)
        if mode == "hang_after":
            await self._server._hang()  # stored, but the client never hears so
        return "250 Message accepted for delivery"


def _store_all(store: MailStore, email: ReceivedEmail, files_sent: bool = False) -> None:
    for address in dict.fromkeys(a.lower() for a in email.rcpt_tos):
        store.deliver(address, email.raw)
    if files_sent and store.has_user(email.mail_from):
        # As Gmail and Outlook do: the sender's own copy, filed by the server as it accepts the message.
        store.deliver(email.mail_from, email.raw, folder="Sent", flags=("\\Seen",))


class _OAuthHandler(_Handler, XOAuth2Handler):
    """A handler that also takes the sandbox provider's tokens (AUTH XOAUTH2, `mail.send` scope)."""

    def __init__(self, server: LocalMailServer, login_required: bool, token_check: TokenCheck) -> None:
        super().__init__(server, login_required)
        self.token_check = token_check


class _Authenticator:
    """Accepts exactly one username/password pair, compared in constant time."""

    def __init__(self, username: str, password: str) -> None:
        self._username = username.encode("utf-8")
        self._password = password.encode("utf-8")

    def __call__(self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any) -> AuthResult:
        if not isinstance(data, LoginPassword):
            return AuthResult(success=False, handled=False)
        # Both comparisons always run, so timing says nothing about which one failed.
        good_user = hmac.compare_digest(data.login, self._username)
        good_password = hmac.compare_digest(data.password, self._password)
        if good_user and good_password:
            return AuthResult(success=True, auth_data=data)
        return AuthResult(success=False, handled=False)  # aiosmtpd answers 535


class _QuietSession(Session):
    """aiosmtpd 1.4 sets its own deprecated `login_data` on every successful AUTH,
    which logs a deprecation warning each time; store it silently instead."""

    @property
    def login_data(self) -> Any:
        return self._login_data

    @login_data.setter
    def login_data(self, value: Any) -> None:
        self._login_data = value


class _SMTP(SMTP):
    def _create_session(self) -> Session:
        return _QuietSession(self.loop)


class _BoundController(Controller):
    """A Controller that can listen on port 0: aiosmtpd's own start() connects back to
    `self.port` to prime the server, so the real port must be known before that."""

    def factory(self) -> SMTP:
        return _SMTP(self.handler, **self.SMTP_kwargs)

    def _create_server(self) -> Any:
        return self._bind()

    async def _bind(self) -> Any:
        server = await self.loop.create_server(self._factory_invoker, host=self.hostname, port=self.port)
        self.port = server.sockets[0].getsockname()[1]
        return server


class LocalMailServer:
    """An SMTP server on loopback that accepts mail for any address and keeps it.

    With `username` and `password` it advertises AUTH PLAIN and LOGIN over plain
    text (fine on loopback) and refuses MAIL FROM until the client has logged in.
    Messages are kept per recipient in memory and, with `maildir_root`, in
    `maildir_root / mailbox_name(address)` as a Maildir. With `store` (started and
    stopped by the caller), each recipient's IMAP mailbox gets the message too; give the
    store a root of its own, not `maildir_root`. With `files_sent` too, the sender's mailbox
    (if the store has one) gets a copy in Sent, as providers that file sent mail themselves do;
    without it, the server leaves Sent to the client, as plain SMTP servers do.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        maildir_root: Path | None = None,
        username: str | None = None,
        password: str | None = None,
        store: MailStore | None = None,
        files_sent: bool = False,
        token_check: TokenCheck | None = None,
    ) -> None:
        if (username is None) != (password is None):
            raise ValueError("give both a username and a password, or neither")
        self.store = store
        self.files_sent = files_sent
        self.token_check = token_check
        """With it, AUTH XOAUTH2 with the sandbox provider's tokens too (see `deputy.sandbox.xoauth2`)."""
        self.host = host
        self._requested_port = port
        self.maildir_root = maildir_root
        self.username = username
        self._password = password
        self._controller: _BoundController | None = None
        self._all: list[ReceivedEmail] = []
        self._mailboxes: dict[str, list[ReceivedEmail]] = {}
        # One condition guards the messages and wakes wait_for() on every delivery.
        self._changed = threading.Condition()
        self.mode: str = "accept"
        self.data_sessions = 0  # how many times a client began handing over a message (DATA)

    def set_mode(self, mode: str) -> None:
        """For fault tests: "accept" (normal), "refuse" (451 on every message), "hang_before"
        (never answer DATA, keep nothing), "hang_after" (keep the message, never answer)."""
        if mode not in ("accept", "refuse", "hang_before", "hang_after"):
            raise ValueError(f"unknown mail server mode {mode!r}")
        self.mode = mode

    def _entered_data(self) -> None:
        with self._changed:
            self.data_sessions += 1
            self._changed.notify_all()

    def wait_for_data(self, count: int, timeout: float = 10.0) -> None:
        """Block until `count` DATA commands have arrived in total."""
        with self._changed:
            if not self._changed.wait_for(lambda: self.data_sessions >= count, timeout):
                raise TimeoutError(f"expected {count} DATA command(s), got {self.data_sessions}")

    async def _hang(self, limit: float = 600.0) -> None:
        # Until the test switches back to "accept" (or the client goes away and we are stopped).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while self.mode != "accept" and loop.time() < deadline:
            await asyncio.sleep(0.05)

    @property
    def port(self) -> int:
        """The port actually listened on once started (the requested one before)."""
        return self._controller.port if self._controller else self._requested_port

    @property
    def requires_login(self) -> bool:
        """Whether clients must authenticate before sending."""
        return self.username is not None or self.token_check is not None

    def start(self) -> None:
        """Start serving in a background thread; returns once the port is listening."""
        if self._controller is not None:
            raise RuntimeError("the mail server is already running")
        if self.maildir_root is not None:
            self.maildir_root.mkdir(parents=True, exist_ok=True)
        options: dict[str, Any] = {}
        if self.username is not None and self._password is not None:
            # auth_require_tls=False: there is no TLS here, and the socket is loopback.
            options = {"authenticator": _Authenticator(self.username, self._password), "auth_require_tls": False}
        elif self.token_check is not None:
            options = {"authenticator": _Authenticator("", "\0"), "auth_require_tls": False}
        handler = _Handler(self, login_required=self.requires_login) if self.token_check is None else \
            _OAuthHandler(self, self.requires_login, self.token_check)
        # server_hostname spares aiosmtpd a socket.getfqdn() (possibly a slow DNS
        # lookup) on every connection.
        controller = _BoundController(
            handler, hostname=self.host, port=self._requested_port, server_hostname="localhost", **options
        )
        controller.start()
        self._controller = controller

    def stop(self) -> None:
        """Stop serving; does nothing if not running. Received messages are kept."""
        controller, self._controller = self._controller, None
        if controller is not None:
            controller.stop()

    def __enter__(self) -> LocalMailServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def maildir_path(self, address: str) -> Path | None:
        """Where the Maildir for `address` lives, or None when not persisting."""
        return self.maildir_root / mailbox_name(address) if self.maildir_root else None

    def messages(self, address: str | None = None) -> list[ReceivedEmail]:
        """Every message received (in order), or only those in `address`'s mailbox."""
        with self._changed:
            return list(self._select(address))

    def wait_for(self, count: int, address: str | None = None, timeout: float = 5.0) -> list[ReceivedEmail]:
        """Block until at least `count` messages are there (for `address`, if given),
        then return them; raise TimeoutError if they don't arrive within `timeout`."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._select(address)) >= count, timeout):
                got = len(self._select(address))
                raise TimeoutError(f"expected {count} message(s) for {address or 'anyone'}, got {got}")
            return list(self._select(address))

    def clear(self) -> None:
        """Forget the messages held in memory (Maildirs on disk are left alone)."""
        with self._changed:
            self._all.clear()
            self._mailboxes.clear()

    def _select(self, address: str | None) -> list[ReceivedEmail]:
        return self._all if address is None else self._mailboxes.get(mailbox_name(address), [])

    def _deliver(self, email: ReceivedEmail) -> None:
        """Store one message for each of its recipients (called on the server's thread)."""
        names = list(dict.fromkeys(mailbox_name(address) for address in email.rcpt_tos))
        if self.maildir_root is not None:
            for name in names:
                mailbox.Maildir(self.maildir_root / name, create=True).add(email.raw)
        with self._changed:
            self._all.append(email)
            for name in names:
                self._mailboxes.setdefault(name, []).append(email)
            self._changed.notify_all()


def run_forever(
    host: str = "127.0.0.1",
    port: int = DEFAULT_SANDBOX_PORT,
    maildir_root: Path | None = None,
    username: str | None = None,
    password: str | None = None,
    *,
    stop: threading.Event | None = None,
    store: MailStore | None = None,
) -> None:
    """Serve until Ctrl-C (or until `stop` is set), logging where it listens.
    A `store` must already be running; its mailboxes get every message."""
    if host not in ("127.0.0.1", "::1", "localhost"):
        log.warning("The sandbox mail server on %s is reachable from other machines; logins travel unencrypted.", host)
    with LocalMailServer(host, port, maildir_root, username, password, store=store) as server:
        login = f", login required as {username!r}" if username else ", no login required"
        where = f", saving to {maildir_root}" if maildir_root else ""
        log.info("Sandbox mail server listening on smtp://%s:%d%s%s", host, server.port, login, where)
        if store is not None:
            log.info("Mailboxes readable at imap://%s:%d (log in with the recipient address)", store.host, store.port)
        try:
            (stop or threading.Event()).wait()
        except KeyboardInterrupt:
            pass
    log.info("Sandbox mail server stopped")
