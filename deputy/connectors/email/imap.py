"""One IMAP session over the standard library's imaplib, every failure a ConnectorError.

imaplib rather than aioimaplib: the executor that runs these operations is a synchronous
RQ worker, each operation is a short connect-login-command-logout exchange, and imaplib
needs no event loop and no extra dependency. The password only ever reaches
`IMAP4.login`/`authenticate`; failures are rebuilt as plain sentences and raised outside
the `except` block, so no library exception (whose frames hold the password) is chained.
"""

from __future__ import annotations

import contextlib
import imaplib
import socket
import ssl
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from deputy.core.records.effects import ConnectorAuthError, ConnectorError, ConnectorRejected, ConnectorUnavailable
from deputy.connectors.email.sockets import OpenedIMAP4, OpenedIMAP4_SSL, SocketOpener, direct_connection
from deputy.connectors.email.imap_protocol import (
    Folder,
    ImapProtocolError,
    Value,
    encode_folder,
    parse_fetch,
    parse_list,
    parse_search,
    quote,
)

T = TypeVar("T")


class ImapAccount(BaseModel):
    """Where and as whom to read mail. `use_ssl` is implicit TLS (usually port 993);
    otherwise `starttls` upgrades the connection and must be offered by the server."""

    # A validation error would otherwise echo the raw input, password included.
    model_config = ConfigDict(hide_input_in_errors=True)

    host: str = Field(min_length=1, pattern=r"^\S+$")
    port: int = Field(ge=1, le=65535)
    username: str = Field(min_length=1, max_length=320, pattern=r"^[^\x00-\x1f\x7f]+$")
    password: SecretStr
    use_ssl: bool = True
    starttls: bool = True
    address: str | None = None
    """The user's own email address (for drafts and replies); defaults to the username."""
    timeout: float = Field(default=20, gt=0)
    oauth: bool = False
    """`password` is an OAuth access token, sent with AUTHENTICATE XOAUTH2."""

    @property
    def where(self) -> str:
        """`host:port`, as shown to the user."""
        return f"{self.host}:{self.port}"

    @property
    def own_address(self) -> str:
        return (self.address or self.username).strip().lower()


def tls_context() -> ssl.SSLContext:
    """The system's trusted CAs with host name checks (replaceable in tests)."""
    return ssl.create_default_context()


class ImapSession:
    """A logged-in IMAP connection, opened by `with ImapSession(account) as session:`.

    `opener` opens the TCP connection; the executor passes the egress guard's, which refuses
    private addresses and connects only to the address it checked.
    """

    def __init__(
        self,
        account: ImapAccount,
        *,
        context: Callable[[], ssl.SSLContext] = tls_context,
        opener: SocketOpener = direct_connection,
    ) -> None:
        self.account = account
        self._context = context
        self._opener = opener
        self._client: imaplib.IMAP4 | None = None
        self._capabilities: frozenset[str] | None = None
        self.stage = "connect"

    def __enter__(self) -> ImapSession:
        self._client = self._call("connect", self._connect)
        try:
            self._call("login", self._login)
            # Servers announce extensions (MOVE, UIDPLUS...) only once logged in, and
            # imaplib keeps the list from before: ask again.
            self._capabilities = self._call("capability", self._fresh_capabilities)
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._close()

    @property
    def capabilities(self) -> frozenset[str]:
        if self._capabilities is not None:
            return self._capabilities
        return frozenset(str(c).upper() for c in self.client.capabilities)

    @property
    def client(self) -> imaplib.IMAP4:
        if self._client is None:
            raise RuntimeError("the IMAP session is not open")
        return self._client

    def folders(self) -> list[Folder]:
        data = self._ok("list your folders", self._call("list", self.client.list))
        return self._call("list", lambda: parse_list(data))

    def select(self, folder: str, *, readonly: bool = True) -> None:
        typ, data = self._call("select", lambda: self.client.select(encode_folder(folder), readonly=readonly))
        if typ != "OK":
            raise ConnectorRejected(f"There is no folder called {folder!r} in your mailbox.", detail=_text(data))

    def create(self, folder: str) -> None:
        self._ok(f"create the folder {folder!r}", self._call("create", lambda: self.client.create(encode_folder(folder))))

    def search(self, criteria: list[str], literal: bytes | None = None) -> list[int]:
        """UIDs matching `criteria` (atoms and quoted strings). With `literal`, the search
        is declared UTF-8 and the literal is sent as the value of the last criterion."""

        def run() -> tuple[str, list[Any]]:
            if literal is None:
                return self.client.uid("SEARCH", *criteria)
            self.client.literal = literal
            return self.client.uid("SEARCH", "CHARSET", "UTF-8", *criteria)

        data = self._ok("search your mail", self._call("search", run))
        return self._call("search", lambda: parse_search(data))

    def fetch(self, uids: list[int], items: str) -> dict[int, dict[str, Value]]:
        """`UID FETCH` of `items` (e.g. "(UID FLAGS BODY.PEEK[]<0.200000>)") by UID."""
        if not uids:
            return {}
        uid_set = ",".join(str(uid) for uid in uids)
        data = self._ok("read your mail", self._call("fetch", lambda: self.client.uid("FETCH", uid_set, items)))
        return self._call("fetch", lambda: parse_fetch(data))

    def append(self, folder: str, flags: str, when: datetime, raw: bytes) -> None:
        stamp = imaplib.Time2Internaldate(when)
        result = self._call("append", lambda: self.client.append(encode_folder(folder), flags, stamp, raw))
        self._ok(f"save the message in {folder!r}", result)

    def store(self, uid: int, change: str, flags: str) -> None:
        """`UID STORE uid <change> <flags>`, e.g. change "+FLAGS.SILENT", flags "(\\Seen)"."""
        result = self._call("store", lambda: self.client.uid("STORE", str(uid), change, flags))
        self._ok("change the message's flags", result)

    def move(self, uid: int, folder: str) -> int | None:
        """Move one message and return its UID in `folder` when the server says (COPYUID).
        Without the MOVE extension, copy it and mark the original deleted, expunging only
        that UID when UIDPLUS allows (a plain EXPUNGE would purge other deleted mail too)."""
        target = encode_folder(folder)
        if "MOVE" in self.capabilities:
            self._ok(f"move the message to {folder!r}", self._call("move", lambda: self.client.uid("MOVE", str(uid), target)))
        else:
            result = self._call("move", lambda: self.client.uid("COPY", str(uid), target))
            self._ok(f"copy the message to {folder!r}", result)
            self.store(uid, "+FLAGS.SILENT", "(\\Deleted)")
            if "UIDPLUS" in self.capabilities:
                result = self._call("move", lambda: self.client.xatom("UID", "EXPUNGE", str(uid)))
                self._ok("remove the moved message", result)
        _, data = self._call("move", lambda: self.client.response("COPYUID"))
        words = data[-1].split() if data and isinstance(data[-1], bytes) else []
        return int(words[2]) if len(words) == 3 and words[2].isdigit() else None

    def _fresh_capabilities(self) -> frozenset[str] | None:
        try:
            typ, data = self.client.capability()
        except imaplib.IMAP4.abort:
            raise
        except imaplib.IMAP4.error:
            return None  # a server that won't say again keeps the list it gave before login
        if typ != "OK" or not data or not isinstance(data[-1], bytes):
            return None
        return frozenset(data[-1].decode("ascii", "replace").upper().split())

    def _connect(self) -> imaplib.IMAP4:
        account = self.account
        if account.use_ssl:
            client: imaplib.IMAP4 = OpenedIMAP4_SSL(
                account.host, account.port, opener=self._opener, ssl_context=self._context(), timeout=account.timeout
            )
        else:
            client = OpenedIMAP4(account.host, account.port, opener=self._opener, timeout=account.timeout)
        try:
            # imaplib sends a literal's closing CRLF as a write of its own, which Nagle's
            # algorithm holds for a delayed ACK: ~40 ms per APPEND or literal search.
            client.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if not account.use_ssl and account.starttls:
                self.stage = "tls"
                if "STARTTLS" not in client.capabilities:
                    # Never fall back to plain text: the password would travel in the clear.
                    raise ConnectorError(
                        f"The mail server at {account.where} doesn't offer an encrypted connection (STARTTLS), "
                        "so I didn't log in.",
                        detail="STARTTLS not advertised",
                    )
                client.starttls(ssl_context=self._context())
        except BaseException:
            with contextlib.suppress(Exception):  # a failed TLS handshake leaves a broken socket
                client.shutdown()
            raise
        return client

    def _login(self) -> None:
        client, account = self.client, self.account
        user, password = account.username, account.password.get_secret_value()
        if "LOGINDISABLED" in self.capabilities:
            raise ConnectorAuthError(
                f"The mail server at {account.where} refuses logins on an unencrypted connection; "
                "turn on SSL in the mail settings.",
                detail="LOGINDISABLED",
            )
        if account.oauth:
            client.authenticate("XOAUTH2", lambda _: f"user={user}\x01auth=Bearer {password}\x01\x01".encode())
        elif user.isascii() and password.isascii():
            client.login(quote(user), password)
        elif "AUTH=PLAIN" in self.capabilities:
            # LOGIN only carries ASCII; SASL PLAIN carries UTF-8.
            client.authenticate("PLAIN", lambda _: f"\0{user}\0{password}".encode())
        else:
            raise ConnectorAuthError(
                "Your mail username or password contains non-ASCII characters, which this mail server can't accept.",
                detail="non-ASCII credentials without AUTH=PLAIN",
            )

    def _close(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        # The work is done (or already failed); a rude goodbye changes nothing.
        with contextlib.suppress(Exception):
            if client.state != "LOGOUT":
                client.logout()
        with contextlib.suppress(Exception):
            client.shutdown()

    def _ok(self, doing: str, result: tuple[str, list[Any]]) -> list[Any]:
        typ, data = result
        if typ != "OK":
            raise ConnectorRejected(f"The mail server refused to {doing}.", detail=self._scrub(_text(data)))
        return data

    def _call(self, stage: str, action: Callable[[], T]) -> T:
        self.stage = stage
        failure: ConnectorError
        try:
            return action()
        except ConnectorError:
            raise
        # imaplib raises its own errors, OSError and, on junk, ValueError or UnicodeError:
        # every one of them must become a plain ConnectorError.
        except Exception as exc:
            failure = self._translate(exc)
        raise failure

    def _translate(self, exc: Exception) -> ConnectorError:
        where = self.account.where
        stage = self.stage
        detail = self._scrub(f"{type(exc).__name__} during {stage}: {exc}")
        if isinstance(exc, ImapProtocolError):
            return ConnectorUnavailable(f"The mail server at {where} answered in a way I couldn't understand.", detail=detail)
        if isinstance(exc, ssl.SSLCertVerificationError):
            return ConnectorError(f"I couldn't verify the certificate of the mail server at {where}.", detail=detail)
        if isinstance(exc, ssl.SSLError):
            return ConnectorUnavailable(f"I couldn't set up an encrypted connection to {where}.", detail=detail)
        if isinstance(exc, TimeoutError):
            return ConnectorUnavailable(f"The mail server at {where} stopped answering.", detail=detail)
        if isinstance(exc, OSError) and stage == "connect":
            return ConnectorUnavailable(f"I couldn't reach the mail server at {where}.", detail=detail)
        if isinstance(exc, imaplib.IMAP4.error) and stage in ("connect", "tls") and "EOF" not in str(exc):
            return ConnectorUnavailable(f"The mail server at {where} didn't answer like a mail server.", detail=detail)
        if isinstance(exc, imaplib.IMAP4.readonly):
            return ConnectorRejected("That folder is read-only, so I can't change anything in it.", detail=detail)
        if isinstance(exc, (imaplib.IMAP4.abort, OSError)):
            return ConnectorUnavailable(f"The connection to the mail server at {where} broke off.", detail=detail)
        if isinstance(exc, imaplib.IMAP4.error):
            if stage == "login":
                if "UNAVAILABLE" in str(exc).upper():
                    return ConnectorUnavailable(f"The mail server at {where} can't log you in right now.", detail=detail)
                return ConnectorAuthError(f"The mail server at {where} rejected the username or password.", detail=detail)
            return ConnectorRejected(f"The mail server at {where} didn't accept my request ({stage}).", detail=detail)
        return ConnectorUnavailable(f"The mail server at {where} answered in a way I couldn't understand.", detail=detail)

    def _scrub(self, text: str) -> str:
        password = self.account.password.get_secret_value()
        return text.replace(password, "***") if password else text


def _text(data: list[Any]) -> str:
    parts = [p.decode("utf-8", "replace") if isinstance(p, bytes) else str(p) for p in data if p is not None]
    return " ".join(parts)[:500]
